"""The ``lossrec`` command line.

Each subcommand lives in its own module and registers itself on :data:`main`; a new one
(``script``, ``sweep``, ``reproduce``, ``wire``) is a module here plus one import below.
"""

from __future__ import annotations

from .common import main

# Subcommands register themselves on import.
from . import run as _run  # noqa: F401,E402
from . import presets as _presets  # noqa: F401,E402
from . import bench as _bench  # noqa: F401,E402
from . import script as _script  # noqa: F401,E402
from . import sweep as _sweep  # noqa: F401,E402
from . import reproduce as _reproduce  # noqa: F401,E402
from . import wire as _wire  # noqa: F401,E402

__all__ = ["main"]

"""The ``lossrec`` command line.

Each subcommand lives in its own module and registers itself on :data:`main`; the group
imports a module only when its subcommand runs (:class:`~.common.LazyGroup`), so a new
subcommand is a module here plus one entry in :data:`~.common.SUBCOMMANDS`.
"""

from __future__ import annotations

from .common import SUBCOMMANDS, main

__all__ = ["main", "SUBCOMMANDS"]

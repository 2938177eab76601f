"""The arms of the rtor study: engine presets named after seed 002's arms."""

from __future__ import annotations

from typing import List

import lossrec

#: preset → the seed's arm name.
NAMES = {"linux-3.17": "baseline", "linux-3.17-rtor": "RTOR", "linux-3.17-tlp": "TLP"}
ORDER = ["baseline", "RTOR", "TLP"]
#: Swept only when none of the arms' presets exists, so that the study still runs (its
#: claims then say which engine value is missing); never an arm.
FALLBACK = "linux-classic"


def available() -> List[str]:
    """The arms' presets the engine has, in the seed's order."""
    have = {p.name for p in lossrec.presets()}
    return [p for p in NAMES if p in have]


def missing() -> List[str]:
    return [p for p in NAMES if p not in available()]

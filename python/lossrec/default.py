"""The scenario ``lossrec run`` runs when given no file: a tail loss, under every preset."""

from __future__ import annotations

from typing import Any, Dict

DESCRIPTION = (
    "One 10-segment flow over 10 Mb/s with a 100 ms RTT; its last data segment is lost "
    "once (a tail loss), so only a probe or a timeout can repair it."
)


def scenario(preset: str = "rfc") -> Dict[str, Any]:
    """The default scenario (see ``DESCRIPTION``) with its sender under ``preset``."""
    return {
        "seed": 1,
        "path": {"rate_mbps": 10, "rtt_ms": 100, "loss": {"model": "tail", "count": 1}},
        "sender": {"preset": preset},
        "workload": {"kind": "flows", "flows": 1, "segments": 10},
    }

"""The scenario ``lossrec run`` runs when given no file: a tail loss, under every preset."""

from __future__ import annotations

from typing import Any, Dict

DESCRIPTION = (
    "One 10-segment flow over 10 Mb/s with a 100 ms RTT; the last data segment is lost "
    "once (a tail loss), so only a probe or a timeout can repair it."
)


def scenario(preset: str) -> Dict[str, Any]:
    """The default scenario with its one flow under ``preset``."""
    # TODO(sim): keep in step with the simulator's scenario schema.
    return {
        "seed": 1,
        "path": {"rate_mbps": 10, "rtt_ms": 100},
        "flows": [
            {
                "preset": preset,
                "workload": "segments",
                "segments": 10,
                "drop_tail": 1,
            }
        ],
    }

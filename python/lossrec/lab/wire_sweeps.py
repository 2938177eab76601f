"""Sweeps through the real wire (:func:`lossrec.wire`): each point of a sweep runs with the
engine's sender and with Linux's, one after the other on the same emulated path, and —
for reference — in the simulator. One row per (point, repetition, side), ``side`` being
``engine`` (the engine on the wire), ``kernel`` (Linux's sender on the wire) or ``sim``
(the simulator), with every flow field of the first flow.

Wire runs take real time (a flow at RTT 640 ms takes seconds), and run one at a time:
two at once would share the machine's CPU and timers.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import pandas as pd

from ..api import run as sim_run
from ..scenario import ScenarioLike
from ..realwire import wire
from .sweeps import point_scenario

#: The sides a wire sweep runs, in row order.
SIDES = ("engine", "kernel", "sim")


def wire_sweep(scenario: ScenarioLike, params: Optional[Mapping[str, Sequence[Any]]] = None,
               reps: int = 1, receiver: str = "linux", close: str = "after-ack",
               progress: Optional[Callable[[str], None]] = None) -> pd.DataFrame:
    """Runs every point of ``params`` (dotted key → values, cartesian product) × ``reps``
    through the wire with both senders, and in the simulator; see the module doc."""
    params = dict(params or {})
    keys = list(params)
    rows: List[Dict[str, Any]] = []
    combos = list(itertools.product(*(params[k] for k in keys))) or [()]
    for combo in combos:
        overrides = dict(zip(keys, combo))
        text = point_scenario(scenario, overrides)
        for rep in range(reps):
            if progress is not None:
                progress(f"wire {overrides} rep {rep}")
            for side in SIDES:
                if side == "sim":
                    r = sim_run(text)
                    extra: Dict[str, Any] = {}
                else:
                    got = wire(text, sender="engine" if side == "engine" else "linux",
                               receiver=receiver, close=close)
                    assert not isinstance(got, dict)
                    r = got
                    extra = {"timer_p99_us": r.json["timer_lateness"]["p99_us"],
                             "not_applied": ";".join(
                                 (r.json["kernel"].get("sender") or {}).get("not_applied", []))}
                flow = r.json["flows"][0]
                rows.append({**overrides, "rep": rep, "side": side, **flow, **extra})
    df = pd.DataFrame(rows)
    df.attrs["sweep"] = {"scenarios": len(combos) * reps}
    return df

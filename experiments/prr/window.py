"""prr: the receiver-window model, chosen by a rule written down, with both models'
verdicts side by side (issue 25 item 4).

The simulator's receiver has two window models (``receiver.window_model``): ``fixed``
(the window never limits the sender) and ``linux`` (Linux's initial 64 KiB window, its
growth and autotuning, and a right edge held while a segment is missing). The prr
workloads first ran ``linux`` (the simulator's default); commit c016901 switched them to
``fixed`` after seeing that the default "had turned six web/video claims". A model chosen
after its verdicts cannot be signed, so :data:`RULE` states the choice from the seed
alone, and every statistics claim is judged again under the other model and shown beside
(:func:`section`). Only the chosen model's verdicts count and are frozen.

The other model's runs are the same sweeps (same seeds, same repetitions) with
``receiver.window_model`` set; their rows carry the workload label with :data:`TAG`
appended (``web@rwnd-linux``), so nothing that reads ``workload == "web"`` sees them.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict, List

import pandas as pd

#: The model the claims are judged with, and the one shown beside it.
CHOSEN, OTHER = "fixed", "linux"
#: Appended to the other model's workload labels.
TAG = "@rwnd-linux"
#: The workloads run under both models (the per-ACK examples are RFC 6937's own setting).
WORKLOADS = ("web", "video", "er")

RULE = (
    "**The rule** (written 2026-11-29, from the seed alone; the verdicts under both models "
    "are shown below because the first choice was made after seeing verdicts): a study's "
    "receivers follow the receivers its seed measured. Where the seed names their stack, "
    "that stack's window model is used (seed 002's end-hosts ran Linux 3.17, the kernel study "
    "runs Linux itself: `linux`). Seed 003 measured Google's servers, the senders, serving "
    "Internet clients of 2011 (DC1: South America and the US east coast; DC2: YouTube "
    "viewers in India); it names no receiver stack and nowhere says a receive window "
    "limited a sender — its Algorithm 1, its per-ACK examples and RFC 6937 §3 let cwnd and "
    "pipe alone decide what is sent. So the receiver is one that never limits the sender: "
    f"`{CHOSEN}`. The Linux receiver's model (`{OTHER}`) would add a limit the seed does not "
    "describe (a 64 KiB initial window and a right edge held during repair), which falls "
    "hardest on RFC 3517's and PRR's sending in recovery.")


def _tagged(sweep: Any) -> Any:
    """``sweep`` under the other model: same scenario, seeds and repetitions."""
    wl = sweep.labels["workload"]
    return dataclasses.replace(
        sweep, params={**sweep.params, "receiver.window_model": [OTHER]},
        labels={**sweep.labels, "workload": f"{wl}{TAG}"})


def sweeps(chosen: List[Any]) -> List[Any]:
    """The other model's copies of the statistics sweeps among ``chosen``."""
    return [_tagged(s) for s in chosen if s.labels.get("workload") in WORKLOADS]


def _relabel(frame: Any) -> Any:
    """The other model's rows under the chosen model's workload names (and only those)."""
    if frame is None or "workload" not in frame:
        return frame
    wl = frame["workload"].astype(str)
    mine = frame[wl.str.endswith(TAG)].copy()
    mine["workload"] = mine["workload"].astype(str).str[: -len(TAG)]
    return mine


def other_verdicts(df: pd.DataFrame, ctx: Any, judge: Any) -> List[Any]:
    """The statistics claims judged by ``judge(df, ctx)`` on the other model's runs."""
    from lossrec.lab import frozen

    alt = _relabel(df)
    if alt is None or alt.empty:
        return []
    octx = dataclasses.replace(ctx, cache={}, recoveries=_relabel(ctx.recoveries))
    return frozen.apply_published(ctx.study.claims_published, judge(alt, octx))


def section(chosen: List[Any], other: List[Any]) -> str:
    """The rule, then each statistics claim's verdict under both models."""
    from lossrec.lab.report import table

    lines = [RULE, ""]
    if not other:
        return "\n".join(lines + [f"The `{OTHER}` model's runs are not in this run."])
    theirs: Dict[str, Any] = {v.claim: v for v in other}
    rows, moved = [], 0
    for v in chosen:
        o = theirs.get(v.claim)
        if o is None:
            continue
        moved += o.verdict != v.verdict
        rows.append([f"**{v.claim}**", v.verdict, o.verdict,
                     "moves" if o.verdict != v.verdict else "", o.ours])
    lines += [f"**{moved} of {len(rows)}** statistics verdicts differ between the models "
              f"(only `{CHOSEN}`'s count and are frozen).", "",
              table(["claim", f"`{CHOSEN}` (chosen)", f"`{OTHER}`", "", f"ours under `{OTHER}`"],
                    rows)]
    return "\n".join(lines)

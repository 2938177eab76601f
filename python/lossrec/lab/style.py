"""Figure style for reproductions: plain line charts like the seeds' own.

The seeds draw results as simple line plots with markers, one line per arm, a light grid,
the legend inside the axes and axis labels with units — FCT (ms) against RTT (ms) or the
tail-loss degree in seed 002, for example. Arms with delayed ACKs are named ``ARM(d)`` as
there, and drawn dashed in the colour of their quick-ACK twin.
"""

from __future__ import annotations

from typing import Any, Dict, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

PALETTE = ("tab:blue", "tab:red", "tab:green", "tab:orange", "tab:purple", "tab:brown",
           "tab:pink", "tab:gray")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")

RC: Dict[str, Any] = {
    "font.size": 10,
    "axes.grid": True,
    "grid.alpha": 0.35,
    "grid.linestyle": ":",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "lines.linewidth": 1.6,
    "lines.markersize": 5,
    "svg.hashsalt": "lossrec",  # stable SVG ids: identical data gives identical files
}


def figure(size: Tuple[float, float] = (6.4, 4.0)) -> Tuple[Any, Any]:
    """A new figure and axes in the lab style."""
    with plt.rc_context(RC):  # type: ignore[arg-type]
        fig, ax = plt.subplots(figsize=size, constrained_layout=True)
    ax.grid(True, alpha=RC["grid.alpha"], linestyle=RC["grid.linestyle"])
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def arm_style(index: int, delayed: bool = False) -> Dict[str, Any]:
    """Colour and marker of arm ``index``; its delayed-ACK twin is dashed, hollow."""
    c = PALETTE[index % len(PALETTE)]
    s: Dict[str, Any] = {"color": c, "marker": MARKERS[index % len(MARKERS)]}
    if delayed:
        s.update(linestyle="--", markerfacecolor="white")
    return s


def legend(ax: Any, **kw: Any) -> None:
    kw.setdefault("fontsize", 9)
    ax.legend(frameon=False, **kw)


def log_x_ticks(ax: Any, ticks: Sequence[float]) -> None:
    """A log x axis labelled at exactly ``ticks`` (e.g. the swept RTTs)."""
    ax.set_xscale("log")
    ax.set_xticks(list(ticks))
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.minorticks_off()


def finish_panels(fig: Any, axes: Any, handles: Dict[str, Any], title: str) -> Any:
    """Finishes a column of time-sequence panels: x label, one legend outside the first
    panel, the title, a tight layout that leaves the legend room."""
    import warnings

    axes[-1, 0].set_xlabel("time (ms)")
    axes[0, 0].legend(list(handles.values()), list(handles.keys()), fontsize=7,
                      loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    fig.suptitle(title, fontsize=10)
    with warnings.catch_warnings():  # long titles beside an outside legend: best effort
        warnings.simplefilter("ignore", UserWarning)
        fig.tight_layout()
    fig.subplots_adjust(right=0.85)  # room for the legend beside the first panel
    return fig

"""spurious-rto: seed 004 — responding to spurious timeouts (Gurtov & Ludwig).

(a) one download alone on a 2 Mb/s, 400 ms path with periodic delay spikes: Eifel vs
standard; (b) the same path shared with CBR: Reno-SACK, NewReno-SACK, FACK × std/eifel;
(c) FACK + Eifel with the undo variants Full, Partial, None, New partial; (d) FACK + Eifel
with the RTO adaptations Std, Reseed, Back-off, Min++. Spurious and genuine RTOs are the
simulator's ground truth, read from a traced run of each point.
"""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np
import pandas as pd

import lossrec
from lossrec.lab import Sweep, Verdict, style
from lossrec.lab.significance import Diff, Need, difference, judge_difference, pooled, relative_mean

from . import gprs
from . import newpartial

TITLE = "Responding to spurious timeouts: Eifel, undo variants and RTO adaptation"
SEED = "004"
SUMMARY = """
Seed 004 asks how a TCP sender should respond once it knows a timeout was spurious (a
delay spike, not a loss). In ns-2, over a 2 Mb/s, 400 ms RTT bottleneck with periodic
delay spikes, it compares Reno-SACK, NewReno-SACK and FACK with and without Eifel
detection, alone and against CBR traffic; then FACK's undo variants (Full, Partial,
None, New partial) and RTO adaptations (Std, Reseed, Back-off, Min++), as normalized
bars of download time, segments sent, spurious RTOs and genuine RTOs. This study runs
the same comparisons with the engine's `reno-sack`, `newreno-sack`, `fack` presets and
their `-eifel` twins, and the `spurious_response` and `rto_adaptation` axes on
`fack-eifel`.
"""
NOTES = """
* **Path**: 2 Mb/s, 400 ms RTT, a 50-packet drop-tail buffer, an initial window of 2
  (ns-2 era), no handshake, ACK every segment, timestamps on (Eifel needs them). Delay
  spikes stall both directions for `extra_ms` every 12 s (10 s with CBR) from a phase
  `start_ms`; the phase is swept in place of repetitions (nothing else is random): 12
  phases, 0.8 s apart, and every comparison of arms is paired by phase with its 95 %
  interval (a difference inside it is *not significant*); the bars carry the interval.
* **Downloads**: 1 MB alone, 3 MB against a 0.8 Mb/s CBR stream of 1000-byte packets (the
  simulator's `[[background]] kind = "cbr"`), which takes 40 % of the link and makes the
  download lose packets to congestion as well.
* **Spurious vs genuine RTOs** are counted from the trace, whatever the sender could
  detect: an RTO is genuine when the last transmission of the segment at snd_una was
  dropped, spurious otherwise (it was only delayed). The standard arms cannot detect
  anything, so their `spurious_rtos` counter is 0; the ground truth applies to all arms.
* **Normalization**: as in the seed's bars, each metric is divided by its largest value
  among the bars of its chart, so the largest bar of each metric is 1.
* **Undo variants** are `spurious_response` = `full-undo`, `partial`, `none`,
  `new-partial` on `fack-eifel`; **RTO adaptations** are `rto_adaptation` = `std`,
  `reseed`, `backoff`, `min-plus` on `fack-eifel` (full undo).
* **New partial vs Partial** (`newpartial.py`) pairs part (c)'s runs by spike phase.
* **GPRS reselections** (`gprs.py`, gprs.toml): stalls drawn per spike from 3-15 s
  (`extra_max_ms`, from the run's seed), every 20 s from 2 s, a 3 MB download alone on
  the study's path; `fack` vs `fack-eifel`, traced for the ground truth (spurious and
  genuine RTOs, bytes received twice); 2 seeds (8 in the full run).
"""

VARIANTS = ["reno-sack", "newreno-sack", "fack"]
LABEL = {"reno-sack": "Reno-SACK", "newreno-sack": "NewReno-SACK", "fack": "FACK"}
UNDO = {"full-undo": "Full", "partial": "Partial", "none": "None", "new-partial": "New partial"}
ADAPT = {"std": "Std", "reseed": "Reseed", "backoff": "Back-off", "min-plus": "Min++"}
METRICS = [("fct_ms", "Download Time"), ("data_packets_sent", "Segments Sent"),
           ("spurious", "Spurious RTOs"), ("genuine", "Genuine RTOs")]
NEEDED = VARIANTS + [f"{v}-eifel" for v in VARIANTS]


def _have() -> List[str]:
    names = {p.name for p in lossrec.presets()}
    return [p for p in NEEDED if p in names]


def _axes_ok() -> bool:
    """Whether the engine knows the response and adaptation axes."""
    p = {x.name: x for x in lossrec.presets()}.get("rfc")
    return p is not None and "spurious_response" in p.axes and "rto_adaptation" in p.axes


#: The spike phases (ms), the study's repetitions: nothing else is random, so the spread
#: over the phase is the noise a comparison must beat. 12 in full (was 4: too few for an
#: interval), in quick too.
PHASES_FULL = [500 + 800 * i for i in range(12)]
PHASES_QUICK = PHASES_FULL  # cheap enough (~10 s): quick cuts the spike lengths of (a) only
PAIR = "path.delay_spikes.start_ms"


def sweeps(quick: bool) -> List[Sweep]:
    phases = PHASES_QUICK if quick else PHASES_FULL
    extras = [3000] if quick else [2000, 3000, 5000, 8000]
    have = _have() or ["rfc"]
    ph = {"path.delay_spikes.start_ms": phases}
    out = [
        Sweep("spikes.toml", {"sender.preset": have, "path.delay_spikes.extra_ms": extras, **ph},
              labels={"part": "a"}),
        Sweep("cbr.toml", {"sender.preset": have, **ph}, labels={"part": "b"}),
    ]
    if "fack-eifel" in have and _axes_ok():
        out.append(Sweep("cbr.toml", {"sender.preset": ["fack-eifel"],
                                      "sender.spurious_response": list(UNDO), **ph},
                         labels={"part": "c"}))
        out.append(Sweep("cbr.toml", {"sender.preset": ["fack-eifel"],
                                      "sender.rto_adaptation": list(ADAPT), **ph},
                         labels={"part": "d"}))
    return out


def _rto_truth(scenario: str, sets: Dict[str, Any]) -> Tuple[int, int]:
    """(spurious, genuine) RTOs of one traced point: genuine when the last transmission of
    the segment at snd_una had been dropped."""
    recs = lossrec.run(lossrec.point_scenario(scenario, sets), trace=True).trace_records
    return gprs.rto_truth(recs)


SWEPT = ["sender.preset", "path.delay_spikes.extra_ms", "path.delay_spikes.start_ms",
         "sender.spurious_response", "sender.rto_adaptation"]


def prepare(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for r in df.itertuples(index=False):
        d = r._asdict()
        sc = "spikes.toml" if d["part"] == "a" else "cbr.toml"
        sets = {}
        for i, k in enumerate(SWEPT):
            v = getattr(r, f"_{list(df.columns).index(k)}") if k in df.columns else None
            if v is not None and not (isinstance(v, float) and np.isnan(v)):
                sets[k] = int(v) if isinstance(v, float) else v
        rows.append(_rto_truth(str(_DIR / sc), sets))
    df["spurious"] = [s for s, _ in rows]
    df["genuine"] = [g for _, g in rows]
    df["arm"] = df["sender.preset"].astype(str)
    return df


from pathlib import Path

_DIR = Path(__file__).parent


def _diff(df: pd.DataFrame, part: str, by: str, a: str, b: str, value: str,
          **sel: Any) -> Diff:
    """value(a) − value(b) in ``part``, paired by spike phase (the study's repetitions)."""
    d = df[df["part"] == part]
    for k, v in sel.items():
        d = d[d[k] == v]
    x = d[d[by] == a].groupby(PAIR)[value].mean()
    y = d[d[by] == b].groupby(PAIR)[value].mean()
    common = x.index.intersection(y.index)
    return difference(x.loc[common].to_numpy(), y.loc[common].to_numpy(), paired=True)


def _gain(df: pd.DataFrame, variant: str, extra_ms: int) -> Diff:
    """Eifel's gain in percent at one (variant, spike length): (mean FCT of the standard arm
    / mean FCT of the Eifel arm − 1) · 100, bootstrapped over the spike phases (the
    study's repetitions, paired: a phase's two arms stay together)."""
    d = df[(df["part"] == "a") & (df["path.delay_spikes.extra_ms"] == extra_ms)]
    x = d[d["arm"] == variant].groupby(PAIR)["fct_ms"].mean()
    y = d[d["arm"] == f"{variant}-eifel"].groupby(PAIR)["fct_ms"].mean()
    common = x.index.intersection(y.index)
    return pooled([np.array([x[k]]) for k in common], [np.array([y[k]]) for k in common],
                  relative_mean)


def _no_worse(df: pd.DataFrame, part: str, a: str, b: str, col: str, margin_pct: float) -> Need:
    """``col(a) − col(b) ≤ margin``, the margin ``margin_pct`` % of arm b's mean."""
    d = df[df["part"] == part]
    base = float(d[d["arm"] == b][col].mean()) if col in d else 0.0
    return Need(_diff(df, part, "arm", a, b, col), "<=", abs(base) * margin_pct / 100.0)


def _events(df: pd.DataFrame, part: str, col: str, rows: Any = None) -> int:
    """How many events (``spurious`` / ``genuine`` RTOs) part ``part``'s runs saw."""
    d = df[df["part"] == part]
    if rows is not None:
        d = d[rows.reindex(d.index, fill_value=False)]
    return int(d[col].sum()) if col in d else 0


def _means(df: pd.DataFrame, part: str, by: str) -> pd.DataFrame:
    d = df[df["part"] == part]
    if d.empty or by not in d:
        return pd.DataFrame()
    return d.groupby(by, observed=True)[[m for m, _ in METRICS]].mean()


def _half_widths(df: pd.DataFrame, part: str, by: str) -> pd.DataFrame:
    """Half the 95 % interval of each metric's mean over the spike phases, per arm."""
    d = df[df["part"] == part]
    if d.empty or by not in d:
        return pd.DataFrame()
    s = lossrec.summarize(d, by, [m for m, _ in METRICS])
    s["half"] = (s["ci_high"] - s["ci_low"]) / 2
    return s.pivot(index=by, columns="metric", values="half")


def _bars(m: pd.DataFrame, order: List[str], names: Dict[str, str], title: str,
          half: Any = None) -> Any:
    fig, ax = style.figure((7.2, 3.8))
    order = [o for o in order if o in m.index]
    scale = m.loc[order].max().replace(0, np.nan)
    norm = m.loc[order] / scale
    w = 0.8 / max(len(order), 1)
    for i, o in enumerate(order):
        err = None
        if half is not None and o in half.index:
            err = (half.loc[o, [k for k, _ in METRICS]] / scale).fillna(0).to_numpy()
        ax.bar(np.arange(len(METRICS)) + (i - (len(order) - 1) / 2) * w,
               norm.loc[o].fillna(0).to_numpy(), w, label=names.get(o, o),
               color=style.PALETTE[i % len(style.PALETTE)], yerr=err, capsize=2,
               error_kw={"elinewidth": 0.8})
    ax.set_xticks(range(len(METRICS)), [t for _, t in METRICS])
    ax.set_ylabel("Normalized")
    ax.set_ylim(0, 1.5)
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        style.legend(ax, loc="upper center", ncol=3, fontsize=7)
    return fig


def fig_a(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    d = df[df["part"] == "a"]
    fig, ax = style.figure()
    for i, v in enumerate(VARIANTS):
        for eifel in (False, True):
            a = d[d["arm"] == (f"{v}-eifel" if eifel else v)]
            if a.empty:
                continue
            s = lossrec.summarize(a, "path.delay_spikes.extra_ms", ["fct_ms"]).sort_values(
                "path.delay_spikes.extra_ms")
            x = s["path.delay_spikes.extra_ms"].to_numpy() / 1000
            st = style.arm_style(i, eifel)
            ax.plot(x, s["mean"].to_numpy() / 1000, label=LABEL[v] + (" eifel" if eifel else " std"), **st)
            ax.fill_between(x, s["ci_low"].to_numpy() / 1000, s["ci_high"].to_numpy() / 1000,
                            color=st.get("color"), alpha=0.12, linewidth=0)
    ax.set_xlabel("delay spike length (s)")
    ax.set_ylabel("download time of 1 MB (s)")
    ax.set_title("Alone on a 2 Mb/s, 400 ms path with periodic delay spikes")
    if ax.get_legend_handles_labels()[0]:
        style.legend(ax, loc="upper left")
    return fig, ("(a) Download time against the spike length, standard (solid) vs Eifel (dashed); "
                 "bands: 95 % interval of the mean over the spike phases")


def fig_b(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    m = _means(df, "b", "arm")
    order = [a for v in VARIANTS for a in (v, f"{v}-eifel")]
    names = {a: LABEL[a.replace("-eifel", "")] + (" eifel" if a.endswith("eifel") else " std")
             for a in order}
    return (_bars(m, order, names, "TCPs with CBR (seed 004 slide 12)", _half_widths(df, "b", "arm")),
            "(b) Normalized download time, segments sent, spurious and genuine RTOs with CBR; "
            "error bars: 95 % interval over the spike phases")


def fig_c(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    m = _means(df, "c", "sender.spurious_response")
    return (_bars(m, list(UNDO), UNDO, "Undo of congestion control: FACK with CBR (slide 13)",
                  _half_widths(df, "c", "sender.spurious_response")),
            "(c) FACK + Eifel with the undo variants, normalized; error bars: 95 % interval over the spike phases")


def fig_d(df: pd.DataFrame, ctx: Any) -> Tuple[Any, str]:
    m = _means(df, "d", "sender.rto_adaptation")
    return (_bars(m, list(ADAPT), ADAPT, "Adapting the RTO: FACK with CBR (slide 14)",
                  _half_widths(df, "d", "sender.rto_adaptation")),
            "(d) FACK + Eifel with the RTO adaptations, normalized; error bars: 95 % interval over the spike phases")


FIGURES = {"a-alone": fig_a, "b-cbr": fig_b, "c-undo": fig_c, "d-rto": fig_d,
           "c-new-partial": newpartial.figure, "gprs-variable-spikes": gprs.figure}


def _nc(ids: List[str], why: str) -> List[Verdict]:
    return [Verdict.not_comparable(i, why) for i in ids]


def claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    return (_claims(df, published, ctx) + newpartial.claims(df, published)
            + gprs.claims(df, published, ctx))


def _claims(df: pd.DataFrame, published: Dict[str, Dict[str, Any]], ctx: Any) -> List[Verdict]:
    out: List[Verdict] = []
    missing = [p for p in NEEDED if p not in _have()]
    if missing:
        out += _nc(["a_eifel_gain", "b_eifel_no_harm", "b_newreno_robust"],
                   f"engine value missing: preset {', '.join(missing)}")
    else:
        c = published["a_eifel_gain"]
        d = df[df["part"] == "a"]
        gains = {}
        for v in VARIANTS:
            s = d[d["arm"] == v].groupby("path.delay_spikes.extra_ms")["fct_ms"].mean()
            e = d[d["arm"] == f"{v}-eifel"].groupby("path.delay_spikes.extra_ms")["fct_ms"].mean()
            for x in s.index:
                gains[(v, int(x))] = (s[x] / e[x] - 1) * 100
        best = max(gains, key=gains.get)
        ok = all(g > 0 for g in gains.values()) and c["lo_pct"] <= gains[best] <= c["hi_pct"]
        # Eifel must be faster at every (variant, spike length): std − Eifel download time > 0.
        diffs = [(_diff(df, "a", "arm", v, f"{v}-eifel", "fct_ms", **{"path.delay_spikes.extra_ms": x}), ">")
                 for v, x in gains]
        # the magnitude: the best gain's own interval against [lo_pct, hi_pct]
        best_gain = _gain(df, best[0], best[1])
        out.append(judge_difference(
            "a_eifel_gain", ok,
            f"max gain {gains[best]:.0f} % ({LABEL[best[0]]}, {best[1] / 1000:g} s spikes); range "
            f"{min(gains.values()):.0f}–{max(gains.values()):.0f} % (shown: the best case's "
            f"standard − Eifel download time in ms, then its gain in %)",
            "Eifel undoes the spurious timeout: no go-back-N retransmission of the window "
            "in flight and no halved ssthresh; our 1 MB download over few spikes gains less "
            "than the seed's longer high-BDP runs" if not ok else
            "Eifel avoids the go-back-N and the slow start after every spike",
            signs=diffs, show=[diffs[list(gains).index(best)][0], best_gain],
            expect=[(best_gain, c["lo_pct"], c["hi_pct"])],
            events=_events(df, "a", "spurious", d["arm"].isin(VARIANTS)), min_events=c["min_events"]))
        m = _means(df, "b", "arm")
        bad = [v for v in VARIANTS
               if m.loc[f"{v}-eifel", "genuine"] > m.loc[v, "genuine"]
               or m.loc[f"{v}-eifel", "data_packets_sent"] > m.loc[v, "data_packets_sent"]]
        # "no more": Eifel − std ≤ 0 for genuine RTOs and segments, per variant, by phase.
        no_more = [_no_worse(df, "b", f"{v}-eifel", v, col, published["b_eifel_no_harm"]["margin_pct"])
                   for v in VARIANTS for col in ("genuine", "data_packets_sent")]
        ours = "; ".join(f"{LABEL[v]}: genuine {m.loc[v, 'genuine']:.2f}→{m.loc[f'{v}-eifel', 'genuine']:.2f}, "
                         f"sent {m.loc[v, 'data_packets_sent']:.0f}→{m.loc[f'{v}-eifel', 'data_packets_sent']:.0f}"
                         for v in VARIANTS)
        out.append(judge_difference("b_eifel_no_harm", not bad, ours,
                                    "Eifel changes only the response to timeouts it proves spurious"
                                    if not bad else f"worse for {', '.join(bad)}", signs=no_more,
                                    show=[n.diff for n in no_more if n.diff.mean > 0],
                                    events=_events(df, "b", "genuine"),
                                    min_events=published["b_eifel_no_harm"]["min_events"]))
        g = {v: m.loc[v, "genuine"] for v in VARIANTS}
        ok = g["newreno-sack"] <= g["reno-sack"] and g["fack"] <= g["reno-sack"]
        robust = [_no_worse(df, "b", v, "reno-sack", "genuine", published["b_newreno_robust"]["margin_pct"])
                  for v in ("newreno-sack", "fack")]
        out.append(judge_difference("b_newreno_robust", ok,
                                    ", ".join(f"{LABEL[v]} {g[v]:.2f}" for v in VARIANTS) + " genuine RTOs",
                                    "SACK-based recovery repairs the CBR's congestion losses without "
                                    "timeouts in every variant" if ok else "Reno-SACK has fewer",
                                    signs=robust, events=_events(df, "b", "genuine"),
                                    min_events=published["b_newreno_robust"]["min_events"]))
    c_ids, d_ids = ["c_full_ok", "c_partial_idle"], ["d_fewer_spurious", "d_slightly_slower"]
    if "fack-eifel" in missing or not _axes_ok():
        why = "engine value missing: " + ("preset fack-eifel" if "fack-eifel" in missing
                                          else "axes spurious_response / rto_adaptation")
        return out + _nc(c_ids + d_ids, why)
    m = _means(df, "c", "sender.spurious_response")["fct_ms"]
    slack = published["c_full_ok"]["slack_pct"]
    others = min(m[k] for k in UNDO if k != "full-undo")
    ours = ", ".join(f"{UNDO[k]} {m[k] / 1000:.2f} s" for k in UNDO)
    n_c = _events(df, "c", "spurious")
    out.append(judge_difference("c_full_ok", m["full-undo"] <= others * (1 + slack / 100), ours,
                                "download times with CBR per undo variant",
                                signs=[Need(_diff(df, "c", "sender.spurious_response", "full-undo", k, "fct_ms"),
                                            "<=", m[k] * slack / 100)
                                       for k in UNDO if k != "full-undo"], unit="ms", events=n_c,
                                min_events=published["c_full_ok"]["min_events"]))
    dp = _diff(df, "c", "sender.spurious_response", "partial", "full-undo", "fct_ms")
    out.append(judge_difference("c_partial_idle", m["partial"] > m["full-undo"], ours,
                                "Partial leaves cwnd below the flight after the undo: the sender "
                                "waits" if m["partial"] > m["full-undo"] else
                                "Partial is not slower than Full here", signs=[(dp, ">")], unit="ms",
                                events=n_c, min_events=published["c_partial_idle"]["min_events"]))
    m = _means(df, "d", "sender.rto_adaptation")
    c = published["d_fewer_spurious"]
    cut = {k: (1 - m.loc[k, "spurious"] / m.loc["std", "spurious"]) * 100
           if m.loc["std", "spurious"] > 0 else float("nan") for k in ("backoff", "min-plus")}
    ok = all(c["lo_pct"] <= x <= c["hi_pct"] for x in cut.values())
    ds = [(_diff(df, "d", "sender.rto_adaptation", "std", k, "spurious"), ">") for k in ("backoff", "min-plus")]
    n_events = int(df[(df["part"] == "d") & (df["sender.rto_adaptation"] == "std")]["spurious"].sum())
    out.append(judge_difference("d_fewer_spurious", ok,
                             "spurious RTOs " + ", ".join(f"{ADAPT[k]} {m.loc[k, 'spurious']:.2f}" for k in ADAPT)
                             + "; cut: " + ", ".join(f"{ADAPT[k]} {v:.0f} %" for k, v in cut.items()),
                                "a larger timer after a spurious timeout outlasts the next spike"
                                if ok else "the cut is outside the rule's range", signs=ds,
                                events=n_events, min_events=c["min_events"]))
    s = published["d_slightly_slower"]["slack_pct"]
    ratio = {k: m.loc[k, "fct_ms"] / m.loc["std", "fct_ms"] for k in ("backoff", "min-plus")}
    ok = all(0.98 <= x <= 1 + s / 100 for x in ratio.values())
    # "slightly": each arm's download time within slack_pct of Std's, beyond the noise
    tol = s / 100 * float(m.loc["std", "fct_ms"])
    out.append(judge_difference("d_slightly_slower", ok,
                                ", ".join(f"{ADAPT[k]}/Std download time {v:.3f}" for k, v in ratio.items()),
                                "a longer timer also delays the recovery of genuine losses",
                                same=[(_diff(df, "d", "sender.rto_adaptation", k, "std", "fct_ms"), tol)
                                      for k in ("backoff", "min-plus")], unit="ms", events=n_events,
                                min_events=published["d_slightly_slower"]["min_events"]))
    return out


def sections(df: pd.DataFrame, ctx: Any) -> List[Tuple[str, str]]:
    out = []
    for part, by, names in (("b", "arm", None), ("c", "sender.spurious_response", UNDO),
                            ("d", "sender.rto_adaptation", ADAPT)):
        m = _means(df, part, by)
        if m.empty:
            continue
        lines = ["| arm | download time (s) | segments sent | spurious RTOs | genuine RTOs |",
                 "|---|---|---|---|---|"]
        for k, r in m.iterrows():
            lines.append(f"| {(names or {}).get(k, k)} | {r['fct_ms'] / 1000:.2f} | "
                         f"{r['data_packets_sent']:.0f} | {r['spurious']:.2f} | {r['genuine']:.2f} |")
        out.append((f"({part}) means over the spike phases, before normalization", "\n".join(lines)))
    return out

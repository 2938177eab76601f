"""``lossrec run``: one scenario file, or the built-in tail-loss demo under every preset."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

import click

from .. import api, default
from ..outputs import check_new_files
from ..result import Result
from ..sets import parse_sets
from ..table import render, render_columns
from ..trace_io import check_trace_path, open_write
from ..html.cli import html_check, html_default, html_run
from . import complete
from .common import handle_errors, main

#: Columns of the per-preset table of the default run: (header, flow field).
DEFAULT_COLUMNS: Sequence[Tuple[str, str]] = (
    ("fct_ms", "fct_ms"),
    ("data packets", "data_packets_sent"),
    ("retransmits", "retransmits"),
    ("fast recoveries", "fast_recoveries"),
    ("TLP probes", "tlp_probes"),
    ("RTOs", "rtos"),
    ("final cwnd", "final_cwnd"),
)

#: Columns of the flow table of a scenario run.
FLOW_COLUMNS: Sequence[Tuple[str, str]] = (
    ("flow", "id"),
    ("preset", "preset"),
    ("bytes", "bytes"),
    ("fct_ms", "fct_ms"),
    ("data pkts", "data_packets_sent"),
    ("rexmits", "retransmits"),
    ("fast rec", "fast_recoveries"),
    ("RTOs", "rtos"),
    ("spurious", "spurious_rtos"),
    ("TLPs", "tlp_probes"),
    ("undos", "undos"),
    ("cwnd", "final_cwnd"),
)


def _suffixed(path: Path, tag: str) -> Path:
    """``out.pcap`` → ``out-<tag>.pcap``: one file per preset of the default run."""
    return path.with_name(f"{path.stem}-{tag}{path.suffix}")


def _note(msg: str) -> None:
    click.echo(msg, err=True)


@main.command("run")
@click.argument("scenario", required=False, metavar="[SCENARIO.toml|-]")
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), help="Override the scenario's seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON instead of a table.")
@click.option("--trace", "trace_path", metavar="FILE.jsonl|FILE.jsonl.zst|-",
              help="Stream the JSON-lines trace of every packet and engine event to FILE (- for "
                   "stdout); FILE.jsonl.zst writes the same lines zstd-compressed (lossrec.read_trace "
                   "and lossrec plot read both).")
@click.option("--pcap", "pcap_path", metavar="FILE.pcap|-",
              help="Stream a pcap of both directions captured at the sender (one file per preset "
                   "for the default run).")
@click.option("--pcap-snaplen", "pcap_snaplen", type=click.IntRange(1, 262_144), metavar="N",
              help="Keep the first N bytes of each packet in --pcap and --pcap-receiver "
                   "(tcpdump -s N; 94 keeps the Ethernet, IPv4 and TCP headers with options).")
@click.option("--pcap-receiver", "pcap_rx_path", metavar="FILE.pcap|-",
              help="Stream a pcap captured at the receiver (Wireshark's spurious-retransmission "
                   "analysis needs this side).")
@click.option("--plot", "plot_path", metavar="FILE.png|FILE.svg",
              help="Draw a time-sequence graph, with state panels (cwnd, ssthresh, pipe, SRTT, RTO).")
@click.option("--html", "html_path", metavar="FILE.html",
              help="Write one self-contained interactive page: zoomable time-sequence graphs "
                   "(click a packet for its why and the engine state), state panels, results.")
@click.option("--flows", "plot_flows", metavar="IDS",
              help="--plot, --html: these flows (e.g. 0,3,7 or 0:9); default: up to 4, spread over the run.")
@click.option("--window", "plot_window", metavar="START:END",
              help="--plot, --html: only this time window, in seconds (e.g. 0.5:2, or 10: for the rest).")
@click.option("--overlay", is_flag=True,
              help="--plot of the default run: every preset in one panel (seed 001 slide 6 style).")
@click.option("--preset", metavar="NAME", shell_complete=complete.presets,
              help="Default run: only this preset. With a scenario: run its sender under this "
                   "preset (the file's other [sender] axes still apply).")
@click.option("--set", "sets", metavar="KEY=VALUE", multiple=True, shell_complete=complete.set_keys,
              help="Set a scenario key (repeatable), e.g. --set path.rtt_ms=40, "
                   "--set path.loss.packets=[2,3]; a bare axis means sender.<axis> "
                   "(--set min_rto_ms=200). Values use TOML's grammar.")
@click.option("--force", is_flag=True,
              help="Overwrite existing --trace/--pcap/--pcap-receiver/--plot/--html files (refused otherwise).")
@handle_errors
def run_cmd(
    scenario: Optional[str],
    seed: Optional[int],
    as_json: bool,
    trace_path: Optional[str],
    pcap_path: Optional[str],
    pcap_snaplen: Optional[int],
    pcap_rx_path: Optional[str],
    plot_path: Optional[str],
    html_path: Optional[str],
    plot_flows: Optional[str],
    plot_window: Optional[str],
    overlay: bool,
    preset: Optional[str],
    sets: Sequence[str],
    force: bool,
) -> None:
    """Run SCENARIO.toml (- reads stdin), or without one, a tail loss under every preset.

    \b
    The default run: one 10-segment flow, 10 Mb/s, 100 ms RTT, whose last segment is
    lost once, under each preset side by side; then what each family of presets buys:
    the same flow with a tail loss of 1 and 3 segments at 20 and 200 ms RTT, presets
    alike in all four cases in one row, and why any two rows still tie. --json prints one object of the same
    shape for every run: {"seed", "flows": [...], "recoveries": [...], "sim": {...},
    "provenance": {"lossrec", "commit", "scenario_sha256", "seeds"}} (the default run's
    flows carry their preset). The trace and captures stream to their files as the run
    goes, so memory stays flat however long the run; - writes one to stdout (the table
    then goes to stderr). An existing output file is refused unless --force.
    """
    if preset is not None:
        api.check_preset(preset)
    check_trace_path(trace_path)  # before any run: a bad suffix costs no simulation
    overrides = parse_sets(sets, single=True)
    if "sender.preset" in overrides:
        raise ValueError("--set preset=...: choose the preset with --preset NAME")
    to_stdout = "-" in (trace_path, pcap_path, pcap_rx_path)
    echo = (lambda m: click.echo(m, err=True)) if to_stdout else click.echo
    plot_kw = _plot_options(plot_flows, plot_window)
    if plot_path is not None:
        from ..plot import check_output

        check_output(plot_path)  # before the run, not after it
    if html_path is not None:
        html_check(html_path, force, trace_path)
    if overlay:
        if scenario is not None or plot_path is None:
            raise ValueError("--overlay: draws the default run's presets (no scenario) in one "
                             "--plot panel; for runs of scenarios use `lossrec plot A.jsonl "
                             "B.jsonl --overlay`")
        plot_kw["overlay"] = True

    if scenario is None:
        names = [preset] if preset else api.preset_names()
        pcaps = [pcap_path] if pcap_path in (None, "-") or len(names) == 1 else \
            [str(_suffixed(Path(pcap_path), n)) for n in names]
        check_new_files([trace_path, plot_path, *pcaps], force, "lossrec run")
        runs: Dict[str, Result] = {}
        for name in names:
            runs[name] = api.run(default.scenario(name), seed=seed,
                                 trace=trace_path is not None or plot_path is not None
                                 or html_path is not None,
                                 pcap=pcap_path is not None, sets=overrides,
                                 pcap_snaplen=pcap_snaplen)
        _write_default_outputs(runs, trace_path, pcap_path, plot_path, plot_kw)
        if html_path is not None:
            _note(f"wrote {html_default(html_path, runs, DEFAULT_COLUMNS, plot_kw, force)}")
        if pcap_rx_path is not None:
            raise ValueError("--pcap-receiver needs a scenario file (the default run has several presets)")
        if as_json:
            echo(json.dumps(api.merge(runs), indent=2))
        else:
            echo(default.DESCRIPTION)
            echo("")
            rows = []
            for name, r in runs.items():
                flow = r.json["flows"][0] if r.json.get("flows") else {}
                rows.append([name] + [flow.get(k) for _, k in DEFAULT_COLUMNS])
            echo(render(["preset"] + [h for h, _ in DEFAULT_COLUMNS], rows))
            if not preset:
                echo("")
                echo(default.family_table(default.family_runs(seed=seed)))
        return

    if plot_path is not None:
        if trace_path == "-":
            raise ValueError("--plot cannot read back a trace written to stdout; give --trace a file")
    check_new_files([plot_path], force, "--plot")
    # A plot or a page reads the trace back from a file (the plot as a stream, memory flat
    # in the run's length): without --trace, from a temporary one.
    drawn = plot_path is not None or html_path is not None
    with tempfile.TemporaryDirectory(prefix="lossrec-plot-") as tmp:
        plot_trace = trace_path if trace_path is not None else str(Path(tmp) / "trace.jsonl")
        want_trace: Any = plot_trace if drawn else trace_path
        r = api.run(scenario, seed=seed, trace=want_trace, pcap=pcap_path, preset=preset,
                    sets=overrides, pcap_receiver=pcap_rx_path, force=force,
                    pcap_snaplen=pcap_snaplen, pretty=as_json)
        if plot_path is not None:
            from .. import plot

            plot.time_sequence(Path(plot_trace), plot_path, title=str(scenario), **plot_kw)
            _note(f"wrote {plot_path}")
        if html_path is not None:
            _note(f"wrote {html_run(html_path, Path(plot_trace), r.json, str(scenario), FLOW_COLUMNS, plot_kw, force)}")
        if trace_path is None and drawn:
            # The temporary trace is no output of this run: --json does not name it.
            _forget_trace(r, keep_outputs=pcap_path is not None or pcap_rx_path is not None)
    outs = r.meta.get("outputs", {})
    if trace_path not in (None, "-"):
        _note(f"wrote {trace_path} ({outs.get('trace_lines', 0):,} records)")
    if pcap_path not in (None, "-"):
        _note(f"wrote {pcap_path} ({outs.get('pcap_records', 0):,} packets)")
    if pcap_rx_path not in (None, "-"):
        _note(f"wrote {pcap_rx_path} ({outs.get('pcap_receiver_records', 0):,} packets)")
    if as_json:
        # JSON holds no raw escape character (it escapes control characters), so click
        # need not scan a long text for ANSI codes to strip (color=True).
        click.echo(r.json_text(), err=to_stdout, color=True)
    else:
        # The table's text is numbers and preset names: nothing to strip either.
        click.echo(_flow_table(r), err=to_stdout, color=True)


def _forget_trace(r: Result, keep_outputs: bool) -> None:
    outs = r.meta.get("outputs")
    if isinstance(outs, dict):
        if keep_outputs:
            outs.pop("trace", None)
            outs.pop("trace_lines", None)
        else:
            r.meta.pop("outputs")


def _plot_options(flows: Optional[str], window: Optional[str]) -> Dict[str, Any]:
    """``--flows`` and ``--window`` as :func:`lossrec.plot.time_sequence` arguments
    (parsed by :mod:`lossrec.plot_state`, which does not import matplotlib: a run
    without --plot must not pay for it)."""
    from ..plot_state import parse_flows, parse_window

    kw: Dict[str, Any] = {}
    if flows is not None:
        kw["flows"] = parse_flows(flows)
    if window is not None:
        kw["window"] = parse_window(window)
    return kw


def _flow_table(r: Result) -> str:
    """The flows, column by column from the run's buffers (render_columns: the same text
    as render, in milliseconds for 100,000 flows)."""
    head = f"{origin_line(r)}"
    cols = [r.flow_column(k) for _, k in FLOW_COLUMNS]
    return head + "\n\n" + render_columns([h for h, _ in FLOW_COLUMNS], cols, align_left=2)


def origin_line(r: Result) -> str:
    s = r.sim
    parts = [f"seed {r.seed}", f"{r.n_flows} flow(s)",
             f"{int(r.flow_column('data_packets_sent').sum()):,} data packets"]
    if "events" in s:
        parts.append(f"{s['events']:,} events")
    if "wall_s" in s:
        w = s["wall_s"]
        parts.append(f"{w:.2f} s wall" if w >= 1 else f"{w * 1000:.2f} ms wall")
    return ", ".join(parts)


def _write_default_outputs(
    runs: Dict[str, Result],
    trace_path: Optional[str],
    pcap_path: Optional[str],
    plot_path: Optional[str],
    plot_kw: Dict[str, Any],
) -> None:
    if trace_path is not None:
        # One file; every record tagged with the preset it came from.
        import sys

        n = 0
        f = sys.stdout if trace_path == "-" else open_write(trace_path)
        try:
            for name, r in runs.items():
                for rec in r.trace_records:
                    f.write(json.dumps({**rec, "preset": name}, separators=(",", ":")) + "\n")
                    n += 1
        finally:
            if f is not sys.stdout:
                f.close()
        if trace_path != "-":
            _note(f"wrote {trace_path} ({n:,} records)")
    if pcap_path is not None:
        import sys

        for name, r in runs.items():
            if pcap_path == "-":
                if len(runs) > 1:
                    raise ValueError("--pcap -: one preset only (add --preset NAME)")
                sys.stdout.buffer.write(r.pcap)
                sys.stdout.flush()
                continue
            p = Path(pcap_path) if len(runs) == 1 else _suffixed(Path(pcap_path), name)
            r.write_pcap(p)
            _note(f"wrote {p} ({len(r.pcap):,} bytes)")
    if plot_path is not None:
        from .. import plot

        plot.time_sequence(
            {name: r.trace_records for name, r in runs.items()},
            plot_path,
            title=default.DESCRIPTION,
            # One panel per preset: the sequence graphs side by side, no state panels.
            **{"state": len(runs) <= 4, **plot_kw},
        )
        _note(f"wrote {plot_path}")

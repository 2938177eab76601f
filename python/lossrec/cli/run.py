"""``lossrec run``: one scenario file, or the built-in tail-loss demo under every preset."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import click

from .. import api, default
from ..result import Result
from ..scenario import parse_set
from ..table import render
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
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--seed", type=click.IntRange(min=0, max=2**64 - 1), help="Override the scenario's seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON instead of a table.")
@click.option("--trace", "trace_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.jsonl", help="Write the JSON-lines trace of every packet and engine event.")
@click.option("--pcap", "pcap_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.pcap", help="Write a pcap of both directions (one file per preset for the default run).")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, path_type=Path),
              metavar="FILE.png", help="Draw a time-sequence graph (PNG, or SVG by suffix).")
@click.option("--preset", metavar="NAME",
              help="Default run: only this preset. With a scenario: run its sender under this "
                   "preset (the file's other [sender] axes still apply).")
@click.option("--set", "sets", metavar="AXIS=VALUE", multiple=True,
              help="Set one sender axis on top of the preset (repeatable), e.g. --set min_rto_ms=200. "
                   "`lossrec presets` lists the axes.")
@handle_errors
def run_cmd(
    scenario: Optional[Path],
    seed: Optional[int],
    as_json: bool,
    trace_path: Optional[Path],
    pcap_path: Optional[Path],
    plot_path: Optional[Path],
    preset: Optional[str],
    sets: Sequence[str],
) -> None:
    """Run SCENARIO.toml, or without one, a tail loss under every preset.

    \b
    The default run: one 10-segment flow, 10 Mb/s, 100 ms RTT, whose last segment is
    lost once, under each preset side by side. Its --json output is an object keyed by
    preset name whose values are each run's JSON object.
    Its --trace file holds every preset's records, each with a "preset" field, and
    --pcap writes FILE-<preset>.pcap per preset. With a scenario, --json prints that
    run's JSON object: {"seed", "flows": [...], "sim": {"events", "wall_s"}}.
    """
    if preset is not None:
        api.check_preset(preset)
    sender = dict(parse_set(item) for item in sets)
    want_trace = trace_path is not None or plot_path is not None
    want_pcap = pcap_path is not None

    if scenario is None:
        names = [preset] if preset else api.preset_names()
        runs: Dict[str, Result] = {}
        for name in names:
            runs[name] = api.run(default.scenario(name), seed=seed, trace=want_trace,
                                 pcap=want_pcap, sender=sender)
        _write_default_outputs(runs, trace_path, pcap_path, plot_path)
        if as_json:
            click.echo(json.dumps({n: r.json for n, r in runs.items()}, indent=2))
        else:
            click.echo(default.DESCRIPTION)
            click.echo()
            rows = []
            for name, r in runs.items():
                flow = r.json["flows"][0] if r.json.get("flows") else {}
                rows.append([name] + [flow.get(k) for _, k in DEFAULT_COLUMNS])
            click.echo(render(["preset"] + [h for h, _ in DEFAULT_COLUMNS], rows))
        return

    r = api.run(scenario, seed=seed, trace=want_trace, pcap=want_pcap, preset=preset, sender=sender)
    if trace_path is not None:
        r.write_trace(trace_path)
        _note(f"wrote {trace_path} ({len(r.trace_records):,} records)")
    if pcap_path is not None:
        r.write_pcap(pcap_path)
        _note(f"wrote {pcap_path} ({len(r.pcap):,} bytes)")
    if plot_path is not None:
        from .. import plot

        plot.time_sequence(r.trace_records, plot_path, title=str(scenario))
        _note(f"wrote {plot_path}")
    if as_json:
        click.echo(json.dumps(r.json, indent=2))
    else:
        click.echo(_flow_table(r))


def _flow_table(r: Result) -> str:
    flows: List[Dict[str, Any]] = r.json.get("flows", [])
    rows = [[f.get(k) for _, k in FLOW_COLUMNS] for f in flows]
    head = f"{origin_line(r)}"
    return head + "\n\n" + render([h for h, _ in FLOW_COLUMNS], rows, align_left=2)


def origin_line(r: Result) -> str:
    s = r.sim
    flows = r.json.get("flows", [])
    parts = [f"seed {r.seed}", f"{len(flows)} flow(s)",
             f"{sum(f.get('data_packets_sent', 0) for f in flows):,} data packets"]
    if "events" in s:
        parts.append(f"{s['events']:,} events")
    if "wall_s" in s:
        w = s["wall_s"]
        parts.append(f"{w:.2f} s wall" if w >= 1 else f"{w * 1000:.2f} ms wall")
    return ", ".join(parts)


def _write_default_outputs(
    runs: Dict[str, Result],
    trace_path: Optional[Path],
    pcap_path: Optional[Path],
    plot_path: Optional[Path],
) -> None:
    if trace_path is not None:
        # One file; every record tagged with the preset it came from.
        n = 0
        with open(trace_path, "w", encoding="utf-8") as f:
            for name, r in runs.items():
                for rec in r.trace_records:
                    f.write(json.dumps({**rec, "preset": name}, separators=(",", ":")) + "\n")
                    n += 1
        _note(f"wrote {trace_path} ({n:,} records)")
    if pcap_path is not None:
        for name, r in runs.items():
            p = pcap_path if len(runs) == 1 else _suffixed(pcap_path, name)
            r.write_pcap(p)
            _note(f"wrote {p} ({len(r.pcap):,} bytes)")
    if plot_path is not None:
        from .. import plot

        plot.time_sequence(
            {name: r.trace_records for name, r in runs.items()},
            plot_path,
            title=default.DESCRIPTION,
        )
        _note(f"wrote {plot_path}")

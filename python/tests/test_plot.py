"""The time-sequence plot on a synthetic trace."""

from __future__ import annotations

import re

import matplotlib.image as mpimg
import pandas as pd

from lossrec import plot

MSS = 1448


def send(t_ms, i, why="new", flow=0):
    return {"t_us": int(t_ms * 1000), "flow": flow, "kind": "send", "seq": [i * MSS, (i + 1) * MSS], "why": why}


def ack(t_ms, cum, sack=(), dsack=None, flow=0):
    return {"t_us": int(t_ms * 1000), "flow": flow, "kind": "ack", "ack": cum * MSS,
            "sack": [[s * MSS, e * MSS] for s, e in sack], "dsack": dsack}


def synthetic(flow=0):
    """10 segments, segment 3 and the tail (9) lost; a fast retransmit, a probe, an RTO."""
    recs = [{"t_us": 0, "flow": flow, "kind": "send", "seq": [0, 0], "why": "syn"},
            {"t_us": 100_000, "flow": flow, "kind": "send", "seq": [0, 0], "why": "handshake_ack"}]
    recs += [send(100 + i, i, flow=flow) for i in range(10)]
    recs.append({"t_us": 150_000, "flow": flow, "kind": "drop", "dir": "data", "seq": [3 * MSS, 4 * MSS]})
    recs.append({"t_us": 155_000, "flow": flow, "kind": "drop", "dir": "data", "seq": [9 * MSS, 10 * MSS]})
    recs += [{"t_us": 150_000 + 1000 * i, "flow": flow, "kind": "recv", "seq": [i * MSS, (i + 1) * MSS]}
             for i in (0, 1, 2, 4, 5, 6, 7, 8)]
    recs += [ack(200 + i, min(i + 1, 3), sack=[(4, i + 1)] if i >= 4 else (), flow=flow)
             for i in (0, 1, 2, 4, 5, 6, 7, 8)]
    recs.append({"t_us": 208_000, "flow": flow, "kind": "event", "name": "enter_recovery", "pipe": 5})
    recs.append(send(208, 3, "fast_retransmit", flow=flow))
    recs.append(ack(310, 9, flow=flow))
    recs.append({"t_us": 310_000, "flow": flow, "kind": "event", "name": "exit_recovery"})
    recs.append(send(500, 9, "probe_retransmit", flow=flow))
    recs.append({"t_us": 520_000, "flow": flow, "kind": "drop", "dir": "ack", "ack": 10 * MSS})
    recs.append({"t_us": 1_500_000, "flow": flow, "kind": "event", "name": "rto", "rto_ms": 1000})
    recs.append(send(1500, 9, "rto", flow=flow))
    recs.append(ack(1600, 10, dsack=[9 * MSS, 10 * MSS], flow=flow))
    return recs


def _pixels(path):
    img = mpimg.imread(path)
    assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 400
    return img[..., :3]


def test_png_is_written_and_non_trivial(tmp_path):
    out = plot.time_sequence(synthetic(), tmp_path / "ts.png", title="synthetic")
    assert out == tmp_path / "ts.png"
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000
    px = _pixels(out)
    assert px.std() > 0.05  # not a blank canvas
    # Retransmissions are red: some strongly red pixels exist.
    red = (px[..., 0] > 0.9) & (px[..., 1] < 0.2) & (px[..., 2] < 0.2)
    assert red.sum() > 20
    # The cumulative ACK is green (tab:green ≈ (0.17, 0.63, 0.17)).
    green = (px[..., 1] > 0.5) & (px[..., 0] < 0.3) & (px[..., 2] < 0.3)
    assert green.sum() > 20


def test_legend_handles_cover_every_kind():
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    handles = plot.draw_flow(ax, synthetic())
    plt.close(fig)
    assert set(handles) >= {"sent", "retransmitted", "loss probe", "cumulative ACK", "SACKed",
                            "DSACK", "data dropped", "ACK dropped", "engine event", "handshake",
                            "received"}


def test_one_panel_per_flow_and_per_trace(tmp_path):
    two_flows = synthetic(0) + synthetic(1)
    assert [t for t, _ in plot._panels(two_flows, 4)] == ["flow 0", "flow 1"]
    assert [t for t, _ in plot._panels({"rfc": synthetic(), "linux-classic": synthetic()}, 4)] == \
        ["rfc", "linux-classic"]
    many = sum((synthetic(i) for i in range(6)), [])
    assert len(plot._panels(many, 4)) == 4
    out = plot.time_sequence({"rfc": synthetic(), "linux-classic": synthetic()}, tmp_path / "two.png")
    h1 = _pixels(out).shape[0]
    h2 = _pixels(plot.time_sequence(synthetic(), tmp_path / "one.png")).shape[0]
    assert h1 > 1.5 * h2


def test_svg_by_suffix(tmp_path):
    out = plot.time_sequence(synthetic(), tmp_path / "ts.svg")
    text = out.read_text()
    assert "<svg" in text and "enter_recovery" in text


def test_dataframe_input_and_empty_trace(tmp_path):
    df = pd.DataFrame(synthetic())
    out = plot.time_sequence(df, tmp_path / "df.png")
    assert out.stat().st_size > 20_000
    empty = plot.time_sequence([], tmp_path / "empty.png")
    assert empty.stat().st_size > 1000


def test_many_events_are_not_all_labelled(tmp_path):
    recs = synthetic() + [{"t_us": 2_000_000 + i * 1000, "flow": 0, "kind": "event", "name": "rto"}
                          for i in range(200)]
    text = plot.time_sequence(recs, tmp_path / "many.svg").read_text()
    labels = re.findall(r"<!-- +(?:rto|enter_recovery|exit_recovery) -->", text)
    assert 3 <= len(labels) <= plot.MAX_EVENT_LABELS


def test_flow_and_window_selection(tmp_path, capsys):
    many = sum((synthetic(i) for i in range(100)), [])
    # Spread over the run, not the first four, and said so.
    assert [t for t, _ in plot._panels(many, 4)] == ["flow 0", "flow 33", "flow 66", "flow 99"]
    plot.time_sequence(many, tmp_path / "m.png")
    assert "showing flows 0, 33, 66, 99 of 100" in capsys.readouterr().err
    assert [t for t, _ in plot._panels(many, 4, flows=[7, 42])] == ["flow 7", "flow 42"]
    recs = plot._panels(synthetic(), 4, window=(0.15, 0.25))[0][1]
    assert recs and all(150_000 <= r["t_us"] <= 250_000 for r in recs)
    assert plot.parse_flows("0,3,5:7") == [0, 3, 5, 6, 7]
    assert plot.parse_window("0.5:") == (0.5, float("inf"))
    import pytest

    with pytest.raises(ValueError, match="no flow 500"):
        plot._panels(many, 4, flows=[500])
    with pytest.raises(ValueError, match="START:END"):
        plot.parse_window("2:1")


def _with_state(recs):
    out = []
    for r in recs:
        r = dict(r)
        if r["kind"] == "ack":
            r.update(cwnd=14480, pipe=2896, ssthresh=None, srtt_us=100_000, rttvar_us=50_000,
                     rto_us=1_000_000, rwnd=65535)
        out.append(r)
    return out


def test_state_panel_and_overlay(tmp_path):
    with_state = plot.time_sequence(_with_state(synthetic()), tmp_path / "s.svg")
    text = with_state.read_text()
    for label in ("cwnd", "pipe", "SRTT (ms)", "RTO (ms)", "receive window"):
        assert label in text, label
    bare = plot.time_sequence(synthetic(), tmp_path / "b.svg", state=False).read_text()
    assert "SRTT (ms)" not in bare
    two = {"A": _with_state(synthetic()), "B": _with_state(synthetic())}
    over = plot.time_sequence(two, tmp_path / "o.png", overlay=True)
    stacked = plot.time_sequence(two, tmp_path / "st.png")
    # One panel for both runs: shorter than two stacked panels.
    assert _pixels(over).shape[0] < 0.8 * _pixels(stacked).shape[0]


def test_cdf_and_summary_from_a_sweeps_results(tmp_path, cli):
    rows = [{"sender.preset": p, "fct_ms": float(i * (2 if p == "b" else 1)), "rep": i}
            for p in ("a", "b") for i in range(1, 41)]
    csv = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    for kind in ("cdf", "summary"):
        out = tmp_path / f"{kind}.svg"
        r = cli("plot", str(csv), "--by", "sender.preset", "--kind", kind, "-o", str(out))
        assert r.code == 0, r.stderr
        text = out.read_text()
        assert "sender.preset=a (n=40)" in text and "sender.preset=b (n=40)" in text
    r = cli("plot", str(csv), "--by", "sender.presets", "-o", str(tmp_path / "x.png"))
    assert r.code == 2 and "did you mean 'sender.preset'" in r.stderr


def test_every_trace_of_a_mapping_gets_a_panel(tmp_path):
    # The default run's plot: every preset, not the first four; two columns when many.
    traces = {f"preset{i}": synthetic() for i in range(10)}
    assert [t for t, _ in plot._panels(traces, 4)] == list(traces)
    wide = _pixels(plot.time_sequence(traces, tmp_path / "ten.png", state=False))
    narrow = _pixels(plot.time_sequence(synthetic(), tmp_path / "one.png", state=False))
    assert wide.shape[1] > 1.4 * narrow.shape[1]


def test_plot_to_stdout(tmp_path):
    # `-o -` writes the PNG to stdout, as every other output of lossrec takes `-`.
    import subprocess
    import sys

    rows = [{"sender.preset": "a", "fct_ms": float(i), "rep": i} for i in range(1, 21)]
    csv = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    p = subprocess.run([sys.executable, "-m", "lossrec", "plot", str(csv), "-o", "-"],
                       capture_output=True, cwd=tmp_path, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith(b"\x89PNG"), p.stdout[:20]
    assert not (tmp_path / "-").exists()


def test_run_overlays_the_default_runs_presets(tmp_path, cli):
    # `lossrec run --plot --overlay`: the presets of the default run in one panel.
    one = tmp_path / "one.png"
    r = cli("run", "--plot", str(one), "--overlay")
    assert r.code == 0, r.stderr
    stacked = tmp_path / "stacked.png"
    assert cli("run", "--plot", str(stacked)).code == 0
    assert _pixels(one).shape[0] < 0.8 * _pixels(stacked).shape[0]
    from pathlib import Path

    tail = Path(__file__).resolve().parents[2] / "experiments" / "examples" / "tail-loss.toml"
    r = cli("run", str(tail), "--plot", str(one), "--overlay")
    assert r.code == 2 and "--overlay" in r.stderr


def test_state_panel_is_fed_by_the_events_that_carry_state():
    # An RTO collapses cwnd and backs the timer off between two ACKs: the panel must show
    # it at the timeout (experiments/examples/delay-spikes.toml, preset linux).
    from lossrec import plot_state

    recs = _with_state(synthetic())
    recs.append({"t_us": 1_500_000, "flow": 0, "kind": "event", "name": "rto", "snd_una": 9 * MSS,
                 "backoff": 1, "rto_us": 1_269_000, "cwnd": MSS, "ssthresh": 7240})
    recs.append({"t_us": 1_550_000, "flow": 0, "kind": "event", "name": "undo", "cwnd": 14480,
                 "ssthresh": 20000})
    s = plot_state._state_series(sorted(recs, key=lambda r: r["t_us"]))
    assert (1500.0, float(MSS)) in zip(*s["cwnd"])
    assert (1500.0, 1269.0) in zip(*s["rto_us"])
    assert (1550.0, 20000.0) in zip(*s["ssthresh"])


def test_a_state_panel_without_state_says_why(tmp_path):
    # Linux's sender on the wire: sends classified by sequence, ACKs without state, no
    # engine events.
    bare = [r for r in synthetic() if r["kind"] != "event"]
    recs = [dict(r, why="retransmission") if r.get("why") not in (None, "new", "syn", "handshake_ack")
            else r for r in bare]
    text = plot.time_sequence(recs, tmp_path / "linux.svg").read_text()
    assert "sender, seen on the wire" in text  # "Linux's", the apostrophe escaped
    text = plot.time_sequence(bare, tmp_path / "none.svg").read_text()
    assert "no sender state in this trace" in text


def test_byte_and_time_ticks_have_si_prefixes(tmp_path):
    text = plot.time_sequence(_with_state(synthetic()), tmp_path / "ticks.svg").read_text()
    labels = re.findall(r"<!-- ([^<>]*) -->", text)
    assert any(re.fullmatch(r"\d+(\.\d+)? kB", x) for x in labels), labels
    assert any(re.fullmatch(r"\d+(\.\d+)? ms", x) for x in labels), labels
    assert not any(re.fullmatch(r"\d{4,}", x) for x in labels), labels


def test_output_suffix_picks_the_format_or_is_refused(tmp_path):
    import pytest

    jpg = plot.time_sequence(synthetic(), tmp_path / "x.jpg")
    assert jpg.read_bytes()[:2] == b"\xff\xd8"  # a JPEG, not a PNG named .jpg
    for bad in ("x.xyz", "x"):
        with pytest.raises(ValueError, match=r"\.png, .*\.svg"):
            plot.time_sequence(synthetic(), tmp_path / bad)
        assert not (tmp_path / bad).exists()


def test_run_refuses_an_unknown_plot_suffix_before_running(tmp_path, cli):
    r = cli("run", "--plot", str(tmp_path / "x.xyz"))
    assert r.code == 2 and "supported" not in r.stdout and ".png" in r.stderr, r.stderr


def test_overlay_of_many_traces_has_distinct_colours(tmp_path):
    from lossrec import plot_state

    colours = plot_state.overlay_colors(21)
    assert len(set(colours)) == 21
    traces = {f"preset{i}": _with_state(synthetic()) for i in range(21)}
    px = _pixels(plot.time_sequence(traces, tmp_path / "o21.png", overlay=True))
    assert px.shape[1] > 1400  # the legend's columns beside the panel, not over it


def test_cdf_axis_is_log_when_values_span_decades(tmp_path, cli):
    from lossrec.plot_results import log_scale

    assert log_scale([100.0, 250.0, 1300.0, 30_000.0])
    assert not log_scale([100.0, 250.0, 1300.0])
    assert not log_scale([0.0, 250.0, 30_000.0])
    assert log_scale([1.0, 2.0], "log") and not log_scale([1.0, 1e6], "linear")
    rows = [{"p": p, "fct_ms": float(v)} for p in "ab" for v in (120, 130, 150, 1300, 3200, 25_000)]
    csv = tmp_path / "r.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    out = tmp_path / "cdf.svg"
    assert cli("plot", str(csv), "--by", "p", "-o", str(out)).code == 0
    assert "fct_ms (log scale)" in out.read_text()
    lin = tmp_path / "cdf-linear.svg"
    assert cli("plot", str(csv), "--by", "p", "--xscale", "linear", "-o", str(lin)).code == 0
    assert "log scale" not in lin.read_text()


def _bulk_trace(path, segments):
    """A JSON-lines trace of one flow sending ``segments`` segments, each ACKed, with a
    loss every 1000 segments."""
    with open(path, "w") as f:
        for i in range(segments):
            t = 1000 + i * 80
            f.write(f'{{"t_us":{t},"flow":0,"kind":"send","seq":[{i * MSS},{(i + 1) * MSS}],"why":"new"}}\n')
            if i % 1000 == 999:
                f.write(f'{{"t_us":{t + 40},"flow":0,"kind":"drop","dir":"data","seq":[{i * MSS},{(i + 1) * MSS}],'
                        f'"cause":"loss"}}\n')
            f.write(f'{{"t_us":{t + 50_000},"flow":0,"kind":"ack","ack":{(i + 1) * MSS},"sack":[],"dsack":null,'
                    f'"cwnd":{(10 + i % 500) * MSS},"pipe":{MSS * 10},"ssthresh":null,"state":"open",'
                    f'"srtt_us":50000,"rttvar_us":1000,"rto_us":200000,"rwnd":65535}}\n')


def test_plot_memory_is_flat_in_the_trace_length(tmp_path):
    import tracemalloc

    from lossrec import plot_data

    peaks = []
    for n in (20_000, 80_000):
        trace = tmp_path / f"bulk{n}.jsonl"
        _bulk_trace(trace, n)
        tracemalloc.start()
        data = plot_data.reduce(trace)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        d = data[0]
        # Every send is drawn: the bins cover the stream without a gap.
        ts, lo, hi = d.spans("new")
        assert min(lo) == 0 and max(hi) == n * MSS
        assert len(ts) <= plot_data.BINS
        # The sawtooth's extremes survive the reduction.
        assert max(d.series("cwnd")[1]) == 509 * MSS and min(d.series("cwnd")[1]) == 10 * MSS
    # Four times the trace, about the same memory (the reduced bins, not the records).
    assert peaks[1] < 1.3 * peaks[0] + 2_000_000, peaks
    assert peaks[1] < 40_000_000, peaks
    out = plot.time_sequence(tmp_path / "bulk80000.jsonl", tmp_path / "bulk.png")
    assert _pixels(out).std() > 0.05


def test_run_plot_streams_through_a_temporary_trace_it_does_not_report(tmp_path, cli):
    import json
    from pathlib import Path

    tail = Path(__file__).resolve().parents[2] / "experiments" / "examples" / "tail-loss.toml"
    r = cli("run", str(tail), "--plot", str(tmp_path / "t.png"), "--json")
    assert r.code == 0, r.stderr
    assert "trace" not in (json.loads(r.stdout).get("outputs") or {})
    assert _pixels(tmp_path / "t.png").std() > 0.05

"""The interactive HTML pages (issue 28): ``lossrec run --html`` and reproduce's
report.html / index.html — self-contained, no overwrite without --force, thinned when
large, and in headless Chromium the graph renders and a click shows a packet's why."""

from __future__ import annotations

import io
from html.parser import HTMLParser
from pathlib import Path
from typing import List, Tuple

import pytest

import lossrec
from lossrec.html import report_page
from lossrec.html.trace_model import GRID, build

from headless import Browser, chromium, install_hint, wait_for

ROOT = Path(__file__).resolve().parents[2]
TAIL = ROOT / "experiments" / "examples" / "tail-loss.toml"


class _Refs(HTMLParser):
    """Every src/href of an element (script bodies are not parsed as markup)."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: List[Tuple[str, str]] = []

    def handle_starttag(self, tag, attrs):
        self.refs += [(tag, v or "") for k, v in attrs if k in ("src", "href")]


def external_refs(text: str) -> List[Tuple[str, str]]:
    p = _Refs()
    p.feed(text)
    return [(t, v) for t, v in p.refs if v.startswith(("http:", "https:", "//"))]


@pytest.fixture(scope="module")
def tail_page(tmp_path_factory) -> Path:
    from click.testing import CliRunner

    from lossrec.cli import main

    out = tmp_path_factory.mktemp("html") / "tail.html"
    r = CliRunner().invoke(main, ["run", str(TAIL), "--html", str(out)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return out


def test_run_html_is_one_self_contained_file(tail_page):
    text = tail_page.read_text()
    assert text.startswith("<!DOCTYPE html>")
    assert external_refs(text) == []
    assert "<script src" not in text and "<link" not in text
    assert "Plotly.newPlot" in text and "plotly_click" in text
    # the graph's data: the RTO retransmission with its why, and the engine state
    assert '"why": "rto"' in text and '"srtt_us"' in text
    assert "<h2>Results</h2>" in text and "fct_ms" in text


def test_run_html_refuses_an_existing_file_without_force(cli, tmp_path):
    out = tmp_path / "page.html"
    out.write_text("someone else's page")
    r = cli("run", str(TAIL), "--html", str(out))
    assert r.code != 0
    assert "exists" in r.stderr and "--force" in r.stderr
    assert out.read_text() == "someone else's page"
    r = cli("run", str(TAIL), "--html", str(out), "--force")
    assert r.code == 0, r.stderr
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_run_html_of_the_default_run_has_a_graph_per_preset(cli, tmp_path):
    out = tmp_path / "default.html"
    r = cli("run", "--preset", "linux", "--html", str(out))
    assert r.code == 0, r.stderr
    text = out.read_text()
    assert 'id="ts-flow-0"' in text and "flow linux" in text


def test_a_large_trace_is_thinned_but_keeps_every_retransmission():
    recs = [{"t_us": i * 10, "flow": 0, "kind": "send", "seq": [i * 1448, (i + 1) * 1448], "why": "new"}
            for i in range(300_000)]
    recs += [{"t_us": i * 10_000 + 5, "flow": 0, "kind": "send", "seq": [i * 1448, (i + 1) * 1448],
              "why": "rack"} for i in range(300)]
    recs.sort(key=lambda r: r["t_us"])
    v = build(0, recs)
    new, rack = v.sends["new"], v.sends["rack"]
    assert new.total == 300_000 and len(new.x) <= GRID[0] * 2
    assert len(rack.x) == rack.total == 300
    assert v.thinned() == {"sends (new)": (len(new.x), 300_000)}
    from lossrec.html.run_page import _flow_section

    html, _ = _flow_section(v, 0, "flow 0")
    assert "Thinned for size" in html and "300,000" in html


def test_rules_read_with_their_values():
    c = {"value": 120, "unit": "ms", "tolerance_pct": 5, "agreement": "mean FCT within ±5 %", "min_events": 30}
    assert report_page.bounds(c) == ["within ±5 % of 120: [114, 126] ms"]
    h = report_page.rule_html(c)
    assert "<code>tolerance_pct</code> = 5" in h and "<code>min_events</code> = 30" in h
    assert "[114, 126] ms" in h
    assert report_page.bounds({"lo": 2, "hi": 4, "unit": "RTTs"}) == ["within [2, 4] RTTs"]
    assert report_page.bounds({"value": 2.0, "factor": 2}) == ["within a factor 2 of 2: [1, 4]"]


def test_reproduce_writes_report_html_and_index_html(write_study, tmp_path):
    from test_reproduce import PUBLISHED, TOY

    root = write_study({"study.py": TOY, "published.toml": PUBLISHED, "s.toml": "[workload]\nsegments = 2\n"})
    out = tmp_path / "out"
    lossrec.reproduce_all(out, quick=True, root=root)
    report = (out / "toy" / "report.html").read_text()
    assert external_refs(report) == []
    assert "within ±10 % of 1: [0.9, 1.1] ms" in report
    assert "<code>tolerance_pct</code> = 10" in report
    assert "❌ does not hold" in report and "data:image/png;base64," in report
    index = (out / "index.html").read_text()
    assert 'href="toy/report.html"' in index and external_refs(index) == []


# ------------------------------------------------------------------ in headless Chromium

PLOT_AREA = """(() => { const r = document.querySelector('#ts-flow-0 .nsewdrag').getBoundingClientRect();
  return [r.left, r.top, r.width, r.height]; })()"""
#: The page position of the first retransmission of flow 0's graph (trace name "rto …").
RETX_POINT = """(() => { const gd = document.getElementById('ts-flow-0');
  const i = gd.data.findIndex(t => t.name.startsWith('rto '));
  const t = gd.data[i], L = gd._fullLayout, r = gd.getBoundingClientRect();
  return [r.left + L.xaxis._offset + L.xaxis.l2p(t.x[0]), r.top + L.yaxis._offset + L.yaxis.l2p(t.y[0])]; })()"""


def _saturated_pixels(png: bytes, box: Tuple[float, float, float, float]) -> int:
    """Pixels of the plot area in a data colour (not white, not the grey grid and text)."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    left, top, w, h = (int(round(x)) for x in box)
    area = img.crop((left, top, left + w, top + h))
    px = area.tobytes()
    return sum(1 for i in range(0, len(px), 3) if max(px[i:i + 3]) - min(px[i:i + 3]) > 60)


def test_chromium_renders_the_graph_and_a_click_shows_the_packets_why(tail_page, tmp_path):
    binary = chromium()
    if binary is None:
        pytest.skip(install_hint())
    with Browser(binary) as b:
        b.open(tail_page)
        wait_for(lambda: b.js("!!document.querySelector('#ts-flow-0[data-ready]')"), "the graph to be drawn")
        box = b.js(PLOT_AREA)
        png = b.screenshot()
        (tmp_path / "screenshot.png").write_bytes(png)
        colored = _saturated_pixels(png, box)
        assert colored > 200, f"the plot area looks empty: {colored} coloured pixels"
        x, y = b.js(RETX_POINT)
        b.move(x, y)
        wait_for(lambda: b.js("(document.getElementById('ts-flow-0')._hoverdata || []).length > 0"),
                 "plotly to see the pointer over the packet")
        b.click(x, y)
        why = wait_for(lambda: b.js("document.getElementById('details-0').getAttribute('data-why')"),
                       "the details box to fill")
        text = b.js("document.getElementById('details-0').innerText")
    assert why == "rto", text
    assert "send: rto at 1210.966 ms" in text
    # the engine state there: the timeout collapsed cwnd to one segment, state loss
    assert "cwnd\t1448" in text and "state\tloss" in text, text
    assert "[13032,14480]" in text  # its seq


def test_a_retransmission_carries_what_marked_it_lost_and_the_state_there():
    recs = [
        {"t_us": 1000, "flow": 0, "kind": "ack", "ack": 1448, "sack": [[2896, 4344]], "cwnd": 14480,
         "pipe": 2896, "state": "open", "srtt_us": 20000, "rto_us": 220000, "reo_wnd_us": 5000},
        {"t_us": 2000, "flow": 0, "kind": "event", "name": "mark_lost", "start": 1448, "end": 2896, "by": "rack"},
        {"t_us": 2000, "flow": 0, "kind": "event", "name": "enter_recovery", "cwnd": 10136, "pipe": 1448},
        {"t_us": 2000, "flow": 0, "kind": "send", "seq": [1448, 2896], "why": "rack"},
    ]
    v = build(0, recs)
    rec = v.records[v.sends["rack"].ref[0]]
    assert rec["why"] == "rack" and rec["marked_lost"] == "by rack at 2.000 ms"
    snap = v.snaps[rec["snap"]]
    assert snap["state"] == "recovery" and snap["cwnd"] == 10136 and snap["reo_wnd_us"] == 5000
    assert v.sacks.total == 1

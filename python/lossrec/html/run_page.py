"""``lossrec run --html FILE``: one self-contained page of a run.

Per flow a zoomable, pannable time-sequence graph (plotly: drag or scroll to zoom,
double-click to reset, the toolbar's pan tool to pan) with sends by ``why`` (retransmissions coloured by
cause, each a bar over its bytes as in tcptrace/Wireshark's Stevens graph), the cumulative
ACK, SACK blocks, drops and engine events, above state panels (cwnd, ssthresh, pipe; SRTT,
RTO, reo_wnd). A click on a point shows, in the box beside the graph, the record (its
``why``) and the engine state there. Then the run's results table.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import page
from .trace_model import FlowView, Series, build, by_flow, pick, thin_line

#: Colours of the send series: new data blue, each retransmission cause its own warm or
#: dark colour, so that a fast retransmission, a RACK one and an RTO read apart.
SEND_COLORS = {
    "new": "#1f77b4", "handshake": "#999999", "probe_new": "#ff9900",
    "fast_retransmit": "#d62728", "rack": "#e377c2", "early_retransmit": "#8c564b",
    "rto": "#000000", "probe_retransmit": "#ff7f0e", "frto_new": "#17becf",
}
OTHER_RETX = "#bcbd22"
#: Flows drawn when the user names none (each flow is a graph of its own).
MAX_FLOWS = 4

#: The click handler: fills the flow's details box from the point's record and the
#: engine state snapshot it refers to (customdata = index into the flow's records).
CLICK_JS = r"""
window.lossrec = window.lossrec || {};
lossrec.fmt = function (k, v) {
  if (v === null || v === undefined) return '—';
  if (Array.isArray(v)) return JSON.stringify(v);
  if (typeof v === 'number' && /_us$/.test(k)) return (v / 1000).toFixed(3) + ' ms';
  return String(v);
};
lossrec.rows = function (obj, skip) {
  var out = '';
  Object.keys(obj).forEach(function (k) {
    if (skip.indexOf(k) >= 0) return;
    var td = document.createElement('td'); td.textContent = lossrec.fmt(k, obj[k]);
    var th = document.createElement('th'); th.textContent = k;
    out += '<tr>' + th.outerHTML + td.outerHTML + '</tr>';
  });
  return out;
};
lossrec.show = function (flowId, ref) {
  var data = lossrec.flows[flowId], rec = data.records[ref], snap = data.snaps[rec.snap] || {};
  var box = document.getElementById('details-' + flowId);
  var what = rec.kind === 'send' ? (rec.why || 'send') : (rec.kind === 'event' ? rec.name : rec.kind);
  var title = document.createElement('h3');
  title.textContent = rec.kind + ': ' + what + ' at ' + (rec.t_us / 1000).toFixed(3) + ' ms';
  box.innerHTML = title.outerHTML +
    '<table class="record">' + lossrec.rows(rec, ['snap', 't_us']) + '</table>' +
    '<h3>engine state there</h3><table class="state">' + lossrec.rows(snap, []) + '</table>';
  box.setAttribute('data-why', rec.why || rec.name || rec.kind);
};
lossrec.attach = function (divId, flowId) {
  var gd = document.getElementById(divId);
  gd.on('plotly_click', function (ev) {
    var p = ev.points && ev.points[0];
    if (p && p.customdata !== undefined && p.customdata !== null) lossrec.show(flowId, p.customdata);
  });
  gd.setAttribute('data-ready', '1');
};
"""


def _bar_trace(name: str, s: Series, color: str, symbol: str, size: int, bars: bool) -> Dict[str, Any]:
    t: Dict[str, Any] = {
        "type": "scatter", "mode": "markers", "name": f"{name} ({s.total:,})",
        "x": s.x, "y": s.y, "customdata": s.ref,
        "marker": {"color": color, "symbol": symbol, "size": size},
        "hovertemplate": f"{name}<br>%{{x:.3f}} ms<br>seq end %{{y}}<extra></extra>",
        "xaxis": "x", "yaxis": "y",
    }
    if bars:
        t["error_y"] = {"type": "data", "symmetric": False, "array": [0] * len(s.x),
                        "arrayminus": s.below, "color": color, "thickness": 1.5, "width": 0}
    return t


def _send_traces(v: FlowView) -> List[Dict[str, Any]]:
    out = []
    order = sorted(v.sends, key=lambda k: (k not in ("handshake", "new"), k != "new", k))
    for k in order:
        s = v.sends[k]
        retx = k not in ("new", "handshake", "probe_new")
        out.append(_bar_trace("sent" if k == "new" else k, s, SEND_COLORS.get(k, OTHER_RETX),
                              "circle" if retx else "line-ew-open", 7 if retx else 5, True))
    return out


def _traces(v: FlowView) -> List[Dict[str, Any]]:
    traces: List[Dict[str, Any]] = []
    if v.sacks.x:
        traces.append(_bar_trace("SACK block", v.sacks, "rgba(128,0,128,0.35)", "line-ew", 4, True))
    if v.acks.x:
        green = "#2ca02c"
        traces.append({"type": "scatter", "mode": "lines+markers", "name": f"cumulative ACK ({v.acks.total:,})",
                       "line": {"shape": "hv", "width": 1, "color": green}, "marker": {"size": 3, "color": green},
                       "x": v.acks.x, "y": v.acks.y, "customdata": v.acks.ref,
                       "hovertemplate": "ACK %{y}<br>%{x:.3f} ms<extra></extra>", "xaxis": "x", "yaxis": "y"})
    traces += _send_traces(v)
    if v.drops.x:
        traces.append(_bar_trace("dropped", v.drops, "#000000", "x", 8, False))
    if v.events.x:
        names = [str(v.records[r].get("name")) for r in v.events.ref]
        tr = _bar_trace("engine event", v.events, "#9467bd", "triangle-up", 9, False)
        tr["text"] = names
        tr["hovertemplate"] = "%{text}<br>%{x:.3f} ms<extra></extra>"
        traces.append(tr)
    for name, axis, color in (("cwnd", "y2", "#1f77b4"), ("ssthresh", "y2", "#ff7f0e"), ("pipe", "y2", "#2ca02c"),
                              ("srtt", "y3", "#9467bd"), ("RTO", "y3", "#d62728"), ("reo_wnd", "y3", "#8c564b")):
        if name in v.state_lines:
            xs, ys = thin_line(*v.state_lines[name])
            traces.append({"type": "scatter", "mode": "lines",
                           "line": {"shape": "hv", "width": 1.3, "color": color},
                           "name": name + (" (bytes)" if axis == "y2" else " (ms)"),
                           "x": xs, "y": ys, "xaxis": "x", "yaxis": axis, "hoverinfo": "x+y+name"})
    return traces


def _layout(title: str) -> Dict[str, Any]:
    return {
        "title": {"text": title}, "height": 760, "hovermode": "closest", "dragmode": "zoom",
        "xaxis": {"title": {"text": "time (ms)"}, "anchor": "y3"},
        "yaxis": {"title": {"text": "sequence (bytes)"}, "domain": [0.42, 1.0]},
        "yaxis2": {"title": {"text": "bytes"}, "domain": [0.2, 0.38], "rangemode": "tozero"},
        "yaxis3": {"title": {"text": "ms"}, "domain": [0.0, 0.16], "rangemode": "tozero"},
        "legend": {"orientation": "v", "x": 1.01, "y": 1.0}, "margin": {"t": 50, "r": 10},
    }


def _flow_section(v: FlowView, idx: int, title: str) -> Tuple[str, str]:
    """(HTML of one flow's graph and details box, its data and plotting script)."""
    div = f"ts-flow-{idx}"
    fig = {"data": _traces(v), "layout": _layout(title)}
    thinned = v.thinned()
    note = ("Thinned for size: " + "; ".join(f"{k} {a:,} of {b:,} shown" for k, (a, b) in thinned.items())
            + " (at most one per pixel cell; every retransmission, probe, drop and event is kept). "
            "Use --window/--flows for every point of a span.") if thinned else ""
    html = (f"<div class=\"flow\"><div id=\"{div}\" class=\"graph\" style=\"flex:1; min-width:0\"></div>"
            f"<div class=\"details\" id=\"details-{idx}\"><h3>Details</h3>"
            "<p>Click a packet, ACK or event in the graph: its record (<code>why</code>) and the "
            "engine state there show here.</p></div></div>"
            + (f"<p class=\"note thinned\">{page.esc(note)}</p>" if note else ""))
    data = {"records": v.records, "snaps": v.snaps}
    js = (f"lossrec.flows[{idx}] = {json.dumps(data, default=str)};\n"
          f"Plotly.newPlot('{div}', {json.dumps(fig, default=str)}.data, "
          f"{json.dumps(fig['layout'])}, {{responsive: true, scrollZoom: true, displaylogo: false}})"
          f".then(function () {{ lossrec.attach('{div}', {idx}); }});\n")
    return html, js


def results_table(result_json: Mapping[str, Any], columns: Sequence[Tuple[str, str]]) -> str:
    """The run's per-flow results as an HTML table (``columns``: header, flow field)."""
    rows = [[f.get(k) for _, k in columns] for f in result_json.get("flows", [])]
    return page.table([h for h, _ in columns], rows)


def render(records: Sequence[Mapping[str, Any]], title: str, result_json: Optional[Mapping[str, Any]] = None,
           columns: Sequence[Tuple[str, str]] = (), flows: Optional[Sequence[Any]] = None,
           window: Optional[Tuple[float, float]] = None) -> str:
    """The whole page as text."""
    groups = by_flow(records, window)
    chosen = pick(list(groups), flows, MAX_FLOWS)
    parts = [f"<h1>{page.esc(title)}</h1>"]
    if len(chosen) < len(groups):
        parts.append(f"<p class=\"note\">Showing flows {page.esc(', '.join(map(str, chosen)))} of "
                     f"{len(groups)} (<code>--flows</code> to choose).</p>")
    parts.append("<p class=\"note\">Drag or scroll to zoom, double-click to reset, the toolbar's "
                 "pan tool to pan; click a point for its details.</p>")
    scripts = ["lossrec.flows = {};"]
    for i, f in enumerate(chosen):
        v = build(f, groups[f])
        h, js = _flow_section(v, i, f"flow {f}")
        parts.append(h)
        scripts.append(js)
    if not chosen:
        parts.append("<p>No trace records to draw.</p>")
    if result_json is not None:
        parts.append("<h2>Results</h2>" + results_table(result_json, columns))
        prov = result_json.get("provenance") or {}
        if prov:
            parts.append(f"<p class=\"note\">seed {page.esc(result_json.get('seed'))}, lossrec "
                         f"{page.esc(prov.get('lossrec', ''))}, commit {page.esc(prov.get('commit', ''))}</p>")
    head = page.inline_script(page.plotly_js()) + page.inline_script(CLICK_JS)
    body = "\n".join(parts) + page.inline_script("\n".join(scripts))
    return page.document(title, body, head)


def write(path: "str | os.PathLike[str]", records: Sequence[Mapping[str, Any]], title: str,
          result_json: Optional[Mapping[str, Any]] = None, columns: Sequence[Tuple[str, str]] = (),
          flows: Optional[Sequence[Any]] = None, window: Optional[Tuple[float, float]] = None,
          force: bool = False) -> Path:
    """Writes the run's page to ``path``; an existing file is refused unless ``force``."""
    p = page.check_writable(path, force)
    return page.write_atomic(p, render(records, title, result_json, columns, flows, window), force=True)

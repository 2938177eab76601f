"""The Python API pieces that need no simulation: presets, Result, errors."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import lossrec
from lossrec.result import FLOW_FIELDS, Result


def test_presets():
    ps = lossrec.presets()
    names = [p.name for p in ps]
    assert "rfc" in names and "linux-classic" in names
    rfc = ps[names.index("rfc")]
    assert rfc.axes["reduction"] == "rfc6675"
    assert list(rfc.axes) == lossrec._core.axes()
    assert rfc.summary


def test_scenario_error_is_a_value_error():
    assert issubclass(lossrec.ScenarioError, ValueError)


def test_bench_rejects_unknown_name():
    with pytest.raises(ValueError, match="bulk, short_flows"):
        lossrec.bench("nope")
    with pytest.raises(ValueError, match="unknown benchmark"):
        lossrec._core.bench("nope")


def test_run_rejects_bad_arguments(tmp_path):
    with pytest.raises(TypeError):
        lossrec.run(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no such file"):
        lossrec.run(tmp_path / "none.toml")
    with pytest.raises(ValueError, match="seed"):
        lossrec.run({"seed": 1}, seed=-5)


def _flow(i, **kw):
    f = dict(id=i, preset="rfc", bytes=14480, fct_ms=321.5, data_packets_sent=11, retransmits=1,
             fast_recoveries=0, rtos=1, spurious_rtos=0, tlp_probes=0, undos=0, final_cwnd=1)
    f.update(kw)
    return f


def test_result_from_json():
    js = json.dumps({"seed": 7, "flows": [_flow(0), _flow(1, preset="linux-classic", fct_ms=None)],
                     "sim": {"events": 100, "wall_s": 0.01}})
    r = Result(js)
    assert r.seed == 7
    assert isinstance(r.flows, pd.DataFrame)
    assert list(r.flows.columns) == list(FLOW_FIELDS)
    assert r.flows["preset"].tolist() == ["rfc", "linux-classic"]
    assert r.sim == {"events": 100, "wall_s": 0.01}
    assert "seed=7" in repr(r)


def test_result_without_trace_or_pcap_says_how_to_get_them(tmp_path):
    r = Result(json.dumps({"seed": 1, "flows": []}))
    with pytest.raises(lossrec.NotRequestedError, match="trace=True"):
        r.trace  # noqa: B018 (the property raises)
    with pytest.raises(lossrec.NotRequestedError, match="pcap=True"):
        r.write_pcap(tmp_path / "x.pcap")
    assert r.flows.empty and list(r.flows.columns) == list(FLOW_FIELDS)


def test_result_with_trace_and_pcap(tmp_path):
    tr = '{"t_us": 0, "flow": 0, "kind": "send", "seq": [0, 1448], "why": "new"}\n\n' \
         '{"t_us": 50000, "flow": 0, "kind": "ack", "ack": 1448, "sack": [], "dsack": null}\n'
    r = Result(json.dumps({"seed": 1, "flows": []}), tr, b"\xd4\xc3\xb2\xa1")
    assert r.trace["kind"].tolist() == ["send", "ack"]
    assert r.trace_records[0]["seq"] == [0, 1448]
    p = r.write_pcap(tmp_path / "x.pcap")
    assert p.read_bytes() == b"\xd4\xc3\xb2\xa1"
    out = r.write_trace(tmp_path / "t.jsonl")
    assert out.read_text() == tr


def test_run_has_one_parameter_list_with_a_keyword_only_pretty():
    """D2: ``run`` and the CLI's indented ``--json`` are one function; ``pretty`` is
    keyword-only and documented, and no second signature (``run_pretty``) is kept."""
    import inspect

    from lossrec import api

    p = inspect.signature(lossrec.run).parameters["pretty"]
    assert p.kind is inspect.Parameter.KEYWORD_ONLY and p.default is False
    assert "pretty" in (lossrec.run.__doc__ or "")
    assert not hasattr(api, "run_pretty")
    toml = "seed = 1\n[workload]\nsegments = 4\n"
    flat, indented = lossrec.run(toml), lossrec.run(toml, pretty=True)
    a, b = flat.json, indented.json
    a["sim"].pop("wall_s"), b["sim"].pop("wall_s")  # the run's own wall time
    assert a == b
    # The simulator indents its own text (no per-flow work in Python) only when asked.
    assert indented._json_text.startswith("{\n") and not flat._json_text.startswith("{\n")
    with pytest.raises(lossrec.errors.ArgumentError, match="pretty"):
        lossrec.run(toml, pretty="yes")  # type: ignore[arg-type]

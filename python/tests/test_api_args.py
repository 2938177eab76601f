"""Every public function of ``lossrec`` checks its arguments: a bad one raises
``lossrec.errors.ArgumentError`` (lossrec's own error, also a ValueError and a TypeError)
naming the parameter, never an internal OverflowError, AttributeError or
ModuleNotFoundError, and before any work is done or any file is written."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import lossrec
from lossrec.errors import ArgumentError, LossrecError

TOML = "seed = 1\n[workload]\nsegments = 4\n"
EXPERIMENTS = Path(__file__).resolve().parents[2] / "experiments"
DF = pd.DataFrame({"fct_ms": [1.0, 2.0], "rtt": [10, 10]})

#: (function, positional args, keyword args, the parameter the error must name).
BAD = [
    ("run", (TOML,), {"seed": 2**64}, "seed"),
    ("run", (TOML,), {"seed": -1}, "seed"),
    ("run", (TOML,), {"seed": "7"}, "seed"),
    ("run", (TOML,), {"seed": True}, "seed"),
    ("run", (TOML,), {"sender": [1, 2]}, "sender"),
    ("run", (TOML,), {"sender": {3: "x"}}, "sender"),
    ("run", (TOML,), {"preset": 3}, "preset"),
    ("run", (TOML,), {"preset": "no-such-preset"}, "preset"),
    ("run", (TOML,), {"sets": [("a", 1)]}, "sets"),
    ("run", (TOML,), {"trace": 3}, "trace"),
    ("run", (TOML,), {"pcap": 3.5}, "pcap"),
    ("run", (TOML,), {"pcap_receiver": True}, "pcap_receiver"),
    ("run", (7,), {}, "scenario"),
    ("run", (None,), {}, "scenario"),
    ("validate", (7,), {}, "scenario"),
    ("bench", (3,), {}, "which"),
    ("bench", ("nope",), {}, "which"),
    ("dict_to_toml", (7,), {}, "d"),
    ("dict_to_toml", ({1: 2},), {}, "d"),
    ("summarize", (7,), {}, "df"),
    ("summarize", (DF,), {"by": 7}, "by"),
    ("summarize", (DF,), {"by": "nope"}, "by"),
    ("summarize", (DF,), {"metrics": "fct_ms"}, "metrics"),
    ("summarize", (DF,), {"metrics": ["nope"]}, "metrics"),
    ("summarize", (DF,), {"confidence": "x"}, "confidence"),
    ("summarize", (DF,), {"confidence": 1.5}, "confidence"),
    ("provenance", (7,), {}, "scenario_text"),
    ("provenance", (None, 7), {}, "seeds"),
    ("provenance", (None, ["x"]), {}, "seeds"),
    ("sweep", (TOML,), {"params": 7}, "params"),
    ("sweep", (TOML,), {"params": {7: [1]}}, "params"),
    ("sweep", (TOML,), {"reps": 0}, "reps"),
    ("sweep", (TOML,), {"reps": "2"}, "reps"),
    ("sweep", (TOML,), {"jobs": 0}, "jobs"),
    ("sweep", (TOML,), {"jobs": True}, "jobs"),
    ("sweep", (TOML,), {"dask": "nope"}, "dask"),
    ("sweep", (TOML,), {"dask": 3}, "dask"),
    ("sweep", (TOML,), {"output": 3}, "output"),
    ("sweep", (TOML,), {"progress": "yes"}, "progress"),
    ("sweep", (TOML,), {"common_seeds": "yes"}, "common_seeds"),
    ("sweep", (TOML,), {"chunk_size": 0}, "chunk_size"),
    ("sweep", (TOML,), {"chunk_size": True}, "chunk_size"),
    ("sweep", (TOML,), {"force": "yes"}, "force"),
    ("sweep", (7,), {}, "scenario"),
    ("sweep_seed", (-1, "", 0), {}, "base"),
    ("sweep_seed", (2**64, "", 0), {}, "base"),
    ("sweep_seed", (1, 3, 0), {}, "key"),
    ("sweep_seed", (1, "", -1), {}, "rep"),
    ("sweep_seed", (1, "", 2**64), {}, "rep"),
    ("point_scenario", (TOML, 7), {}, "overrides"),
    ("point_scenario", (TOML, {7: 1}), {}, "overrides"),
    ("point_scenario", (7, {}), {}, "scenario"),
    ("reproduce", (None,), {}, "name"),
    ("reproduce", (7,), {}, "name"),
    ("reproduce", ("no-such-study",), {"root": EXPERIMENTS}, "name"),
    ("reproduce", ("classic-baseline",), {"jobs": 0}, "jobs"),
    ("reproduce", ("classic-baseline",), {"out": 7}, "out"),
    ("reproduce", ("classic-baseline",), {"quick": "yes"}, "quick"),
    ("reproduce", ("classic-baseline",), {"root": 7}, "root"),
    ("reproduce", ("classic-baseline",), {"resume": "no"}, "resume"),
    ("reproduce", ("classic-baseline",), {"force": 1}, "force"),
    ("reproduce_all", (), {"jobs": 0}, "jobs"),
    ("reproduce_all", (), {"out": 7}, "out"),
    ("reproduce_all", (), {"on_study": 3}, "on_study"),
    ("reproduce_all", (), {"on_progress": "x"}, "on_progress"),
    ("reproduce_all", (), {"freeze": "x"}, "freeze"),
    ("wire", (TOML,), {"sender": "kernel"}, "sender"),
    ("wire", (TOML,), {"receiver": 3}, "receiver"),
    ("wire", (TOML,), {"seed": 2**64}, "seed"),
    ("wire", (TOML,), {"close": "never"}, "close"),
    ("wire", (TOML,), {"trace": 3}, "trace"),
    ("wire", (TOML,), {"pcap": 3}, "pcap"),
    ("wire", (TOML,), {"preset": 3}, "preset"),
    ("wire", (TOML,), {"sets": [1]}, "sets"),
    ("wire", (None,), {}, "scenario"),
    ("read_trace", (7,), {}, "path"),
    ("read_trace", ("t.txt",), {}, "path"),
    ("run", (TOML,), {"trace": "t.txt"}, "trace"),
    ("explain", (3,), {}, "path"),
    ("explain", ("x.pcap",), {"preset": "no-such-preset"}, "preset"),
    ("explain", ("x.pcap",), {"flow": 3}, "flow"),
    ("explain", ("x.pcap",), {"app": "all"}, "app"),
    ("replay", (3,), {}, "path"),
    ("replay", ("x.pcap",), {"presets": "linux"}, "presets"),
    ("replay", ("x.pcap",), {"presets": []}, "presets"),
    ("replay", ("x.pcap",), {"presets": ["no-such-preset"]}, "presets"),
    ("replay", ("x.pcap",), {"flow": 3}, "flow"),
    ("replay", ("x.pcap",), {"explain_preset": "no-such-preset"}, "explain_preset"),
]


@pytest.mark.parametrize("name,args,kwargs,param", BAD,
                         ids=[f"{n}-{p}-{i}" for i, (n, _, _, p) in enumerate(BAD)])
def test_bad_argument_is_lossrecs_own_error_naming_the_parameter(name, args, kwargs, param, tmp_path,
                                                                 monkeypatch):
    monkeypatch.chdir(tmp_path)  # nothing may be written, but if it were, not in the checkout
    fn = getattr(lossrec, name)
    with pytest.raises(LossrecError) as info:
        fn(*args, **kwargs)
    e = info.value
    assert isinstance(e, ArgumentError), repr(e)
    assert e.parameter == param, (e.parameter, str(e))
    assert param in str(e), str(e)
    assert list(tmp_path.iterdir()) == []


def test_every_public_function_is_in_the_table():
    functions = {n for n in lossrec.__all__
                 if callable(getattr(lossrec, n)) and not isinstance(getattr(lossrec, n), type)
                 and n != "presets"}  # presets() takes no argument
    assert functions <= {n for n, _, _, _ in BAD}, functions - {n for n, _, _, _ in BAD}


def test_argument_error_is_still_a_value_and_type_error():
    with pytest.raises(ValueError):
        lossrec.run(TOML, seed=-1)
    with pytest.raises(TypeError):
        lossrec.run(TOML, trace=3)

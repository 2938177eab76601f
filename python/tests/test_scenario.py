"""Scenario loading and dict → TOML conversion."""

from __future__ import annotations

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

import numpy as np
import pytest

from lossrec.scenario import dict_to_toml, load, with_sender
from lossrec.sets import parse_set


def test_dict_to_toml_round_trips_nested_tables_and_arrays_of_tables():
    d = {
        "seed": 3,
        "path": {"rate_mbps": 10.5, "rtt_ms": 100, "loss": {"model": "bernoulli", "p": 0.01}},
        "flows": [{"preset": "rfc", "segments": 10}, {"preset": "linux-classic", "segments": 20}],
    }
    text = dict_to_toml(d)
    assert tomllib.loads(text) == d
    assert "[path.loss]" in text


def test_dict_to_toml_drops_none_and_converts_tuples_and_numpy():
    d = {"a": None, "b": (1, 2), "c": np.int64(5), "d": np.float64(0.5), "e": {"x": None, "y": True}}
    assert tomllib.loads(dict_to_toml(d)) == {"b": [1, 2], "c": 5, "d": 0.5, "e": {"y": True}}


def test_dict_to_toml_rejects_non_string_keys_and_non_mappings():
    with pytest.raises(TypeError, match="strings"):
        dict_to_toml({1: 2})
    with pytest.raises(TypeError, match="mapping"):
        dict_to_toml([1, 2])  # type: ignore[arg-type]


def test_load_dict_path_and_text(tmp_path):
    assert load({"seed": 1}) == ("seed = 1\n", "<dict>")
    f = tmp_path / "s.toml"
    f.write_text("seed = 2\n")
    assert load(f) == ("seed = 2\n", str(f))
    assert load(str(f)) == ("seed = 2\n", str(f))
    assert load("seed = 4\n") == ("seed = 4\n", "<string>")


def test_load_missing_file_names_it(tmp_path):
    with pytest.raises(ValueError, match="none.toml: no such file"):
        load(tmp_path / "none.toml")


def test_load_refuses_a_file_over_16_mib_before_reading_it(tmp_path):
    # A sparse file: refused by its size, never read (issue 26 item 7).
    f = tmp_path / "huge.toml"
    with open(f, "wb") as out:
        out.truncate((16 << 20) + 1)  # lossrec.scenario.MAX_SCENARIO_BYTES + 1
    with pytest.raises(ValueError, match=r"huge.toml: the file is 16777217 bytes; .*16 MiB"):
        load(f)


def test_with_sender_replaces_the_preset_and_keeps_other_axes():
    text = 'seed = 1\n[sender]\npreset = "rfc"\nmin_rto_ms = 300\n[workload]\nkind = "bulk"\n'
    out = tomllib.loads(with_sender(text, "linux-classic", [("cc", "reno")]))
    assert out["sender"] == {"preset": "linux-classic", "min_rto_ms": 300, "cc": "reno"}
    assert out["workload"] == {"kind": "bulk"}


def test_with_sender_creates_the_table():
    out = tomllib.loads(with_sender("seed = 1\n", "rfc"))
    assert out == {"seed": 1, "sender": {"preset": "rfc"}}


def test_parse_set():
    # One grammar everywhere: a bare axis is shorthand for sender.<axis>.
    assert parse_set("min_rto_ms=200") == ("sender.min_rto_ms", [200])
    assert parse_set(" cc = cubic ") == ("sender.cc", ["cubic"])
    for bad in ("cc", "=cubic", "cc="):
        with pytest.raises(ValueError, match="KEY=V1,V2"):
            parse_set(bad)


# Property: any dict of TOML-representable values survives dict → TOML → dict.
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_keys = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_-0123456789", min_size=1, max_size=8)
_scalars = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(_keys, _values, max_size=6))
def test_dict_to_toml_round_trip_property(d):
    assert tomllib.loads(dict_to_toml(d)) == d


def test_dotted_keys_are_nested_tables():
    d = {"path": {"rtt_ms": 40}, "path.loss": {"model": "tail", "count": 2}, "sender.preset": "rfc"}
    assert tomllib.loads(dict_to_toml(d)) == {
        "path": {"rtt_ms": 40, "loss": {"model": "tail", "count": 2}},
        "sender": {"preset": "rfc"},
    }
    with pytest.raises(ValueError, match="given twice"):
        dict_to_toml({"path": {"rtt_ms": 40}, "path.rtt_ms": 50})

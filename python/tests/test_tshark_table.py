"""docs/explain.md's tshark comparison is what scripts/tshark-compare.py measures on the
committed kernel corpus (tests/explain) now: each row of the table, recomputed from
tshark's tcp.analysis flags, the kernel's nstat deltas and explain under linux."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark not installed (scripts/test.sh installs it)")
def test_docs_table_is_the_measured_one():
    spec = importlib.util.spec_from_file_location("tshark_compare", ROOT / "scripts" / "tshark-compare.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = mod.table_rows(ROOT / "tests" / "explain")
    assert len(rows) == len(list((ROOT / "tests" / "explain").glob("*.pcap.gz")))
    docs = (ROOT / "docs" / "explain.md").read_text()
    for row in rows:
        assert row in docs, row

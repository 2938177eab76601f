"""The documentation site (issue 28): scripts/docs.py builds README, docs/, the CLI help and
the notebook with `mkdocs build --strict`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_docs_site_builds_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra: pip install '.[docs]'")
    out = tmp_path / "docs"
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "docs.py"), "-o", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    site = out / "site"
    for page in ("index.html", "cli.html", "conformance.html", "notebook.html"):
        assert (site / page).exists(), page
    cli = (site / "cli.html").read_text()
    # every command's help is on the page, generated from the installed CLI
    for cmd in ("run", "sweep", "reproduce", "wire", "script", "bench"):
        assert f"lossrec {cmd}" in cli
    assert "--freeze" in cli  # an option only reproduce's help shows


def test_docs_refuses_a_folder_it_did_not_write(tmp_path):
    (tmp_path / "mine.txt").write_text("keep")
    r = subprocess.run([sys.executable, str(ROOT / "scripts" / "docs.py"), "-o", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "did not write" in r.stderr
    assert (tmp_path / "mine.txt").read_text() == "keep"


def test_readme_says_what_each_seed_is():
    """Issue 28 item 10: the README names seeds 000–004 (one line each, with the study that
    reproduces it), and keeps its two set-up commands as they were."""
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    for seed, words in (("000", "Tail Loss Probe"), ("001", "RACK"), ("002", "RTO Restart"),
                        ("003", "Proportional Rate Reduction"), ("004", "Spurious Timeouts")):
        lines = [ln for ln in readme.splitlines() if ln.startswith(f"- **{seed}** — ")]
        assert len(lines) == 1 and words in lines[0], seed
    assert "pip install . && lossrec run\n" in readme
    assert "python3 -m venv .venv && . .venv/bin/activate\n" in readme

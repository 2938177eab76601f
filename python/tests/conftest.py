"""Shared helpers: run the CLI in-process (CliRunner) or as the installed command."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import List

import pytest
from click.testing import CliRunner

from lossrec.cli import main


@dataclass
class Out:
    code: int
    stdout: str
    stderr: str


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


@pytest.fixture
def cli():
    """``cli("run", "--json")`` → Out(code, stdout, stderr), in-process."""

    def go(*args: str) -> Out:
        r = _runner().invoke(main, list(args), prog_name="lossrec", catch_exceptions=False)
        return Out(r.exit_code, r.stdout, r.stderr)

    return go


@pytest.fixture
def cli_proc():
    """Runs ``python -m lossrec ARGS`` in a subprocess (real exit codes and stderr)."""

    def go(*args: str, cwd=None) -> Out:
        cmd: List[str] = [sys.executable, "-m", "lossrec", *args]
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=600)
        return Out(p.returncode, p.stdout, p.stderr)

    return go


@pytest.fixture
def write_study(tmp_path):
    """``write_study({"study.py": ..., "s.toml": ...})`` → an experiments folder holding
    one study `toy` made of those files."""

    def go(files: dict) -> Path:
        d = tmp_path / "exp" / "toy"
        d.mkdir(parents=True)
        for name, text in files.items():
            (d / name).write_text(text)
        return tmp_path / "exp"

    return go

"""Provenance: what produced a result — lossrec's version, the commit it was built from,
the scenario's hash and the seeds — carried by every output (run JSON, sweep files,
reports), so a number found later can be traced back and re-run."""

from __future__ import annotations

import hashlib
import platform
from typing import Any, Dict, Iterable, Optional

from . import _core
from .errors import LossrecError


def scenario_hash(text: str) -> str:
    """SHA-256 of the scenario text as run (after any ``--set`` or preset rewrite)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def build() -> Dict[str, str]:
    """``{"version", "commit", "debug"}`` of the installed extension."""
    return dict(_core.build_info())


def provenance(scenario_text: Optional[str] = None, seeds: Iterable[int] = (),
               **extra: Any) -> Dict[str, Any]:
    """The provenance record: ``lossrec`` (version), ``commit``, ``scenario_sha256``,
    ``seeds``, ``python``, plus any ``extra`` fields (e.g. the sweep's parameters)."""
    from . import _args

    _args.text("provenance", "scenario_text", scenario_text, optional=True)
    try:
        seed_list = sorted({int(_args.integer("provenance", "seeds", s, 0, _args.U64_MAX))  # type: ignore[arg-type]
                            for s in seeds})
    except TypeError as e:
        if isinstance(e, LossrecError):
            raise
        raise _args.fail("provenance", "seeds", "an iterable of integers", seeds) from None
    b = build()
    rec: Dict[str, Any] = {"lossrec": b["version"], "commit": b["commit"]}
    if scenario_text is not None:
        rec["scenario_sha256"] = scenario_hash(scenario_text)
    rec["seeds"] = seed_list
    rec["python"] = platform.python_version()
    rec.update(extra)
    return rec


def sweep_provenance(scenario: Any, plan: Any) -> Dict[str, Any]:
    """A sweep's provenance: the base scenario's hash, the swept keys and values, and the
    seed rule (each row's seed is in its ``seed`` column)."""
    from .scenario import load

    try:
        text: Optional[str] = load(scenario)[0]
    except (ValueError, TypeError):
        text = None
    rule = ("splitmix64(splitmix64(scenario seed ^ fnv1a64(point key)) ^ rep) >> 1"
            + (" with an empty point key (common seeds)" if plan.common_seeds else ""))
    return provenance(text, (), scenario=plan.origin, definition=plan.digest,
                      set={k: [str(v) for v in vs] for k, vs in zip(plan.keys, plan.values)},
                      reps=plan.reps, seed_rule=rule)


def commit() -> str:
    """The commit this lossrec was built from, as baked into the extension at build time
    (``crates/py/build.rs``; a wheel carries it); when the build could not tell
    (``unknown``, e.g. built from an sdist) but the package is run from a git checkout,
    that checkout's ``HEAD``."""
    c = build()["commit"]
    if c != "unknown":
        return c
    import subprocess
    from pathlib import Path

    try:
        p = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent,
                           capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return c
    return p.stdout.strip() if p.returncode == 0 and p.stdout.strip() else c


def version_line() -> str:
    """What ``lossrec --version`` prints: the version and the commit (12 digits, with
    ``-dirty`` when built from a modified tree)."""
    c = commit()
    head, dirty, _ = c.partition("-dirty")
    short = head[:12] + ("-dirty" if dirty else "") if c != "unknown" else c
    return f"lossrec, version {build()['version']} (commit {short})"

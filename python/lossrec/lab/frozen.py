"""Frozen rules and expected verdicts.

A study's rules are its ``published.toml`` (written before the numbers were seen); its
expected verdicts are ``expected.toml`` beside it, one schema for every study::

    [claims.<id>]          # every claim of published.toml
    full = "holds"         # the verdict of `lossrec reproduce <study>`
    quick = "holds"        # the verdict of `lossrec reproduce <study> --quick`

Both files are reviewed like code. ``reproduce`` prints every verdict that differs from the
frozen one for its mode; a claim whose quick verdict differs from its full one is one the
quick run *cannot judge*, and quick runs list those. ``lossrec reproduce --all --freeze``
(``scripts/freeze-verdicts.sh`` for both modes) rewrites the file from a run.

Three more keys of a published claim are read here: ``kind = "calibration"`` marks a check of
our workload against the seed's fingerprints and ``kind = "cross-check"`` one against
another tool (both reported apart, never counted as a claim that holds),
``not_comparable = "why"`` a statement our setup cannot judge (its verdict is *not
comparable*, our number beside it), and ``[claims.<id>.seed_inconsistent]`` (``why``, ``differences``) names a
self-contradiction of the seed: a failure whose differences are exactly ``differences`` is
the verdict *seed inconsistent*, any other difference still fails.

A re-frozen verdict that moved carries its reason in the claim's entry, one
``[[claims.<id>.verdict_changes]]`` per move (``date``, ``mode``, ``was``, ``now``, ``why``:
the rule change made before the rerun, the calibration or the engine rule that moved it,
with the numbers); the report lists them under "Why frozen verdicts moved".
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..scenario import _toml_loads
from .claims import APART, FAILS, NOT_COMPARABLE, SEED_INCONSISTENT, VERDICTS, Verdict

if TYPE_CHECKING:  # pragma: no cover
    from .study import Study

FILE = "expected.toml"
MODES = ("full", "quick")
HEADER = """\
# Expected verdicts of study `{name}`, frozen from a run of lossrec {version} (commit {commit}).
# `lossrec reproduce {name}` prints every verdict that differs from `full`, `--quick` from
# `quick`; a claim whose two differ is one the quick run cannot judge.
# Re-freeze after a reviewed change: scripts/freeze-verdicts.sh (both modes), then read the diff.
"""


def mode(quick: bool) -> str:
    return "quick" if quick else "full"


def load(study: "Study") -> Dict[str, Dict[str, str]]:
    """``claim → {mode: verdict}`` from the study's expected.toml (empty when absent)."""
    path = study.dir / FILE
    if not path.exists():
        return {}
    try:
        data = _toml_loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    out: Dict[str, Dict[str, str]] = {}
    published = study.claims_published
    for cid, entry in dict(data.get("claims", {})).items():
        if cid not in published:
            raise ValueError(f"{path}: claims.{cid}: no such claim in published.toml")
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: claims.{cid}: expected a table with {' and '.join(MODES)}")
        for k, v in entry.items():
            if k not in MODES:
                raise ValueError(f"{path}: claims.{cid}.{k}: unknown key (use {' or '.join(MODES)})")
            if v not in VERDICTS:
                raise ValueError(f"{path}: claims.{cid}.{k}: `{v}` is not a verdict "
                                 f"({', '.join(VERDICTS)})")
        out[cid] = dict(entry)
    return out


#: The keys of one ``[[claims.<id>.verdict_changes]]`` entry.
CHANGE_KEYS = ("date", "mode", "was", "now", "why")


def check_changes(cid: str, claim: Mapping[str, Any]) -> Optional[str]:
    """What is wrong with claim ``cid``'s ``verdict_changes`` (None when nothing): each
    entry needs every key of :data:`CHANGE_KEYS`, a mode of :data:`MODES`, verdicts for
    ``was``/``now`` and a non-empty reason, so a moved verdict is never left unexplained."""
    entries = claim.get("verdict_changes", [])
    if not isinstance(entries, list):
        return f"claims.{cid}.verdict_changes: expected an array of tables ([[claims.{cid}.verdict_changes]])"
    for i, e in enumerate(entries):
        where = f"claims.{cid}.verdict_changes[{i}]"
        if not isinstance(e, dict):
            return f"{where}: expected a table"
        for k in CHANGE_KEYS:
            if k not in e:
                return f"{where}: missing `{k}`"
        if e["mode"] not in MODES:
            return f"{where}.mode: `{e['mode']}` is not a mode ({', '.join(MODES)})"
        for k in ("was", "now"):
            if e[k] not in VERDICTS:
                return f"{where}.{k}: `{e[k]}` is not a verdict ({', '.join(VERDICTS)})"
        if not str(e["why"]).strip():
            return f"{where}.why: say which rule, calibration or engine change moved it"
    return None


def changes(published: Mapping[str, Mapping[str, Any]]) -> List[Tuple[str, Mapping[str, Any]]]:
    """``(claim, entry)`` for every recorded verdict change, in the file's order."""
    return [(cid, e) for cid, c in published.items() for e in c.get("verdict_changes", [])]


def differences(expected: Mapping[str, Mapping[str, str]], verdicts: Sequence[Verdict],
                quick: bool) -> List[Tuple[str, str, str]]:
    """``(claim, expected, got)`` for every verdict that differs from the frozen one
    (``expected`` is ``"not frozen"`` for a claim the file lacks)."""
    m = mode(quick)
    out = []
    for v in verdicts:
        want = expected.get(v.claim, {}).get(m, "not frozen")
        if want != v.verdict:
            out.append((v.claim, want, v.verdict))
    return out


def quick_cannot_judge(expected: Mapping[str, Mapping[str, str]]) -> List[Tuple[str, str, str]]:
    """``(claim, full, quick)`` where the quick run's frozen verdict is not the full one's."""
    return [(c, e["full"], e["quick"]) for c, e in expected.items()
            if "full" in e and "quick" in e and e["full"] != e["quick"]]


def freeze(study: "Study", verdicts: Sequence[Verdict], quick: bool) -> Path:
    """Writes this run's verdicts as the study's expected ones for its mode (the other
    mode's are kept); returns the file."""
    import tomli_w

    from .._provenance import build

    old = load(study)
    m = mode(quick)
    got = {v.claim: v.verdict for v in verdicts}
    claims: Dict[str, Dict[str, str]] = {}
    for cid in study.claims_published:
        e = {k: old.get(cid, {}).get(k) for k in MODES}
        e[m] = got.get(cid, e[m])
        claims[cid] = {k: v for k, v in e.items() if v is not None}
    b = build()
    text = HEADER.format(name=study.name, version=b["version"], commit=b["commit"][:12])
    text += "\n" + tomli_w.dumps({"claims": claims})
    path = study.dir / FILE
    tmp = path.with_name(f".{FILE}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def apply_published(published: Mapping[str, Mapping[str, Any]],
                    verdicts: Sequence[Verdict]) -> List[Verdict]:
    """A failure that is exactly a claim's documented self-contradiction of the seed
    becomes *seed inconsistent*; a claim whose ``not_comparable`` says why our setup cannot
    judge it is *not comparable* whatever its rule gave (our number stays beside it)."""
    out = []
    for v in verdicts:
        nc = published.get(v.claim, {}).get("not_comparable")
        if nc:
            out.append(dataclasses.replace(v, verdict=NOT_COMPARABLE, why=str(nc), other=None))
            continue
        si = published.get(v.claim, {}).get("seed_inconsistent")
        if si and v.verdict == FAILS and v.why.strip() == str(si["differences"]).strip():
            v = dataclasses.replace(v, verdict=SEED_INCONSISTENT,
                                    why=f"{si['why']} (differences, exactly the documented ones: {v.why})")
        out.append(v)
    return out


def is_calibration(published: Mapping[str, Mapping[str, Any]], claim: str) -> bool:
    """A check reported apart from the seed's claims: calibration or a cross-check
    (:data:`~lossrec.lab.claims.APART`)."""
    return published.get(claim, {}).get("kind") in APART


def counts(published: Mapping[str, Mapping[str, Any]],
           verdicts: Sequence[Verdict]) -> Tuple[Dict[str, int], Dict[str, int]]:
    """Verdict counts of the claims, and of the calibration checks apart."""
    claims = {k: 0 for k in VERDICTS}
    cal = {k: 0 for k in VERDICTS}
    for v in verdicts:
        (cal if is_calibration(published, v.claim) else claims)[v.verdict] += 1
    return claims, cal


def counts_text(c: Mapping[str, int]) -> str:
    """``3 hold, 1 does not hold, …`` (zero counts left out but for the first three)."""
    names = {"holds": "hold", "does not hold": "do not hold"}
    parts = [f"{c[k]} {names.get(k, k)}" for k in VERDICTS if c.get(k) or k in names
             or k == "not comparable"]
    return ", ".join(parts)

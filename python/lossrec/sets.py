"""``--set KEY=VALUE[,VALUE...]``: one grammar for ``run``, ``sweep`` and ``script``.

* **KEY** is a dotted scenario key (``path.rtt_ms``, ``path.loss.packets``,
  ``sender.min_rto_ms``); a bare sender axis name (``min_rto_ms``) is shorthand for
  ``sender.<axis>``. Unknown keys are errors with the closest valid name.
* **VALUE** follows TOML's grammar: ``40``, ``0.5``, ``true``, ``"text"``, lists
  ``[2, 3]``; a bare word that is not TOML (``rfc``, ``linux-classic``) is text.
* Several values are separated by commas outside brackets and quotes, so
  ``path.loss.packets=[2,3],[4]`` is two values, each a list.
* **Ranges** ``START:STOP:STEP`` expand in place, STOP included: ``10:640:x2`` (×2:
  10, 20, …, 640), ``0:100:+25`` or ``0:100:25`` (+25: 0, 25, …, 100).
"""

from __future__ import annotations

import math
import re
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from . import _core
from .suggest import did_you_mean

_RANGE = re.compile(r"\s*([-+]?[\d.eE+-]+)\s*:\s*([-+]?[\d.eE+-]+)\s*:\s*([x*+]?)\s*([\d.eE+-]+)\s*")
#: Most values one range may expand to (a typo like 1:1e9:1 must not hang).
MAX_RANGE = 100_000


def _toml_value(text: str) -> Any:
    # tomllib itself, not lossrec.scenario's loader: scenario imports this module
    # (apply_sets), and neither may import the other back (no import circle).
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(f"v = {text}")["v"]


def parse_value(text: str) -> Any:
    """One value by TOML's grammar; a bare word that is not TOML is text."""
    t = text.strip()
    if not t:
        raise ValueError("empty value")
    try:
        return _toml_value(t)
    except Exception:
        if re.fullmatch(r"[A-Za-z0-9_.+\-/]+", t):
            return t
        raise ValueError(f"{t!r} is not a TOML value (quote text: \"{t}\")") from None


def _num(s: str) -> Any:
    v = _toml_value(s) if not s.startswith("+") else _toml_value(s[1:])
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise ValueError(f"{s!r} is not a number")
    return v


def expand_range(text: str) -> List[Any]:
    """``"10:640:x2"`` → ``[10, 20, 40, 80, 160, 320, 640]`` (see the module doc)."""
    m = _RANGE.fullmatch(text)
    if not m:
        raise ValueError(f"{text!r}: a range is START:STOP:STEP, e.g. 10:640:x2 or 0:100:+25")
    start, stop, op, step = _num(m.group(1)), _num(m.group(2)), m.group(3), _num(m.group(4))
    out: List[Any] = []
    if op in ("x", "*"):
        if step <= 1 or start <= 0:
            raise ValueError(f"{text!r}: a geometric range needs START > 0 and a factor > 1")
        v = start
        while v <= stop * (1 + 1e-12) and len(out) <= MAX_RANGE:
            out.append(v)
            v = v * step
    else:
        if step <= 0:
            raise ValueError(f"{text!r}: the step must be positive")
        n = int(math.floor((stop - start) / step + 1e-9)) + 1
        if n > MAX_RANGE:
            raise ValueError(f"{text!r}: {n:,} values (at most {MAX_RANGE:,})")
        out = [start + i * step for i in range(max(n, 0))]
        if all(isinstance(x, int) for x in (start, step)):
            out = [int(x) for x in out]
        else:
            out = [round(x, 12) for x in out]
    if not out:
        raise ValueError(f"{text!r}: the range is empty")
    if len(out) > MAX_RANGE:
        raise ValueError(f"{text!r}: more than {MAX_RANGE:,} values")
    return out


def split_values(text: str) -> List[str]:
    """Splits on commas outside ``[]``, ``{}`` and quotes."""
    parts, depth, quote, cur = [], 0, "", []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def axes() -> List[str]:
    return list(_core.axes())


def normalise_key(key: str) -> str:
    """A bare sender axis → ``sender.<axis>``; other keys as given (validated later)."""
    key = key.strip()
    if not key:
        raise ValueError("empty key")
    if "." in key or key in ("seed", "max_time_s"):
        return key
    names = axes()
    if key in names or key == "preset":
        return f"sender.{key}"
    raise ValueError(f"unknown axis {key!r}{did_you_mean(key, names + ['seed', 'max_time_s'])} "
                     f"(give a sender axis, e.g. min_rto_ms — `lossrec presets` lists them — "
                     f"or a dotted scenario key, e.g. path.rtt_ms)")


def parse_set(item: str) -> Tuple[str, List[Any]]:
    """``"path.rtt_ms=10,20"`` → ``("path.rtt_ms", [10, 20])``; ValueError naming the item."""
    key, sep, rest = item.partition("=")
    parts = split_values(rest)
    if not sep or not key.strip() or any(not p.strip() for p in parts):
        raise ValueError(f"--set {item!r}: expected KEY=V1,V2,... (or AXIS=VALUE), e.g. "
                         f"path.rtt_ms=10,40 or min_rto_ms=200")
    try:
        key = normalise_key(key)
        values: List[Any] = []
        for part in parts:
            if _RANGE.fullmatch(part):
                values += expand_range(part)
            else:
                values.append(parse_value(part))
    except ValueError as e:
        raise ValueError(f"--set {item}: {e}") from None
    return key, values


def parse_sets(items: Sequence[str], single: bool = False) -> Dict[str, Any]:
    """Every ``--set``: key → list of values (``single``: key → the one value)."""
    out: Dict[str, Any] = {}
    for item in items:
        key, values = parse_set(item)
        if key in out:
            raise ValueError(f"--set {key}: given twice; list every value in one --set {key}=V1,V2")
        if single:
            if len(values) != 1:
                raise ValueError(f"--set {item}: one value here ({len(values)} given); "
                                 f"`lossrec sweep` runs several")
            out[key] = values[0]
        else:
            out[key] = values
    return out


def normalise(sets: Mapping[str, Any]) -> List[Tuple[str, Any]]:
    return [(normalise_key(k), v) for k, v in sets.items()]

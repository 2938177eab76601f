"""Scenario loading: a path, a dict or TOML text becomes ``(text, origin)`` for ``_core``.

The Rust side parses and validates; errors name ``origin:line:column: field: message``.
A dict is serialised with ``tomli_w`` and named ``<dict>`` in errors.

What validates but is probably not meant is a :class:`ScenarioWarning` (:func:`check`),
named by file and line: an empty scenario (every setting a default), and values whose
size says the unit was misread — ``rtt_ms = 0.04`` (seconds typed for milliseconds), a
rate in bit/s where Mb/s is meant, a duration in ms where seconds are meant.
"""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path
from typing import Any, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import tomli_w

ScenarioLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]

#: The largest scenario read (16 MiB), as the Rust loader caps it
#: (``lossrec_sim::MAX_SCENARIO_BYTES``): a larger file is refused before it is read.
MAX_SCENARIO_BYTES = 16 << 20


def _too_large(origin: str, size: int) -> ValueError:
    return ValueError(
        f"{origin}: the file is {size} bytes; a scenario may be at most 16 MiB "
        f"({MAX_SCENARIO_BYTES} bytes)"
    )


class ScenarioWarning(UserWarning):
    """A scenario that runs but is probably not what was meant (see :func:`check`)."""


#: Unit suffix → (lowest, highest) plausible value and the hint when outside; a value of
#: 0 is always allowed (it switches a setting off).
PLAUSIBLE = {
    "_ms": (1.0, None, "under 1 ms — a value in seconds? The key is in milliseconds"),
    "_mbps": (0.001, 100_000.0, "the key is in Mb/s (1 = 1,000,000 bit/s)"),
    "_s": (None, 86_400.0, "over a day — a value in milliseconds? The key is in seconds"),
}


def _leaves(v: Any, where: str = "") -> Iterator[Tuple[str, Any]]:
    if isinstance(v, Mapping):
        for k, x in v.items():
            yield from _leaves(x, f"{where}{k}.")
    elif isinstance(v, list) and any(isinstance(x, Mapping) for x in v):
        for i, x in enumerate(v):
            yield from _leaves(x, f"{where[:-1]}[{i}].")
    else:
        yield where[:-1], v


def check(text: str) -> List[Tuple[str, str]]:
    """``(key, message)`` for what in scenario ``text`` is probably a mistake: an empty
    scenario (key ``""``) and numbers implausible for their key's unit (:data:`PLAUSIBLE`).
    Text that is not TOML gives nothing here (the parser reports it)."""
    try:
        data = _toml_loads(text)
    except Exception:
        return []
    if not data:
        return [("", "the scenario is empty: every setting is a default")]
    out = []
    for key, v in _leaves(data):
        leaf = key.rsplit(".", 1)[-1]
        unit = next((u for u in PLAUSIBLE if leaf.endswith(u)), None)
        if unit is None or leaf.endswith("_per_s") or isinstance(v, bool) or not isinstance(v, (int, float)):
            continue
        lo, hi, hint = PLAUSIBLE[unit]
        if v != 0 and ((lo is not None and abs(v) < lo) or (hi is not None and abs(v) > hi)):
            out.append((key, f"{key} = {v}: {hint}"))
    return out


def _line_of(text: str, key: str) -> int:
    """The 1-based line that sets ``key``'s last part (1 when not found)."""
    leaf = re.escape(key.rsplit(".", 1)[-1])
    for i, line in enumerate(text.splitlines(), 1):
        if re.match(rf"\s*(?:[\w.\"-]+\.)?{leaf}\s*=", line):
            return i
    return 1


def warn(text: str, origin: str) -> None:
    """Issues a :class:`ScenarioWarning` per finding of :func:`check`, at ``origin``'s line."""
    for key, msg in check(text):
        warnings.warn_explicit(msg, ScenarioWarning, origin, _line_of(text, key) if key else 1)


def dict_to_toml(d: Mapping[str, Any]) -> str:
    """Serialises a scenario dict to TOML text.

    Tuples become arrays and ``None`` values are dropped (TOML has no null), so a dict
    built in Python with optional keys left as ``None`` still round-trips. A dotted key
    names a nested table, as in TOML: ``{"path.loss": {"model": "tail"}}`` is
    ``{"path": {"loss": {"model": "tail"}}}``.
    """
    from . import _args

    _args.mapping("dict_to_toml", "d", d, optional=False)
    return tomli_w.dumps(_clean(d))


def _merge(out: dict, key: str, value: Any, where: str) -> None:
    """Sets ``out[key] = value``, merging tables; a dotted key is split into tables."""
    head, dot, rest = key.partition(".")
    if dot:
        if not head or not rest:
            raise ValueError(f"bad dotted key {where + key!r}")
        value, key = {rest: value}, head
        value = _clean(value, f"{where}{head}.")
    if key in out:
        if isinstance(out[key], dict) and isinstance(value, dict):
            for k, v in value.items():
                _merge(out[key], k, v, f"{where}{key}.")
            return
        raise ValueError(f"key {where + key!r} is given twice")
    out[key] = value


def _clean(v: Any, where: str = "") -> Any:
    if isinstance(v, Mapping):
        out: dict = {}
        for k, x in v.items():
            if not isinstance(k, str):
                raise TypeError(f"scenario keys must be strings, got {k!r}")
            if x is not None:
                _merge(out, k, _clean(x, f"{where}{k}."), where)
        return out
    if isinstance(v, (list, tuple)):
        return [_clean(x, where) for x in v if x is not None]
    if isinstance(v, os.PathLike):
        return os.fspath(v)
    if hasattr(v, "item") and callable(v.item):  # numpy scalars
        return v.item()
    return v


def load(scenario: ScenarioLike) -> Tuple[str, str]:
    """Returns ``(toml_text, origin)`` for a path, a dict, or TOML text.

    A ``str`` is TOML text (origin ``<string>``) when it contains a newline, or an ``=``
    while naming no existing file and not ending in ``.toml``; otherwise it is a path
    (``"rtt=40.toml"`` is a file). ``"-"`` reads standard input. A missing or unreadable
    file raises ``ValueError`` naming it, as does one larger than ``MAX_SCENARIO_BYTES``
    (before it is read). What :func:`check` finds is warned about (:class:`ScenarioWarning`).
    """
    text, origin = _load(scenario)
    warn(text, origin)
    return text, origin


def _load(scenario: ScenarioLike) -> Tuple[str, str]:
    if isinstance(scenario, Mapping):
        return dict_to_toml(scenario), "<dict>"
    if isinstance(scenario, str) and scenario == "-":
        import sys

        text = sys.stdin.read(MAX_SCENARIO_BYTES + 1)
        if len(text) > MAX_SCENARIO_BYTES:
            raise ValueError(
                f"<stdin>: more than {MAX_SCENARIO_BYTES} characters; a scenario may be at "
                "most 16 MiB"
            )
        return text, "<stdin>"
    if isinstance(scenario, str) and ("\n" in scenario or (
            "=" in scenario and not scenario.endswith(".toml") and not os.path.isfile(scenario))):
        return scenario, "<string>"
    if isinstance(scenario, (str, os.PathLike)):
        path = Path(scenario)
        try:
            size = path.stat().st_size
            if size > MAX_SCENARIO_BYTES and path.is_file():
                raise _too_large(str(path), size)
            return path.read_text(encoding="utf-8"), str(path)
        except FileNotFoundError:
            raise ValueError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise ValueError(f"{path}: is a directory, not a scenario file") from None
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 text ({e.reason} at byte {e.start})") from None
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror or e}") from None
    raise TypeError(
        f"scenario must be a path, a dict or TOML text, not {type(scenario).__name__}"
    )


def _toml_loads(text: str) -> Any:
    try:
        import tomllib  # Python >= 3.11
    except ModuleNotFoundError:  # pragma: no cover - Python < 3.11
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def with_sender(text: str, preset: Optional[str] = None, sets: Sequence[Tuple[str, str]] = ()) -> str:
    """Returns scenario TOML with ``[sender] preset`` replaced and axes set.

    The file's other ``[sender]`` axis settings are kept, so ``--preset`` runs the same
    scenario under another bundle with the file's explicit overrides on top; ``sets``
    (``--set axis=value``) are applied last and win.
    """
    data = _toml_loads(text)
    sender = data.setdefault("sender", {})
    if not isinstance(sender, dict):
        raise ValueError("sender: expected a table")
    if preset is not None:
        sender["preset"] = preset
    for axis, value in sets:
        sender[axis] = value
    return tomli_w.dumps(data)


def apply_sets(text: str, origin: str, sets: Mapping[str, Any]) -> Tuple[str, str]:
    """Applies dotted-key settings (``--set``, see :mod:`lossrec.sets`) to scenario text;
    returns ``(text, origin)``. The original text is validated first, so its own errors
    keep their lines; errors in the result name ``origin (with --set k=v ...)``."""
    from . import _core
    from .sets import normalise

    pairs = normalise(sets)
    [(out, where)] = _core.sweep_points(text, origin, [pairs])
    return out, where

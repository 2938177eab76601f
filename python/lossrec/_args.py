"""Argument checks for the public functions: each raises :class:`~lossrec.errors.ArgumentError`
naming the function and the parameter, before any work is done, so that a wrong type never
surfaces as an internal ``OverflowError``, ``AttributeError`` or ``ModuleNotFoundError``
from deeper down (issue 26, item 9)."""

from __future__ import annotations

import numbers
import os
import re
from typing import Any, Collection, Mapping, Optional

from .errors import ArgumentError

#: The largest seed (the engine's seeds are u64).
U64_MAX = 2**64 - 1


def _got(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else f"a {type(v).__name__}"


def fail(fn: str, name: str, expected: str, v: Any) -> ArgumentError:
    """The error for parameter ``name`` of ``fn``: ``<name> must be <expected>, got <v>``."""
    return ArgumentError(fn, name, f"{fn}(): {name} must be {expected}, got {_got(v)}")


def integer(fn: str, name: str, v: Any, lo: int = 0, hi: Optional[int] = None,
            optional: bool = False) -> Optional[int]:
    """An integer (not a bool; numpy's pass) in ``[lo, hi]``; ``None`` passes when
    ``optional``."""
    if v is None and optional:
        return None
    ok = isinstance(v, numbers.Integral) and not isinstance(v, bool) and lo <= int(v) \
        and (hi is None or int(v) <= hi)
    if not ok:
        span = f"from {lo} to {hi}" if hi is not None else f"≥ {lo}"
        raise fail(fn, name, f"an integer {span}", v)
    return int(v)


def seed(fn: str, v: Any, name: str = "seed") -> Optional[int]:
    """A seed: ``None`` or an integer from 0 to 2**64 - 1."""
    return integer(fn, name, v, 0, U64_MAX, optional=True)


def boolean(fn: str, name: str, v: Any) -> bool:
    if not isinstance(v, bool):
        raise fail(fn, name, "True or False", v)
    return v


def text(fn: str, name: str, v: Any, optional: bool = False) -> Optional[str]:
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise fail(fn, name, "a string", v)
    return v


def choice(fn: str, name: str, v: Any, valid: Collection[str]) -> str:
    if not isinstance(v, str) or v not in valid:
        raise fail(fn, name, "one of " + ", ".join(valid), v)
    return v


def path(fn: str, name: str, v: Any, optional: bool = False) -> Any:
    """A ``str`` or ``os.PathLike`` (``None`` when ``optional``)."""
    if v is None and optional:
        return None
    if isinstance(v, bool) or not isinstance(v, (str, os.PathLike)):
        raise fail(fn, name, "a path (str or os.PathLike)", v)
    return v


def path_or_flag(fn: str, name: str, v: Any) -> Any:
    """``None``, a bool, or a path (``trace=``, ``pcap=``)."""
    if v is None or isinstance(v, bool) or isinstance(v, (str, os.PathLike)):
        return v
    raise fail(fn, name, "True, False or a path", v)


def mapping(fn: str, name: str, v: Any, optional: bool = True) -> Optional[Mapping[str, Any]]:
    """A mapping with string keys (``None`` when ``optional``)."""
    if v is None and optional:
        return None
    if not isinstance(v, Mapping):
        raise fail(fn, name, "a mapping (dict) with string keys", v)
    for k in v:
        if not isinstance(k, str):
            raise ArgumentError(fn, name, f"{fn}(): {name}: keys must be strings, got {_got(k)}")
    return v


def function(fn: str, name: str, v: Any, optional: bool = True) -> Any:
    if v is None and optional:
        return None
    if not callable(v):
        raise fail(fn, name, "a callable", v)
    return v


def scenario(fn: str, v: Any, name: str = "scenario") -> Any:
    """A scenario: a path, TOML text or a mapping."""
    if isinstance(v, Mapping) or (isinstance(v, (str, os.PathLike)) and not isinstance(v, bool)):
        return v
    raise fail(fn, name, "a path, TOML text or a dict", v)


def progress(fn: str, v: Any, name: str = "progress") -> Any:
    """``None`` (a bar on a terminal), a bool, or a callable ``f(done, total)``."""
    if v is None or isinstance(v, bool) or callable(v):
        return v
    raise fail(fn, name, "None, True, False or a callable f(done, total)", v)


#: A Dask scheduler address: ``scheme://host[:port]`` or ``host:port``.
_ADDRESS = re.compile(r"^([a-z][a-z0-9+.-]*://\S+|[^\s:/]+:\d+)$")


def dask(fn: str, v: Any) -> Any:
    """``None``, a scheduler address (``tcp://host:port``) or a ``distributed.Client``."""
    if v is None:
        return None
    if isinstance(v, str):
        if _ADDRESS.match(v.strip()):
            return v
        raise fail(fn, "dask", "a Dask scheduler address such as tcp://127.0.0.1:8786", v)
    if type(v).__name__ == "Client" and hasattr(v, "submit"):
        return v
    raise fail(fn, "dask", "a scheduler address or a distributed.Client", v)

"""Trace files by suffix: ``.jsonl`` (JSON lines) and ``.jsonl.zst`` (the same lines,
zstd-compressed; issue 29 item 4).

The simulator writes either (``crates/sim/src/trace_file.rs``: a ``.jsonl.zst`` file is a
sequence of complete zstd frames, one per flush, RFC 8878 §3.1); every reader of a trace
file here — :func:`read_trace`, ``Result.trace``, ``lossrec plot``, the HTML page —
opens it through :func:`open_text`, so each format reads back as the same lines. Any
other suffix is refused with the list of accepted ones, before a run starts and when
reading. A damaged compressed file (a corrupt block, a checksum mismatch, a frame cut
short) is a ``ValueError`` naming the file, never a silently shorter trace.

``zstandard`` and pandas are imported on first use.
"""

from __future__ import annotations

import io
import os
import stat
from typing import IO, TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Union

if TYPE_CHECKING:
    import pandas as pd

PathLike = Union[str, "os.PathLike[str]"]

#: Accepted suffixes → format name, longest first (as the Rust side's ``SUFFIXES``).
SUFFIXES = ((".jsonl.zst", "jsonl.zst"), (".jsonl", "jsonl"))

#: Compressed bytes read per step.
_CHUNK = 1 << 16

__all__ = ["SUFFIXES", "trace_format", "check_trace_path", "open_text", "open_write", "iter_records",
           "read_records", "read_trace", "read_text", "stem"]


def trace_format(path: PathLike) -> str:
    """``"jsonl"`` or ``"jsonl.zst"``, from ``path``'s suffix; ``-`` (stdout/stdin) and an
    existing path that is not a regular file (``/dev/null``, a FIFO) are JSON lines.
    Raises ``ValueError`` naming the path and the accepted suffixes otherwise."""
    name = os.fspath(path)
    if name == "-":
        return "jsonl"
    for suffix, fmt in SUFFIXES:
        if name.endswith(suffix):
            return fmt
    try:
        mode = os.stat(name).st_mode
    except OSError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        return "jsonl"
    raise ValueError(f"{name}: unknown trace format; name the file with one of these suffixes: "
                     f"{', '.join(s for s, _ in SUFFIXES)}")


def check_trace_path(path: Optional[PathLike]) -> None:
    """Raises ``ValueError`` if ``path`` (when given) has no trace suffix: called before a
    run, so that a typo costs no simulation."""
    if path is not None:
        trace_format(path)


class _ZstdFrames(io.RawIOBase):
    """The decompressed bytes of a file of concatenated zstd frames, read as a stream;
    raises ``ValueError`` naming the file on a corrupt frame or one cut short."""

    def __init__(self, f: IO[bytes], name: str):
        import zstandard

        self._z = zstandard
        self._f = f
        self._name = name
        self._dobj = zstandard.ZstdDecompressor().decompressobj()
        self._in_frame = False  # bytes of the current frame fed, its end not yet seen
        self._pending = b""
        self._done = False

    def readable(self) -> bool:
        return True

    def _feed(self, data: bytes) -> bytes:
        out = []
        while data:
            try:
                out.append(self._dobj.decompress(data))
            except self._z.ZstdError as e:
                raise ValueError(f"{self._name}: corrupt zstd trace: {e}") from None
            self._in_frame = True
            if not self._dobj.eof:
                break
            # RFC 8878 §3.1: frames may follow one another; start the next one.
            data = self._dobj.unused_data
            self._dobj = self._z.ZstdDecompressor().decompressobj()
            self._in_frame = False
        return b"".join(out)

    def readinto(self, b: Any) -> int:
        while not self._pending and not self._done:
            chunk = self._f.read(_CHUNK)
            if not chunk:
                self._done = True
                if self._in_frame:
                    raise ValueError(f"{self._name}: truncated zstd trace: its last frame ends early "
                                     f"(the file was cut short, or the run writing it did not finish)")
                break
            self._pending = self._feed(chunk)
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def close(self) -> None:
        self._f.close()
        super().close()


def open_text(path: PathLike) -> IO[str]:
    """Opens a trace file for reading as text lines, whatever its format."""
    name = os.fspath(path)
    fmt = trace_format(name)
    if fmt == "jsonl":
        return open(name, encoding="utf-8")
    raw = _ZstdFrames(open(name, "rb"), name)
    return io.TextIOWrapper(io.BufferedReader(raw, _CHUNK), encoding="utf-8")


def open_write(path: PathLike) -> IO[str]:
    """Creates (or truncates) a trace file for writing text lines, in the format its suffix
    names (a ``.jsonl.zst`` file is one checksummed zstd frame, ended on close)."""
    name = os.fspath(path)
    if trace_format(name) == "jsonl":
        return open(name, "w", encoding="utf-8")
    import zstandard

    w = zstandard.ZstdCompressor(level=3, write_checksum=True).stream_writer(open(name, "wb"))
    return io.TextIOWrapper(w, encoding="utf-8")


def stem(path: PathLike) -> str:
    """The file's name without its trace suffix (``a.jsonl.zst`` → ``a``)."""
    name = os.path.basename(os.fspath(path))
    for suffix, _ in SUFFIXES:
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return os.path.splitext(name)[0]


def read_text(path: PathLike) -> str:
    """The whole trace file as JSON-lines text."""
    with open_text(path) as f:
        return f.read()


def iter_records(path: PathLike) -> Iterator[Dict[str, Any]]:
    """The records of a trace file, one at a time (blank lines skipped); a line that is
    not JSON is a ``ValueError`` naming the file and line."""
    import json

    with open_text(path) as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except ValueError as e:
                raise ValueError(f"{os.fspath(path)}:{i}: not a JSON-lines trace record: {e}") from None


def read_records(path: PathLike) -> List[Dict[str, Any]]:
    """Every record of a trace file, as dicts."""
    return list(iter_records(path))


def read_trace(path: PathLike) -> "pd.DataFrame":
    """A trace file (``.jsonl`` or ``.jsonl.zst``) as a DataFrame, one row per record,
    the same frame ``Result.trace`` gives for the run that wrote it.

    Raises:
        lossrec.errors.ArgumentError: ``path`` is not a path, or its suffix names no trace
            format (the message lists the accepted ones).
        ValueError: the file is damaged (a corrupt or truncated zstd frame, a line that
            is not JSON), named with the file.
    """
    import pandas as pd

    from . import _args
    from .errors import ArgumentError

    _args.path("read_trace", "path", path)
    try:
        trace_format(path)
    except ValueError as e:
        raise ArgumentError("read_trace", "path", f"read_trace(): path: {e}") from None
    return pd.DataFrame(read_records(path))

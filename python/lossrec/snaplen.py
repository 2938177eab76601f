"""A snapshot length for captures (issue 28 item 11: a traced hour wrote 48 GB per pcap).

The simulator writes whole frames; ``--pcap-snaplen N`` keeps the first N bytes of each, as
``tcpdump -s N`` does: the record's captured length becomes min(N, length) and its
original length stays, so readers (tshark, Wireshark) show the packets as truncated, not
short. 94 bytes keep Ethernet (14), IPv4 (20) and TCP with any options (60).

The capture streams as it did: the simulator writes into a FIFO and a thread copies it,
record by record, to the file (or stdout) with the records cut — memory stays flat
however long the run. The libpcap format is read as its documentation gives it
(a 24-byte global header, a 16-byte header per record, either byte order, micro- or
nanosecond magic); it is small and fixed, so it is done here rather than through a
capture library the project does not otherwise need.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
import tempfile
import threading
from pathlib import Path
from typing import BinaryIO, Iterator, List, Optional

#: Ethernet + IPv4 + TCP headers with the largest options: what a TCP analysis needs.
HEADERS = 94
MAGICS = {b"\xd4\xc3\xb2\xa1": "<", b"\xa1\xb2\xc3\xd4": ">",  # microseconds
          b"\x4d\x3c\xb2\xa1": "<", b"\xa1\xb2\x3c\x4d": ">"}  # nanoseconds


def check(snaplen: object) -> int:
    """``snaplen`` as an int in 1..262144, else a ValueError that says what is allowed."""
    if isinstance(snaplen, bool) or not isinstance(snaplen, int) or not 1 <= snaplen <= 262_144:
        raise ValueError(f"pcap snaplen: {snaplen!r} is not a length in bytes from 1 to 262144 "
                         f"({HEADERS} keeps the Ethernet, IPv4 and TCP headers with options)")
    return snaplen


def _read(src: BinaryIO, n: int) -> bytes:
    """Exactly ``n`` bytes, or fewer only at the end of the stream."""
    out = b""
    while len(out) < n:
        chunk = src.read(n - len(out))
        if not chunk:
            break
        out += chunk
    return out


def copy(src: BinaryIO, dst: BinaryIO, snaplen: int) -> int:
    """Copies a pcap stream with every record cut to ``snaplen`` bytes and the global
    header's snaplen set to it; returns the records copied. A stream that is not pcap, or
    ends inside a record, raises ValueError (the part before is written)."""
    head = _read(src, 24)
    if not head:
        return 0
    if len(head) < 24 or head[:4] not in MAGICS:
        raise ValueError("pcap snaplen: the capture stream is not a pcap file (bad global header)")
    order = MAGICS[head[:4]]
    dst.write(head[:16] + struct.pack(order + "I", snaplen) + head[20:])
    n = 0
    while True:
        rec = _read(src, 16)
        if not rec:
            return n
        if len(rec) < 16:
            raise ValueError(f"pcap snaplen: the capture ends inside record {n + 1}'s header")
        sec, frac, incl, orig = struct.unpack(order + "IIII", rec)
        data = _read(src, incl)
        if len(data) < incl:
            raise ValueError(f"pcap snaplen: the capture ends inside record {n + 1}")
        keep = min(incl, snaplen)
        dst.write(struct.pack(order + "IIII", sec, frac, keep, orig) + data[:keep])
        n += 1


def cut_bytes(data: bytes, snaplen: int) -> bytes:
    """:func:`copy` for a capture held in memory (``lossrec.run(..., pcap=True)``)."""
    import io

    out = io.BytesIO()
    copy(io.BytesIO(data), out, snaplen)
    return out.getvalue()


class _Chain:
    """``head`` then the rest of ``src``, read as one stream."""

    def __init__(self, head: bytes, src: BinaryIO):
        self.head, self.src = head, src

    def read(self, n: int) -> bytes:
        if self.head:
            out, self.head = self.head[:n], self.head[n:]
            return out
        return self.src.read(n)


@contextlib.contextmanager
def streamed(target: Optional[str], snaplen: Optional[int]) -> Iterator[Optional[str]]:
    """Yields the path the simulator should write the capture to: ``target`` itself without
    a snaplen (or without a capture), else a FIFO whose records a thread cuts into
    ``target`` (``-``: stdout) as they come."""
    if target is None or snaplen is None:
        yield target
        return
    check(snaplen)
    with tempfile.TemporaryDirectory(prefix="lossrec-snaplen-") as tmp:
        fifo = str(Path(tmp) / "capture.pcap")
        os.mkfifo(fifo)
        # Both ends are opened here, before the simulator opens the FIFO (it does so holding
        # the GIL, so a thread could not open the read end meanwhile): its open() then
        # returns at once, and our own write end keeps the reader from seeing the end of
        # the stream before the run is over.
        rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        os.set_blocking(rfd, True)
        wfd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        errors: List[BaseException] = []

        def pump() -> None:
            try:
                with os.fdopen(rfd, "rb") as src:
                    head = _read(src, 24)
                    if not head:
                        return  # the run wrote no capture: no file either
                    both = _Chain(head, src)
                    if target == "-":
                        copy(both, sys.stdout.buffer, snaplen)  # type: ignore[arg-type]
                        sys.stdout.buffer.flush()
                    else:
                        with open(target, "wb") as dst:
                            copy(both, dst, snaplen)  # type: ignore[arg-type]
            except BaseException as e:  # reported by the caller's thread
                errors.append(e)

        t = threading.Thread(target=pump, name="lossrec-snaplen", daemon=True)
        t.start()
        try:
            yield fifo
        finally:
            os.close(wfd)  # the simulator has closed its end: the reader sees the end
            t.join()
    if errors:
        raise errors[0]

#!/usr/bin/env python3
"""tshark-compare.py [CORPUS_DIR]
Prints the Markdown table of docs/explain.md's tshark comparison: for each capture of the
kernel corpus (default tests/explain: NAME.pcap.gz with NAME.json holding the kernel's
nstat deltas), the kernel's own counts, Wireshark's tcp.analysis flags (retransmission,
fast_retransmission, spurious_retransmission, and out_of_order, where it files most
retransmissions; tshark reads the gzipped file itself) and lossrec explain's causes of
the captured transmissions under linux. Reads only; writes nothing but stdout (explain
reads a decompressed copy in a temporary folder it removes).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

FLAGS = ("tcp.analysis.retransmission", "tcp.analysis.fast_retransmission",
         "tcp.analysis.spurious_retransmission", "tcp.analysis.out_of_order")
#: explain's causes that are retransmissions, and the ones the kernel counts as fast.
RETX = {"fast_retransmit", "rack", "rack_reo_timer", "early_retransmit", "probe_retransmit",
        "rto", "loss_retransmit"}
FAST = {"fast_retransmit", "rack", "rack_reo_timer", "early_retransmit"}
HEADER = ("| capture | kernel: RetransSegs / TCPFastRetrans / TCPLossProbes / TCPTimeouts / "
          "TCPDSACKRecv | tshark: retransmission / fast_retransmission / spurious_retransmission / "
          "out_of_order "
          "| explain (linux): retransmissions / fast / probe / rto / spurious |\n|---|---|---|---|")


def tshark_counts(pcap: Path) -> List[int]:
    """Packets carrying each of FLAGS (a fast retransmission carries the retransmission
    flag too; a spurious one carries only its own; a retransmission sent soon after the
    highest segment is called out-of-order instead)."""
    out = subprocess.run(["tshark", "-n", "-r", str(pcap), "-T", "fields",
                          *(a for f in FLAGS for a in ("-e", f))],
                         capture_output=True, text=True, check=True).stdout
    counts = [0] * len(FLAGS)
    for line in out.splitlines():
        for i, v in enumerate(line.split("\t")[: len(FLAGS)]):
            counts[i] += bool(v.strip())
    return counts


def explain_counts(pcap_gz: Path) -> List[int]:
    """Retransmissions, fast, probe, rto (with the loss-phase repairs) and spurious as
    explain labels them under linux."""
    from lossrec.capture import run

    with tempfile.TemporaryDirectory() as tmp:
        pcap = Path(tmp) / "c.pcap"
        pcap.write_bytes(gzip.decompress(pcap_gz.read_bytes()))
        report, rows = run(pcap, "linux")
    causes = [r.get("cause") for r in rows if r.get("verdict") in ("matched", "late")]
    spurious = sum(sum(c["spurious_by"].values()) for c in report["connections"])
    return [sum(c in RETX for c in causes), sum(c in FAST for c in causes),
            causes.count("probe_retransmit"), sum(c in ("rto", "loss_retransmit") for c in causes),
            spurious]


def table_rows(corpus: Path) -> List[str]:
    """One Markdown row per capture, by name."""
    rows = []
    for gz in sorted(corpus.glob("*.pcap.gz")):
        name = gz.name[: -len(".pcap.gz")]
        mib: Dict[str, int] = json.loads((corpus / f"{name}.json").read_text())["mib"]
        k = [mib[c] for c in ("RetransSegs", "TCPFastRetrans", "TCPLossProbes", "TCPTimeouts",
                              "TCPDSACKRecv")]
        t, e = tshark_counts(gz), explain_counts(gz)
        rows.append(f"| {name} | {' / '.join(map(str, k))} | {' / '.join(map(str, t))} | "
                    f"{' / '.join(map(str, e))} |")
    return rows


def main() -> None:
    corpus = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "tests" / "explain"
    print(HEADER)
    for r in table_rows(corpus):
        print(r)


if __name__ == "__main__":
    main()

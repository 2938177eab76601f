#!/usr/bin/env python3
"""explain-corpus.py OUT_DIR [--force]

Regenerates the kernel corpus of ``lossrec explain``'s test (tests/explain/): Linux's own
sender on the real wire (``lossrec wire --sender linux --preset linux --pcap``) over a few
exact-drop patterns — a tail loss, a burst, a lost retransmission, random loss — each
capture gzipped beside the kernel's nstat deltas for the connection (``NAME.json``:
``{"scenario": TOML, "mib": {counter: delta}}``). Needs root and /dev/net/tun.

OUT_DIR must not exist, or be a folder this script wrote (it holds ``.explain-corpus``);
with ``--force`` the files it writes are replaced, nothing else is touched.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

BASE = """seed = {seed}
[path]
rtt_ms = {rtt}
rate_mbps = 10
[path.loss]
{loss}
{extra}
[sender]
preset = "linux"
[workload]
kind = "flows"
flows = 1
segments = {segments}
"""

SCENARIOS = {
    "tail": dict(seed=1, rtt=60, segments=10, loss='model = "tail"\ncount = 1'),
    "burst": dict(seed=1, rtt=60, segments=30,
                  loss='model = "drop-list"\npackets = [10, 11, 12]'),
    "lost-retransmission": dict(seed=1, rtt=60, segments=20,
                                loss='model = "drop-list"\npackets = [3]\n'
                                     '[[path.loss.drops]]\nsegment = 3\ntransmission = 2'),
    "random": dict(seed=5, rtt=40, segments=200, loss='model = "bernoulli"\np = 0.02'),
    "rto": dict(seed=1, rtt=60, segments=10, loss='model = "tail"\ncount = 2'),
    "ackloss": dict(seed=3, rtt=40, segments=100, loss='model = "bernoulli"\np = 0.02',
                    extra='[path.ack_loss]\nmodel = "bernoulli"\np = 0.1'),
    "delack": dict(seed=4, rtt=40, segments=60, loss='model = "drop-list"\npackets = [20, 40]',
                   extra='[receiver]\ndelayed_ack_ms = 40'),
    "long": dict(seed=9, rtt=30, segments=1000, loss='model = "bernoulli"\np = 0.01'),
    "burst5": dict(seed=2, rtt=50, segments=80,
                   loss='model = "drop-list"\npackets = [30, 31, 32, 33, 34]'),
}

#: The counters the test compares (kernel nstat name = engine Stats name).
COUNTERS = ("RetransSegs", "TCPLossProbes", "TCPFastRetrans", "TCPSlowStartRetrans",
            "TCPTimeouts", "TCPLostRetransmit", "TCPSpuriousRTOs", "TCPDSACKRecv",
            "TCPSackRecovery", "TCPLossProbeRecovery", "TCPDSACKUndo", "TCPLossUndo",
            "TCPFullUndo", "TCPPartialUndo")

MARKER = ".explain-corpus"


def main() -> None:
    args = [a for a in sys.argv[1:] if a != "--force"]
    force = "--force" in sys.argv
    if len(args) != 1:
        sys.exit(__doc__)
    out = Path(args[0])
    if out.exists() and not (out / MARKER).exists():
        sys.exit(f"{out} exists and was not written by this script; choose another folder")
    out.mkdir(parents=True, exist_ok=True)
    (out / MARKER).write_text("written by scripts/explain-corpus.py\n")
    for name, params in SCENARIOS.items():
        targets = [out / f"{name}.pcap.gz", out / f"{name}.json"]
        if any(t.exists() for t in targets) and not force:
            sys.exit(f"{targets[0]} exists; pass --force to replace the corpus files")
        text = BASE.format(**{"extra": "", **params})
        with tempfile.TemporaryDirectory() as tmp:
            sc = Path(tmp) / f"{name}.toml"
            sc.write_text(text)
            pcap = Path(tmp) / f"{name}.pcap"
            r = subprocess.run(["lossrec", "wire", str(sc), "--sender", "linux", "--preset", "linux",
                                "--pcap", str(pcap), "--json"], capture_output=True, text=True)
            if r.returncode != 0:
                sys.exit(f"{name}: lossrec wire failed: {r.stderr}")
            mib = json.loads(r.stdout)["kernel"]["mib"][0]
            targets[0].write_bytes(gzip.compress(pcap.read_bytes(), mtime=0))
        kept = {k: mib.get(k, 0) for k in COUNTERS}
        targets[1].write_text(json.dumps({"scenario": text, "mib": kept}, indent=1) + "\n")
        print(f"{name}: {kept}")


if __name__ == "__main__":
    main()

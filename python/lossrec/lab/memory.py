"""Peak memory of long traced runs: ``lossrec bench --memory``.

Each duration runs in a fresh process (``python -m lossrec run``) with the trace and a
pcap at both hosts streamed as the run goes, and the child's peak resident set size is
read from ``wait4``'s rusage. Streaming keeps memory flat: the peak must not grow with
the run's length. Outputs go to ``/dev/null`` unless a folder is given (an hour of
100 Mb/s is tens of GB of pcap); the path through the simulator is the same.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

#: 100 Mb/s bulk filling the link (40 ms RTT, drop-tail losses only), for `duration` s.
SCENARIO = """seed = 1
max_time_s = {limit}
[path]
rtt_ms = 40
rate_mbps = 100
queue_packets = 333
[sender]
preset = "rfc"
[workload]
kind = "bulk"
duration_s = {duration}
"""
DURATIONS = (60, 600, 3600)
DESCRIPTION = ("peak RSS of one 100 Mb/s bulk flow (40 ms RTT, 333-packet drop-tail queue) with --trace, --pcap "
               "and --pcap-receiver streamed, for 60 s, 600 s and 3,600 s of simulated time")


def run_one(duration: float, out_dir: Optional[Path] = None) -> Dict[str, Any]:
    """One traced run in a child process: its peak RSS, wall time and output counts."""
    with tempfile.TemporaryDirectory() as tmp:
        scen = Path(tmp) / "bulk.toml"
        scen.write_text(SCENARIO.format(duration=duration, limit=max(3600, duration + 60)))
        outs = [(out_dir / f"bulk-{duration:g}s{s}") if out_dir else Path(os.devnull)
                for s in (".jsonl", ".pcap", "-rx.pcap")]
        cmd = [sys.executable, "-m", "lossrec", "run", str(scen), "--json",
               "--trace", str(outs[0]), "--pcap", str(outs[1]), "--pcap-receiver", str(outs[2])]
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None and proc.stderr is not None
        out = proc.stdout.read()
        err = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"memory bench run of {duration} s failed: {err.decode(errors='replace')}")
    res = json.loads(out)
    o = res.get("outputs", {})
    return {"duration_s": duration, "peak_rss_mb": usage.ru_maxrss / 1024.0, "wall_s": wall,
            "data_packets": sum(f["data_packets_sent"] for f in res["flows"]),
            "trace_lines": o.get("trace_lines"), "pcap_records": o.get("pcap_records"),
            "pcap_receiver_records": o.get("pcap_receiver_records")}


def memory_bench(durations: Sequence[float] = DURATIONS, out_dir: Optional[Path] = None) -> Dict[str, Any]:
    """Runs :func:`run_one` per duration; ``growth`` is the longest run's peak over the
    shortest's (1.0 = flat)."""
    runs = [run_one(d, out_dir) for d in durations]
    growth = runs[-1]["peak_rss_mb"] / runs[0]["peak_rss_mb"] if runs else None
    return {"runs": runs, "growth": growth}

"""Streaming traces and captures keep memory flat with run length (lossrec bench --memory)."""

from __future__ import annotations

from lossrec.lab.memory import memory_bench


def test_peak_memory_does_not_grow_with_run_length():
    res = memory_bench((5, 50))
    short, long = res["runs"]
    # Ten times the traffic, trace lines and capture records ...
    assert long["data_packets"] > 8 * short["data_packets"]
    assert long["trace_lines"] > 8 * short["trace_lines"]
    assert long["pcap_records"] > 8 * short["pcap_records"]
    assert long["pcap_receiver_records"] > 8 * short["pcap_receiver_records"]
    # ... in the same memory (an in-memory trace of 50 s would add hundreds of MB).
    assert long["peak_rss_mb"] < short["peak_rss_mb"] * 1.15 + 8, res

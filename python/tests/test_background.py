"""Responsive background (`[[background]] kind = "tcp"`) and jitter seen from Python: the
background is reported apart from the measured flows, and scenario errors name the field."""

from __future__ import annotations

import pytest

import lossrec

SCENARIO = """
[path]
rtt_ms = 40
rate_mbps = 3
queue_packets = 40
[path.ack_jitter]
mean_ms = 2
dist = "pareto"
[workload]
kind = "writes"
writes = [[10000, 1000]]
[[background]]
kind = "tcp"
rate_per_s = 5
mean_bytes = 40000
"""


def test_background_sources_are_reported_apart_from_the_flows():
    r = lossrec.run(SCENARIO)
    assert len(r.flows) == 1  # the measured connection only
    (bg,) = r.background
    assert bg["connections"] > 20 and bg["finished"] > 0 and bg["delivered_bytes"] > 0
    assert set(bg) >= {"packets", "dropped", "rejected", "retransmits", "rtos"}
    assert lossrec.run(SCENARIO).background == r.background  # same seed, same background
    assert lossrec.run("[workload]\nsegments = 2\n").background == []


def test_schema_errors_name_the_field():
    with pytest.raises(lossrec.ScenarioError, match=r"background\[0\]\.load"):
        lossrec.run(SCENARIO.replace("rate_per_s = 5", "rate_per_s = 5\nload = 0.2"))
    with pytest.raises(lossrec.ScenarioError, match=r"path\.ack_jitter\.dist"):
        lossrec.run(SCENARIO.replace('dist = "pareto"', 'dist = "gauss"'))

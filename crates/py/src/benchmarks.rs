//! `lossrec bench`: the two throughput benchmarks, timed around the simulator.
//!
//! bulk: one flow, 100 Mb/s, 40 ms RTT, 333-packet queue, 1 % Bernoulli data loss,
//! preset `rfc`, 60 s of bulk transfer — repeated until at least 1 s of wall time is
//! measured. short_flows: 10,000 sequential 10-segment flows over 10 Mb/s, 40 ms RTT,
//! last segment lost once, handshake on — likewise repeated to cover 1 s.

use std::time::Instant;

use lossrec_sim::{RunOptions, Scenario};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::scenario_err;

/// Minimum wall time a measurement covers.
const MIN_WALL_S: f64 = 1.0;

fn scenario(which: &str) -> PyResult<Scenario> {
    match which {
        "bulk" => Ok(lossrec_sim::bench::bulk()),
        "short_flows" => Ok(lossrec_sim::bench::short_flows()),
        _ => Err(PyValueError::new_err(format!(
            "unknown benchmark `{which}`; valid: bulk, short_flows"
        ))),
    }
}

/// Runs one benchmark and returns its figures: rates per second of wall time, `wall_s`, `runs`.
pub(crate) fn run<'py>(py: Python<'py>, which: &str) -> PyResult<Bound<'py, PyDict>> {
    let sc = scenario(which)?;
    let opts = RunOptions::default();
    let (totals, wall_s, runs) = py
        .detach(|| {
            let (mut packets, mut events, mut flows, mut runs) = (0u64, 0u64, 0u64, 0u64);
            let t0 = Instant::now();
            loop {
                let out = lossrec_sim::run(&sc, &opts)?;
                packets += out.data_packets;
                events += out.events;
                flows += out.flows.len() as u64;
                runs += 1;
                let wall = t0.elapsed().as_secs_f64();
                if wall >= MIN_WALL_S {
                    return Ok(((packets, events, flows), wall, runs));
                }
            }
        })
        .map_err(|e| scenario_err(py, e))?;
    let (packets, events, flows) = totals;
    let per_s = |n: u64| n as f64 / wall_s;
    let d = PyDict::new(py);
    if which == "bulk" {
        d.set_item("data_packets_per_s", per_s(packets))?;
        d.set_item("events_per_s", per_s(events))?;
    } else {
        d.set_item("flows_per_s", per_s(flows))?;
    }
    d.set_item("wall_s", wall_s)?;
    d.set_item("runs", runs)?;
    Ok(d)
}

//! `lossrec bench`: the two throughput benchmarks, timed around the simulator.
//!
//! bulk: one flow, 100 Mb/s, 40 ms RTT, 333-packet queue, 1 % Bernoulli data loss,
//! preset `rfc`, 60 s of bulk transfer — repeated until at least 1 s of wall time is
//! measured. short_flows: 10,000 sequential 10-segment flows over 10 Mb/s, 40 ms RTT,
//! last segment lost once, handshake on — likewise repeated to cover 1 s. per_ack: the
//! engine's cost per ACK with 100 … 100,000 segments in flight (see [`per_ack`]). flows:
//! the cost of an event with 1 … 100,000 concurrent flows, and their memory (see [`flows`]).

use std::time::Instant;

use lossrec_sim::{RunOptions, Scenario};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::scenario_err;

/// Minimum wall time a measurement covers.
pub(crate) const MIN_WALL_S: f64 = 1.0;

fn scenario(which: &str) -> PyResult<Scenario> {
    match which {
        "bulk" => Ok(lossrec_sim::bench::bulk()),
        "short_flows" => Ok(lossrec_sim::bench::short_flows()),
        _ => Err(PyValueError::new_err(format!(
            "unknown benchmark `{which}`; valid: bulk, short_flows, per_ack, per_ack_app_limited, per_ack_families, flows, attacks, explain"
        ))),
    }
}

/// Runs one benchmark and returns its figures: rates per second of wall time, `wall_s`, `runs`.
pub(crate) fn run<'py>(py: Python<'py>, which: &str) -> PyResult<Bound<'py, PyDict>> {
    if which == "per_ack" {
        return per_ack(py);
    }
    if which == "per_ack_app_limited" {
        return per_ack_app_limited(py);
    }
    if which == "flows" {
        return flows(py);
    }
    if which == "per_ack_families" {
        return per_ack_families(py);
    }
    if which == "attacks" {
        return crate::attacks::attacks(py);
    }
    if which == "explain" {
        return crate::explain::bench(py);
    }
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

/// In-flight sizes of the engine micro-benchmark.
const PER_ACK_SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];
/// Wall time each size's replays cover (after at least three runs).
const PER_ACK_WALL_S: f64 = 0.5;

/// The engine micro-benchmark: nanoseconds per ACK with 100 … 100,000 segments in flight
/// at 1 % loss with SACK (`lossrec_sim::bench::per_ack_workload`). Each size replays its
/// recorded ACK stream into fresh senders; only the replay is timed. Returns
/// `{"sizes", "median_ns_per_ack", "best_ns_per_ack", "flatness", "wall_s"}` where
/// `flatness` = best ns/ACK at the largest size ÷ at the smallest.
pub(crate) fn per_ack(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let (medians, bests, wall_s) = py.detach(|| {
        let t0 = Instant::now();
        let (mut medians, mut bests) = (Vec::new(), Vec::new());
        for n in PER_ACK_SIZES {
            let (median, best) = time_replays(&lossrec_sim::bench::per_ack_workload(n, 1));
            medians.push(median);
            bests.push(best);
        }
        (medians, bests, t0.elapsed().as_secs_f64())
    });
    let d = PyDict::new(py);
    d.set_item("sizes", PER_ACK_SIZES.to_vec())?;
    d.set_item("median_ns_per_ack", medians)?;
    d.set_item("best_ns_per_ack", bests.clone())?;
    d.set_item("flatness", bests[bests.len() - 1] / bests[0])?;
    d.set_item("wall_s", wall_s)?;
    Ok(d)
}

/// Replays `w` into fresh senders (at least three times, then for [`PER_ACK_WALL_S`]):
/// the median and best nanoseconds per ACK, by the replaying thread's CPU time (on a
/// shared machine wall time also counts the waits for a core). Only the replay is timed.
fn time_replays(w: &lossrec_sim::bench::PerAckWorkload) -> (f64, f64) {
    let mut runs = Vec::new();
    let start = Instant::now();
    while runs.len() < 3 || (start.elapsed().as_secs_f64() < PER_ACK_WALL_S && runs.len() < 50) {
        let mut s = w.sender();
        let t = thread_cpu_s();
        let acks = w.replay(&mut s).max(1);
        runs.push((thread_cpu_s() - t) * 1e9 / acks as f64);
        std::hint::black_box(&s);
    }
    runs.sort_by(f64::total_cmp);
    (runs[runs.len() / 2], runs[0])
}

/// The app-limited arm: per preset (`rfc`, `prr`, `linux`, `rack-tlp`) and size (1,000 …
/// 100,000 segments in flight), ns per ACK when all data is written and large SACK holes
/// stay open (`lossrec_sim::bench::app_limited`). Returns `{"presets", "sizes",
/// "median_ns_per_ack": [[...]], "best_ns_per_ack": [[...]], "flatness": [...], "wall_s"}`.
pub(crate) fn per_ack_app_limited(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use lossrec_sim::bench::app_limited::{app_limited_workload, PRESETS, SIZES};
    let (medians, bests, wall_s) = py.detach(|| {
        let t0 = Instant::now();
        let (mut medians, mut bests) = (Vec::new(), Vec::new());
        for p in PRESETS {
            let (m, b): (Vec<f64>, Vec<f64>) = SIZES
                .iter()
                .map(|&n| time_replays(&app_limited_workload(p, n)))
                .unzip();
            medians.push(m);
            bests.push(b);
        }
        (medians, bests, t0.elapsed().as_secs_f64())
    });
    let flatness: Vec<f64> = bests.iter().map(|b| b[b.len() - 1] / b[0]).collect();
    let d = PyDict::new(py);
    d.set_item("presets", PRESETS.to_vec())?;
    d.set_item("sizes", SIZES.to_vec())?;
    d.set_item("median_ns_per_ack", medians)?;
    d.set_item("best_ns_per_ack", bests)?;
    d.set_item("flatness", flatness)?;
    d.set_item("wall_s", wall_s)?;
    Ok(d)
}

/// The per-family arms (issue 29): ns per ACK for each family of
/// `lossrec_sim::bench::app_limited::FAMILIES` (rfc, prr, linux, rack-tlp, bbr) at each size
/// of `FAMILY_SIZES` (100 … 1,000,000 in flight), at 1 % loss (`per_ack_family_workload`)
/// and app-limited (`app_limited_workload`). Returns `{"families", "sizes", "loss":
/// {"median_ns_per_ack": [[...]], "best_ns_per_ack": [[...]], "flatness": [...]},
/// "app_limited": {...}, "cpu_model", "wall_s"}`.
pub(crate) fn per_ack_families(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use lossrec_sim::bench::app_limited::{app_limited_workload, FAMILIES, FAMILY_SIZES};
    use lossrec_sim::bench::per_ack_family_workload;
    type Grid = (Vec<Vec<f64>>, Vec<Vec<f64>>);
    let time = |app_limited: bool| -> Grid {
        FAMILIES
            .iter()
            .map(|f| {
                FAMILY_SIZES
                    .iter()
                    .map(|&n| {
                        time_replays(&if app_limited {
                            app_limited_workload(f, n)
                        } else {
                            per_ack_family_workload(f, n, 1)
                        })
                    })
                    .unzip::<f64, f64, Vec<f64>, Vec<f64>>()
            })
            .unzip()
    };
    let (loss, app, wall_s) = py.detach(|| {
        let t0 = Instant::now();
        let (loss, app) = (time(false), time(true));
        (loss, app, t0.elapsed().as_secs_f64())
    });
    let grid = |(medians, bests): Grid| -> PyResult<Bound<'_, PyDict>> {
        let flatness: Vec<f64> = bests.iter().map(|b| b[b.len() - 1] / b[0]).collect();
        let d = PyDict::new(py);
        d.set_item("median_ns_per_ack", medians)?;
        d.set_item("best_ns_per_ack", bests)?;
        d.set_item("flatness", flatness)?;
        Ok(d)
    };
    let d = PyDict::new(py);
    d.set_item("families", FAMILIES.to_vec())?;
    d.set_item("sizes", FAMILY_SIZES.to_vec())?;
    d.set_item("loss", grid(loss)?)?;
    d.set_item("app_limited", grid(app)?)?;
    d.set_item("cpu_model", cpu_model())?;
    d.set_item("wall_s", wall_s)?;
    Ok(d)
}

/// The CPU model as /proc/cpuinfo names it (`unknown` elsewhere), for results that are
/// compared across machines.
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// Wall time each flow count's runs cover (after at least [`FLOWS_MIN_RUNS`] runs).
const FLOWS_WALL_S: f64 = 1.0;
const FLOWS_MIN_RUNS: usize = 2;

/// CPU time this thread has used, seconds: on a machine shared with other work, a run's
/// wall time includes the time it waited for a core; its CPU time does not.
pub(crate) fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return f64::NAN;
    }
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// One flow count's timings: events, best wall and best CPU seconds, runs.
struct Timed {
    events: u64,
    wall_s: f64,
    cpu_s: f64,
    runs: usize,
}

fn time_flows(sc: &Scenario) -> Result<Timed, lossrec_sim::ScenarioError> {
    let opts = RunOptions::default();
    let mut t = Timed {
        events: 0,
        wall_s: f64::INFINITY,
        cpu_s: f64::INFINITY,
        runs: 0,
    };
    let start = Instant::now();
    while t.runs < FLOWS_MIN_RUNS || start.elapsed().as_secs_f64() < FLOWS_WALL_S {
        let (w, c) = (Instant::now(), thread_cpu_s());
        let out = lossrec_sim::run(sc, &opts)?;
        t.cpu_s = t.cpu_s.min(thread_cpu_s() - c);
        t.wall_s = t.wall_s.min(w.elapsed().as_secs_f64());
        t.events = out.events;
        t.runs += 1;
    }
    Ok(t)
}

/// The `flows` benchmark (`lossrec_sim::bench::flows`): 1,000,000 segments over 1 …
/// 100,000 concurrent flows. Per flow count: `events`, `best_wall_s` and `best_cpu_s`
/// (the fastest run by wall time and by this thread's CPU time: on a shared machine a
/// run's wall time also counts the time it waited for a core), `events_per_s` and
/// `events_per_cpu_s` (from them), `ratio_to_one_flow` (events per CPU second over the
/// one-flow figure; `wall_ratio_to_one_flow` the same by wall time), `runs`; and from one
/// more run with the heap counted, `bytes_per_open_flow` (endpoints and simulator state
/// of an open flow with an empty scoreboard), `peak_heap_bytes`, `peak_open_flows`,
/// `result_bytes_per_flow` (what a finished flow still holds: its result). Lists are in
/// the order of `flows`.
pub(crate) fn flows(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    use lossrec_sim::bench::{flow_memory, FLOW_COUNTS};
    let rows = py.detach(|| {
        let mut rows = Vec::new();
        for n in FLOW_COUNTS {
            let t = time_flows(&lossrec_sim::bench::flows(n))?;
            rows.push((t, flow_memory(n)));
        }
        Ok::<_, lossrec_sim::ScenarioError>(rows)
    });
    let rows = rows.map_err(|e| crate::scenario_err(py, e))?;
    let rate = |t: &Timed| t.events as f64 / t.cpu_s;
    let wall_rate = |t: &Timed| t.events as f64 / t.wall_s;
    let (one, one_wall) = (rate(&rows[0].0), wall_rate(&rows[0].0));
    let col = |f: &dyn Fn(&Timed) -> f64| -> Vec<f64> { rows.iter().map(|r| f(&r.0)).collect() };
    let d = PyDict::new(py);
    d.set_item("flows", FLOW_COUNTS.to_vec())?;
    d.set_item(
        "events",
        rows.iter().map(|r| r.0.events).collect::<Vec<_>>(),
    )?;
    d.set_item("best_wall_s", col(&|t| t.wall_s))?;
    d.set_item("best_cpu_s", col(&|t| t.cpu_s))?;
    d.set_item("events_per_s", col(&wall_rate))?;
    d.set_item("events_per_cpu_s", col(&rate))?;
    d.set_item("ratio_to_one_flow", col(&|t| rate(t) / one))?;
    d.set_item("wall_ratio_to_one_flow", col(&|t| wall_rate(t) / one_wall))?;
    d.set_item("runs", rows.iter().map(|r| r.0.runs).collect::<Vec<_>>())?;
    let mem = |f: fn(&lossrec_sim::bench::FlowMemory) -> f64| -> Vec<Option<f64>> {
        rows.iter().map(|r| r.1.as_ref().map(f)).collect()
    };
    d.set_item("bytes_per_open_flow", mem(|m| m.bytes_per_open_flow))?;
    d.set_item("peak_heap_bytes", mem(|m| m.peak_heap_bytes as f64))?;
    d.set_item("peak_open_flows", mem(|m| m.peak_open_flows as f64))?;
    d.set_item("result_bytes_per_flow", mem(|m| m.result_bytes_per_flow))?;
    Ok(d)
}

//! Batches of sweep scenarios: (point, repetition) runs on a rayon pool with the GIL
//! released, results returned as columns (little-endian buffers numpy views in place).
//!
//! Jobs are cut into contiguous blocks, several per thread; each block collects its rows
//! on its own and the blocks are joined in order, so the rows never depend on the thread
//! count. The calling thread looks for Ctrl-C every 50 ms, so that even one long batch
//! stops promptly (every block after its current scenario). The clocks read here measure
//! the wall time around each simulation (`sim_wall_s`) and pace those checks; the
//! simulator itself never reads one.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use lossrec_sim::{FlowResult, RunOptions, Scenario, ScenarioError as SimError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict};
use rayon::prelude::*;

use crate::scenario_err;
use crate::sweep::{par_map, point_hash, pool, rep_seed, PointSpec};

#[derive(Clone, Copy)]
struct Row {
    point: u32,
    preset: u32,
    time_limit_hit: u8,
    /// rep, seed, then the integer FlowResult fields in [`int_names`] order.
    ints: [i64; N_INTS],
    fct_ms: f64,
}

/// The rows of a run of scenarios (one block, or a whole batch).
#[derive(Default)]
struct Rows {
    rows: Vec<Row>,
    presets: Vec<String>,
    scenarios: usize,
    sim_wall_s: f64,
}

/// Integer columns: `rep`, `seed`, then every integer field of [`FlowResult`].
const N_INTS: usize = 2 + FlowResult::N_INTS;

/// The names of the integer columns, in `Row::ints` order (from the one schema).
fn int_names() -> Vec<&'static str> {
    let mut names = vec!["rep", "seed"];
    names.extend(
        FlowResult::FIELDS
            .iter()
            .filter(|(_, kind)| *kind == "int")
            .map(|(n, _)| *n),
    );
    names
}

impl Rows {
    fn preset_code(&mut self, name: &str) -> u32 {
        match self.presets.iter().position(|n| n == name) {
            Some(i) => i as u32,
            None => {
                self.presets.push(name.to_string());
                (self.presets.len() - 1) as u32
            }
        }
    }

    fn push_flow(&mut self, point: usize, rep: u64, seed: u64, limit: bool, f: &FlowResult) {
        let preset = self.preset_code(&f.preset);
        let mut ints = [0i64; N_INTS];
        ints[0] = rep as i64;
        ints[1] = seed as i64;
        let mut j = 2;
        f.for_each_int(|_, v| {
            ints[j] = v as i64;
            j += 1;
        });
        self.rows.push(Row {
            point: point as u32,
            preset,
            time_limit_hit: u8::from(limit),
            ints,
            fct_ms: f.fct_ms.unwrap_or(f64::NAN),
        });
    }

    /// Appends `other` (a later block), re-coding its preset names.
    fn append(&mut self, other: Rows) {
        let map: Vec<u32> = other.presets.iter().map(|n| self.preset_code(n)).collect();
        self.rows.extend(other.rows.iter().map(|r| Row {
            preset: map[r.preset as usize],
            ..*r
        }));
        self.scenarios += other.scenarios;
        self.sim_wall_s += other.sim_wall_s;
    }
}

/// Why a block stopped early.
enum Stop {
    /// A scenario could not run.
    Sim(SimError),
    /// Ctrl-C (or another Python signal) arrived; its error is raised.
    Signal(PyErr),
    /// Another block stopped, so this one was cancelled.
    Cancelled,
}

/// How often the calling thread looks for Ctrl-C while a batch runs.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

/// Runs one block of (point, rep) jobs in order; `stop()` is asked between groups.
///
/// Scenarios run in groups timed as a whole — so that the clock is read twice per group,
/// not per scenario — and their rows are collected after the timing. Groups grow while
/// they take under a millisecond (up to 64 scenarios) and shrink when slow, so that
/// `stop()` is still asked at least every few milliseconds of simulation or every
/// scenario, whichever is longer.
fn run_block(
    scen: &[Option<(Scenario, u64)>],
    jobs: &[(usize, u64)],
    stop: &dyn Fn() -> Option<Stop>,
) -> Result<Rows, Stop> {
    let mut c = Rows {
        rows: Vec::with_capacity(jobs.len()),
        ..Rows::default()
    };
    let mut outs = Vec::with_capacity(64);
    let (mut next, mut group) = (0, 1usize);
    while next < jobs.len() {
        let end = (next + group).min(jobs.len());
        let t0 = Instant::now();
        for &(p, rep) in &jobs[next..end] {
            let (sc, hash) = scen[p].as_ref().expect("every used point was parsed");
            let seed = rep_seed(*hash, rep);
            let opts = RunOptions {
                seed: Some(seed),
                trace: false,
                pcap: false,
            };
            outs.push((
                p,
                rep,
                seed,
                lossrec_sim::run(sc, &opts).map_err(Stop::Sim)?,
            ));
        }
        let took = t0.elapsed();
        c.sim_wall_s += took.as_secs_f64();
        c.scenarios += end - next;
        for (p, rep, seed, out) in outs.drain(..) {
            for f in &out.flows {
                c.push_flow(p, rep, seed, out.time_limit_hit, f);
            }
        }
        next = end;
        group = if took < Duration::from_millis(1) {
            (group * 2).min(64)
        } else if took > Duration::from_millis(10) {
            (group / 2).max(1)
        } else {
            group
        };
        if let Some(s) = stop() {
            return Err(s);
        }
    }
    Ok(c)
}

/// Python's pending signals (Ctrl-C), checked with the GIL briefly re-taken.
fn pending_signal() -> Option<PyErr> {
    Python::attach(|py| py.check_signals().err())
}

/// Runs the jobs (called with the GIL released). One thread: in the calling thread, which
/// checks for Ctrl-C every [`SIGNAL_CHECK`]. More: contiguous blocks, several per thread
/// for balance, on the rayon pool, while the calling thread waits and checks for Ctrl-C;
/// on a signal every block stops after its current scenario.
fn run_jobs(
    threads: usize,
    scen: &[Option<(Scenario, u64)>],
    jobs: &[(usize, u64)],
) -> Result<Rows, Stop> {
    if threads == 1 {
        let last = Cell::new(Instant::now());
        let stop = || {
            if last.get().elapsed() < SIGNAL_CHECK {
                return None;
            }
            last.set(Instant::now());
            pending_signal().map(Stop::Signal)
        };
        return run_block(scen, jobs, &stop);
    }
    let pool = pool(threads).map_err(Stop::Signal)?;
    let block = (jobs.len() / (threads * 8)).clamp(1, 64);
    let blocks: Vec<&[(usize, u64)]> = jobs.chunks(block).collect();
    let cancel = AtomicBool::new(false);
    let stop = || cancel.load(Ordering::Relaxed).then_some(Stop::Cancelled);
    let (results, signal) = std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel::<()>();
        let worker = s.spawn(|| {
            let r: Vec<Result<Rows, Stop>> = pool.install(|| {
                blocks
                    .par_iter()
                    .map(|b| run_block(scen, b, &stop))
                    .collect()
            });
            drop(tx);
            r
        });
        let mut signal = None;
        while let Err(mpsc::RecvTimeoutError::Timeout) = rx.recv_timeout(SIGNAL_CHECK) {
            if signal.is_none() {
                signal = pending_signal();
                if signal.is_some() {
                    cancel.store(true, Ordering::Relaxed);
                }
            }
        }
        (
            worker.join().expect("the sweep's worker thread panicked"),
            signal,
        )
    });
    if let Some(e) = signal {
        return Err(Stop::Signal(e));
    }
    let mut all = Rows::default();
    for r in results {
        all.append(r?);
    }
    Ok(all)
}

/// A `bytearray` holding one field of every row, little-endian, for `numpy.frombuffer`
/// (written in place: no intermediate buffer; writable, so numpy views it as is).
fn le_bytes<'py, const N: usize>(
    py: Python<'py>,
    rows: &[Row],
    f: impl Fn(&Row) -> [u8; N],
) -> PyResult<Bound<'py, PyByteArray>> {
    PyByteArray::new_with(py, rows.len() * N, |buf| {
        for (out, r) in buf.chunks_exact_mut(N).zip(rows) {
            out.copy_from_slice(&f(r));
        }
        Ok(())
    })
}

/// Runs a batch of sweep scenarios on `threads` threads, releasing the GIL.
///
/// `points[i]` is `(text, origin, key)`; `units` are `(point, first_rep, end_rep)` ranges.
/// Returns a dict: `rows` (flow rows), `scenarios`, `sim_wall_s` (the sum of the time
/// spent inside the simulator per scenario), `batch_wall_s` (the whole call: parsing,
/// running, building the columns), `presets` (names), `int_names` and, as
/// little-endian byte buffers, the per-row columns: `point` (u32), `ints` (i64, one
/// block of `int_names` × rows: `rep`, `seed`, then every integer field of the flow
/// schema, `FlowResult::FIELDS`), `fct_ms` (f64, NaN when unfinished), `preset` (u32 index into
/// `presets`), `time_limit_hit` (u8). Rows come in unit order, then repetition, then
/// flow order, whatever the thread count.
#[pyfunction]
#[pyo3(signature = (points, units, threads = 1))]
pub fn run_batch<'py>(
    py: Python<'py>,
    points: Vec<PointSpec>,
    units: Vec<(usize, u64, u64)>,
    threads: usize,
) -> PyResult<Bound<'py, PyDict>> {
    for &(p, a, b) in &units {
        if p >= points.len() || a > b {
            return Err(PyValueError::new_err(format!(
                "bad unit ({p}, {a}, {b}) for {} point(s)",
                points.len()
            )));
        }
    }
    let threads = threads.max(1);
    let t_batch = Instant::now();
    let res = py.detach(|| -> Result<Rows, Stop> {
        // Parse only the points this batch uses, once each.
        let mut used: Vec<usize> = units.iter().map(|u| u.0).collect();
        used.sort_unstable();
        used.dedup();
        let parsed = par_map(threads, &used, |&i| {
            Scenario::from_toml_str(&points[i].0, &points[i].1)
        })
        .map_err(Stop::Signal)?;
        let mut scen: Vec<Option<(Scenario, u64)>> = vec![None; points.len()];
        for (i, s) in used.iter().zip(parsed) {
            let s = s.map_err(Stop::Sim)?;
            let h = point_hash(s.seed(), &points[*i].2);
            scen[*i] = Some((s, h));
        }
        let jobs: Vec<(usize, u64)> = units
            .iter()
            .flat_map(|&(p, a, b)| (a..b).map(move |r| (p, r)))
            .collect();
        run_jobs(threads, &scen, &jobs)
    });
    let c = match res {
        Ok(c) => c,
        Err(Stop::Sim(e)) => return Err(scenario_err(py, e)),
        Err(Stop::Signal(e)) => return Err(e),
        Err(Stop::Cancelled) => unreachable!("only blocks are cancelled, after a signal"),
    };
    let rows = &c.rows;
    let d = PyDict::new(py);
    d.set_item("rows", rows.len())?;
    d.set_item("scenarios", c.scenarios)?;
    d.set_item("sim_wall_s", c.sim_wall_s)?;
    d.set_item("presets", &c.presets)?;
    d.set_item("point", le_bytes(py, rows, |r| r.point.to_le_bytes())?)?;
    // The integer columns as one (N_INTS, rows) block, row j being int_names()[j]: numpy views
    // it as a 2-D array that pandas takes as one block without copying.
    let n = rows.len();
    // One pass over the rows (each read once, a cache line at a time), scattering into
    // the columns: a pass per column would re-read every row once per field.
    let ints = PyByteArray::new_with(py, N_INTS * n * 8, |buf| {
        for (i, r) in rows.iter().enumerate() {
            for (j, v) in r.ints.iter().enumerate() {
                let at = (j * n + i) * 8;
                buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
            }
        }
        Ok(())
    })?;
    d.set_item("ints", ints)?;
    d.set_item("int_names", int_names())?;
    d.set_item("fct_ms", le_bytes(py, rows, |r| r.fct_ms.to_le_bytes())?)?;
    d.set_item("preset", le_bytes(py, rows, |r| r.preset.to_le_bytes())?)?;
    d.set_item(
        "time_limit_hit",
        le_bytes(py, rows, |r| [r.time_limit_hit])?,
    )?;
    d.set_item("batch_wall_s", t_batch.elapsed().as_secs_f64())?;
    Ok(d)
}

/// The simulation alone, for the sweep benchmark: runs the same (point, rep) jobs as
/// [`run_batch`] back to back, split round-robin over `threads` plain threads, with no
/// per-scenario timing and no result columns. Returns the wall time in seconds: the
/// baseline the sweep's overhead is measured against, and (1 vs 2 threads) the
/// machine's own parallel speedup for this work.
#[pyfunction]
#[pyo3(signature = (points, units, threads = 1))]
pub fn simulate_only(
    py: Python<'_>,
    points: Vec<PointSpec>,
    units: Vec<(usize, u64, u64)>,
    threads: usize,
) -> PyResult<f64> {
    let mut scen = Vec::with_capacity(points.len());
    for (text, origin, key) in &points {
        let sc = Scenario::from_toml_str(text, origin).map_err(|e| scenario_err(py, e))?;
        let h = point_hash(sc.seed(), key);
        scen.push((sc, h));
    }
    let mut jobs: Vec<(usize, u64)> = Vec::new();
    for &(p, a, b) in &units {
        if p >= scen.len() {
            return Err(PyValueError::new_err(format!("bad point {p}")));
        }
        jobs.extend((a..b).map(|r| (p, r)));
    }
    let threads = threads.max(1);
    let res = py.detach(|| {
        let work = |k: usize| -> Result<u64, SimError> {
            let mut events = 0;
            for &(p, rep) in jobs.iter().skip(k).step_by(threads) {
                let (sc, h) = &scen[p];
                let opts = RunOptions {
                    seed: Some(rep_seed(*h, rep)),
                    trace: false,
                    pcap: false,
                };
                events += lossrec_sim::run(sc, &opts)?.events;
            }
            Ok(events)
        };
        let t0 = Instant::now();
        let r: Result<Vec<u64>, SimError> = std::thread::scope(|s| {
            let hs: Vec<_> = (1..threads).map(|k| s.spawn(move || work(k))).collect();
            let mut out = vec![work(0)?];
            for h in hs {
                out.push(h.join().expect("a simulation thread panicked")?);
            }
            Ok(out)
        });
        r.map(|_| t0.elapsed().as_secs_f64())
    });
    res.map_err(|e| scenario_err(py, e))
}

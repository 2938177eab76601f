//! Sweeps: scenario points built from a base file plus overrides, and batches of
//! (point, repetition) runs executed in parallel with the GIL released.
//!
//! A sweep crosses the boundary twice per batch, never per scenario: [`sweep_points`]
//! applies each point's overrides to the parsed base document and validates it once, and
//! [`run_batch`] parses each point once, runs every repetition on a rayon pool and
//! returns the per-flow results as columns (little-endian byte buffers that numpy reads
//! without copying row by row).
//!
//! Seeds depend only on the point and the repetition, never on the thread count, the
//! chunking or the machine: `seed = splitmix64(splitmix64(base ^ fnv1a64(key)) ^ rep) >> 1`
//! where `base` is the point's scenario seed and `key` its canonical override string. The
//! shift keeps seeds below 2^63 so they are plain int64 in pandas, CSV and Parquet.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use lossrec_sim::{FlowResult, RunOptions, Scenario, ScenarioError as SimError};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyByteArray, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rayon::prelude::*;

use crate::scenario_err;

/// FNV-1a, 64 bit: a stable hash of the override string (Python's `hash()` is salted).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64's output function: a bijective mix of all 64 bits.
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The seed of repetition `rep` of the point with canonical override string `key`.
pub fn derive_seed(base: u64, key: &str, rep: u64) -> u64 {
    rep_seed(point_hash(base, key), rep)
}

/// The per-point half of [`derive_seed`], computed once per point.
fn point_hash(base: u64, key: &str) -> u64 {
    splitmix64(base ^ fnv1a64(key.as_bytes()))
}

/// The per-repetition half of [`derive_seed`].
fn rep_seed(point_hash: u64, rep: u64) -> u64 {
    splitmix64(point_hash ^ rep) >> 1
}

/// `sweep_seed(base, key, rep)`: the seed a sweep gives one repetition (see the module doc).
#[pyfunction]
pub fn sweep_seed(base: u64, key: &str, rep: u64) -> u64 {
    derive_seed(base, key, rep)
}

/// One rayon pool per thread count, built once and reused across batches.
fn pool(threads: usize) -> PyResult<Arc<rayon::ThreadPool>> {
    static POOLS: OnceLock<Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>>> = OnceLock::new();
    let pools = POOLS.get_or_init(|| Mutex::new(Vec::new()));
    let mut pools = pools.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("lossrec-sweep-{i}"))
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {threads} threads: {e}")))?;
    let p = Arc::new(p);
    pools.push((threads, p.clone()));
    Ok(p)
}

/// Runs `f` over `items` on `threads` threads (in the calling thread when 1), keeping order.
fn par_map<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync + Send,
) -> PyResult<Vec<R>> {
    if threads <= 1 || items.len() <= 1 {
        return Ok(items.iter().map(f).collect());
    }
    let p = pool(threads)?;
    Ok(p.install(|| items.par_iter().map(f).collect()))
}

/// A Python override value as a TOML value: bool, int, float, str, or a list of them.
fn to_toml(key: &str, v: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        return v.extract::<i64>().map(toml::Value::Integer).map_err(|_| {
            PyValueError::new_err(format!("--set {key}: {v} does not fit a 64-bit integer"))
        });
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: PyResult<Vec<toml::Value>> =
            v.try_iter()?.map(|x| to_toml(key, &x?)).collect();
        return Ok(toml::Value::Array(items?));
    }
    // numpy scalars and the like: anything with `.item()` giving a plain value.
    if let Ok(item) = v.call_method0("item") {
        if !item.is(v) {
            return to_toml(key, &item);
        }
    }
    Err(PyTypeError::new_err(format!(
        "--set {key}: a value must be a bool, int, float or str, not {}",
        v.get_type().name()?
    )))
}

/// Sets the dotted `key` in `doc`, creating missing tables.
fn set_dotted(doc: &mut toml::Table, key: &str, value: toml::Value) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.trim().is_empty() || *p != p.trim()) {
        return Err(format!("`{key}` is not a dotted key such as path.rtt_ms"));
    }
    let (last, tables) = parts.split_last().expect("split never yields nothing");
    let mut t = doc;
    let mut walked = String::new();
    for p in tables {
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(p);
        let slot = t
            .entry((*p).to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        t = match slot {
            toml::Value::Table(inner) => inner,
            other => {
                return Err(format!(
                    "`{walked}` is a value ({}) in the scenario, not a table",
                    other.type_str()
                ))
            }
        };
    }
    t.insert((*last).to_string(), value);
    Ok(())
}

/// The scenario error without line and column (they would point into generated text).
fn unlocated(mut e: SimError, origin: &str) -> SimError {
    e.origin = origin.to_string();
    e.line = None;
    e.column = None;
    e
}

/// A point: TOML text, its origin (base file plus overrides, for errors) and its key.
type PointSpec = (String, String, String);

/// Builds and validates every point of a sweep.
///
/// `base` is the scenario text (validated first, so its own errors keep their lines);
/// `points[i]` is `(key, [(dotted_key, value), ...])`. Returns `(text, origin)` per point.
/// An invalid point raises `ScenarioError` naming `origin (with --set k=v ...)` and the
/// field; a value of the wrong Python type raises `TypeError`.
#[pyfunction]
#[pyo3(signature = (base, origin, points, threads = 1))]
pub fn sweep_points(
    py: Python<'_>,
    base: &str,
    origin: &str,
    points: Vec<Vec<(String, Bound<'_, PyAny>)>>,
    threads: usize,
) -> PyResult<Vec<(String, String)>> {
    Scenario::from_toml_str(base, origin).map_err(|e| scenario_err(py, e))?;
    let doc: toml::Table =
        toml::from_str(base).map_err(|e| PyValueError::new_err(format!("{origin}: {e}")))?;
    let mut specs: Vec<Vec<(String, toml::Value)>> = Vec::with_capacity(points.len());
    for p in &points {
        let mut kv = Vec::with_capacity(p.len());
        for (k, v) in p {
            kv.push((k.clone(), to_toml(k, v)?));
        }
        specs.push(kv);
    }
    let built = py.detach(|| {
        par_map(threads.max(1), &specs, |kv| -> Result<(String, String), SimError> {
            let what: Vec<String> = kv.iter().map(|(k, v)| format!("--set {k}={v}")).collect();
            let porigin = if what.is_empty() {
                origin.to_string()
            } else {
                format!("{origin} (with {})", what.join(" "))
            };
            let mut d = doc.clone();
            for (k, v) in kv {
                set_dotted(&mut d, k, v.clone()).map_err(|m| SimError {
                    origin: porigin.clone(),
                    line: None,
                    column: None,
                    field: Some(k.clone()),
                    message: m,
                })?;
            }
            let text = toml::to_string(&d).map_err(|e| SimError {
                origin: porigin.clone(),
                line: None,
                column: None,
                field: None,
                message: format!("cannot write the point as TOML: {e}"),
            })?;
            Scenario::from_toml_str(&text, &porigin).map_err(|e| unlocated(e, &porigin))?;
            Ok((text, porigin))
        })
    })?;
    built
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| scenario_err(py, e))
}

/// One flow's result row, as the batch collects it (transposed to columns at the end).
#[derive(Clone, Copy)]
struct Row {
    point: u32,
    preset: u32,
    time_limit_hit: u8,
    /// rep, seed, then the integer FlowResult fields in [`INT_NAMES`] order.
    ints: [i64; 12],
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

const INT_NAMES: [&str; 12] = [
    "rep",
    "seed",
    "id",
    "bytes",
    "data_packets_sent",
    "retransmits",
    "fast_recoveries",
    "rtos",
    "spurious_rtos",
    "tlp_probes",
    "undos",
    "final_cwnd",
];

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
        self.rows.push(Row {
            point: point as u32,
            preset,
            time_limit_hit: u8::from(limit),
            ints: [
                rep as i64,
                seed as i64,
                f.id as i64,
                f.bytes as i64,
                f.data_packets_sent as i64,
                f.retransmits as i64,
                f.fast_recoveries as i64,
                f.rtos as i64,
                f.spurious_rtos as i64,
                f.tlp_probes as i64,
                f.undos as i64,
                f.final_cwnd as i64,
            ],
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

/// Runs one block of (point, rep) jobs in order.
fn run_block(scen: &[Option<(Scenario, u64)>], jobs: &[(usize, u64)]) -> Result<Rows, SimError> {
    let mut c = Rows {
        rows: Vec::with_capacity(jobs.len()),
        ..Rows::default()
    };
    for &(p, rep) in jobs {
        let (sc, hash) = scen[p].as_ref().expect("every used point was parsed");
        let seed = rep_seed(*hash, rep);
        let opts = RunOptions {
            seed: Some(seed),
            trace: false,
            pcap: false,
        };
        let t0 = Instant::now();
        let out = lossrec_sim::run(sc, &opts)?;
        c.sim_wall_s += t0.elapsed().as_secs_f64();
        c.scenarios += 1;
        for f in &out.flows {
            c.push_flow(p, rep, seed, out.time_limit_hit, f);
        }
    }
    Ok(c)
}

/// A `bytearray` holding one field of every row, little-endian, for `numpy.frombuffer`
/// (writable, so that the DataFrame built on it without copying can be modified)
/// (written in place: no intermediate buffer).
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
/// block of `int_names` × rows: `rep`, `seed`, `id`, `bytes`, `data_packets_sent`,
/// `retransmits`, `fast_recoveries`, `rtos`, `spurious_rtos`, `tlp_probes`, `undos`,
/// `final_cwnd`), `fct_ms` (f64, NaN when unfinished), `preset` (u32 index into
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
    let res = py.detach(|| -> PyResult<Result<Rows, SimError>> {
        // Parse only the points this batch uses, once each.
        let mut used: Vec<usize> = units.iter().map(|u| u.0).collect();
        used.sort_unstable();
        used.dedup();
        let parsed = par_map(threads, &used, |&i| {
            Scenario::from_toml_str(&points[i].0, &points[i].1)
        })?;
        let mut scen: Vec<Option<(Scenario, u64)>> = vec![None; points.len()];
        for (i, s) in used.iter().zip(parsed) {
            match s {
                Ok(s) => {
                    let h = point_hash(s.seed(), &points[*i].2);
                    scen[*i] = Some((s, h));
                }
                Err(e) => return Ok(Err(e)),
            }
        }
        let jobs: Vec<(usize, u64)> = units
            .iter()
            .flat_map(|&(p, a, b)| (a..b).map(move |r| (p, r)))
            .collect();
        // Contiguous blocks, several per thread for balance; each fills its own columns,
        // so nothing is allocated per scenario beyond what the simulator returns.
        let block = (jobs.len() / (threads * 8)).clamp(1, 64);
        let blocks: Vec<&[(usize, u64)]> = if threads == 1 {
            vec![&jobs[..]]
        } else {
            jobs.chunks(block).collect()
        };
        let cols = par_map(threads, &blocks, |b| run_block(&scen, b))?;
        let mut all = Rows::default();
        for c in cols {
            match c {
                Ok(c) => all.append(c),
                Err(e) => return Ok(Err(e)),
            }
        }
        Ok(Ok(all))
    })?;
    let c = res.map_err(|e| scenario_err(py, e))?;
    let rows = &c.rows;
    let d = PyDict::new(py);
    d.set_item("rows", rows.len())?;
    d.set_item("scenarios", c.scenarios)?;
    d.set_item("sim_wall_s", c.sim_wall_s)?;
    d.set_item("presets", &c.presets)?;
    d.set_item("point", le_bytes(py, rows, |r| r.point.to_le_bytes())?)?;
    // The integer columns as one (12, rows) block, row j being INT_NAMES[j]: numpy views
    // it as a 2-D array that pandas takes as one block without copying.
    let n = rows.len();
    let ints = PyByteArray::new_with(py, INT_NAMES.len() * n * 8, |buf| {
        for (j, col) in buf.chunks_exact_mut(n.max(1) * 8).enumerate().take(INT_NAMES.len()) {
            for (out, r) in col.chunks_exact_mut(8).zip(rows) {
                out.copy_from_slice(&r.ints[j].to_le_bytes());
            }
        }
        Ok(())
    })?;
    d.set_item("ints", ints)?;
    d.set_item("int_names", INT_NAMES.to_vec())?;
    d.set_item("fct_ms", le_bytes(py, rows, |r| r.fct_ms.to_le_bytes())?)?;
    d.set_item("preset", le_bytes(py, rows, |r| r.preset.to_le_bytes())?)?;
    d.set_item("time_limit_hit", le_bytes(py, rows, |r| [r.time_limit_hit])?)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_and_splitmix_reference_values() {
        // FNV-1a test vectors (Fowler/Noll/Vo) and SplitMix64's first output for seed 0.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn seeds_differ_by_key_and_rep_and_fit_int64() {
        let a = derive_seed(1, "path.rtt_ms=10", 0);
        assert_ne!(a, derive_seed(1, "path.rtt_ms=10", 1));
        assert_ne!(a, derive_seed(1, "path.rtt_ms=20", 0));
        assert_ne!(a, derive_seed(2, "path.rtt_ms=10", 0));
        assert!(a < 1 << 63);
    }

    #[test]
    fn set_dotted_creates_tables_and_refuses_scalars() {
        let mut d: toml::Table = toml::from_str("seed = 1\n[path]\nrtt_ms = 10\n").unwrap();
        set_dotted(&mut d, "path.loss.count", toml::Value::Integer(2)).unwrap();
        assert_eq!(d["path"]["loss"]["count"].as_integer(), Some(2));
        assert!(set_dotted(&mut d, "seed.x", toml::Value::Integer(2)).is_err());
        assert!(set_dotted(&mut d, "path..x", toml::Value::Integer(2)).is_err());
    }
}

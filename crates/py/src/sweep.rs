//! Sweep points and seeds: scenario points built from a base file plus overrides, and
//! the seed of every (point, repetition).
//!
//! A sweep crosses the boundary twice per batch, never per scenario: [`sweep_points`]
//! applies each point's overrides to the parsed base document and validates it once, and
//! [`crate::batch::run_batch`] parses each point once, runs every repetition on a rayon
//! pool and returns the per-flow results as columns.
//!
//! Seeds depend only on the point and the repetition, never on the thread count, the
//! chunking or the machine: `seed = splitmix64(splitmix64(base ^ fnv1a64(key)) ^ rep) >> 1`
//! where `base` is the point's scenario seed and `key` its canonical override string. The
//! shift keeps seeds below 2^63 so they are plain int64 in pandas, CSV and Parquet.

use std::sync::{Arc, Mutex, OnceLock};

use lossrec_sim::{Scenario, ScenarioError as SimError};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};
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

/// SplitMix64's output function (the one seeded RNG's mix, `lossrec-testkit`).
pub use lossrec_testkit::rng::mix64 as splitmix64;

/// The seed of repetition `rep` of the point with canonical override string `key`.
pub fn derive_seed(base: u64, key: &str, rep: u64) -> u64 {
    rep_seed(point_hash(base, key), rep)
}

/// The per-point half of [`derive_seed`], computed once per point.
pub(crate) fn point_hash(base: u64, key: &str) -> u64 {
    splitmix64(base ^ fnv1a64(key.as_bytes()))
}

/// The per-repetition half of [`derive_seed`].
pub(crate) fn rep_seed(point_hash: u64, rep: u64) -> u64 {
    splitmix64(point_hash ^ rep) >> 1
}

/// `sweep_seed(base, key, rep)`: the seed a sweep gives one repetition (see the module doc).
#[pyfunction]
pub fn sweep_seed(base: u64, key: &str, rep: u64) -> u64 {
    derive_seed(base, key, rep)
}

/// One rayon pool per thread count, built once and reused across batches.
pub(crate) fn pool(threads: usize) -> PyResult<Arc<rayon::ThreadPool>> {
    type Pools = Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>>;
    static POOLS: OnceLock<Pools> = OnceLock::new();
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

/// Runs `f` over `items` on `threads` threads, keeping order (in the calling thread when
/// there is one thread or too few items to be worth handing over).
pub(crate) fn par_map<T: Sync, R: Send>(
    threads: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync + Send,
) -> PyResult<Vec<R>> {
    if threads <= 1 || items.len() < 16 {
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
        let items: PyResult<Vec<toml::Value>> = v.try_iter()?.map(|x| to_toml(key, &x?)).collect();
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
pub(crate) type PointSpec = (String, String, String);

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
        par_map(
            threads.max(1),
            &specs,
            |kv| -> Result<(String, String), SimError> {
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
            },
        )
    })?;
    built
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| scenario_err(py, e))
}

/// One flow's result row, as the batch collects it (transposed to columns at the end).
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

//! `lossrec._core`: the Python face of the engine and simulator.
//!
//! Thin wrappers, no logic: every function converts arguments, calls `lossrec` or
//! `lossrec_sim`, and converts the result — except the sweep machinery (`sweep.rs`,
//! `batch.rs`), which is all about crossing this boundary once per batch rather than once
//! per scenario: building points, deriving seeds, running batches in parallel.
//!
//! Errors become `lossrec._core.ScenarioError` (a `ValueError`) for scenario problems and
//! plain `ValueError` for bad presets or arguments. The only clock read here is the wall
//! time around a simulation, which the simulator itself never reads.

use std::time::Instant;

use lossrec::config::{Config, ConfigError, AXES, PRESETS};
use lossrec_sim::sink::Stream;
use lossrec_sim::{FlowResult, RunOptions, Scenario, ScenarioError as SimError, Sinks};
use pyo3::create_exception;
use pyo3::exceptions::PyOSError;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

mod attacks;
mod batch;
mod benchmarks;
mod columns;
mod explain;

/// mimalloc: a simulation allocates per flow (its endpoints, scoreboard, reassembly), and
/// with thousands of flows the system allocator's cost showed in the profile (~7 % at
/// 10,000 flows; issue 16). Wrapped in the counter `lossrec bench`'s memory figures read
/// (idle otherwise: one relaxed load per allocation).
#[global_allocator]
static ALLOC: lossrec_sim::bench::alloc::Counting<mimalloc::MiMalloc> =
    lossrec_sim::bench::alloc::Counting(mimalloc::MiMalloc);
mod schema;
mod sweep;
mod tail_vectors;
mod vectors;
mod wire;

create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "A scenario error; str() names file:line:column: field: message. Attributes: origin, line, column, field, message."
);

/// Converts a `ScenarioError` into a Python `ScenarioError` carrying its parts as attributes.
pub(crate) fn scenario_err(py: Python<'_>, e: SimError) -> PyErr {
    let err = ScenarioError::new_err(e.to_string());
    let v = err.value(py);
    // Setting attributes on a fresh exception instance cannot fail in practice; if it did,
    // the message (which carries every part) is still there.
    let _ = v.setattr("origin", e.origin.clone());
    let _ = v.setattr("line", e.line);
    let _ = v.setattr("column", e.column);
    let _ = v.setattr("field", e.field.clone());
    let _ = v.setattr("message", e.message.clone());
    err
}

fn parse(py: Python<'_>, text: &str, origin: &str) -> PyResult<Scenario> {
    Scenario::from_toml_str(text, origin).map_err(|e| scenario_err(py, e))
}

/// Opens a streaming destination: `-` is standard output, anything else a file created
/// (or truncated) there.
pub(crate) fn open_stream(path: &str) -> PyResult<Stream> {
    if path == "-" {
        return Ok(Box::new(std::io::stdout()));
    }
    std::fs::File::create(path)
        .map(|f| Box::new(f) as Stream)
        .map_err(|e| PyOSError::new_err(format!("{path}: {e}")))
}

/// Opens a trace destination: `-` is standard output (JSON lines), anything else a file
/// in the format its suffix names (`.jsonl`, `.jsonl.zst`: `lossrec_sim::trace_file`).
/// An unknown suffix is a `ValueError` listing the accepted ones, raised before any file
/// is created.
pub(crate) fn open_trace(path: &str) -> PyResult<Stream> {
    if path == "-" {
        return Ok(Box::new(std::io::stdout()));
    }
    lossrec_sim::trace_file::create(std::path::Path::new(path)).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidInput {
            PyValueError::new_err(e.to_string())
        } else {
            PyOSError::new_err(format!("{path}: {e}"))
        }
    })
}

/// `run_scenario`'s result: `(json, trace, pcap, outputs, columns)`.
type RunReturn<'py> = (
    String,
    Option<String>,
    Option<Bound<'py, PyBytes>>,
    String,
    Option<Bound<'py, PyDict>>,
);

/// Runs a scenario given as TOML text.
///
/// Returns `(json, trace, pcap, outputs, columns)`: the `--json` object as text (with
/// `wall_s` measured around the simulation; indented like Python's `json.dumps(...,
/// indent=2)` if `pretty`), the JSON-lines trace if `trace`, the pcap bytes if
/// `pcap`, and the outputs' counts as JSON (`trace_lines`, `pcap_records`,
/// `pcap_receiver_records`, `error`). `trace_path` (format by suffix, [`open_trace`]),
/// `pcap_path` and
/// `pcap_receiver_path` stream those outputs to files (`-`: stdout) as the run goes
/// instead of returning them. `columns` (if asked) holds the flows as columns
/// (`columns::flow_columns`). The GIL is released while simulating.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", seed = None, trace = false, pcap = false,
                    trace_path = None, pcap_path = None, pcap_receiver_path = None,
                    columns = false, pretty = false))]
#[allow(clippy::too_many_arguments)]
fn run_scenario<'py>(
    py: Python<'py>,
    text: &str,
    origin: &str,
    seed: Option<u64>,
    trace: bool,
    pcap: bool,
    trace_path: Option<&str>,
    pcap_path: Option<&str>,
    pcap_receiver_path: Option<&str>,
    columns: bool,
    pretty: bool,
) -> PyResult<RunReturn<'py>> {
    let scenario = parse(py, text, origin)?;
    let opts = RunOptions { seed, trace, pcap };
    let sinks = Sinks {
        trace: trace_path.map(open_trace).transpose()?,
        pcap: pcap_path.map(open_stream).transpose()?,
        pcap_receiver: pcap_receiver_path.map(open_stream).transpose()?,
    };
    let (out, wall_s) = py.detach(|| {
        let t0 = Instant::now();
        let out = lossrec_sim::run_to(&scenario, &opts, sinks);
        (out, t0.elapsed().as_secs_f64())
    });
    let out = out.map_err(|e| scenario_err(py, e))?;
    if let Some(e) = &out.outputs.error {
        return Err(PyOSError::new_err(e.clone()));
    }
    let json = if pretty {
        out.to_json_pretty(wall_s)
    } else {
        out.to_json(wall_s)
    };
    let pcap = out.pcap.as_deref().map(|b| PyBytes::new(py, b));
    let outputs = serde_json::to_string(&out.outputs).expect("plain data serialises");
    let cols = if columns {
        let d = columns::flow_columns(py, &out.flows)?;
        // The run-level figures without the flows and episodes, for a caller that wants
        // them without parsing the whole object.
        let head = serde_json::json!({
            "seed": out.seed,
            "sim": {"events": out.events, "wall_s": wall_s, "sim_time_s": out.sim_time_s,
                    "time_limit_hit": out.time_limit_hit},
            "background": out.background,
        });
        d.set_item("head", head.to_string())?;
        Some(d)
    } else {
        None
    };
    Ok((json, out.trace, pcap, outputs, cols))
}

/// The per-flow result schema: `[(name, kind)]` with kind `int`, `float` or `str`, in
/// output order — the one list every table, sweep column and doc uses.
#[pyfunction]
fn flow_fields() -> Vec<(&'static str, &'static str)> {
    FlowResult::FIELDS.to_vec()
}

/// The recovery-episode schema (`recoveries[]` of the `--json` object): `[(name, kind)]`
/// in output order, kind `int`, `float` (also a field that may be missing) or `str`.
#[pyfunction]
fn recovery_fields() -> Vec<(String, &'static str)> {
    schema::recovery_fields()
}

/// The `flows` benchmark's scenario text at `flows` flows, stopping at `max_time_s`
/// (`lossrec_sim::bench::flows`: the one definition `lossrec bench` and its CLI-overhead
/// arm share).
#[pyfunction]
fn bench_flows_scenario(flows: u64, max_time_s: f64) -> String {
    lossrec_sim::bench::flows::flows_toml(flows, max_time_s)
}

/// Every scenario key with its default and meaning (the scenario module's doc).
#[pyfunction]
fn scenario_reference() -> String {
    lossrec_sim::scenario::reference()
}

/// The scenario file's JSON Schema, as JSON text.
#[pyfunction]
fn scenario_schema() -> String {
    serde_json::to_string_pretty(&lossrec_sim::scenario::json_schema())
        .expect("a schema serialises")
}

/// `{"version", "commit", "debug"}` of this build.
#[pyfunction]
fn build_info() -> Vec<(&'static str, String)> {
    vec![
        ("version", env!("CARGO_PKG_VERSION").to_string()),
        ("commit", env!("LOSSREC_COMMIT").to_string()),
        ("debug", cfg!(debug_assertions).to_string()),
    ]
}

/// Parses and validates a scenario without running it; returns its seed.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>"))]
fn validate_scenario(py: Python<'_>, text: &str, origin: &str) -> PyResult<u64> {
    Ok(parse(py, text, origin)?.seed())
}

/// One preset: `(name, summary, [(axis, value), ...])`.
type PresetRow = (&'static str, &'static str, Vec<(&'static str, String)>);

/// Every preset as `(name, summary, [(axis, value), ...])`, in listing order.
#[pyfunction]
fn presets() -> Vec<PresetRow> {
    PRESETS
        .iter()
        .map(|p| (p.name, p.summary, p.config().axes()))
        .collect()
}

/// The axis values of one preset; `ValueError` listing the valid names if unknown.
#[pyfunction]
fn preset(name: &str) -> PyResult<Vec<(&'static str, String)>> {
    Config::preset(name)
        .map(|c| c.axes())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Checks one `--set axis=value` against the engine's axes; `ValueError` listing what is
/// valid if the axis or value is unknown. Relations between axes are checked with the
/// whole scenario.
#[pyfunction]
fn check_axis(axis: &str, value: &str) -> PyResult<()> {
    match Config::rfc().set(axis, value) {
        Ok(()) | Err(ConfigError::Invalid(_)) => Ok(()),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

/// Every axis key a scenario or `--set` accepts.
#[pyfunction]
fn axes() -> Vec<&'static str> {
    AXES.to_vec()
}

/// Runs a built-in benchmark: `"bulk"` or `"short_flows"`. Returns a dict of rates.
#[pyfunction]
#[pyo3(name = "bench")]
fn run_bench<'py>(py: Python<'py>, which: &str) -> PyResult<Bound<'py, PyDict>> {
    benchmarks::run(py, which)
}

/// Runs one packetdrill-style script (`lossrec script`). Returns `(passed, report)`, the
/// report printed like packetdrill (`PASS file`, or `FAIL file` with `file:line:` messages
/// and the expected and actual packets).
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", preset = None, sets = Vec::new(), tolerance_us = None, verbose = false, lenient = false, ignore_psh = false))]
#[allow(clippy::too_many_arguments)] // one parameter per Python keyword argument
fn run_script(
    py: Python<'_>,
    text: &str,
    origin: &str,
    preset: Option<String>,
    sets: Vec<(String, String)>,
    tolerance_us: Option<u64>,
    verbose: bool,
    lenient: bool,
    ignore_psh: bool,
) -> (bool, String) {
    let opts = lossrec_script::ScriptOptions {
        preset,
        sets,
        tolerance_us,
        verbose,
        lenient,
        ignore_psh,
    };
    let report = py.detach(|| lossrec_script::run_script(text, origin, &opts));
    (report.passed, report.to_string())
}

/// True when this extension was built without optimisations (benchmarks are then slow).
#[pyfunction]
fn debug_build() -> bool {
    cfg!(debug_assertions)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("PCAP_EPOCH_NS", lossrec_sim::pcap::EPOCH_NS)?;
    m.add_function(wrap_pyfunction!(run_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(validate_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(presets, m)?)?;
    m.add_function(wrap_pyfunction!(preset, m)?)?;
    m.add_function(wrap_pyfunction!(axes, m)?)?;
    m.add_function(wrap_pyfunction!(check_axis, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(run_script, m)?)?;
    m.add_function(wrap_pyfunction!(vectors::vectors, m)?)?;
    m.add_function(wrap_pyfunction!(tail_vectors::tail_vectors, m)?)?;
    m.add_function(wrap_pyfunction!(debug_build, m)?)?;
    m.add_function(wrap_pyfunction!(flow_fields, m)?)?;
    m.add_function(wrap_pyfunction!(recovery_fields, m)?)?;
    m.add_function(wrap_pyfunction!(build_info, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_reference, m)?)?;
    m.add_function(wrap_pyfunction!(bench_flows_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario_schema, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_points, m)?)?;
    m.add_function(wrap_pyfunction!(batch::run_batch, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::sweep_seed, m)?)?;
    m.add_function(wrap_pyfunction!(batch::simulate_only, m)?)?;
    m.add_function(wrap_pyfunction!(explain::explain_capture, m)?)?;
    m.add_function(wrap_pyfunction!(explain::capture_records, m)?)?;
    m.add_function(wrap_pyfunction!(wire::wire_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(wire::wire_cleanup, m)?)?;
    m.add_function(wrap_pyfunction!(wire::wire_unavailable, m)?)?;
    m.add_function(wrap_pyfunction!(wire::wire_namespaces, m)?)?;
    Ok(())
}

//! `explain_capture`: `lossrec explain` and `lossrec.explain()` over `lossrec_capture`.

use std::io::Write;

use lossrec_capture::{explain_path, json, AppMode, Options};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// Explains a capture. Returns `(report_json, rows_json)`: the report object as JSON text
/// and, when `keep_rows`, the rows as a JSON array (else `None`). `rows_path` streams the
/// rows as JSON lines to that file (`-`: stdout; the caller checked it may be written)
/// as they are decided. `app` is `seen` or `bulk`. The GIL is released while reading.
#[pyfunction]
#[pyo3(signature = (path, preset = "linux", flow = None, app = "seen", rows_path = None, keep_rows = true))]
pub fn explain_capture(
    py: Python<'_>,
    path: &str,
    preset: &str,
    flow: Option<String>,
    app: &str,
    rows_path: Option<&str>,
    keep_rows: bool,
) -> PyResult<(String, Option<String>)> {
    let app = match app {
        "seen" => AppMode::AsSeen,
        "bulk" => AppMode::Bulk,
        other => {
            return Err(PyValueError::new_err(format!(
                "app: expected seen or bulk, got {other:?}"
            )))
        }
    };
    let mut sink = rows_path
        .map(crate::open_stream)
        .transpose()?
        .map(std::io::BufWriter::new);
    let opts = Options {
        preset: preset.to_string(),
        flow,
        app,
    };
    let (result, rows, write_err) = py.detach(|| {
        let mut rows: Vec<serde_json::Value> = Vec::new();
        let mut write_err: Option<std::io::Error> = None;
        let r = explain_path(path.as_ref(), &opts, |i, row| {
            let v = json::row(i, row);
            if let (Some(w), None) = (sink.as_mut(), &write_err) {
                if let Err(e) = writeln!(w, "{v}") {
                    write_err = Some(e);
                }
            }
            if keep_rows {
                rows.push(v);
            }
        });
        if let (Some(w), None) = (sink.as_mut(), &write_err) {
            if let Err(e) = w.flush() {
                write_err = Some(e);
            }
        }
        (r, rows, write_err)
    });
    if let Some(e) = write_err {
        return Err(PyOSError::new_err(format!(
            "{}: {e}",
            rows_path.unwrap_or("-")
        )));
    }
    let report = result.map_err(|e| PyValueError::new_err(format!("{path}: {e}")))?;
    let rows = keep_rows.then(|| serde_json::Value::Array(rows).to_string());
    Ok((json::report(&report, preset).to_string(), rows))
}

/// `lossrec bench --only explain`: the simulator's `bulk` benchmark scenario (100 Mb/s,
/// 40 ms, 1 % loss, rfc, 60 s) captured at the sender to a temporary file, then explained
/// under `rfc` on one thread: frames per second of the thread's CPU time (both passes
/// counted once: the capture's frames over the whole explain), and the matched share.
pub(crate) fn bench<'py>(py: Python<'py>) -> PyResult<pyo3::Bound<'py, pyo3::types::PyDict>> {
    let sc = lossrec_sim::bench::bulk();
    let path =
        std::env::temp_dir().join(format!("lossrec-bench-explain-{}.pcap", std::process::id()));
    let (res, wall_s) = py
        .detach(|| -> Result<_, String> {
            let out = lossrec_sim::run(
                &sc,
                &lossrec_sim::RunOptions {
                    pcap: true,
                    ..Default::default()
                },
            )
            .map_err(|e| e.to_string())?;
            let bytes = out.pcap.ok_or("no capture")?;
            // A fresh name of our own (pid): created here, removed below.
            std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
            let opts = Options {
                preset: "rfc".into(),
                flow: None,
                app: AppMode::AsSeen,
            };
            // Thread CPU time: one core's work, whatever else the machine runs. Repeated
            // until it covers MIN_WALL_S, as the other benchmarks: one pass of this
            // capture is ~40 ms, where the first run's cold caches and page faults
            // swung the figure between 0.84 and 1.07 M packets/s.
            let t0 = crate::benchmarks::thread_cpu_s();
            let mut runs = 0u64;
            let r = loop {
                let r = explain_path(&path, &opts, |_, _| {});
                runs += 1;
                let cpu = crate::benchmarks::thread_cpu_s() - t0;
                if r.is_err() || cpu >= crate::benchmarks::MIN_WALL_S {
                    break r;
                }
            };
            let wall = crate::benchmarks::thread_cpu_s() - t0;
            let _ = std::fs::remove_file(&path);
            r.map(|r| ((r, runs), wall)).map_err(|e| e.to_string())
        })
        .map_err(PyValueError::new_err)?;
    let (res, runs) = res;
    let d = pyo3::types::PyDict::new(py);
    let frames = res.index.frames * runs;
    let decisions: u64 = res.conns.iter().map(|c| c.summary.decisions()).sum();
    let matched: u64 = res.conns.iter().map(|c| c.summary.matched()).sum();
    d.set_item("frames", frames)?;
    d.set_item("cpu_s", wall_s)?;
    d.set_item("wall_s", wall_s)?;
    d.set_item("packets_per_s", frames as f64 / wall_s.max(1e-9))?;
    d.set_item("runs", runs)?;
    d.set_item("decisions", decisions)?;
    d.set_item("matched", matched)?;
    Ok(d)
}

/// `lossrec replay`'s input: each connection's reconstructed records (see
/// `lossrec_capture::records::records_path`) as one JSON array. The GIL is released
/// while reading.
#[pyfunction]
#[pyo3(signature = (path, flow = None))]
pub fn capture_records(py: Python<'_>, path: &str, flow: Option<String>) -> PyResult<String> {
    let r = py.detach(|| lossrec_capture::records::records_path(path.as_ref(), flow.as_deref()));
    let conns = r.map_err(|e| PyValueError::new_err(format!("{path}: {e}")))?;
    Ok(serde_json::Value::Array(conns).to_string())
}

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
        other => return Err(PyValueError::new_err(format!("app: expected seen or bulk, got {other:?}"))),
    };
    let mut sink = rows_path.map(crate::open_stream).transpose()?.map(std::io::BufWriter::new);
    let opts = Options { preset: preset.to_string(), flow, app };
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
        return Err(PyOSError::new_err(format!("{}: {e}", rows_path.unwrap_or("-"))));
    }
    let report = result.map_err(|e| PyValueError::new_err(format!("{path}: {e}")))?;
    let rows = keep_rows.then(|| serde_json::Value::Array(rows).to_string());
    Ok((json::report(&report, preset).to_string(), rows))
}

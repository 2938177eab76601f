//! One run's per-flow results as columns (issue 29 item 3): little-endian buffers that
//! numpy views in place, so that a run of 100,000 flows reaches a DataFrame or the CLI's
//! table without a Python object per field (the JSON path parsed ~2.5 M values). The
//! layout is the sweep batches' (`batch.rs`), built from the one schema,
//! `FlowResult::FIELDS`.

use lossrec_sim::FlowResult;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict};

/// The names of the integer fields, in `FlowResult::FIELDS` order.
fn int_names() -> Vec<&'static str> {
    FlowResult::FIELDS
        .iter()
        .filter(|(_, kind)| *kind == "int")
        .map(|(n, _)| *n)
        .collect()
}

/// A buffer of `flows.len()` values of `N` bytes each.
fn le_bytes<'py, const N: usize>(
    py: Python<'py>,
    flows: &[FlowResult],
    f: impl Fn(&FlowResult) -> [u8; N],
) -> PyResult<Bound<'py, PyByteArray>> {
    PyByteArray::new_with(py, flows.len() * N, |buf| {
        for (out, r) in buf.chunks_exact_mut(N).zip(flows) {
            out.copy_from_slice(&f(r));
        }
        Ok(())
    })
}

/// `flows` as a dict: `rows`, `int_names`, `ints` (i64, one `(len(int_names), rows)`
/// block, row j the field `int_names[j]`), `fct_ms` (f64, NaN for a flow that did not
/// finish: JSON's `null`), `preset` (u32 index into `presets`) and `presets` (names).
pub(crate) fn flow_columns<'py>(
    py: Python<'py>,
    flows: &[FlowResult],
) -> PyResult<Bound<'py, PyDict>> {
    let names = int_names();
    let n = flows.len();
    let ints = PyByteArray::new_with(py, names.len() * n * 8, |buf| {
        for (i, f) in flows.iter().enumerate() {
            let mut j = 0;
            f.for_each_int(|_, v| {
                let at = (j * n + i) * 8;
                buf[at..at + 8].copy_from_slice(&(v as i64).to_le_bytes());
                j += 1;
            });
        }
        Ok(())
    })?;
    let mut presets: Vec<&str> = Vec::new();
    let mut codes = Vec::with_capacity(n);
    for f in flows {
        let c = match presets.iter().position(|x| *x == f.preset) {
            Some(i) => i,
            None => {
                presets.push(&f.preset);
                presets.len() - 1
            }
        };
        codes.push(c as u32);
    }
    let d = PyDict::new(py);
    d.set_item("rows", n)?;
    d.set_item("int_names", names)?;
    d.set_item("ints", ints)?;
    d.set_item(
        "fct_ms",
        le_bytes(py, flows, |f| f.fct_ms.unwrap_or(f64::NAN).to_le_bytes())?,
    )?;
    let preset = PyByteArray::new_with(py, n * 4, |buf| {
        for (out, c) in buf.chunks_exact_mut(4).zip(&codes) {
            out.copy_from_slice(&c.to_le_bytes());
        }
        Ok(())
    })?;
    d.set_item("preset", preset)?;
    d.set_item("presets", presets)?;
    Ok(d)
}

//! `lossrec bench --only attacks`: the misbehaving-receiver table of issue 13, from
//! `lossrec_testkit::attack` (every preset × SACK on/off × phase × attack, each beside the
//! honest run of the same preset, SACK setting and phase).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use lossrec_testkit::attack::{self, Attack};

/// `{"columns": [...], "rows": [[preset, sack, phase, attack, honest_bytes,
/// attacked_bytes, ratio, extra_mss_per_rtt, within_bounds], ...], "rtt_ms", "mss",
/// "wall_s"}`.
pub(crate) fn attacks(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let t0 = std::time::Instant::now();
    let rows = py.detach(|| attack::table(&Attack::ALL));
    let d = PyDict::new(py);
    d.set_item(
        "columns",
        [
            "preset",
            "sack",
            "phase",
            "attack",
            "honest_bytes",
            "attacked_bytes",
            "ratio",
            "extra_mss_per_rtt",
            "within_bounds",
        ],
    )?;
    let out: Vec<Bound<'_, PyAny>> = rows
        .iter()
        .map(|r| {
            (
                r.preset,
                r.sack,
                r.phase.name(),
                r.attack.name(),
                r.honest.sent,
                r.attacked.sent,
                r.ratio(),
                r.extra_mss_per_rtt(),
                r.within_bounds(),
            )
                .into_pyobject(py)
                .map(|t| t.into_any())
        })
        .collect::<PyResult<_>>()?;
    d.set_item("rows", out)?;
    d.set_item("rtt_ms", attack::RTT.as_millis() as u64)?;
    d.set_item("mss", attack::MSS)?;
    d.set_item("wall_s", t0.elapsed().as_secs_f64())?;
    Ok(d)
}

//! `lossrec bench --only attacks`: the misbehaving-receiver table of issue 13, from
//! `lossrec_testkit::attack` (every preset × SACK on/off × phase × attack, as the stack is
//! and `hardened`, each beside the honest runs of the same configuration and phase,
//! summed over `attack::PATHS`),
//! and the optimistic-ACK defence's table (`attack::defence`, on the base path: the attack
//! with `optack_defence = skip-segment` and without, and what the defence costs the honest
//! connection).

use pyo3::prelude::*;
use pyo3::types::PyDict;

use lossrec_testkit::attack::defence::{self, DefenceRow};
use lossrec_testkit::attack::{self, Attack};

/// `{"columns": [...], "rows": [[preset, sack, phase, attack, defences, honest_bytes,
/// attacked_bytes, ratio, extra_mss_per_rtt, within_bounds, cwnd_ratio,
/// worst_path_cwnd_ratio, worst_path_ratio], ...] (cwnd: averaged over the window's time),
/// "defence": {"columns", "rows", "transfer_bytes", "skip_interval"}, "rtt_ms" (of each
/// path), "mss", "wall_s"}`.
pub(crate) fn attacks(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let t0 = std::time::Instant::now();
    let (rows, def) = py.detach(|| {
        let mut rows = attack::table(&Attack::ALL, attack::Defences::Stack);
        rows.extend(attack::table(&Attack::ALL, attack::Defences::AllButOptack));
        rows.extend(attack::table(&Attack::ALL, attack::Defences::Hardened));
        (rows, defence::defence_table(true))
    });
    let d = PyDict::new(py);
    d.set_item(
        "columns",
        [
            "preset",
            "sack",
            "phase",
            "attack",
            "defences",
            "honest_bytes",
            "attacked_bytes",
            "ratio",
            "extra_mss_per_rtt",
            "within_bounds",
            "cwnd_ratio",
            "worst_path_cwnd_ratio",
            "worst_path_ratio",
        ],
    )?;
    let out: Vec<Bound<'_, PyAny>> = rows
        .iter()
        .map(|r| {
            // PyO3 converts tuples of at most 12: the row is two joined in Python.
            let head = (
                r.preset,
                r.sack,
                r.phase.name(),
                r.attack.name(),
                r.defences.name(),
                r.honest.sent,
                r.attacked.sent,
                r.ratio(),
                r.extra_mss_per_rtt(),
                r.within_bounds(),
            )
                .into_pyobject(py)?;
            let tail = (
                r.cwnd_ratio(),
                r.worst_path_cwnd_ratio(),
                r.worst_path_ratio(),
            )
                .into_pyobject(py)?;
            head.into_any().add(tail)
        })
        .collect::<PyResult<_>>()?;
    d.set_item("rows", out)?;
    d.set_item("defence", defence_dict(py, &def)?)?;
    let rtts: Vec<u64> = attack::PATHS
        .iter()
        .map(|p| p.rtt.as_millis() as u64)
        .collect();
    d.set_item("rtt_ms", rtts)?;
    d.set_item("mss", attack::MSS)?;
    d.set_item("wall_s", t0.elapsed().as_secs_f64())?;
    Ok(d)
}

/// The defence table (the base path, the undefended attacks included): one row per
/// preset, SACK setting, phase and optimistic attacker (`Attack::OPTIMISTIC`), with the
/// honest cost of that preset, SACK setting and phase beside it.
fn defence_dict<'py>(py: Python<'py>, def: &[DefenceRow]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item(
        "columns",
        [
            "preset",
            "sack",
            "phase",
            "attack",
            "ratio_off",
            "ratio_on",
            "attacker_stopped",
            "honest_throughput_on_vs_off",
            "honest_completion_off_ms",
            "honest_completion_on_ms",
            "honest_completion_on_vs_off",
            "honest_stopped",
        ],
    )?;
    let ms = |t: Option<lossrec::Duration>| t.map(|t| t.as_secs_f64() * 1e3);
    let out: Vec<Bound<'_, PyAny>> = def
        .iter()
        .flat_map(|r| (0..r.attacked.len()).map(move |i| (r, i)))
        .map(|(r, i)| {
            (
                r.preset,
                r.sack,
                r.phase.name(),
                r.attacked[i].attack.name(),
                r.gain_off(i),
                r.gain_on(i),
                r.attacked[i].on.stopped,
                r.honest_throughput(),
                ms(r.completion_off),
                ms(r.completion_on),
                r.honest_completion(),
                r.honest_on.stopped,
            )
                .into_pyobject(py)
                .map(|t| t.into_any())
        })
        .collect::<PyResult<_>>()?;
    d.set_item("rows", out)?;
    d.set_item("transfer_bytes", defence::TRANSFER)?;
    d.set_item("rtt_ms", attack::RTT.as_millis() as u64)?;
    d.set_item("skip_interval", lossrec::Config::rfc().optack_skip_interval)?;
    Ok(d)
}

//! `lossrec._core.wire_*`: the real wire (`lossrec_tun`) for `lossrec.wire()` and
//! `lossrec wire`. The run happens on a thread of its own while this thread, holding the
//! GIL every 50 ms, lets Python handle signals: Ctrl-C (or SIGTERM turned into an
//! exception by the CLI) sets the run's cancel flag, the run stops and removes its
//! namespaces, and the exception goes on up.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use lossrec_tun::{Side, WireOptions};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

fn side(name: &str, what: &str) -> PyResult<Side> {
    Side::parse(name).ok_or_else(|| {
        PyValueError::new_err(format!(
            "{what}: expected `engine` or `linux`, got `{name}`"
        ))
    })
}

/// Runs a scenario through the wire. Returns `(json, trace, pcap)` like `run_scenario`;
/// raises `OSError` when the machine cannot (not root, no TUN) or setup fails.
/// `trace_path` / `pcap_path` stream those outputs to files (`-`: stdout) as the run
/// goes instead of returning them.
#[pyfunction]
#[pyo3(signature = (text, origin = "<string>", seed = None, sender = "engine", receiver = "linux", trace = false, pcap = false, close = "after-ack", trace_path = None, pcap_path = None))]
#[allow(clippy::too_many_arguments)]
pub fn wire_scenario<'py>(
    py: Python<'py>,
    text: &str,
    origin: &str,
    seed: Option<u64>,
    sender: &str,
    receiver: &str,
    trace: bool,
    pcap: bool,
    close: &str,
    trace_path: Option<&str>,
    pcap_path: Option<&str>,
) -> PyResult<(String, Option<String>, Option<Bound<'py, PyBytes>>)> {
    let close = lossrec_tun::Close::parse(close).ok_or_else(|| {
        PyValueError::new_err(format!(
            "close: expected `after-ack` or `after-write`, got `{close}`"
        ))
    })?;
    let sc = lossrec_sim::Scenario::from_toml_str(text, origin)
        .map_err(|e| crate::scenario_err(py, e))?;
    let cancel = Arc::new(AtomicBool::new(false));
    let opts = WireOptions {
        seed,
        sender: side(sender, "sender")?,
        receiver: side(receiver, "receiver")?,
        trace,
        pcap,
        close,
        cancel: cancel.clone(),
    };
    let sinks = lossrec_sim::Sinks {
        trace: trace_path.map(crate::open_trace).transpose()?,
        pcap: pcap_path.map(crate::open_stream).transpose()?,
        pcap_receiver: None,
    };
    let handle = std::thread::spawn(move || lossrec_tun::run_to(&sc, &opts, sinks));
    while !handle.is_finished() {
        py.detach(|| std::thread::sleep(Duration::from_millis(50)));
        if let Err(e) = py.check_signals() {
            cancel.store(true, Ordering::Relaxed);
            let _ = py.detach(|| handle.join());
            return Err(e);
        }
    }
    let out = handle
        .join()
        .map_err(|_| PyOSError::new_err("the wire run panicked"))?;
    let out = out.map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput => PyValueError::new_err(format!("{origin}: {e}")),
        _ => PyOSError::new_err(e.to_string()),
    })?;
    let pcap = out.pcap.as_deref().map(|b| PyBytes::new(py, b));
    Ok((out.to_json(), out.trace.clone(), pcap))
}

/// Removes the namespaces of wire runs whose process is gone; returns their names.
#[pyfunction]
pub fn wire_cleanup() -> PyResult<Vec<String>> {
    lossrec_tun::netns::cleanup_dead().map_err(|e| PyOSError::new_err(e.to_string()))
}

/// Why the wire cannot run on this machine, or None.
#[pyfunction]
pub fn wire_unavailable() -> Option<String> {
    lossrec_tun::netns::unavailable()
}

/// `lossrec-<pid>-*` namespaces that exist now, as `(name, pid)`.
#[pyfunction]
pub fn wire_namespaces() -> Vec<(String, u32)> {
    lossrec_tun::netns::ours()
}

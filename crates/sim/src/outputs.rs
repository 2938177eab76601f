//! Closing a run's trace and captures: flushing streamed ones, counting what they hold,
//! and reporting a write error (a full disk, a closed pipe) instead of losing it.

use crate::pcap::Capture;
use crate::trace::Trace;
use serde::Serialize;

/// What the trace and captures of a run hold (the `--json` object's `outputs`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Outputs {
    /// Trace lines written (0 when not tracing).
    pub trace_lines: u64,
    /// pcap records written at the sender and at the receiver.
    pub pcap_records: u64,
    pub pcap_receiver_records: u64,
    /// The first write error of a streamed output, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Finishes each output; returns the in-memory trace and pcap and the counts.
pub(crate) fn finish(
    trace: Option<Trace>,
    pcap: Option<Capture>,
    pcap_rx: Option<Capture>,
) -> (Option<String>, Option<Vec<u8>>, Outputs) {
    let mut o = Outputs {
        trace_lines: trace.as_ref().map_or(0, |t| t.lines),
        pcap_records: pcap.as_ref().map_or(0, |c| c.records),
        pcap_receiver_records: pcap_rx.as_ref().map_or(0, |c| c.records),
        error: None,
    };
    let mut errors = Vec::new();
    let trace = trace.and_then(|t| t.finish().map_err(|e| errors.push(("trace", e))).ok()?);
    let pcap = pcap.and_then(|c| c.finish().map_err(|e| errors.push(("pcap", e))).ok()?);
    if let Some(Err(e)) = pcap_rx.map(Capture::finish) {
        errors.push(("receiver pcap", e));
    }
    o.error = errors.first().map(|(what, e)| format!("{what}: {e}"));
    (trace, pcap, o)
}

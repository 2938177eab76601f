//! JSON for the CLI and Python: one object per row (`--json` lines), one report object.

use serde_json::{json, Map, Value};

use crate::explain::{ConnReport, Report};
use crate::shadow::Row;

/// One row as a JSON object (`conn` is its connection's index in the report).
pub fn row(conn: usize, r: &Row) -> Value {
    let mut v = json!({
        "conn": conn,
        "t": r.ts_ns as f64 / 1e9,
        "packet": (r.packet != u64::MAX).then_some(r.packet),
        "part": r.part,
        "start": r.start,
        "end": r.end,
        "verdict": r.verdict.name(),
        "cause": r.cause,
        "backoff": r.backoff,
    });
    if let (Some(s), Some(m)) = (r.state, v.as_object_mut()) {
        m.insert(
            "engine".into(),
            json!({
                "cwnd": s.cwnd, "ssthresh": if s.ssthresh == u64::MAX { Value::Null } else { s.ssthresh.into() },
                "pipe": s.pipe, "state": s.state, "reo_wnd_us": s.reo_wnd_us,
                "srtt_us": s.srtt_us, "timer": s.timer, "timer_in_us": s.timer_in_us,
            }),
        );
    }
    v
}

fn conn(c: &ConnReport) -> Value {
    let s = &c.summary;
    let counts = |m: &std::collections::BTreeMap<&'static str, u64>| {
        Value::Object(
            m.iter()
                .map(|(k, v)| ((*k).to_string(), Value::from(*v)))
                .collect::<Map<_, _>>(),
        )
    };
    let engine = s.engine_stats.as_ref().map(|st| {
        Value::Object(
            st.iter()
                .map(|(k, v)| (k.to_string(), Value::from(v)))
                .collect::<Map<_, _>>(),
        )
    });
    json!({
        "flow": format!("{}-{}", c.sender, c.receiver),
        "sender": c.sender.to_string(),
        "receiver": c.receiver.to_string(),
        "capture_point": c.point.name(),
        "mss": c.mss,
        "mid_connection": s.mid_connection,
        "packets": c.stats.packets,
        "data_packets": c.stats.data_packets,
        "super_packets": c.stats.super_packets,
        "acks": c.stats.acks,
        "snaplen_cut": c.stats.snaplen_cut,
        "before_start": c.stats.before_start,
        "capture_drop_bytes": c.stats.capture_drop_bytes,
        "first_t": c.info.first_ns as f64 / 1e9,
        "duration_s": (c.info.last_ns - c.info.first_ns) as f64 / 1e9,
        "decisions": s.decisions(),
        "matched": s.matched(),
        "verdicts": counts(&s.verdicts),
        "by_cause": counts(&s.by_cause),
        "events": counts(&s.events),
        "spurious_by": counts(&s.spurious_by),
        "first_divergence_t": s.first_divergence.map(|(t, _)| t as f64 / 1e9),
        "first_divergence_packet": s.first_divergence.and_then(|(_, p)| (p != u64::MAX).then_some(p)),
        "reordering": reordering(&c.reordering),
        "notes": s.notes,
        "engine_counters": engine,
    })
}

/// The reordering evidence: the degree proven and each packet with its two readings.
fn reordering(e: &crate::reorder::Evidence) -> Value {
    json!({
        "degree": e.degree,
        "events": e.events,
        "dsacks": e.dsacks,
        "ambiguous_total": e.ambiguous_total,
        "ambiguous": e.ambiguous.iter().map(|a| json!({
            "t": a.ts_ns as f64 / 1e9, "packet": a.packet, "start": a.start, "end": a.end,
            "evidence": a.what, "readings": a.readings,
        })).collect::<Vec<_>>(),
    })
}

/// The whole report.
pub fn report(r: &Report, preset: &str) -> Value {
    json!({
        "preset": preset,
        "frames": r.index.frames,
        "interfaces": r.index.interfaces,
        "skipped": Value::Object(r.index.skipped.iter().map(|(k, v)| ((*k).to_string(), Value::from(*v))).collect::<Map<_, _>>()),
        "read_error": r.index.error,
        "connections_in_capture": r.index.conns.len(),
        "connections": r.conns.iter().map(conn).collect::<Vec<_>>(),
    })
}

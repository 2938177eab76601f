//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use lossrec_sim::{run, RunOptions, RunOutput, Scenario};
use serde_json::Value;

/// Parses a scenario or panics with its error.
pub fn scenario(text: &str) -> Scenario {
    Scenario::from_toml_str(text, "<test>").unwrap_or_else(|e| panic!("{e}"))
}

/// Runs with the trace on.
pub fn traced(text: &str) -> RunOutput {
    run(
        &scenario(text),
        &RunOptions {
            trace: true,
            ..RunOptions::default()
        },
    )
    .unwrap()
}

/// Runs without a trace.
pub fn plain(text: &str) -> RunOutput {
    run(&scenario(text), &RunOptions::default()).unwrap()
}

/// The trace's lines as JSON values.
pub fn lines(out: &RunOutput) -> Vec<Value> {
    out.trace
        .as_deref()
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Lines of one kind.
pub fn kind<'a>(lines: &'a [Value], k: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["kind"] == k).collect()
}

/// `[start, end]` of a line's `seq`.
pub fn seq(l: &Value) -> (u64, u64) {
    (l["seq"][0].as_u64().unwrap(), l["seq"][1].as_u64().unwrap())
}

/// Data `send` lines (non-empty payload).
pub fn data_sends(lines: &[Value]) -> Vec<&Value> {
    kind(lines, "send")
        .into_iter()
        .filter(|l| seq(l).0 < seq(l).1)
        .collect()
}

/// Data-direction drops.
pub fn data_drops(lines: &[Value]) -> Vec<&Value> {
    kind(lines, "drop")
        .into_iter()
        .filter(|l| l["dir"] == "data")
        .collect()
}

pub fn ack_drops(lines: &[Value]) -> Vec<&Value> {
    kind(lines, "drop")
        .into_iter()
        .filter(|l| l["dir"] == "ack")
        .collect()
}

/// Every flow of a non-bulk run finished and delivered `bytes`.
pub fn assert_all_delivered(out: &RunOutput, bytes: u64) {
    assert_eq!(
        out.unfinished_flows,
        0,
        "unfinished flows: {}",
        out.to_json(0.0)
    );
    for f in &out.flows {
        assert_eq!(f.bytes, bytes, "{}", out.to_json(0.0));
        assert!(f.fct_ms.is_some());
    }
}

//! The trace's ACK lines carry the sender's armed deadline and RACK's reorder window, so a
//! reader of the trace (the differential test against the kernel, `lossrec diff`) can say
//! why the sender next acted without an ACK.

mod common;
use common::*;

/// A 10-segment flow under the `linux` preset whose last segment is lost once: a probe
/// repairs it.
const TAIL: &str = "[path]\nrtt_ms = 40\nrate_mbps = 100\n[path.loss]\nmodel = \"tail\"\n\
                    count = 1\n[sender]\npreset = \"linux\"\n[workload]\nsegments = 10\n";

#[test]
fn ack_lines_carry_the_armed_timer_and_reo_wnd() {
    let out = traced(TAIL);
    let l = lines(&out);
    let acks: Vec<_> = kind(&l, "ack")
        .into_iter()
        .filter(|a| a.get("cwnd").is_some())
        .collect();
    assert!(!acks.is_empty());
    for a in &acks {
        assert!(a.get("timer").is_some(), "{a}");
        assert!(a["reo_wnd_us"].is_u64(), "RACK is on under linux: {a}");
    }
    // Between the SYN-ACK (its line comes before the first data is sent) and the last
    // ACK, data is outstanding: a deadline is armed (one always is, DESIGN.md), in the
    // future.
    assert!(
        acks[0]["syn"] == true && acks[0]["timer"].is_null(),
        "{}",
        acks[0]
    );
    let before_last = &acks[1..acks.len() - 1];
    let timers: Vec<&str> = before_last
        .iter()
        .filter_map(|a| a["timer"].as_str())
        .collect();
    assert_eq!(timers.len(), before_last.len(), "{before_last:?}");
    assert!(timers.contains(&"loss_probe"), "{timers:?}");
    for a in before_last {
        assert!(
            a["timer_at_us"].as_u64().unwrap() > a["t_us"].as_u64().unwrap(),
            "{a}"
        );
    }
    assert!(
        acks.last().unwrap()["timer"].is_null(),
        "nothing outstanding at the end"
    );
}

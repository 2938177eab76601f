//! ECN through the simulator (RFC 3168): a queue that marks CE above a threshold instead
//! of waiting to drop, the receiver's ECE, the sender's CWR reductions.

mod common;
use common::*;

fn bulk(ecn: &str, mark: &str) -> String {
    format!(
        "[path]\nrtt_ms = 40\nrate_mbps = 10\nqueue_packets = 60\n{mark}\
         [sender]\npreset = \"linux\"\nhystart = \"off\"\necn = \"{ecn}\"\n[workload]\nsegments = 2000\n"
    )
}

fn events(l: &[serde_json::Value], name: &str) -> usize {
    kind(l, "event")
        .iter()
        .filter(|e| e["name"] == name)
        .count()
}

/// With ECN agreed and a marking threshold well below the drop-tail limit, the sender
/// backs off on ECE before the queue overflows: CWR episodes, no drops, everything
/// delivered. Without ECN the same path only drops.
#[test]
fn marking_queue_makes_the_sender_back_off_without_loss() {
    let out = traced(&bulk("on", "ecn_mark_packets = 10\n"));
    assert_all_delivered(&out, 2000 * 1448);
    let l = lines(&out);
    assert!(events(&l, "enter_cwr") >= 2, "{}", events(&l, "enter_cwr"));
    assert_eq!(data_drops(&l).len(), 0);
    assert_eq!(events(&l, "enter_recovery"), 0);

    let out = traced(&bulk("off", "ecn_mark_packets = 10\n"));
    assert_all_delivered(&out, 2000 * 1448);
    let l = lines(&out);
    assert_eq!(events(&l, "enter_cwr"), 0);
    assert!(!data_drops(&l).is_empty(), "slow start overflows the queue");
}

/// The threshold must be a positive packet count; the error names the field.
#[test]
fn threshold_is_validated() {
    let text = bulk("on", "ecn_mark_packets = 0\n");
    let err = lossrec_sim::Scenario::from_toml_str(&text, "t.toml")
        .expect_err("0 is rejected")
        .to_string();
    assert!(err.contains("path.ecn_mark_packets"), "{err}");
}

//! `records_path` (replay's input): the engine's own tail-loss capture gives the
//! handshake's three times, every transmission (the lost last segment twice) and ACKs
//! in stream offsets; a flow the capture does not hold is an error naming those it does.

use lossrec_capture::records::records_path;
mod common;
use common::simulated_capture;

const TAIL: &str =
    "seed = 1\n[path]\nrtt_ms = 100\nrate_mbps = 10\n[path.loss]\nmodel = \"tail\"\n\
count = 1\n[sender]\npreset = \"linux\"\n[workload]\nkind = \"flows\"\nflows = 1\nsegments = 10\n";

fn capture() -> tempfile::NamedTempFile {
    simulated_capture(TAIL)
}

#[test]
fn tail_capture_records() {
    let f = capture();
    let conns = records_path(f.path(), None).unwrap();
    assert_eq!(conns.len(), 1);
    let c = &conns[0];
    let (syn, synack, third) = (
        c["syn_ns"].as_u64().unwrap(),
        c["synack_ns"].as_u64().unwrap(),
        c["third_ns"].as_u64().unwrap(),
    );
    // At the sender: the SYN-ACK a round trip (100 ms) after the SYN, the third packet at once.
    assert!(synack - syn >= 100_000_000 && third - synack < 1_000_000);
    let data = c["data"].as_array().unwrap();
    let last: Vec<_> = data
        .iter()
        .filter(|d| d[1] == 13032 && d[2] == 14480)
        .collect();
    assert_eq!(last.len(), 2, "the tail segment and its retransmission");
    let acks = c["acks"].as_array().unwrap();
    assert_eq!(
        acks.last().unwrap()[1].as_u64(),
        Some(14481),
        "data and FIN acknowledged"
    );
}

#[test]
fn unknown_flow_is_an_error() {
    let f = capture();
    let e = records_path(f.path(), Some("1.2.3.4:1-5.6.7.8:2")).unwrap_err();
    assert!(e.to_string().contains("no TCP connection"), "{e}");
}

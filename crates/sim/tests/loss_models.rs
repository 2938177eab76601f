//! Each loss model drops what it says, checked against the trace.

mod common;
use common::*;

const BASE: &str = "[path]\nrtt_ms = 40\nrate_mbps = 100\nqueue_packets = 1000\n";

#[test]
fn tail_drops_exactly_the_last_k_first_transmissions() {
    for k in [1u64, 2, 3] {
        let text = format!(
            "{BASE}[path.loss]\nmodel = \"tail\"\ncount = {k}\n[workload]\nflows = 3\nsegments = 10\n"
        );
        let out = traced(&text);
        assert_all_delivered(&out, 14480);
        let l = lines(&out);
        let drops = data_drops(&l);
        assert_eq!(drops.len() as u64, 3 * k, "k={k}");
        for flow in 0..3u64 {
            let mut got: Vec<(u64, u64)> = drops
                .iter()
                .filter(|d| d["flow"] == flow)
                .map(|d| seq(d))
                .collect();
            got.sort();
            let want: Vec<(u64, u64)> = (10 - k..10).map(|s| (s * 1448, s * 1448 + 1448)).collect();
            assert_eq!(got, want, "flow {flow}, k={k}");
        }
        // Every drop is of a first transmission: the preceding send of that range says `new`.
        let sends = data_sends(&l);
        for d in &drops {
            let first = sends
                .iter()
                .find(|s| s["flow"] == d["flow"] && s["seq"] == d["seq"])
                .unwrap();
            assert_ne!(first["why"], "rto");
        }
    }
}

#[test]
fn tail_applies_to_every_response() {
    let text = format!(
        "{BASE}[path.loss]\nmodel = \"tail\"\n[workload]\nkind = \"request-response\"\nrequests = 4\nresponse_segments = 3\n"
    );
    let out = traced(&text);
    assert_eq!(out.flows.len(), 4);
    let l = lines(&out);
    let got: Vec<(u64, u64)> = data_drops(&l).iter().map(|d| seq(d)).collect();
    let want: Vec<(u64, u64)> = (0..4)
        .map(|r| ((3 * r + 2) * 1448, (3 * r + 3) * 1448))
        .collect();
    assert_eq!(got, want);
    for f in &out.flows {
        assert_eq!(f.bytes, 3 * 1448);
        assert!(f.retransmits >= 1, "{}", out.to_json(0.0));
    }
}

#[test]
fn drop_list_drops_the_listed_data_packets() {
    let text = format!(
        "{BASE}[path.loss]\nmodel = \"drop-list\"\npackets = [0, 4, 7]\n[workload]\nsegments = 20\n"
    );
    let out = traced(&text);
    assert_all_delivered(&out, 20 * 1448);
    let l = lines(&out);
    let sends = data_sends(&l);
    let drops = data_drops(&l);
    assert_eq!(drops.len(), 3);
    for (d, i) in drops.iter().zip([0usize, 4, 7]) {
        assert_eq!(d["seq"], sends[i]["seq"], "drop of data packet {i}");
    }
}

#[test]
fn drop_list_by_segment_and_transmission() {
    // Segment 3's first and second transmissions are lost; the third gets through.
    let text = format!(
        "{BASE}[path.loss]\nmodel = \"drop-list\"\n[[path.loss.drops]]\nsegment = 3\n[[path.loss.drops]]\nsegment = 3\ntransmission = 2\n[workload]\nsegments = 10\n"
    );
    let out = traced(&text);
    assert_all_delivered(&out, 10 * 1448);
    let l = lines(&out);
    let seg3 = (3 * 1448, 4 * 1448);
    let sends: Vec<_> = data_sends(&l)
        .into_iter()
        .filter(|s| seq(s) == seg3)
        .collect();
    let drops: Vec<_> = data_drops(&l)
        .into_iter()
        .filter(|d| seq(d) == seg3)
        .collect();
    assert!(sends.len() >= 3, "{}", sends.len());
    assert_eq!(drops.len(), 2);
    assert_eq!(data_drops(&l).len(), 2);
    assert!(out.flows[0].retransmits >= sends.len() as u64 - 1);
}

#[test]
fn drop_rule_by_seq_range_only_in_its_flow() {
    let text = format!(
        "{BASE}[path.loss]\nmodel = \"drop-list\"\n[[path.loss.drops]]\nseq = [0, 2896]\nflow = 1\n[workload]\nflows = 2\nsegments = 5\n"
    );
    let out = traced(&text);
    assert_all_delivered(&out, 5 * 1448);
    let l = lines(&out);
    let drops = data_drops(&l);
    assert_eq!(drops.len(), 2);
    assert!(drops.iter().all(|d| d["flow"] == 1));
}

#[test]
fn bernoulli_loss_rate_is_close_to_p() {
    let text = format!(
        "{BASE}[path.loss]\nmodel = \"bernoulli\"\np = 0.05\n[workload]\nkind = \"bulk\"\nduration_s = 60\n"
    );
    let out = traced(&text);
    let l = lines(&out);
    let sent = data_sends(&l).len() as f64;
    let lost = data_drops(&l)
        .iter()
        .filter(|d| d["cause"] == "loss")
        .count() as f64;
    assert!(sent > 4000.0, "{sent}");
    let rate = lost / sent;
    assert!(
        (rate - 0.05).abs() < 0.01,
        "rate {rate} over {sent} packets"
    );
    assert_eq!(out.flows[0].fct_ms, None);
    assert!(out.flows[0].bytes > 0);
}

#[test]
fn gilbert_elliott_loss_is_bursty_at_the_stationary_rate() {
    // π_bad = 0.02 / (0.02 + 0.25) ≈ 7.4 %; all of bad's packets lost; mean burst 4.
    let text = format!(
        "{BASE}[path.loss]\nmodel = \"gilbert-elliott\"\np_good_bad = 0.02\np_bad_good = 0.25\n[workload]\nkind = \"bulk\"\nduration_s = 60\n"
    );
    let out = traced(&text);
    let l = lines(&out);
    let sends = data_sends(&l);
    let dropped: std::collections::BTreeSet<(u64, u64)> = data_drops(&l)
        .iter()
        .map(|d| (d["t_us"].as_u64().unwrap(), seq(d).0))
        .collect();
    let lost: Vec<bool> = sends
        .iter()
        .map(|s| dropped.contains(&(s["t_us"].as_u64().unwrap(), seq(s).0)))
        .collect();
    let n = lost.len() as f64;
    let k = lost.iter().filter(|&&x| x).count() as f64;
    assert!(n > 3000.0, "{n}");
    assert!((k / n - 0.074).abs() < 0.025, "rate {}", k / n);
    let bursts = lost.windows(2).filter(|w| !w[0] && w[1]).count() as f64;
    assert!(k / bursts > 2.0, "mean burst {}", k / bursts);
}

#[test]
fn ack_loss_drops_acks_and_everything_still_arrives() {
    let text = format!(
        "{BASE}[path.ack_loss]\nmodel = \"bernoulli\"\np = 0.2\n[workload]\nflows = 5\nsegments = 30\n"
    );
    let out = traced(&text);
    assert_all_delivered(&out, 30 * 1448);
    let l = lines(&out);
    let acks_seen = kind(&l, "ack").len() as f64;
    let acks_lost = ack_drops(&l).len() as f64;
    let rate = acks_lost / (acks_seen + acks_lost);
    assert!((0.1..0.3).contains(&rate), "{rate}");
    assert!(data_drops(&l).is_empty());
}

#[test]
fn ack_drop_list_by_index() {
    let text = format!(
        "{BASE}[path.ack_loss]\nmodel = \"drop-list\"\npackets = [0, 1, 2]\n[workload]\nsegments = 10\n"
    );
    let out = traced(&text);
    assert_all_delivered(&out, 10 * 1448);
    let l = lines(&out);
    let drops: Vec<u64> = ack_drops(&l)
        .iter()
        .map(|d| d["ack"].as_u64().unwrap())
        .collect();
    // The SYN-ACK is not counted: the first three ACKs after it are.
    assert_eq!(drops.len(), 3);
    assert!(kind(&l, "ack")[0]["syn"] == true);
}

#[test]
fn drop_tail_queue_overflows_when_the_window_exceeds_it() {
    let text = "[path]\nrtt_ms = 100\nrate_mbps = 1\nqueue_packets = 5\n[sender]\ninitial_cwnd = 20\n[workload]\nsegments = 40\n";
    let out = traced(text);
    assert_all_delivered(&out, 40 * 1448);
    let l = lines(&out);
    let q = data_drops(&l)
        .iter()
        .filter(|d| d["cause"] == "queue")
        .count();
    assert!(q >= 10, "{q} queue drops");
}

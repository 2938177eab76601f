//! BBR v1 in the simulator: the delivery-rate model holds the bottleneck rate under random
//! loss where loss-based CUBIC collapses (seed 001 slide 6's setting, scaled to 100 Mb/s),
//! the sender paces, and the queue stays short where CUBIC fills the buffer.

mod common;
use common::*;

fn bulk(cc: &str, loss: f64, queue: u32, secs: u32) -> String {
    format!(
        "seed = 5\n[path]\nrtt_ms = 20\nrate_mbps = 100\nqueue_packets = {queue}\n\
         [path.loss]\nmodel = \"bernoulli\"\np = {loss}\n\
         [sender]\npreset = \"linux\"\ncc = \"{cc}\"\n\
         [workload]\nkind = \"bulk\"\nduration_s = {secs}\n"
    )
}

fn mbps(text: &str, secs: u32) -> f64 {
    let out = plain(text);
    out.flows[0].bytes as f64 * 8.0 / f64::from(secs) / 1e6
}

/// 1 % random loss at 100 Mb/s and 20 ms: BBR keeps most of the link, CUBIC does not.
#[test]
fn bbr_holds_the_rate_under_random_loss() {
    let bbr = mbps(&bulk("bbr", 0.01, 200, 4), 4);
    let cubic = mbps(&bulk("cubic", 0.01, 200, 4), 4);
    assert!(bbr > 80.0, "BBR {bbr:.1} Mb/s");
    assert!(cubic < 40.0, "CUBIC {cubic:.1} Mb/s");
}

/// No two data segments of a BBR flow leave at the same instant once the first 10 are
/// out (Linux paces from the 10th segment on, `tcp_update_skb_after_send`): the pacer
/// spaces them (CUBIC sends its window in bursts). Linux paces TSO packets, so this holds
/// where a packet is one segment: `tcp_min_tso_segs` 1 and a 4 Mb/s path, where 1 ms of
/// data at BBR's rate is less than an MSS (`tcp_tso_autosize`).
#[test]
fn bbr_paces_its_segments() {
    let count_same_instant = |cc: &str| {
        let text = bulk(cc, 0.0, 200, 4)
            .replace("rate_mbps = 100", "rate_mbps = 4")
            .replace("[workload]", "min_tso_segs = 1\n[workload]");
        let out = traced(&text);
        let l = lines(&out);
        let t: Vec<u64> = data_sends(&l)
            .iter()
            .map(|s| s["t_us"].as_u64().unwrap())
            .collect();
        t[10..].windows(2).filter(|w| w[0] == w[1]).count()
    };
    assert_eq!(count_same_instant("bbr"), 0);
    let cubic = count_same_instant("cubic");
    assert!(cubic > 30, "CUBIC {cubic}");
}

/// A 2,000-packet buffer (10 BDPs) without loss: loss-based CUBIC fills it (HyStart off,
/// so that slow start runs into the buffer as the loss-based rule does; with HyStart
/// CUBIC leaves slow start early and needs far longer than 4 s to fill it), BBR drains
/// what STARTUP queued and keeps SRTT near the path's 20 ms.
#[test]
fn bbr_keeps_the_queue_short() {
    let last_srtt_ms = |cc: &str| {
        let text = bulk(cc, 0.0, 2000, 4).replace("[workload]", "hystart = \"off\"\n[workload]");
        let out = traced(&text);
        let l = lines(&out);
        let acks = kind(&l, "ack");
        acks.last().unwrap()["srtt_us"].as_u64().unwrap() as f64 / 1000.0
    };
    let bbr = last_srtt_ms("bbr");
    let cubic = last_srtt_ms("cubic");
    assert!(bbr < 35.0, "BBR SRTT {bbr:.1} ms");
    assert!(cubic > 100.0, "CUBIC SRTT {cubic:.1} ms");
}

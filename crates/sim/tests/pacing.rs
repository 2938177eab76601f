//! Pacing in the simulator (`pacing = fq`, Linux's rules in `lossrec::pacing`): the
//! sender's departure times ride on its one deadline (`poll_timeout`), as BBR's do.

mod common;
use common::*;

fn bulk(pacing: &str, rate_mbps: u32, secs: u32) -> String {
    format!(
        "seed = 3\n[path]\nrtt_ms = 40\nrate_mbps = {rate_mbps}\nqueue_packets = 100\n\
         [sender]\npreset = \"linux\"\ncc = \"cubic-linux\"\npacing = \"{pacing}\"\nmin_tso_segs = 1\n\
         [workload]\nkind = \"bulk\"\nduration_s = {secs}\n"
    )
}

/// Send instants of data segments, in order.
fn send_times(text: &str) -> Vec<u64> {
    let out = traced(text);
    let l = lines(&out);
    data_sends(&l)
        .iter()
        .map(|s| s["t_us"].as_u64().unwrap())
        .collect()
}

fn mbps(text: &str, secs: u32) -> f64 {
    plain(text).flows[0].bytes as f64 * 8.0 / f64::from(secs) / 1e6
}

/// CUBIC paced by fq on a 2 Mb/s path, where `tcp_tso_autosize` makes one-segment
/// packets (≈1 ms of data at the pacing rate is under one MSS, `tcp_min_tso_segs` 1): once
/// the unpaced first 10 segments are out, no two segments leave at the same instant,
/// and the link is still filled. Without pacing CUBIC sends bursts.
#[test]
fn fq_pacing_spaces_cubic_and_fills_the_link() {
    let same_instant = |pacing: &str| {
        let t = send_times(&bulk(pacing, 2, 4));
        t[10..].windows(2).filter(|w| w[0] == w[1]).count()
    };
    assert_eq!(same_instant("fq"), 0);
    assert!(same_instant("off") > 20, "{}", same_instant("off"));
    let paced = mbps(&bulk("fq", 2, 4), 4);
    assert!(paced > 1.8, "{paced:.2} Mb/s of 2");
}

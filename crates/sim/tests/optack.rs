//! The optimistic-ACK defence (`optack_defence = skip-segment`) in the simulator: a
//! scenario turns it on like any other sender setting, every connection's skip positions
//! come from the run's seed, and honest receivers behind ACK loss, data loss and
//! reordering are never taken for liars.

mod common;
use common::*;

fn text(preset: &str, sack: bool, defence: &str, seed: u64) -> String {
    format!(
        "seed = {seed}\n[path]\nrtt_ms = 40\nrate_mbps = 50\nqueue_packets = 200\n\
         [path.loss]\nmodel = \"bernoulli\"\np = 0.01\n\
         [path.ack_loss]\nmodel = \"bernoulli\"\np = 0.05\n\
         [path.reorder]\nfraction = 0.01\ndelay_ms = 0\ndelay_max_ms = 2\n\
         [receiver]\nsack = {sack}\n\
         [sender]\npreset = \"{preset}\"\nsack = {sack}\noptack_defence = \"{defence}\"\n\
         optack_skip_interval = 16\n[workload]\nflows = 4\nsegments = 1500\n"
    )
}

/// New data sent below the highest new byte already sent: a held segment going out.
fn held_segments(lines: &[serde_json::Value]) -> usize {
    let mut high = std::collections::BTreeMap::<u64, u64>::new();
    let mut n = 0;
    for l in data_sends(lines) {
        if l["why"] != "new" {
            continue;
        }
        let (start, end) = seq(l);
        let h = high.entry(l["flow"].as_u64().unwrap()).or_insert(0);
        n += usize::from(start < *h);
        *h = (*h).max(end);
    }
    n
}

#[test]
fn honest_receivers_are_never_stopped_and_the_defence_is_on() {
    for preset in ["rfc", "linux", "rack-tlp", "prr"] {
        for sack in [true, false] {
            for seed in 1..=3 {
                let out = traced(&text(preset, sack, "skip-segment", seed));
                let what = format!("{preset} sack={sack} seed={seed}");
                assert_all_delivered(&out, 1500 * 1448);
                let l = lines(&out);
                let detected = kind(&l, "event")
                    .iter()
                    .filter(|e| e["name"] == "optack_detected")
                    .count();
                assert_eq!(detected, 0, "{what}");
                // 4 × 1500 segments, one held every 16 on average.
                assert!(held_segments(&l) > 100, "{what}: {}", held_segments(&l));
                let off = traced(&text(preset, sack, "off", seed));
                assert_eq!(held_segments(&lines(&off)), 0, "{what}");
            }
        }
    }
}

#[test]
fn skip_positions_follow_the_run_seed() {
    // A lossless path: only the sender's own draws can differ between seeds.
    let held = |seed| {
        let t = format!(
            "seed = {seed}\n[path]\nrtt_ms = 40\nrate_mbps = 50\n[sender]\npreset = \"linux\"\n\
             optack_defence = \"skip-segment\"\noptack_skip_interval = 16\n\
             [workload]\nflows = 2\nsegments = 400\n"
        );
        let l = lines(&traced(&t));
        let mut high = [0u64; 2];
        let mut out = Vec::new();
        for s in data_sends(&l) {
            let f = s["flow"].as_u64().unwrap() as usize;
            let (start, end) = seq(s);
            if start < high[f] {
                out.push((f, start));
            }
            high[f] = high[f].max(end);
        }
        out
    };
    let a = held(7);
    // At most one held segment per round trip (one check open at a time).
    assert!(a.len() >= 8, "{a:?}");
    assert_eq!(a, held(7));
    assert_ne!(a, held(8));
    // Each connection draws its own positions.
    let per_flow = |f| {
        a.iter()
            .filter(|x| x.0 == f)
            .map(|x| x.1)
            .collect::<Vec<_>>()
    };
    assert_ne!(per_flow(0), per_flow(1));
}

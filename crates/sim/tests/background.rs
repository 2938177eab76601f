//! `[[background]]` sources: parsing, their effect on the measured flows, determinism.

mod common;
use common::*;
use lossrec_sim::background::{BurstDist, SourceKind};
use lossrec_sim::Scenario;

const FLOW: &str = "[path]\nrtt_ms = 100\nrate_mbps = 2\nqueue_packets = 20\n\
                    [workload]\nsegments = 200\n";

fn with(bg: &str) -> String {
    format!("{FLOW}{bg}")
}

fn err(text: &str) -> String {
    let e = Scenario::from_toml_str(text, "<t>").unwrap_err();
    format!("{} {}", e.field.unwrap_or_default(), e.message)
}

#[test]
fn parses_both_kinds_with_defaults() {
    let sc = scenario(&with(
        "[[background]]\nkind = \"cbr\"\nrate_mbps = 0.5\n\
         [[background]]\nkind = \"bursts\"\nrate_mbps = 10\nrate_per_s = 4\nmean_bytes = 60000\n\
         start_ms = 100\nstop_ms = 5000\n",
    ));
    let b = sc.background();
    assert_eq!(b.len(), 2);
    assert_eq!(
        (b[0].kind, b[0].rate_bps, b[0].packet_bytes),
        (SourceKind::Cbr, 500_000, 1500)
    );
    assert_eq!(
        (b[1].start_ns, b[1].stop_ns),
        (100_000_000, Some(5_000_000_000))
    );
    match b[1].kind {
        SourceKind::Bursts {
            rate_per_s,
            mean_bytes,
            dist,
            max_bytes,
        } => {
            assert_eq!(
                (rate_per_s, mean_bytes, max_bytes),
                (4.0, 60000.0, u64::MAX)
            );
            assert_eq!(dist, BurstDist::Pareto { shape: 1.2 });
        }
        k => panic!("{k:?}"),
    }
    assert!(scenario(FLOW).background().is_empty());
}

#[test]
fn rejects_bad_sources_with_located_errors() {
    let e = err(&with("[[background]]\nkind = \"cbr\"\n"));
    assert!(
        e.contains("background[0]") && e.contains("rate_mbps"),
        "{e}"
    );
    let e = err(&with(
        "[[background]]\nkind = \"cbr\"\nrate_mbps = 1\nrate_per_s = 3\n",
    ));
    assert!(e.starts_with("background[0].rate_per_s"), "{e}");
    let e = err(&with("[[background]]\nkind = \"bursts\"\nrate_mbps = 1\nrate_per_s = 3\nmean_bytes = 9\nshape = 1.0\n"));
    assert!(
        e.starts_with("background[0].shape") && e.contains("(1, 100]"),
        "{e}"
    );
    let e = err(&with("[[background]]\nkind = \"quic\"\nrate_mbps = 1\n"));
    assert!(e.starts_with("background[0].kind"), "{e}");
    let e = err(&with("[[background]]\nrate_mbps = 1\npacket_bytes = 10\n"));
    assert!(e.starts_with("background[0].packet_bytes"), "{e}");
    let e = err(&with(
        "[[background]]\nrate_mbps = 1\nstart_ms = 5\nstop_ms = 5\n",
    ));
    assert!(e.starts_with("background[0].stop_ms"), "{e}");
    let e = err(&with("[[background]]\nrate_mbps = 1\ncolour = 3\n"));
    assert!(e.contains("colour"), "{e}");
}

#[test]
fn cbr_takes_its_share_of_the_link() {
    let alone = plain(FLOW);
    let shared = plain(&with(
        "[[background]]\nkind = \"cbr\"\nrate_mbps = 1\npacket_bytes = 1000\n",
    ));
    assert_all_delivered(&shared, 200 * 1448);
    let (a, s) = (
        alone.flows[0].fct_ms.unwrap(),
        shared.flows[0].fct_ms.unwrap(),
    );
    // Half the 2 Mb/s link is taken: the transfer takes clearly longer (the queue fills and
    // drops data too).
    assert!(s > 1.5 * a, "alone {a} ms, shared {s} ms");
    let st = shared.background[0];
    // 1 Mb/s of 1000-byte packets for the run's duration: one every 8 ms.
    let expect = shared.sim_time_s * 1e3 / 8.0;
    assert!(
        (st.packets as f64 - expect).abs() <= 2.0,
        "{st:?} vs {expect}"
    );
    assert_eq!(st.bursts, 0);
}

#[test]
fn bursts_cause_losses_and_are_deterministic() {
    let text = with(
        "[[background]]\nkind = \"bursts\"\nrate_mbps = 10\nrate_per_s = 3\nmean_bytes = 60000\n\
         size_dist = \"pareto\"\nshape = 1.3\n",
    );
    let a = plain(&text);
    let b = plain(&text);
    assert_eq!(a.to_json(0.0), b.to_json(0.0));
    assert_eq!(a.background, b.background);
    let st = a.background[0];
    assert!(st.bursts > 0 && st.dropped > 0, "{st:?}");
    assert!(a.flows[0].retransmits > 0, "{}", a.to_json(0.0));
    assert_all_delivered(&a, 200 * 1448);
    // Another seed, another background.
    let c = plain(&text.replace("[path]", "seed = 9\n[path]"));
    assert_ne!(a.background, c.background);
}

#[test]
fn a_stopped_source_leaves_the_flow_alone() {
    let alone = plain(FLOW);
    let late = plain(&with("[[background]]\nrate_mbps = 1\nstart_ms = 100000\n"));
    assert_eq!(alone.flows[0].fct_ms, late.flows[0].fct_ms);
    assert_eq!(late.background[0].packets, 0);
    let early = plain(&with("[[background]]\nrate_mbps = 1.5\nstop_ms = 1\n"));
    assert_eq!(alone.flows[0].fct_ms, early.flows[0].fct_ms);
    assert_eq!(early.background[0].packets, 1);
}

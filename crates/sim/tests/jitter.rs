//! `[path.jitter]` and `[path.ack_jitter]`: per-packet delay variation — parsing, the
//! bound, no reordering unless asked, determinism per seed.

mod common;
use common::*;
use lossrec_sim::jitter::JitterDist;
use lossrec_sim::Scenario;

fn err(text: &str) -> String {
    let e = Scenario::from_toml_str(text, "<t>").unwrap_err();
    format!("{} {}", e.field.unwrap_or_default(), e.message)
}

/// 300 one-segment flows one after the other on an idle 100 Mb/s path, 20 ms one way.
fn singles(jitter: &str) -> String {
    format!(
        "[path]\nrtt_ms = 40\nrate_mbps = 100\n{jitter}\n[sender]\nhandshake = false\n\
         [workload]\nflows = 300\nsegments = 1\n"
    )
}

const J: &str = "[path.jitter]\nmean_ms = 4\ndist = \"pareto\"\nshape = 1.5\nmax_ms = 30\n";

#[test]
fn parses_with_defaults() {
    let sc = scenario(&singles(
        "[path.jitter]\nmean_ms = 3\n[path.ack_jitter]\nmean_ms = 1\ndist = \"uniform\"\n",
    ));
    let j = sc.jitter().unwrap();
    assert_eq!(
        (j.dist, j.mean_ns, j.max_ns, j.reorder),
        (JitterDist::Exponential, 3_000_000, 30_000_000, false)
    );
    let a = sc.ack_jitter().unwrap();
    assert_eq!((a.dist, a.max_ns), (JitterDist::Uniform, 2_000_000));
    assert!(scenario(&singles("")).jitter().is_none());
}

#[test]
fn schema_errors_name_the_bad_field() {
    let cases = [
        (
            "[path.jitter]\ndist = \"uniform\"\n",
            "path.jitter ",
            "mean_ms",
        ),
        ("[path.jitter]\nmean_ms = -2\n", "path.jitter.mean_ms", ""),
        (
            "[path.jitter]\nmean_ms = 2\ndist = \"normal\"\n",
            "path.jitter.dist",
            "normal",
        ),
        (
            "[path.ack_jitter]\nmean_ms = 2\nmax_ms = 1\n",
            "path.ack_jitter.max_ms",
            "mean_ms",
        ),
        (
            "[path.jitter]\nmean_ms = 2\nshape = 2\n",
            "path.jitter.shape",
            "pareto",
        ),
        (
            "[path.jitter]\nmean_ms = 2\ndist = \"pareto\"\nshape = 1\n",
            "path.jitter.shape",
            "(1, 100]",
        ),
        ("[path.jitter]\nmean_ms = 2\nspread = 1\n", "", "spread"),
    ];
    for (t, field, msg) in cases {
        let e = err(&singles(t));
        assert!(e.starts_with(field) && e.contains(msg), "{t:?}: {e}");
    }
}

/// Each flow's completion time less the path's own (20 ms + 1,500 bytes at 100 Mb/s).
fn extra_ms(out: &lossrec_sim::RunOutput) -> Vec<f64> {
    let base = 20.0 + 1500.0 * 8.0 / 100e6 * 1e3;
    out.flows.iter().map(|f| f.fct_ms.unwrap() - base).collect()
}

#[test]
fn jitter_is_bounded_and_varies() {
    let plainly = extra_ms(&plain(&singles("")));
    assert!(
        plainly.iter().all(|x| x.abs() < 0.01),
        "{:?}",
        &plainly[..3]
    );
    let x = extra_ms(&plain(&singles(J)));
    assert!(x.iter().all(|&e| (-0.01..=30.01).contains(&e)), "{x:?}");
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    assert!((2.0..6.5).contains(&mean), "mean extra {mean} ms");
    assert!(x.iter().any(|&e| e > 10.0), "a heavy tail");
    assert!(
        x.iter().filter(|&&e| e < 1.0).count() > 20,
        "and many small delays"
    );
}

#[test]
fn jitter_is_deterministic_per_seed() {
    let a = plain(&singles(J));
    assert_eq!(a.to_json(0.0), plain(&singles(J)).to_json(0.0));
    let b = plain(&format!("seed = 8\n{}", singles(J)));
    assert_ne!(extra_ms(&a), extra_ms(&b));
}

#[test]
fn no_reordering_unless_asked() {
    // A window of segments behind a heavy-tailed jitter: held in line, the receiver sees
    // them in order (no SACK blocks, no DSACK, no fast retransmit) ...
    let bulk = |reorder: bool| {
        format!(
            "[path]\nrtt_ms = 40\nrate_mbps = 100\nqueue_packets = 100000\n[path.jitter]\nmean_ms = 2\n\
             dist = \"pareto\"\nshape = 1.5\nmax_ms = 20\nreorder = {reorder}\n\
             [path.ack_jitter]\nmean_ms = 1\n\
             [workload]\nflows = 1\nsegments = 2000\n"
        )
    };
    let held = plain(&bulk(false));
    assert_all_delivered(&held, 2000 * 1448);
    assert_eq!(held.flows[0].retransmits, 0, "{}", held.to_json(0.0));
    assert_eq!(held.flows[0].fast_recoveries, 0);
    // ... while `reorder = true` lets segments overtake each other: the receiver reports
    // holes that are not losses.
    let loose = traced(&bulk(true));
    assert_all_delivered(&loose, 2000 * 1448);
    let sacks = kind(&lines(&loose), "ack")
        .into_iter()
        .filter(|l| {
            l.get("sack")
                .and_then(|s| s.as_array())
                .is_some_and(|s| !s.is_empty())
        })
        .count();
    assert!(sacks > 0, "reordered segments show up as SACK blocks");
}

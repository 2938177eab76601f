//! Prints explain's rows of a capture (debugging aid):
//! `cargo run --example rows -- FILE PRESET [bulk]`.
use lossrec_capture::{explain_path, AppMode, Options};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let app = if a.get(3).map(String::as_str) == Some("bulk") {
        AppMode::Bulk
    } else {
        AppMode::AsSeen
    };
    let opts = Options {
        preset: a[2].clone(),
        flow: a.get(4).cloned(),
        app,
    };
    let r = explain_path(a[1].as_ref(), &opts, |i, row| {
        println!(
            "{i} {:.6} pkt={} {}..{} {} {} {:?}",
            (row.ts_ns % 100_000_000_000) as f64 / 1e9,
            row.packet as i64,
            row.start,
            row.end,
            row.verdict.name(),
            row.cause,
            row.state
        );
    })
    .unwrap();
    for c in &r.conns {
        println!(
            "{} {}: {} of {} matched {:?} reordering degree {} ({} events, {} DSACKs, {} ambiguous)",
            c.info.label(),
            c.point.name(),
            c.summary.matched(),
            c.summary.decisions(),
            c.summary.by_cause,
            c.reordering.degree,
            c.reordering.events,
            c.reordering.dsacks,
            c.reordering.ambiguous_total
        );
    }
}

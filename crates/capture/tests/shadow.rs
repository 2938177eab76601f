//! Shadow mode against the engine's own captures (`lossrec run --pcap`): under the preset
//! that made the capture every decision matches; under another one the divergences appear
//! where the presets differ.

use lossrec_capture::{explain_path, AppMode, Options, Report, Verdict};
use lossrec_sim::{run, RunOptions, Scenario};
use std::io::Write;

const TAIL: &str = "seed = 1\n[path]\nrtt_ms = 100\nrate_mbps = 10\nqueue_packets = 100\n\
[path.loss]\nmodel = \"tail\"\ncount = 1\n[receiver]\ndelayed_ack_ms = 0\nsack = true\n\
timestamps = true\n[sender]\npreset = \"PRESET\"\n[workload]\nkind = \"flows\"\nflows = 1\nsegments = 10\n";

const BERNOULLI: &str = "seed = 7\n[path]\nrtt_ms = 40\nrate_mbps = 20\n[path.loss]\n\
model = \"bernoulli\"\np = 0.03\n[sender]\npreset = \"PRESET\"\n[workload]\nkind = \"flows\"\n\
flows = 4\nsegments = 300\narrival = \"concurrent\"\n";

/// The capture of `scenario` run under `preset`, in a temporary file.
fn capture(scenario: &str, preset: &str) -> tempfile::NamedTempFile {
    let text = scenario.replace("PRESET", preset);
    let sc = Scenario::from_toml_str(&text, "test.toml").unwrap();
    let out = run(
        &sc,
        &RunOptions {
            pcap: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(out.pcap.as_ref().unwrap()).unwrap();
    f.flush().unwrap();
    f
}

fn explain(
    f: &tempfile::NamedTempFile,
    preset: &str,
    app: AppMode,
) -> (Report, Vec<(usize, lossrec_capture::Row)>) {
    let mut rows = Vec::new();
    let opts = Options {
        preset: preset.into(),
        flow: None,
        app,
    };
    let r = explain_path(f.path(), &opts, |i, row| rows.push((i, *row))).unwrap();
    (r, rows)
}

fn matched_all(what: &str, r: &Report, rows: &[(usize, lossrec_capture::Row)]) {
    for (i, c) in r.conns.iter().enumerate() {
        let bad: Vec<_> = rows
            .iter()
            .filter(|(j, x)| *j == i && x.verdict != Verdict::Matched)
            .take(5)
            .collect();
        assert!(
            bad.is_empty() && c.summary.decisions() > 0,
            "{what} conn {i}: {} of {} matched; first divergences {bad:#?}\nsummary {:#?}",
            c.summary.matched(),
            c.summary.decisions(),
            c.summary
        );
    }
}

#[test]
fn own_presets_match_every_decision() {
    for preset in ["rfc", "linux", "rack-tlp"] {
        for (name, sc) in [("tail", TAIL), ("bernoulli", BERNOULLI)] {
            let f = capture(sc, preset);
            let (r, rows) = explain(&f, preset, AppMode::Bulk);
            assert_eq!(r.conns[0].point.name(), "sender");
            for c in &r.conns {
                eprintln!(
                    "{preset} {name}: {} of {} matched",
                    c.summary.matched(),
                    c.summary.decisions()
                );
            }
            matched_all(&format!("{preset} {name}"), &r, &rows);
        }
    }
}

#[test]
fn tail_loss_is_a_probe_under_linux_and_an_rto_under_rfc() {
    let f = capture(TAIL, "linux");
    let (r, rows) = explain(&f, "linux", AppMode::Bulk);
    assert_eq!(
        r.conns[0].summary.by_cause.get("probe_retransmit"),
        Some(&1),
        "{:#?}",
        r.conns[0].summary
    );
    // Under rfc the captured probe is something the preset would not have sent.
    let (r, rows_rfc) = explain(&f, "rfc", AppMode::Bulk);
    let first = rows_rfc
        .iter()
        .find(|(_, x)| x.verdict != Verdict::Matched)
        .unwrap()
        .1;
    let probe = rows
        .iter()
        .find(|(_, x)| x.cause == "probe_retransmit")
        .unwrap()
        .1;
    assert_eq!(
        (first.start, first.end),
        (probe.start, probe.end),
        "{first:?}"
    );
    assert!(r.conns[0].summary.matched() < r.conns[0].summary.decisions());
}

/// The whole of explain (both passes and the engine) on corrupted captures: a result or
/// an error, never a panic or a hang.
#[test]
fn corrupted_captures_never_panic() {
    let f = capture(BERNOULLI, "linux");
    let good = std::fs::read(f.path()).unwrap();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    for round in 0..40 {
        let mut b = good.clone();
        for _ in 0..(1 + round % 16) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let i = 24 + (x as usize) % (b.len() - 24);
            b[i] = (x >> 32) as u8;
        }
        if round % 5 == 0 {
            b.truncate(b.len() - (x as usize) % (b.len() / 2));
        }
        let mut t = tempfile::NamedTempFile::new().unwrap();
        t.write_all(&b).unwrap();
        for app in [AppMode::AsSeen, AppMode::Bulk] {
            let opts = Options {
                preset: "linux".into(),
                flow: None,
                app,
            };
            let _ = explain_path(t.path(), &opts, |_, _| {});
        }
    }
}

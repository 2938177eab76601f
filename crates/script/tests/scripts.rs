//! Every script under crates/engine/tests/scripts must pass (CI runs them through this).

use std::path::PathBuf;

use lossrec_script::{run_dir, run_file, summary, ScriptOptions};

fn scripts_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../engine/tests/scripts")
}

#[test]
fn every_engine_script_passes() {
    let reports = run_dir(scripts_dir());
    assert!(reports.len() >= 6, "expected the worked-example scripts");
    let mut failures = String::new();
    for (path, r) in &reports {
        if !r.passed {
            // Re-run verbosely so the failure shows every packet leading up to it.
            let verbose = ScriptOptions {
                verbose: true,
                ..ScriptOptions::default()
            };
            failures += &run_file(path, &verbose).to_string();
        }
    }
    let line = summary(reports.iter().map(|(_, r)| r));
    println!("{line}");
    assert!(failures.is_empty(), "{failures}\n{line}");
}

/// Each script opens with a comment naming the specification it exercises.
#[test]
fn every_script_cites_its_specification() {
    for (path, _) in run_dir(scripts_dir()) {
        let text = std::fs::read_to_string(&path).unwrap();
        let first = text.lines().next().unwrap_or("");
        assert!(
            first.starts_with("//") && ["RFC", "draft-", "Linux"].iter().any(|s| first.contains(s)),
            "{}: the first line should be a comment citing the RFC section, found {first:?}",
            path.display()
        );
    }
}

/// Virtual time: the RTO script spans 7.5 s of timeouts and still passes instantly; its
/// log reaches the last event's time.
#[test]
fn time_is_virtual() {
    let opts = ScriptOptions {
        verbose: true,
        ..ScriptOptions::default()
    };
    let r = run_file(&scripts_dir().join("rto-backoff.pkt"), &opts);
    assert!(r.passed, "{r}");
    assert!(
        r.log.last().unwrap().starts_with("7.500000"),
        "{:?}",
        r.log.last()
    );
}

//! Issue 26 items 7 and 8: a scenario's limits hold while it is read, not after the whole
//! file has become two trees in memory; the file's size is capped; an error quotes a short
//! prefix of the author's value. Memory is counted with the benchmark allocator (exact
//! byte counts, not timings).

use std::sync::Mutex;

use lossrec_sim::bench::alloc::{measure, Counting};
use lossrec_sim::{Scenario, ScenarioError};

/// The cap on a scenario's size (`lossrec_sim::MAX_SCENARIO_BYTES`), 16 MiB.
const MAX_SCENARIO_BYTES: usize = 16 << 20;

#[global_allocator]
static ALLOC: Counting<std::alloc::System> = Counting(std::alloc::System);

/// The counters are process-wide: one test at a time (building a test's text allocates).
static ONE: Mutex<()> = Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The error and the most heap it took to find it (call under [`one_at_a_time`]).
fn rejected(text: &str) -> (ScenarioError, i64) {
    let (r, heap) = measure(|| Scenario::from_toml_str(text, "big.toml"));
    let e = r.expect_err("should be rejected");
    (e, heap.expect("the counting allocator is installed").peak)
}

#[test]
fn background_tables_past_the_limit_stop_the_reader_at_the_first_too_many() {
    let _g = one_at_a_time();
    // 100,000 tables (4 MB); the limit is 64.
    let text = "[[background]]\nkind = \"cbr\"\n".repeat(100_000);
    let (e, peak) = rejected(&text);
    assert_eq!(e.field.as_deref(), Some("background"), "{e}");
    // The 65th table's header, on line 129.
    assert_eq!(e.line, Some(129), "{e}");
    assert!(e.message.contains("at most 64"), "{e}");
    assert!(
        peak < 1 << 20,
        "{peak} bytes of heap to reject a {} byte file",
        text.len()
    );
}

#[test]
fn writes_past_the_limit_stop_the_reader_at_the_first_too_many() {
    let _g = one_at_a_time();
    // 1,100,000 writes (7 MB); the limit is 1,000,000.
    let text = format!(
        "[workload]\nkind = \"writes\"\nwrites = [\n{}]\n",
        "[0, 1],\n".repeat(1_100_000)
    );
    let (e, peak) = rejected(&text);
    assert_eq!(e.field.as_deref(), Some("workload.writes"), "{e}");
    assert_eq!(e.line, Some(1_000_004), "{e}");
    assert!(e.message.contains("at most 1000000"), "{e}");
    assert!(
        peak < 1 << 20,
        "{peak} bytes of heap to reject a {} byte file",
        text.len()
    );
}

#[test]
fn any_long_array_or_deep_nesting_is_stopped_while_reading() {
    let _g = one_at_a_time();
    let text = format!("[path.loss]\npackets = [{}]\n", "1,".repeat(1_100_000));
    let (e, peak) = rejected(&text);
    assert_eq!(e.field.as_deref(), Some("path.loss.packets"), "{e}");
    assert!(peak < 1 << 20, "{peak} bytes");
    let text = format!("seed = {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
    let (e, peak) = rejected(&text);
    assert!(e.message.contains("nested"), "{e}");
    assert!(peak < 1 << 20, "{peak} bytes");
}

#[test]
fn a_scenario_larger_than_the_cap_is_refused_by_name() {
    let _g = one_at_a_time();
    // Comments only: a valid, empty scenario but for its size.
    let text = "# padding\n".repeat(MAX_SCENARIO_BYTES / 10 + 1);
    let (e, peak) = rejected(&text);
    assert_eq!(e.origin, "big.toml");
    assert!(e.to_string().contains("16 MiB"), "{e}");
    assert!(peak < 1 << 20, "{peak} bytes");

    // From a file: refused before it is read whole, naming the file.
    let dir = std::env::temp_dir().join(format!("lossrec-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.toml");
    std::fs::write(&path, &text).unwrap();
    let e = Scenario::from_path(&path).expect_err("too large");
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_dir(&dir).unwrap();
    assert!(
        e.to_string().contains("huge.toml") && e.to_string().contains("16 MiB"),
        "{e}"
    );
}

#[test]
fn an_error_quotes_a_short_prefix_of_the_value() {
    let _g = one_at_a_time();
    let long = "a".repeat(1_000_000);
    for text in [
        format!("[path]\nrtt_ms = \"{long}\"\n"),
        format!("[sender]\ncc = \"{long}\"\n"),
        format!("[workload]\nkind = \"{long}\"\n"),
        format!("[path]\n{long} = 1\n"),
    ] {
        let e = Scenario::from_toml_str(&text, "s.toml").expect_err("rejected");
        let shown = e.to_string();
        assert!(
            shown.len() < 600,
            "a {} byte message: {}…",
            shown.len(),
            &shown[..300]
        );
        assert!(
            shown.contains(&format!("{}…", "a".repeat(79))) && shown.contains("characters)"),
            "{shown}"
        );
    }
}

//! Issue 13 item 8: a key or table given twice is an error naming it, with its dotted
//! path and the line of the second occurrence.

use lossrec_sim::{Scenario, ScenarioError};

fn err(text: &str) -> ScenarioError {
    Scenario::from_toml_str(text, "s.toml").expect_err("should be rejected")
}

fn assert_duplicate(text: &str, line: usize, path: &str) {
    let e = err(text);
    assert_eq!(e.line, Some(line), "{e}");
    assert_eq!(e.field.as_deref(), Some(path), "{e}");
    assert!(
        e.message.contains(&format!("duplicate key `{path}`")),
        "want the key named in: {e}"
    );
}

#[test]
fn a_top_level_key_given_twice_is_named() {
    assert_duplicate("seed = 1\nseed = 2\n", 2, "seed");
}

#[test]
fn a_key_given_twice_in_a_table_is_named_with_its_table() {
    assert_duplicate("[path]\nrtt_ms = 1\nrtt_ms = 2\n", 3, "path.rtt_ms");
    assert_duplicate(
        "[path.loss]\nmodel = \"none\"\nmodel = \"none\"\n",
        3,
        "path.loss.model",
    );
}

#[test]
fn a_table_given_twice_is_named() {
    assert_duplicate("[path]\nrtt_ms = 1\n[path]\nrate_mbps = 2\n", 3, "path");
}

#[test]
fn a_dotted_key_given_twice_is_named() {
    assert_duplicate(
        "[path]\nloss.model = \"none\"\nloss.model = \"x\"\n",
        3,
        "path.loss.model",
    );
}

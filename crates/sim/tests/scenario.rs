//! Scenario parsing: defaults, every example file, and errors that name line, column and field.

use lossrec_sim::{Scenario, ScenarioError};

fn err(text: &str) -> ScenarioError {
    Scenario::from_toml_str(text, "s.toml").expect_err("should be rejected")
}

fn at(e: &ScenarioError) -> (Option<usize>, Option<usize>, Option<&str>) {
    (e.line, e.column, e.field.as_deref())
}

#[test]
fn empty_file_takes_defaults() {
    let s = Scenario::from_toml_str("", "<empty>").unwrap();
    assert_eq!(s.seed(), 1);
    assert_eq!(s.sender_config().preset, "rfc");
    assert_eq!(s.workload_kind(), "flows");
    assert_eq!(s.receiver_config().mss, s.sender_config().mss);
    assert_eq!(s.receiver_config().delayed_ack, None);
}

#[test]
fn the_documented_example_parses() {
    let text = r#"
seed = 1
[path]
rtt_ms = 100
rate_mbps = 10
queue_packets = 100
[path.loss]
model = "tail"
count = 1
[path.ack_loss]
model = "none"
[path.delay_spikes]
start_ms = 5000
period_ms = 10000
extra_ms = 3000
[receiver]
delayed_ack_ms = 0
sack = true
timestamps = true
[sender]
preset = "rfc"
mss = 1448
initial_cwnd = 10
min_rto_ms = 200
[workload]
kind = "flows"
flows = 1
segments = 10
"#;
    let s = Scenario::from_toml_str(text, "doc").unwrap();
    assert_eq!(s.sender_config().min_rto.as_millis(), 200);
    assert_eq!(s.sender_config().initial_cwnd, 10);
}

#[test]
fn every_example_parses() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/examples");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            Scenario::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
    }
    assert!(n >= 8, "{n} examples");
}

#[test]
fn unknown_key_names_line_and_field() {
    let e = err("seed = 1\n[path]\nrtt_ms = 100\ncolour = \"red\"\n");
    assert_eq!(at(&e), (Some(4), Some(1), Some("path.colour")));
    assert!(e.message.contains("unknown field `colour`"), "{e}");
    assert!(
        e.to_string().starts_with("s.toml:4:1: path.colour: "),
        "{e}"
    );
}

#[test]
fn unknown_top_level_table() {
    let e = err("[paths]\nrtt_ms = 1\n");
    assert_eq!(e.line, Some(1));
    assert!(e.message.contains("unknown field `paths`"), "{e}");
}

#[test]
fn bad_type_names_line_and_field() {
    let e = err("[path]\nrtt_ms = \"fast\"\n");
    assert_eq!(at(&e), (Some(2), Some(10), Some("path.rtt_ms")));
    assert_eq!(e.message, "expected a number, got \"fast\"", "{e}");
    let e = err("[workload]\nflows = -3\n");
    assert_eq!(at(&e), (Some(2), Some(9), Some("workload.flows")));
}

#[test]
fn syntax_error_has_a_position() {
    let e = err("[path\nrtt_ms = 1\n");
    assert_eq!(e.line, Some(1));
    assert!(e.column.is_some());
}

#[test]
fn probability_out_of_range() {
    let e = err("[path.loss]\nmodel = \"bernoulli\"\np = 1.5\n");
    assert_eq!(at(&e), (Some(3), Some(5), Some("path.loss.p")));
    assert_eq!(
        e.to_string(),
        "s.toml:3:5: path.loss.p: must be in [0, 1], got 1.5"
    );
    let e = err("[path.loss]\nmodel = \"gilbert-elliott\"\np_good_bad = 0.1\np_bad_good = -0.1\n");
    assert_eq!(at(&e), (Some(4), Some(14), Some("path.loss.p_bad_good")));
}

#[test]
fn missing_and_foreign_model_keys() {
    let e = err("[path.loss]\nmodel = \"bernoulli\"\n");
    assert_eq!(e.field.as_deref(), Some("path.loss.p"));
    assert_eq!(e.line, Some(1));
    let e = err("[path.loss]\nmodel = \"tail\"\np = 0.1\n");
    assert_eq!(at(&e), (Some(3), Some(5), Some("path.loss.p")));
    assert!(e.message.contains("not a key of model `tail`"), "{e}");
    let e = err("[path.loss]\nmodel = \"lossy\"\n");
    assert_eq!(at(&e), (Some(2), Some(9), Some("path.loss.model")));
    let e = err("[path.ack_loss]\nmodel = \"tail\"\n");
    assert_eq!(e.field.as_deref(), Some("path.ack_loss.model"));
    let e = err("[path.loss]\np = 0.1\n");
    assert!(e.message.contains("`model` is required"), "{e}");
}

#[test]
fn drop_rules_are_checked() {
    let e = err("[path.loss]\nmodel = \"drop-list\"\n[[path.loss.drops]]\nsegment = 1\n[[path.loss.drops]]\nseq = [5, 2]\n");
    assert_eq!(at(&e), (Some(6), Some(7), Some("path.loss.drops[1].seq")));
    let e = err(
        "[path.loss]\nmodel = \"drop-list\"\n[[path.loss.drops]]\nsegment = 1\ntransmission = 0\n",
    );
    assert_eq!(
        at(&e),
        (Some(5), Some(16), Some("path.loss.drops[0].transmission"))
    );
    let e = err("[path.loss]\nmodel = \"drop-list\"\n");
    assert!(e.message.contains("needs `packets`"), "{e}");
}

#[test]
fn delayed_ack_range() {
    let e = err("[receiver]\ndelayed_ack_ms = 20\n");
    assert_eq!(at(&e), (Some(2), Some(18), Some("receiver.delayed_ack_ms")));
    assert!(Scenario::from_toml_str("[receiver]\ndelayed_ack_ms = 40\n", "x").is_ok());
    assert!(Scenario::from_toml_str("[receiver]\ndelayed_ack_ms = 500\n", "x").is_ok());
    assert!(Scenario::from_toml_str("[receiver]\ndelayed_ack_ms = 501\n", "x").is_err());
}

#[test]
fn rate_must_be_positive() {
    let e = err("[path]\nrate_mbps = 0\n");
    assert_eq!(at(&e), (Some(2), Some(13), Some("path.rate_mbps")));
    let e = err("[path.reverse]\nrate_mbps = -1\n");
    assert_eq!(e.field.as_deref(), Some("path.reverse.rate_mbps"));
}

#[test]
fn unknown_preset_lists_the_valid_ones() {
    let e = err("[sender]\npreset = \"bbr\"\n");
    assert_eq!(at(&e), (Some(2), Some(10), Some("sender.preset")));
    assert!(
        e.message.contains("unknown preset `bbr`") && e.message.contains("rfc"),
        "{e}"
    );
}

#[test]
fn bad_axis_and_axis_value() {
    let e = err("[sender]\ncc = \"vegas\"\n");
    assert_eq!(at(&e), (Some(2), Some(6), Some("sender.cc")));
    assert!(e.message.contains("valid: reno, cubic"), "{e}");
    let e = err("[sender]\ncolour = 1\n");
    assert_eq!(e.field.as_deref(), Some("sender.colour"));
    assert!(e.message.contains("unknown axis"), "{e}");
    let e = err("[sender]\nmss = 10\n");
    assert_eq!(at(&e), (Some(2), Some(7), Some("sender.mss")));
}

#[test]
fn axes_are_checked_together_not_in_key_order() {
    // max_rto_ms sorts before min_rto_ms; setting it first must not trip min > max.
    let s = Scenario::from_toml_str("[sender]\nmin_rto_ms = 50\nmax_rto_ms = 100\n", "x").unwrap();
    assert_eq!(s.sender_config().max_rto.as_millis(), 100);
    let e = err("[sender]\nmin_rto_ms = 500\nmax_rto_ms = 100\n");
    assert_eq!(e.field.as_deref(), Some("sender"));
}

#[test]
fn workload_keys_follow_the_kind() {
    let e = err("[workload]\nkind = \"bulk\"\nsegments = 3\n");
    assert_eq!(at(&e), (Some(3), Some(12), Some("workload.segments")));
    let e = err("[workload]\nsegments = 3\nbytes = 4\n");
    assert_eq!(e.field.as_deref(), Some("workload.bytes"));
    let e = err("[workload]\narrival = \"poisson\"\n");
    assert!(e.message.contains("rate_per_s"), "{e}");
    let e = err("[workload]\nkind = \"web\"\n");
    assert_eq!(e.field.as_deref(), Some("workload.kind"));
}

#[test]
fn spikes_need_extra_shorter_than_period() {
    let e = err("[path.delay_spikes]\nperiod_ms = 100\nextra_ms = 200\n");
    assert_eq!(
        at(&e),
        (Some(2), Some(13), Some("path.delay_spikes.period_ms"))
    );
}

#[test]
fn variable_spikes_need_a_max_at_least_extra_and_below_the_period() {
    let e = err("[path.delay_spikes]\nextra_ms = 200\nextra_max_ms = 100\n");
    assert_eq!(e.field.as_deref(), Some("path.delay_spikes.extra_max_ms"));
    assert!(e.message.contains("at least extra_ms"), "{e}");
    let e = err("[path.delay_spikes]\nperiod_ms = 1000\nextra_ms = 200\nextra_max_ms = 1000\n");
    assert_eq!(e.field.as_deref(), Some("path.delay_spikes.period_ms"));
    assert!(e.message.contains("extra_max_ms"), "{e}");
    let s = Scenario::from_toml_str(
        "[path.delay_spikes]\nperiod_ms = 20000\nextra_ms = 3000\nextra_max_ms = 15000\n",
        "x",
    )
    .unwrap();
    let sp = s.spikes().unwrap();
    assert_eq!(
        (sp.extra_ns, sp.extra_max_ns),
        (3_000_000_000, 15_000_000_000)
    );
}

#[test]
fn queue_limits() {
    let e = err("[path]\nqueue_packets = 10\nqueue_bytes = 100000\n");
    assert_eq!(e.field.as_deref(), Some("path.queue_bytes"));
    let e = err("[path]\nqueue_bytes = 100\n");
    assert!(e.message.contains("at least 1500"), "{e}");
}

#[test]
fn set_sender_applies_axes() {
    let mut s = Scenario::from_toml_str("", "x").unwrap();
    s.set_sender("mss", "1000").unwrap();
    assert_eq!(s.receiver_config().mss, 1000);
    let e = s.set_sender("cc", "nope").unwrap_err();
    assert_eq!(e.field.as_deref(), Some("sender.cc"));
    s.set_sender("preset", "linux-classic").unwrap();
    assert_eq!(s.sender_config().preset, "linux-classic");
}

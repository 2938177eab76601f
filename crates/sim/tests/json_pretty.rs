//! `RunOutput::to_json_pretty` is the `--json` object of `to_json`, laid out as Python's
//! `json.dumps(..., indent=2)` lays it out (the CLI prints it without re-serialising).

use lossrec_sim::{run, RunOptions, Scenario};

#[test]
fn the_pretty_json_is_the_compact_object_indented_by_two() {
    let text = "[path]\nrtt_ms = 20\n[path.loss]\nmodel = \"bernoulli\"\np = 0.05\n[workload]\nkind = \"flows\"\nflows = 3\nsegments = 40\n";
    let out = run(
        &Scenario::from_toml_str(text, "t").unwrap(),
        &RunOptions::default(),
    )
    .unwrap();
    let (compact, pretty) = (out.to_json(0.25), out.to_json_pretty(0.25));
    let a: serde_json::Value = serde_json::from_str(&compact).unwrap();
    let b: serde_json::Value = serde_json::from_str(&pretty).unwrap();
    assert_eq!(a, b);
    assert!(pretty.starts_with("{\n  \"seed\": "), "{pretty}");
    assert!(
        pretty.contains("\n  \"flows\": [\n    {\n      \"id\": 0,\n"),
        "{pretty}"
    );
    assert!(pretty.ends_with("\n  }\n}"), "{pretty}");
}

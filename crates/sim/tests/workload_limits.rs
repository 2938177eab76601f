//! Issue 13 item 8: a workload that cannot fit in memory is refused when the scenario is
//! read, with a message naming the key and the memory it would need, instead of the run
//! aborting on an allocation. (That flows are created as they start and freed as they
//! end is checked in `memory.rs`: a sequential run peaks at one open flow and keeps
//! only each finished flow's result.)

use lossrec_sim::{run, RunOptions, Scenario, ScenarioError};

fn err(text: &str) -> ScenarioError {
    Scenario::from_toml_str(text, "w.toml").expect_err("should be refused before it starts")
}

fn workload(lines: &str) -> String {
    format!("max_time_s = 10\n[path]\nrtt_ms = 10\n[workload]\n{lines}\n")
}

fn assert_refused(text: &str, key: &str) {
    let e = err(text);
    let shown = e.to_string();
    assert_eq!(e.field.as_deref(), Some(key), "{shown}");
    assert!(e.line.is_some(), "not located: {shown}");
    assert!(shown.contains("GB") && shown.contains("memory"), "{shown}");
}

#[test]
fn ten_million_flows_are_refused_naming_the_memory() {
    assert_refused(&workload("flows = 10000000"), "workload.flows");
}

#[test]
fn a_million_concurrent_flows_are_refused() {
    assert_refused(
        &workload("flows = 1000000\narrival = \"concurrent\""),
        "workload.flows",
    );
    assert_refused(
        &workload("kind = \"bulk\"\nflows = 1000000"),
        "workload.flows",
    );
}

#[test]
fn huge_writes_and_request_response_workloads_are_refused() {
    assert_refused(
        &workload("kind = \"writes\"\nwrites = [[0, 1000]]\nconnections = 1000000000000"),
        "workload.connections",
    );
    assert_refused(
        &workload("kind = \"request-response\"\nconnections = 100000\nrequests = 1000"),
        "workload.requests",
    );
}

/// What fits still runs: the benchmark's 100,000 concurrent flows and a million
/// sequential ones are accepted.
#[test]
fn workloads_that_fit_are_accepted() {
    for w in [
        "flows = 100000\narrival = \"concurrent\"",
        "flows = 1000000",
        "kind = \"request-response\"\nconnections = 1000\nrequests = 1000",
    ] {
        Scenario::from_toml_str(&workload(w), "w.toml").unwrap_or_else(|e| panic!("{w}: {e}"));
    }
}

/// A sequential run of many flows holds one at a time (created when it starts, freed
/// when it ends).
#[test]
fn sequential_flows_are_open_one_at_a_time() {
    let sc = Scenario::from_toml_str(
        &workload("flows = 3000\nsegments = 2").replace("max_time_s = 10", "max_time_s = 1000"),
        "w.toml",
    )
    .unwrap();
    let out = run(&sc, &RunOptions::default()).unwrap();
    assert_eq!(out.unfinished_flows, 0);
    assert_eq!(out.peak_open_flows, 1);
}

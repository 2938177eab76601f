//! `workload.start_ms`: the first connection starts at that simulated time. Linux's timers
//! fire on jiffies counted from the clock's epoch (`timer_hz`, the timer wheel), so where
//! a flow starts in that clock decides when its timers fire; `lossrec replay` keeps a
//! capture's phase with it.

mod common;

use common::*;
use lossrec_sim::{run, RunOptions, Scenario};

fn flow(preset: &str, start_ms: Option<f64>) -> String {
    let start = start_ms
        .map(|s| format!("start_ms = {s}\n"))
        .unwrap_or_default();
    format!(
        "max_time_s = 100\n[path]\nrtt_ms = 37\nrate_mbps = 20\n[path.loss]\nmodel = \"drop-list\"\n\
         packets = [20]\n[sender]\npreset = \"{preset}\"\n[workload]\nsegments = 21\n{start}"
    )
}

#[test]
fn the_first_packet_leaves_at_start_ms() {
    let out = traced(&flow("rfc", Some(1234.5)));
    let first = lines(&out)
        .into_iter()
        .find(|l| l.get("t_us").is_some())
        .expect("a trace line");
    assert_eq!(first["t_us"].as_f64().unwrap(), 1_234_500.0, "{first}");
}

#[test]
fn fct_counts_from_the_flows_own_start() {
    // Without a timer wheel every timer is relative: the same flow, the same result.
    let at0 = plain(&flow("rfc", None));
    let later = plain(&flow("rfc", Some(1234.5)));
    assert_eq!(at0.flows[0].fct_ms, later.flows[0].fct_ms);
    assert_eq!(
        at0.flows[0].rtos, 1,
        "the tail drop is repaired by a timeout"
    );
}

#[test]
fn linux_timers_follow_the_clocks_phase() {
    // Linux's RTO fires on the jiffy (4 ms at timer_hz = 250) its wheel bucket ends on,
    // counted from the epoch: moving the start by less than a jiffy moves the timeout.
    let fct = |start: f64| plain(&flow("linux", Some(start))).flows[0].fct_ms.unwrap();
    let phases: Vec<f64> = [0.0, 1.0, 2.0, 3.0].iter().map(|&s| fct(s)).collect();
    assert!(
        phases.iter().any(|&f| f != phases[0]),
        "no phase changed the FCT: {phases:?}"
    );
    // A whole wheel period later (16.384 s = 4096 jiffies at 250 Hz) the phase is the same.
    assert_eq!(fct(1.0), fct(16_385.0));
}

#[test]
fn start_ms_is_checked() {
    for (text, msg) in [
        (
            "max_time_s = 1\n[workload]\nstart_ms = 1000\n",
            "before max_time_s",
        ),
        ("[workload]\nstart_ms = -1\n", "duration"),
    ] {
        let e = Scenario::from_toml_str(text, "s.toml").expect_err(text);
        let e = e.to_string();
        assert!(e.contains("workload.start_ms") && e.contains(msg), "{e}");
    }
    // Every workload kind takes it; bulk measures its duration from there.
    let out = run(
        &scenario("[workload]\nkind = \"bulk\"\nduration_s = 1\nstart_ms = 500\n"),
        &RunOptions::default(),
    )
    .unwrap();
    assert!(out.flows[0].bytes > 0);
}

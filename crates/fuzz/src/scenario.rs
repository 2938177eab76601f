//! The scenario parser (`lossrec_sim::Scenario::from_toml_str`: TOML, then validation),
//! and the simulator on what it accepts. Any text gives a scenario or an error; an error
//! is located (line, or the key it names) and speaks the scenario's words, not Rust's
//! ([`crate::messages`]). A small accepted scenario (a few flows, at most 2 MB on the
//! wire, no background traffic) is run: a valid scenario never panics the simulator.

use lossrec_sim::{RunOptions, Scenario};

/// Bytes the forward link can carry in the scenario's time, at most, for it to be run.
const MAX_RUN_BYTES: f64 = 2e6;
/// Results (flows or responses) at most, for a scenario to be run.
const MAX_RUN_RESULTS: u64 = 64;

/// The fuzz target.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Scenario::from_toml_str(text, "fuzz.toml") {
        Ok(s) => {
            if small(&s) {
                // A runtime error (a workload the path cannot carry) is an answer too.
                let _ = lossrec_sim::run(&s, &RunOptions::default());
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert!(!e.message.trim().is_empty(), "empty error message");
            if let Some(name) = crate::messages::internal_name(&e.message, text) {
                panic!("internal name `{name}` in a scenario error: {message}");
            }
        }
    }
}

/// Whether running `s` takes at most a few milliseconds.
fn small(s: &Scenario) -> bool {
    let secs = s.max_time_ns() as f64 / 1e9;
    let bytes = s.forward().rate_bps.max(s.reverse().rate_bps) as f64 / 8.0 * secs;
    bytes <= MAX_RUN_BYTES && s.workload().results() <= MAX_RUN_RESULTS && s.background().is_empty()
}

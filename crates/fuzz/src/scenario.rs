//! The scenario parser (`lossrec_sim::Scenario::from_toml_str`: TOML, then validation).
//! Any text gives a scenario or an error; an error is located (line, or the key it names)
//! and speaks the scenario's words, not Rust's ([`crate::messages`]).

use lossrec_sim::Scenario;

/// The fuzz target.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Scenario::from_toml_str(text, "fuzz.toml") {
        Ok(s) => {
            // Accessors a runner calls before starting.
            let _ = (s.workload_kind(), s.max_time_ns(), s.forward(), s.reverse());
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

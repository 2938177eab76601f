//! The script parser and runner (`lossrec script`, packetdrill syntax): any text gives a
//! report, passing or failing with messages that name a line and speak the script's words
//! ([`crate::messages`]). Scripts run in virtual time and start no processes.

use lossrec_script::{run_script, ScriptOptions};

/// Bytes of script text run at most (long scripts only repeat what short ones reach).
const MAX_LEN: usize = 16 << 10;

/// The fuzz target.
pub fn run(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.len() > MAX_LEN {
        return;
    }
    let report = run_script(text, "fuzz.pkt", &ScriptOptions::default());
    assert!(
        report.passed || !report.failures.is_empty(),
        "failed without saying why"
    );
    for f in &report.failures {
        assert!(!f.message.trim().is_empty(), "empty failure message");
        if let Some(name) = crate::messages::internal_name(&f.message, text) {
            panic!("internal name `{name}` in a script failure: {}", f.message);
        }
    }
}

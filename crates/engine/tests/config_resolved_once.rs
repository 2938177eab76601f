//! DESIGN.md "Axes carry their options": the sender decides on `Algorithms` (resolved once
//! from `Config` at construction and on negotiation), never on a raw `Config` field. The
//! sender's sources may read the config only in the places below, all of which run when
//! the connection is built or negotiated; any other `cfg.` read is a decision on the raw
//! config and fails this test (resolve it into `config::resolved`, `config::rules` or
//! `config::shell` instead).

use std::path::{Path, PathBuf};

/// Each allowed read: the file and the trimmed line.
const ALLOWED: &[(&str, &str)] = &[
    // Sender::new: set-up only.
    ("sender.rs", "if s.cfg.handshake {"),
    (
        "sender.rs",
        "s.core.rtt.set_granularity(s.cfg.clock_granularity);",
    ),
    // Negotiation re-resolves the axes with the options agreed.
    (
        "handshake.rs",
        "let agreed = self.cfg.resolve(self.sack_ok, self.ts_ok);",
    ),
    // Called from Sender::new only.
    (
        "hystart.rs",
        "let (train, delay) = match (self.alg.rules.hystart, self.cfg.hystart) {",
    ),
    (
        "hystart.rs",
        ".with_low_window_rounds(self.cfg.hystart_rounds == HyStartRounds::LowWindow)",
    ),
    // Pacer::for_config, called from Sender::new only (after the controller is built).
    ("pacing.rs", "let fq = match (cfg.pacing, needed) {"),
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn sender_reads_no_raw_config_when_it_decides() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("sender.rs")];
    sources(&src.join("sender"), &mut files);
    let mut found = Vec::new();
    for f in &files {
        let name = f.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            // A file's inline unit tests (`#[cfg(test)] mod tests {`, at its end) build
            // configs to drive the sender; they decide nothing.
            if line.trim() == "#[cfg(test)]"
                && lines.get(i + 1).is_some_and(|l| l.trim() == "mod tests {")
            {
                break;
            }
            let code = line.split("//").next().unwrap().trim();
            if !code.contains("cfg.") {
                continue;
            }
            if !ALLOWED.contains(&(name, code)) {
                found.push(format!("{}:{}: {}", f.display(), i + 1, code));
            }
        }
    }
    assert!(
        found.is_empty(),
        "raw Config reads at decision time:\n{}",
        found.join("\n")
    );
}

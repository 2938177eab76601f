//! # lossrec-script — packetdrill-style scripts against the lossrec engine
//!
//! The engine is the side under test (the "local" stack); the script plays the peer. Time
//! is virtual: a script with ten seconds of timeouts runs in milliseconds. See `README.md`
//! in this crate for the supported subset of packetdrill's language, with examples.
//!
//! ```
//! use lossrec_script::{run_script, ScriptOptions};
//! let script = "
//! 0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
//! +0  bind(3, ..., ...) = 0
//! +0  listen(3, 1) = 0
//! +0  < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>
//! +0  > S. 0:0(0) ack 1 <...>
//! +.1 < . 1:1(0) ack 1 win 257
//! +0  accept(3, ..., ...) = 4
//! +0  write(4, ..., 3000) = 3000
//! +0  > P. 1:3001(3000) ack 1
//! +.1 < . 1:1(0) ack 3001 win 257
//! +0  %{ assert tcpi_snd_cwnd == 10 and tcpi_unacked == 0, tcpi_snd_cwnd }%
//! ";
//! let report = run_script(script, "doc.pkt", &ScriptOptions::default());
//! assert!(report.passed, "{report}");
//! ```
//!
//! API: [`run_script`] runs one script's text; [`run_file`] and [`run_dir`] read files;
//! [`ScriptReport`] prints like packetdrill (`file:line: message` with the script's and the
//! engine's packets); [`summary`] gives `N passed, M failed`.

mod ast;
mod code;
mod eval;
mod expr;
mod expr_tokens;
mod inbound;
mod lex;
mod packet_line;
mod parse;
mod qdisc_drop;
mod report;
mod runner;
mod shell;
mod sockets;
mod syscall;
mod sysctl;
mod wire;

use std::path::{Path, PathBuf};

pub use ast::Script;
pub use lex::ParseError;
pub use report::{summary, Failure, ScriptReport};

use lossrec::Config;

/// Default fixed tolerance (packetdrill's `--tolerance_usecs`).
pub const DEFAULT_TOLERANCE_US: u64 = 4_000;
/// Default dynamic tolerance: this percentage of the gap since the previous event.
pub const DEFAULT_TOLERANCE_PERCENT: f64 = 12.5;

/// How to run scripts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ScriptOptions {
    /// Overrides the script's `// lossrec: preset=…` (default `rfc`).
    pub preset: Option<String>,
    /// `axis=value` pairs applied last, over the script's own settings.
    pub sets: Vec<(String, String)>,
    /// Overrides the fixed timing tolerance (µs).
    pub tolerance_us: Option<u64>,
    /// Include the log of every packet and event in the report's `Display`.
    pub verbose: bool,
    /// packetdrill's own rule for outbound packets no line expects: they fail only when a
    /// later `>` line meets them first. Default (false): they fail at the first line after
    /// them and at the end of the script.
    pub lenient: bool,
    /// Do not compare PSH on outbound packets. The Linux flavour places PSH as Linux cuts
    /// writes into socket buffers and packets (the sender's `push` module); what it does
    /// not model (waits for send-buffer space, pacing) can still move it.
    pub ignore_psh: bool,
}

/// Parses a script; every error carries its line and column.
pub fn parse(text: &str) -> Result<Script, Vec<ParseError>> {
    parse::parse(text)
}

/// Runs one script. `origin` names it in messages (usually the file name).
pub fn run_script(text: &str, origin: &str, opts: &ScriptOptions) -> ScriptReport {
    let mut report = ScriptReport {
        origin: origin.to_string(),
        passed: true,
        verbose: opts.verbose,
        ..ScriptReport::default()
    };
    let script = match parse::parse(text) {
        Ok(s) => s,
        Err(errors) => {
            for e in errors {
                report.fail(Failure {
                    line: e.line,
                    col: e.col,
                    message: e.message,
                    expected: None,
                    actual: None,
                });
            }
            return report;
        }
    };
    let cfg = match configure(&script, opts) {
        Ok(c) => c,
        Err(f) => {
            report.fail(f);
            return report;
        }
    };
    let tol_us = opts
        .tolerance_us
        .or(script.tolerance_usecs)
        .unwrap_or(DEFAULT_TOLERANCE_US);
    let tol_pct = script
        .tolerance_percent
        .unwrap_or(DEFAULT_TOLERANCE_PERCENT);
    if let Some((line, what)) = script.unsupported.first() {
        report.fail(Failure {
            line: *line,
            col: 0,
            message: format!("unsupported: {what} at line {line}"),
            expected: None,
            actual: None,
        });
        return report;
    }
    let mut runner = runner::Runner::new(opts, cfg, tol_us, tol_pct);
    runner.script_dir = Some(
        Path::new(origin)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    );
    runner.report = report;
    runner.run(&script);
    if runner.report.passed && !checks_anything(&script) {
        runner.report.fail(Failure {
            line: 0,
            col: 0,
            message: "checked nothing: the script has no packet line (`<` or `>`), system \
                      call or `%{ assert … }%`, so it cannot fail"
                .into(),
            expected: None,
            actual: None,
        });
    }
    runner.report
}

/// Whether running the script can fail on what the engine does: it has a packet line, a
/// system call (its result is compared) or an assertion. Commands, prints and
/// assignments alone check nothing.
fn checks_anything(script: &Script) -> bool {
    script.events.iter().any(|e| match &e.kind {
        ast::EventKind::Packet(_) | ast::EventKind::Syscall(_) => true,
        ast::EventKind::Code(stmts) => stmts.iter().any(|s| matches!(s, ast::Stmt::Assert { .. })),
        _ => false,
    })
}

/// The preset (options, then the script header, then `rfc`) with the header's `set=`s.
fn configure(script: &Script, opts: &ScriptOptions) -> Result<Config, Failure> {
    let f = |line: usize, message: String| Failure {
        line,
        col: 0,
        message,
        expected: None,
        actual: None,
    };
    let (line, name) = match (&opts.preset, &script.header.preset) {
        (Some(p), _) => (0, p.clone()),
        (None, Some((l, p))) => (*l, p.clone()),
        (None, None) => (0, "rfc".to_string()),
    };
    let mut cfg = Config::preset(&name).map_err(|e| f(line, e.to_string()))?;
    for (line, axis, value) in &script.header.sets {
        cfg.set(axis, value)
            .map_err(|e| f(*line, format!("`set={axis}={value}`: {e}")))?;
    }
    let mut check = cfg.clone();
    for (axis, value) in &opts.sets {
        check
            .set(axis, value)
            .map_err(|e| f(0, format!("`--set {axis}={value}`: {e}")))?;
    }
    Ok(cfg)
}

/// Runs one file.
pub fn run_file(path: &Path, opts: &ScriptOptions) -> ScriptReport {
    let origin = path.display().to_string();
    match std::fs::read_to_string(path) {
        Ok(text) => run_script(&text, &origin, opts),
        Err(e) => {
            let mut r = ScriptReport {
                origin,
                verbose: opts.verbose,
                ..ScriptReport::default()
            };
            r.fail(Failure {
                line: 0,
                col: 0,
                message: format!("cannot read: {e}"),
                expected: None,
                actual: None,
            });
            r
        }
    }
}

/// Runs every `*.pkt` under `dir` (recursively, in path order) with default options.
pub fn run_dir(dir: impl AsRef<Path>) -> Vec<(PathBuf, ScriptReport)> {
    run_dir_with(dir, &ScriptOptions::default())
}

/// [`run_dir`] with options.
pub fn run_dir_with(dir: impl AsRef<Path>, opts: &ScriptOptions) -> Vec<(PathBuf, ScriptReport)> {
    let mut files = Vec::new();
    collect(dir.as_ref(), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let r = run_file(&p, opts);
            (p, r)
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "pkt") {
            out.push(p);
        }
    }
}

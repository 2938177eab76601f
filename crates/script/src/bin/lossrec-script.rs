//! `lossrec-script FILE.pkt|DIR... [--preset NAME] [--set axis=value]... [--tolerance-us N]
//! [--verbose]`: runs packetdrill-style scripts against the engine and prints a
//! `N passed, M failed` summary. Exit status 0 when all pass, 1 when any fails, 2 on bad
//! arguments.

use std::path::PathBuf;
use std::process::ExitCode;

use lossrec_script::{run_dir_with, run_file, summary, ScriptOptions};

const USAGE: &str = "usage: lossrec-script FILE.pkt|DIR... [--preset NAME] [--set axis=value]... \
                     [--tolerance-us N] [--verbose]";

fn main() -> ExitCode {
    match parse_args(std::env::args().skip(1)) {
        Ok((paths, opts)) => run(&paths, &opts),
        Err(msg) => {
            eprintln!("lossrec-script: {msg}\n{USAGE}");
            ExitCode::from(2)
        }
    }
}

fn parse_args(args: impl Iterator<Item = String>) -> Result<(Vec<PathBuf>, ScriptOptions), String> {
    let mut opts = ScriptOptions::default();
    let mut paths = Vec::new();
    let mut args = args.peekable();
    while let Some(a) = args.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--preset" => opts.preset = Some(value("--preset")?),
            "--set" => {
                let kv = value("--set")?;
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| format!("--set {kv}: expected axis=value"))?;
                opts.sets.push((k.to_string(), v.to_string()));
            }
            "--tolerance-us" => {
                let v = value("--tolerance-us")?;
                opts.tolerance_us = Some(
                    v.parse()
                        .map_err(|_| format!("--tolerance-us {v}: not a number"))?,
                );
            }
            "--verbose" | "-v" => opts.verbose = true,
            "--help" | "-h" => return Err("help".into()),
            f if f.starts_with('-') => return Err(format!("unknown option {f}")),
            _ => paths.push(PathBuf::from(a)),
        }
    }
    if paths.is_empty() {
        return Err("no script given".into());
    }
    Ok((paths, opts))
}

fn run(paths: &[PathBuf], opts: &ScriptOptions) -> ExitCode {
    let mut reports = Vec::new();
    for p in paths {
        if p.is_dir() {
            reports.extend(run_dir_with(p, opts).into_iter().map(|(_, r)| r));
        } else {
            reports.push(run_file(p, opts));
        }
    }
    for r in &reports {
        print!("{r}");
    }
    println!("{}", summary(&reports));
    if reports.iter().all(|r| r.passed) && !reports.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

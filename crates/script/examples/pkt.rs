//! Runs scripts from the command line without the Python package:
//! `cargo run -p lossrec-script --example pkt -- [--preset NAME] [--lenient] [-v] FILE.pkt|DIR...`
use lossrec_script::{run_dir_with, run_file, summary, ScriptOptions};
use std::path::Path;

fn main() {
    let mut opts = ScriptOptions::default();
    let mut reports = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--preset" => opts.preset = args.next(),
            "--lenient" => opts.lenient = true,
            "--ignore-psh" => opts.ignore_psh = true,
            "-v" | "--verbose" => opts.verbose = true,
            p if Path::new(p).is_dir() => {
                reports.extend(run_dir_with(p, &opts).into_iter().map(|(_, r)| r))
            }
            p => reports.push(run_file(Path::new(p), &opts)),
        }
    }
    for r in &reports {
        print!("{r}");
    }
    println!("{}", summary(&reports));
}

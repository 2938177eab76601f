//! `cargo run --release -p lossrec-sim --example bench -- [--cpu-s S] [--min-runs N] ARM...`:
//! the benchmarks timed by the thread's CPU time (on a shared machine wall time also
//! counts the waits for a core), printed as one JSON object with the machine's CPU model.
//! `scripts/bench-compare.sh --cpu BASE_REV` runs it for two revisions interleaved.
//!
//! Arms (`--list` prints them all):
//! - `bulk`: `lossrec_sim::bench::bulk()`; ns of CPU per simulator event.
//! - `short_flows`: `lossrec_sim::bench::short_flows()`; ns per flow.
//! - `per_ack/FAMILY/N`: the engine's cost per ACK with N segments in flight at 1 % loss
//!   (`per_ack_family_workload`); only the replay is timed.
//! - `app_limited/FAMILY/N`: the same with all data written and SACK holes left open
//!   (`app_limited_workload`).
//!
//! FAMILY is one of `lossrec_sim::bench::app_limited::FAMILIES` (or any preset); N any
//! count. Each arm runs at least `--min-runs` times (default 3) and until `--cpu-s` CPU
//! seconds (default 1) are spent; the JSON gives every run's figure, the median and range.

use lossrec_sim::bench::app_limited::{app_limited_workload, FAMILIES, FAMILY_SIZES};
use lossrec_sim::bench::{self, per_ack_family_workload, PerAckWorkload};
use lossrec_sim::{run, RunOptions, Scenario};

// The allocator the Python extension and the criterion benchmarks use, so timings compare.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// CPU time this thread has used, seconds.
fn thread_cpu_s() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `ts` is.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "CLOCK_THREAD_CPUTIME_ID is readable");
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// The CPU model as /proc/cpuinfo names it (`unknown` elsewhere).
fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// How long and how often each arm runs.
struct Budget {
    cpu_s: f64,
    min_runs: usize,
}

impl Budget {
    /// Calls `once` (which returns its CPU seconds and the units it did) until the budget
    /// is spent; returns ns per unit of each run.
    fn measure(&self, mut once: impl FnMut() -> (f64, u64)) -> Vec<f64> {
        let (mut runs, mut spent) = (Vec::new(), 0.0);
        while runs.len() < self.min_runs || (spent < self.cpu_s && runs.len() < 200) {
            let (cpu, units) = once();
            spent += cpu;
            runs.push(cpu * 1e9 / units.max(1) as f64);
        }
        runs
    }
}

fn sim_arm(b: &Budget, sc: &Scenario, per_flow: bool) -> Vec<f64> {
    let opts = RunOptions::default();
    b.measure(|| {
        let t = thread_cpu_s();
        let out = run(sc, &opts).expect("the benchmark scenario runs");
        let cpu = thread_cpu_s() - t;
        let units = if per_flow {
            out.flows.len() as u64
        } else {
            out.events
        };
        (cpu, units)
    })
}

fn replay_arm(b: &Budget, w: &PerAckWorkload) -> Vec<f64> {
    b.measure(|| {
        let mut s = w.sender();
        let t = thread_cpu_s();
        let acks = w.replay(&mut s);
        let cpu = thread_cpu_s() - t;
        std::hint::black_box(&s);
        (cpu, acks)
    })
}

/// Runs one arm: its unit and the figure of each run.
fn arm(b: &Budget, name: &str) -> Result<(&'static str, Vec<f64>), String> {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        ["bulk"] => Ok(("ns_per_event", sim_arm(b, &bench::bulk(), false))),
        ["short_flows"] => Ok(("ns_per_flow", sim_arm(b, &bench::short_flows(), true))),
        [kind @ ("per_ack" | "app_limited"), family, n] => {
            let n: usize = n
                .parse()
                .map_err(|_| format!("{name}: N must be a count"))?;
            if lossrec::Config::preset(family).is_err() && *family != "bbr" {
                return Err(format!("{name}: unknown family `{family}`"));
            }
            let w = if *kind == "per_ack" {
                per_ack_family_workload(family, n, 1)
            } else {
                app_limited_workload(family, n)
            };
            Ok(("ns_per_ack", replay_arm(b, &w)))
        }
        _ => Err(format!("unknown arm `{name}` (--list prints them)")),
    }
}

fn all_arms() -> Vec<String> {
    let mut v = vec!["bulk".to_string(), "short_flows".to_string()];
    for kind in ["per_ack", "app_limited"] {
        for f in FAMILIES {
            v.extend(FAMILY_SIZES.iter().map(|n| format!("{kind}/{f}/{n}")));
        }
    }
    v
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut b = Budget {
        cpu_s: 1.0,
        min_runs: 3,
    };
    let mut arms = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| -> f64 {
            args.get(i + 1)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| {
                    eprintln!("bench: {} needs a number", args[i]);
                    std::process::exit(2)
                })
        };
        match args[i].as_str() {
            "--list" => {
                all_arms().iter().for_each(|a| println!("{a}"));
                return;
            }
            "--cpu-s" => (b.cpu_s, i) = (value(i), i + 1),
            "--min-runs" => (b.min_runs, i) = (value(i).max(1.0) as usize, i + 1),
            "all" => arms.extend(all_arms()),
            a => arms.push(a.to_string()),
        }
        i += 1;
    }
    if arms.is_empty() {
        eprintln!("usage: bench [--cpu-s S] [--min-runs N] (ARM... | all | --list)");
        std::process::exit(2);
    }
    let mut out = serde_json::Map::new();
    for name in &arms {
        let (unit, mut runs) = arm(&b, name).unwrap_or_else(|e| {
            eprintln!("bench: {e}");
            std::process::exit(2)
        });
        runs.sort_by(f64::total_cmp);
        let median = runs[runs.len() / 2];
        eprintln!(
            "bench: {name}: {median:.1} {unit} (median of {})",
            runs.len()
        );
        out.insert(
            name.clone(),
            serde_json::json!({
                "unit": unit, "median": median, "min": runs[0], "max": runs[runs.len() - 1],
                "runs": runs,
            }),
        );
    }
    let doc = serde_json::json!({ "cpu_model": cpu_model(), "clock": "thread_cpu", "arms": out });
    println!("{doc}");
}

//! `cargo bench -p lossrec-sim [-- FILTER]`: the simulator's benchmarks under criterion
//! (warm-up, samples, confidence intervals, comparison with the previous run).
//!
//! - `sim/bulk`: one bulk Reno flow for 60 s (100 Mb/s, 40 ms, 1 % loss); throughput in
//!   simulator events.
//! - `sim/short_flows`: 10,000 sequential 10-segment flows with a tail loss each; in flows.
//! - `flows/N`: 1,000,000 segments over N concurrent flows (1 … 100,000) on a 10 Gb/s,
//!   40 ms, 1 % loss path (`lossrec_sim::bench::flows`); in events, so that the rates
//!   compare the cost of an event with 1 and with N flows open.
//! - `per_ack/N`: the engine's cost per ACK with N segments in flight (replays of a
//!   recorded ACK stream; the set-up is not timed); in ACKs.
//! - `per_ack_family/FAMILY/N`, `app_limited/FAMILY/N`: the same per family (rfc, prr,
//!   linux, rack-tlp, bbr) to 1,000,000 in flight, at 1 % loss and app-limited.
//!
//! For CPU time rather than wall time (a shared machine), the example runner
//! `cargo run --release -p lossrec-sim --example bench -- ARM...` times the same arms.
//!
//! `scripts/bench-compare.sh BASE_REV` runs these for two revisions interleaved and
//! prints the ratios. Reading a clock is fine here: this is outside the simulator.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use lossrec_sim::bench::{self, alloc::Counting, per_ack_workload, FLOW_COUNTS};
use lossrec_sim::{run, RunOptions, Scenario};

// The allocator the Python extension uses too, so the numbers match `lossrec bench`.
#[global_allocator]
static ALLOC: Counting<mimalloc::MiMalloc> = Counting(mimalloc::MiMalloc);

/// Events of one run of `sc` (the run is deterministic: every iteration has as many).
fn events(sc: &Scenario) -> u64 {
    run(sc, &RunOptions::default()).expect("runs").events
}

/// Which benchmarks this invocation runs, so that the others skip their set-up (a
/// recording or a whole run to count events): criterion's name filter (a plain substring
/// here; one with regex syntax selects everything) and `--exact`; `--list` runs none.
struct Selection {
    filter: Option<String>,
    exact: bool,
    list: bool,
}

impl Selection {
    fn from_args() -> Selection {
        let args: Vec<String> = std::env::args().skip(1).collect();
        // Options that take a value (criterion's), whose value is not the filter.
        const VALUED: [&str; 16] = [
            "--color",
            "--save-baseline",
            "--baseline",
            "--baseline-lenient",
            "--load-baseline",
            "--sample-size",
            "--warm-up-time",
            "--measurement-time",
            "--nresamples",
            "--noise-threshold",
            "--confidence-level",
            "--significance-level",
            "--profile-time",
            "--format",
            "--output-format",
            "--plotting-backend",
        ];
        let mut filter = None;
        let mut i = 0;
        while i < args.len() {
            let a = &args[i];
            if VALUED.contains(&a.as_str()) {
                i += 1;
            } else if !a.starts_with('-') && filter.is_none() {
                filter = Some(a.clone());
            }
            i += 1;
        }
        let regex = filter
            .as_deref()
            .is_some_and(|f| f.chars().any(|c| "^$.*+?()[]{}|\\".contains(c)));
        Selection {
            filter: if regex { None } else { filter },
            exact: args.iter().any(|a| a == "--exact"),
            list: args.iter().any(|a| a == "--list"),
        }
    }

    fn runs(&self, id: &str) -> bool {
        !self.list
            && match &self.filter {
                None => true,
                Some(f) if self.exact => id == f,
                Some(f) => id.contains(f.as_str()),
            }
    }
}

fn simulations(c: &mut Criterion, sel: &Selection) {
    let opts = RunOptions::default();
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    let sc = bench::bulk();
    if sel.runs("sim/bulk") {
        g.throughput(Throughput::Elements(events(&sc)));
    }
    g.bench_function("bulk", |b| b.iter(|| run(&sc, &opts).expect("runs")));
    let sc = bench::short_flows();
    g.throughput(Throughput::Elements(10_000));
    g.bench_function("short_flows", |b| b.iter(|| run(&sc, &opts).expect("runs")));
    g.finish();

    let mut g = c.benchmark_group("flows");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    for n in FLOW_COUNTS {
        let sc = bench::flows(n);
        if sel.runs(&format!("flows/{n}")) {
            g.throughput(Throughput::Elements(events(&sc)));
        }
        g.bench_with_input(BenchmarkId::from_parameter(n), &sc, |b, sc| {
            b.iter(|| run(sc, &opts).expect("runs"))
        });
    }
    g.finish();
}

fn per_ack(c: &mut Criterion, sel: &Selection) {
    let mut g = c.benchmark_group("per_ack");
    for n in [100usize, 1_000, 10_000, 100_000] {
        if !sel.runs(&format!("per_ack/{n}")) {
            // Registered (for --list and the summary) without recording its workload.
            g.bench_function(BenchmarkId::from_parameter(n), |b| b.iter(|| ()));
            continue;
        }
        let w = per_ack_workload(n, 1);
        g.throughput(Throughput::Elements(w.acks.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(n), &w, |b, w| {
            // Only the replay is timed, not the fresh sender it needs.
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let mut s = w.sender();
                    let t = Instant::now();
                    std::hint::black_box(w.replay(&mut s));
                    total += t.elapsed();
                }
                total
            })
        });
    }
    g.finish();
}

/// `per_ack_family/FAMILY/N` and `app_limited/FAMILY/N`: every family (rfc, prr, linux,
/// rack-tlp, bbr) at 100 ... 1,000,000 in flight, at 1 % loss and app-limited with SACK
/// holes open (issue 29: BBR's loss walk grew with the window past 200,000).
fn per_ack_families(c: &mut Criterion, sel: &Selection) {
    use lossrec_sim::bench::app_limited::{app_limited_workload, FAMILIES, FAMILY_SIZES};
    use lossrec_sim::bench::per_ack_family_workload;
    for group in ["per_ack_family", "app_limited"] {
        let mut g = c.benchmark_group(group);
        g.sample_size(10);
        for f in FAMILIES {
            for n in FAMILY_SIZES {
                let id = BenchmarkId::new(f, n);
                if !sel.runs(&format!("{group}/{f}/{n}")) {
                    g.bench_function(id, |b| b.iter(|| ()));
                    continue;
                }
                let w = if group == "app_limited" {
                    app_limited_workload(f, n)
                } else {
                    per_ack_family_workload(f, n, 1)
                };
                g.throughput(Throughput::Elements(w.acks.len() as u64));
                g.bench_with_input(id, &w, |b, w| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            let mut s = w.sender();
                            let t = Instant::now();
                            std::hint::black_box(w.replay(&mut s));
                            total += t.elapsed();
                        }
                        total
                    })
                });
            }
        }
        g.finish();
    }
}

fn main() {
    let sel = Selection::from_args();
    let mut c = Criterion::default().configure_from_args();
    simulations(&mut c, &sel);
    per_ack(&mut c, &sel);
    per_ack_families(&mut c, &sel);
    c.final_summary();
}

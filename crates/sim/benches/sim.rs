//! `cargo bench -p lossrec-sim [-- FILTER]`: the simulator's benchmarks under criterion
//! (warm-up, samples, confidence intervals, comparison with the previous run).
//!
//! - `bulk`: one bulk Reno flow for 60 s (100 Mb/s, 40 ms, 1 % loss); throughput in
//!   simulator events.
//! - `short_flows`: 10,000 sequential 10-segment flows with a tail loss each; in flows.
//! - `flows/N`: 1,000,000 segments over N concurrent flows (1 … 100,000) on a 10 Gb/s,
//!   40 ms, 1 % loss path (`lossrec_sim::bench::flows`); in events, so that the rates
//!   compare the cost of an event with 1 and with N flows open.
//! - `per_ack/N`: the engine's cost per ACK with N segments in flight (replays of a
//!   recorded ACK stream; the set-up is not timed); in ACKs.
//!
//! `scripts/bench-compare.sh BASE_REV` runs these for two revisions interleaved and
//! prints the ratios. Reading a clock is fine here: this is outside the simulator.

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use lossrec_sim::bench::{self, alloc::Counting, per_ack_workload, FLOW_COUNTS};
use lossrec_sim::{run, RunOptions, Scenario};

// The allocator the Python extension uses too, so the numbers match `lossrec bench`.
#[global_allocator]
static ALLOC: Counting<mimalloc::MiMalloc> = Counting(mimalloc::MiMalloc);

/// Events of one run of `sc` (the run is deterministic: every iteration has as many).
fn events(sc: &Scenario) -> u64 {
    run(sc, &RunOptions::default()).expect("runs").events
}

fn simulations(c: &mut Criterion) {
    let opts = RunOptions::default();
    let mut g = c.benchmark_group("bulk");
    let sc = bench::bulk();
    g.throughput(Throughput::Elements(events(&sc)));
    g.sample_size(10);
    g.bench_function("bulk", |b| b.iter(|| run(&sc, &opts).expect("runs")));
    g.finish();

    let mut g = c.benchmark_group("short_flows");
    let sc = bench::short_flows();
    g.throughput(Throughput::Elements(
        run(&sc, &opts).expect("runs").flows.len() as u64,
    ));
    g.sample_size(10);
    g.bench_function("short_flows", |b| b.iter(|| run(&sc, &opts).expect("runs")));
    g.finish();

    let mut g = c.benchmark_group("flows");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    for n in FLOW_COUNTS {
        let sc = bench::flows(n);
        g.throughput(Throughput::Elements(events(&sc)));
        g.bench_with_input(BenchmarkId::from_parameter(n), &sc, |b, sc| {
            b.iter(|| run(sc, &opts).expect("runs"))
        });
    }
    g.finish();
}

fn per_ack(c: &mut Criterion) {
    let mut g = c.benchmark_group("per_ack");
    for n in [100usize, 1_000, 10_000, 100_000] {
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

criterion_group!(benches, simulations, per_ack);
criterion_main!(benches);

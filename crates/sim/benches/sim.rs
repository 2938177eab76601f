//! `cargo bench -p lossrec-sim`: simulated data packets per wall-second for one bulk Reno
//! flow, and flows per wall-second for 10,000 short flows. (Reading a clock is fine here:
//! this is outside the simulator.)

use lossrec_sim::{bench, run, RunOptions};
use std::time::Instant;

/// Runs `f` until at least 0.5 s of wall time has passed (at least once); returns the last
/// output and the best wall time of one run.
fn timed<T>(mut f: impl FnMut() -> T) -> (T, f64) {
    let start = Instant::now();
    let mut best = f64::INFINITY;
    loop {
        let t = Instant::now();
        let out = f();
        best = best.min(t.elapsed().as_secs_f64());
        if start.elapsed().as_secs_f64() >= 0.5 {
            return (out, best);
        }
    }
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument filters by name.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let want = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f.as_str()));
    let opts = RunOptions::default();
    if want("bulk") {
        let sc = bench::bulk();
        let (out, wall) = timed(|| run(&sc, &opts).expect("bulk runs"));
        println!(
            "bulk: {} data packets, {} events in {:.3} s wall = {:.0} data packets/s ({:.0} events/s); {} bytes delivered",
            out.data_packets,
            out.events,
            wall,
            out.data_packets as f64 / wall,
            out.events as f64 / wall,
            out.flows[0].bytes
        );
    }
    if want("short_flows") {
        let sc = bench::short_flows();
        let (out, wall) = timed(|| run(&sc, &opts).expect("short flows run"));
        let done = out.flows.iter().filter(|f| f.fct_ms.is_some()).count();
        println!(
            "short_flows: {} flows ({} completed), {} data packets in {:.3} s wall = {:.0} flows/s ({:.0} data packets/s)",
            out.flows.len(),
            done,
            out.data_packets,
            wall,
            out.flows.len() as f64 / wall,
            out.data_packets as f64 / wall
        );
    }
}

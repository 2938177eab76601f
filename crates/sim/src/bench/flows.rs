//! The `flows` benchmark (issue 16): simulation cost as the number of concurrent flows
//! grows, with the total work fixed.
//!
//! One 10 Gb/s, 40 ms bottleneck with 1 % random data loss and a 35,000-packet queue
//! (about one bandwidth-delay product), preset `linux`, 1,000,000 segments in total split
//! evenly over `n` flows that all start at t = 0 ([`FLOW_COUNTS`]: 1 to 100,000). The
//! events are nearly the same at every `n`, so events per second of wall time compare the
//! cost of an event with one flow open and with `n`.
//!
//! Memory ([`flow_memory`], with [`super::alloc::Counting`] installed): the heap bytes of
//! one open flow beyond its scoreboard — every flow started, its SYN in flight, nothing
//! sent yet (the run stops at 1 ms) — and the peak heap of the whole run.

use super::alloc::{measure, Heap};
use crate::{run, RunOptions, RunOutput, Scenario};

/// Concurrent flow counts of the benchmark.
pub const FLOW_COUNTS: [u64; 5] = [1, 100, 1_000, 10_000, 100_000];
/// Segments all flows send together.
pub const TOTAL_SEGMENTS: u64 = 1_000_000;

/// The scenario with `n` concurrent flows (`TOTAL_SEGMENTS / n` segments each, at least 1).
pub fn flows(n: u64) -> Scenario {
    let text = flows_toml(n, 1_000_000.0);
    Scenario::from_toml_str(&text, &format!("<bench:flows:{n}>"))
        .expect("benchmark scenario parses")
}

/// The scenario's text, stopping at `max_time_s`.
pub fn flows_toml(n: u64, max_time_s: f64) -> String {
    let n = n.max(1);
    let segments = (TOTAL_SEGMENTS / n).max(1);
    format!(
        r#"
seed = 1
max_time_s = {max_time_s}
[path]
rtt_ms = 40
rate_mbps = 10000
queue_packets = 35000
[path.loss]
model = "bernoulli"
p = 0.01
[sender]
preset = "linux"
[workload]
kind = "flows"
flows = {n}
segments = {segments}
arrival = "concurrent"
"#
    )
}

/// Heap figures of the `flows` benchmark at one flow count.
#[derive(Clone, Debug, PartialEq)]
pub struct FlowMemory {
    pub flows: u64,
    /// Heap bytes per open flow with an empty scoreboard: endpoints, simulator state, its
    /// SYN in flight, its slot in the simulator's tables.
    pub bytes_per_open_flow: f64,
    /// The whole run: the most heap bytes live at once, the most flows open at once, and
    /// heap bytes still held per flow when the run is over (its result and its share of
    /// the recovery episodes: what the run returns).
    pub peak_heap_bytes: u64,
    pub peak_open_flows: u64,
    pub result_bytes_per_flow: f64,
}

fn measured(sc: &Scenario) -> (RunOutput, Option<Heap>) {
    let (out, heap) = measure(|| run(sc, &RunOptions::default()));
    (out.expect("benchmark scenario runs"), heap)
}

/// Heap bytes per open flow with an empty scoreboard, at `n` flows (see [`FlowMemory`]);
/// `None` without the counting allocator.
pub fn open_flow_bytes(n: u64) -> Option<f64> {
    let n = n.max(1);
    let open = Scenario::from_toml_str(&flows_toml(n, 0.001), "<bench:flows-open>")
        .expect("benchmark scenario parses");
    let (out, heap) = measured(&open);
    debug_assert_eq!(out.peak_open_flows, n);
    // What the run returns (the results) is live at the end and was at the peak too.
    heap.map(|h| (h.peak - h.end) as f64 / n as f64)
}

/// Measures [`FlowMemory`] at `n` flows; `None` without the counting allocator.
pub fn flow_memory(n: u64) -> Option<FlowMemory> {
    let n = n.max(1);
    let per_open = open_flow_bytes(n)?;
    let (out, full) = measured(&flows(n));
    let full = full?;
    Some(FlowMemory {
        flows: n,
        bytes_per_open_flow: per_open,
        peak_heap_bytes: full.peak.max(0) as u64,
        peak_open_flows: out.peak_open_flows,
        result_bytes_per_flow: full.end as f64 / n as f64,
    })
}

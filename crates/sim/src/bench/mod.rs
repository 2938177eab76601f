//! The benchmark scenarios (`cargo bench -p lossrec-sim`, `lossrec bench`): two
//! simulations, and the engine's per-ACK micro-benchmark workload ([`per_ack_workload`]).

use crate::Scenario;

/// One bulk Reno + SACK flow for 60 s: 100 Mb/s, 40 ms RTT, 333-packet queue, 1 % random
/// data loss, MSS 1448.
pub const BULK: &str = r#"
seed = 1
[path]
rtt_ms = 40
rate_mbps = 100
queue_packets = 333
[path.loss]
model = "bernoulli"
p = 0.01
[sender]
preset = "rfc"
mss = 1448
[workload]
kind = "bulk"
flows = 1
duration_s = 60
"#;

/// 10,000 sequential 10-segment flows over 10 Mb/s, 40 ms RTT, each losing its last
/// segment's first transmission; handshake on. (Each flow waits out an RTO, so the run
/// covers hours of simulated time: the time limit is raised.)
pub const SHORT_FLOWS: &str = r#"
seed = 1
max_time_s = 1000000
[path]
rtt_ms = 40
rate_mbps = 10
[path.loss]
model = "tail"
count = 1
[sender]
preset = "rfc"
handshake = true
[workload]
kind = "flows"
flows = 10000
segments = 10
arrival = "sequential"
"#;

/// The bulk benchmark scenario.
pub fn bulk() -> Scenario {
    Scenario::from_toml_str(BULK, "<bench:bulk>").expect("benchmark scenario parses")
}

/// The short-flows benchmark scenario.
pub fn short_flows() -> Scenario {
    Scenario::from_toml_str(SHORT_FLOWS, "<bench:short_flows>").expect("benchmark scenario parses")
}

pub mod alloc;
pub mod app_limited;
pub mod flows;
pub mod per_ack;

pub use app_limited::app_limited_workload;
pub use flows::{flow_memory, flows, open_flow_bytes, FlowMemory, FLOW_COUNTS};
pub use per_ack::{per_ack_family_workload, per_ack_workload, PerAckWorkload};

#[cfg(test)]
mod tests {
    use super::per_ack_workload;

    /// The replay reproduces the recording (same transmissions, no timeout), and the
    /// window keeps about `in_flight` segments outstanding.
    #[test]
    fn per_ack_replay_matches_recording() {
        let w = per_ack_workload(100, 7);
        assert_eq!(w.acks.len(), 2_000);
        assert!(
            (90.0..=100.0).contains(&w.mean_outstanding),
            "{}",
            w.mean_outstanding
        );
        let mut s = w.sender();
        assert_eq!(w.replay(&mut s), 2_000);
        assert_eq!(s.stats().data_segs_out, w.segments_sent);
        assert_eq!(s.stats().retrans_segs, w.retransmissions);
        assert!(w.retransmissions > 0, "1 % loss");
    }

    /// At 1,000 in flight too: the receive window is the fixed `in_flight` segments the
    /// doc promises (a receiver autotuning from a small window dropped the first flight's
    /// overshoot: 849 outstanding and 8 % retransmissions at 1 % loss), so about that many
    /// are outstanding and the retransmissions are the losses.
    #[test]
    fn per_ack_window_holds_in_flight_and_retransmits_the_losses() {
        let w = per_ack_workload(1_000, 7);
        assert!(w.mean_outstanding >= 950.0, "{}", w.mean_outstanding);
        let rate = w.retransmissions as f64 / w.segments_sent as f64;
        assert!(
            rate < 0.02,
            "{:.1} % retransmitted at 1 % loss",
            100.0 * rate
        );
    }
}

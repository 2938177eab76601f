//! What configures a receiver and what it counts.

use crate::time::Duration;

use super::WindowModel;

/// How the receiver acknowledges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// `None`: acknowledge every segment. `Some(t)`: delayed ACKs with timer `t` (40–500 ms).
    /// [`Receiver::new`](super::Receiver::new) clamps `t` into 1 ms..=500 ms (RFC 1122 §4.2.3.2: under 0.5 s).
    pub delayed_ack: Option<Duration>,
    /// Accept SACK-permitted and send SACK blocks (and DSACK).
    pub sack: bool,
    /// Send DSACK blocks (RFC 2883) when SACK is in use.
    pub dsack: bool,
    /// Accept and echo timestamps.
    pub timestamps: bool,
    /// MSS the receiver announces on its SYN-ACK.
    pub mss: u16,
    /// The fixed receive window in bytes ([`WindowModel::Fixed`]), or the largest the Linux
    /// model's autotuning grows to.
    pub window: u64,
    /// How the advertised window is chosen (default: as Linux does, `receiver::window`).
    pub window_model: WindowModel,
    /// Linux quick-ACK mode: the first this-many segments are ACKed at once even with
    /// delayed ACKs (Linux TCP_MAX_QUICKACKS = 16). 0 disables.
    pub quickack_segments: u32,
    /// Accept ECN (RFC 3168): answer an ECN-setup SYN, and echo CE marks with ECE until
    /// CWR. Without a handshake, ECN is taken as agreed. Linux's default (`tcp_ecn=2`)
    /// accepts.
    pub ecn: bool,
}

impl Default for ReceiverConfig {
    fn default() -> Self {
        ReceiverConfig {
            delayed_ack: None,
            sack: true,
            dsack: true,
            timestamps: true,
            mss: 1460,
            window: 16 << 20,
            window_model: WindowModel::Linux,
            quickack_segments: 16,
            ecn: true,
        }
    }
}

/// Receiver counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    /// Every segment handed to `on_segment`.
    pub segments_in: u64,
    /// ACKs returned by `poll_ack` (SYN-ACKs included).
    pub acks_out: u64,
    /// Segments carrying at least one byte already received.
    pub dup_segments: u64,
    /// Segments starting above RCV.NXT.
    pub out_of_order_segments: u64,
    /// ACKs returned carrying a D-SACK block.
    pub dsacks_out: u64,
    /// ACKs sent because the delayed-ACK timer fired.
    pub delayed_acks: u64,
    /// SYN-ACKs returned (first and repeated).
    pub syn_acks_out: u64,
    /// Payload bytes not received before.
    pub bytes_in: u64,
    /// Payload bytes received more than once.
    pub dup_bytes: u64,
    /// Data segments ACKed at once only because of quick-ACK mode.
    pub quick_acks: u64,
    /// Segments wholly beyond RCV.NXT + window, dropped.
    pub dropped_out_of_window: u64,
    /// Segments whose tail beyond RCV.NXT + window was cut off.
    pub trimmed_to_window: u64,
    /// Segments dropped because they would open an out-of-order block past the limit.
    pub dropped_too_many_blocks: u64,
    /// Segments with an inverted range (end before start), dropped.
    pub dropped_malformed: u64,
    /// Data segments that arrived marked CE (RFC 3168 §5; Linux `TCPDeliveredCE` on the
    /// sender's side counts what these ACKs echo).
    pub ce_segments: u64,
    /// Queued ACKs discarded because the caller did not poll (oldest first).
    pub acks_discarded_unpolled: u64,
}

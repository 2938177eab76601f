//! The receiving side: ACK generation with cumulative ACK, SACK (RFC 2018), DSACK
//! (RFC 2883), delayed ACK (RFC 5681 §4.2, RFC 1122), Linux-style quick ACKs and
//! timestamp echo (RFC 7323).
//!
//! INTERFACE PLACEHOLDER: the implementation is being written; signatures are final.

use crate::packet::{Ack, Segment};
use crate::time::{Duration, Instant};

/// How the receiver acknowledges.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReceiverConfig {
    /// `None`: acknowledge every segment. `Some(t)`: delayed ACKs with timer `t` (40–500 ms).
    pub delayed_ack: Option<Duration>,
    /// Accept SACK-permitted and send SACK blocks (and DSACK).
    pub sack: bool,
    /// Send DSACK blocks (RFC 2883) when SACK is in use.
    pub dsack: bool,
    /// Accept and echo timestamps.
    pub timestamps: bool,
    /// MSS the receiver announces on its SYN-ACK.
    pub mss: u16,
    /// Advertised receive window in bytes.
    pub window: u64,
    /// Linux quick-ACK mode: the first this-many segments are ACKed at once even with
    /// delayed ACKs (Linux TCP_MAX_QUICKACKS = 16). 0 disables.
    pub quickack_segments: u32,
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
            quickack_segments: 16,
        }
    }
}

/// Receiver counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReceiverStats {
    pub segments_in: u64,
    pub acks_out: u64,
    pub dup_segments: u64,
    pub out_of_order_segments: u64,
    pub dsacks_out: u64,
    pub delayed_acks: u64,
}

/// The receiving endpoint of one connection.
#[derive(Clone, Debug)]
pub struct Receiver {
    _cfg: ReceiverConfig,
}

impl Receiver {
    pub fn new(cfg: ReceiverConfig, _now: Instant) -> Self {
        Receiver { _cfg: cfg }
    }
    /// A segment arrived (SYN, handshake ACK or data).
    pub fn on_segment(&mut self, _now: Instant, _seg: &Segment) {
        todo!()
    }
    /// The next ACK to send now, if any (call until `None`).
    pub fn poll_ack(&mut self, _now: Instant) -> Option<Ack> {
        todo!()
    }
    /// When the delayed-ACK timer fires.
    pub fn poll_timeout(&self) -> Option<Instant> {
        todo!()
    }
    pub fn on_timeout(&mut self, _now: Instant) {
        todo!()
    }
    /// Bytes delivered in order to the application (RCV.NXT as a stream offset).
    pub fn delivered(&self) -> u64 {
        todo!()
    }
    pub fn stats(&self) -> &ReceiverStats {
        todo!()
    }
}

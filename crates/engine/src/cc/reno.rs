//! Reno (RFC 5681 §3.1) with appropriate byte counting (RFC 3465, L = 2).

use super::{CongestionOps, Window};
use crate::time::{Duration, Instant};

#[derive(Clone, Debug, Default)]
pub struct Reno {
    /// RFC 3465 bytes_acked, for congestion avoidance.
    bytes_acked: u64,
}

impl CongestionOps for Reno {
    fn on_ack(&mut self, _now: Instant, w: &mut Window, acked: u64, _srtt: Option<Duration>) {
        if w.cwnd < w.ssthresh {
            // RFC 3465 §2.2: slow start by bytes acked, at most L·SMSS per ACK.
            w.cwnd += acked.min(2 * w.mss);
        } else {
            // RFC 3465 §2.1: one SMSS per cwnd of bytes acked.
            self.bytes_acked += acked;
            if self.bytes_acked >= w.cwnd {
                self.bytes_acked -= w.cwnd;
                w.cwnd += w.mss;
            }
        }
    }
    fn ssthresh(&mut self, _now: Instant, w: &Window, flight_size: u64) -> u64 {
        // RFC 5681 eq. (4).
        self.bytes_acked = 0;
        (flight_size / 2).max(2 * w.mss)
    }
    fn on_timeout(&mut self, _now: Instant) {
        self.bytes_acked = 0;
    }
}

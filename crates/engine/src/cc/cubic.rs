//! CUBIC (RFC 9438).

use super::{CongestionOps, Window};
use crate::time::{Duration, Instant};

/// Placeholder state until the full RFC 9438 implementation lands; behaves as Reno with
/// β = 0.7.
#[derive(Clone, Debug, Default)]
pub struct Cubic {
    reno: super::reno::Reno,
}

impl CongestionOps for Cubic {
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>) {
        self.reno.on_ack(now, w, acked, srtt)
    }
    fn ssthresh(&mut self, now: Instant, w: &Window, flight_size: u64) -> u64 {
        let _ = self.reno.ssthresh(now, w, flight_size);
        (w.cwnd * 7 / 10).max(2 * w.mss)
    }
    fn on_timeout(&mut self, now: Instant) {
        self.reno.on_timeout(now)
    }
}

//! Congestion control behind a small trait ([`CongestionOps`]) and an enum ([`Cc`]) the
//! sender matches on. The sender owns cwnd and ssthresh (in bytes); the algorithm decides
//! growth and the reduction target.

pub mod cubic;
pub mod reno;

use crate::config::CongestionControl;
use crate::time::{Duration, Instant};

/// The window the algorithm acts on. Bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub cwnd: u64,
    pub ssthresh: u64,
    pub mss: u64,
}

/// What every congestion-control algorithm provides.
pub trait CongestionOps {
    /// `acked` bytes were newly delivered (cumulatively or by SACK) while not in recovery:
    /// grow `w.cwnd` (slow start below ssthresh, congestion avoidance above).
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>);
    /// The ssthresh after a congestion event (fast retransmit or timeout).
    fn ssthresh(&mut self, now: Instant, w: &Window, flight_size: u64) -> u64;
    /// A retransmission timeout happened (cwnd is reset by the sender).
    fn on_timeout(&mut self, now: Instant);
}

/// The per-connection algorithm.
#[derive(Clone, Debug)]
pub enum Cc {
    Reno(reno::Reno),
    Cubic(cubic::Cubic),
}

impl Cc {
    pub fn new(kind: CongestionControl) -> Cc {
        match kind {
            CongestionControl::Reno => Cc::Reno(reno::Reno::default()),
            CongestionControl::Cubic => Cc::Cubic(cubic::Cubic::default()),
        }
    }
    fn ops(&mut self) -> &mut dyn CongestionOps {
        match self {
            Cc::Reno(r) => r,
            Cc::Cubic(c) => c,
        }
    }
}

impl CongestionOps for Cc {
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>) {
        self.ops().on_ack(now, w, acked, srtt)
    }
    fn ssthresh(&mut self, now: Instant, w: &Window, flight_size: u64) -> u64 {
        self.ops().ssthresh(now, w, flight_size)
    }
    fn on_timeout(&mut self, now: Instant) {
        self.ops().on_timeout(now)
    }
}

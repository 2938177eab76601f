//! Congestion control behind a small trait ([`CongestionOps`]) and an enum ([`Cc`]) the
//! sender matches on. The sender owns cwnd and ssthresh (in bytes); the algorithm decides
//! growth, the reduction target and the undo value.
//!
//! Call order the algorithms expect from the sender:
//! - `on_ack` for ACKs of new data outside recovery (RFC 5681 §3.1 growth);
//! - on a congestion event `ssthresh` once (it also records the pre-reduction state for
//!   undo), then the sender sets cwnd;
//! - on an RTO: `ssthresh` (if the RTO starts a new reduction), then `on_timeout`;
//! - `undo_cwnd` when a reduction proved spurious (the sender restores ssthresh itself).

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

impl Window {
    /// SMSS, never zero (so impossible inputs cannot divide by zero).
    pub fn smss(&self) -> u64 {
        self.mss.max(1)
    }
    /// True while cwnd < ssthresh (RFC 5681 §3.1: slow start).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What every congestion-control algorithm provides.
pub trait CongestionOps {
    /// `acked` bytes were newly delivered (cumulatively or by SACK) while not in recovery:
    /// grow `w.cwnd` (slow start below ssthresh, congestion avoidance above). Never
    /// lowers cwnd.
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>);
    /// The ssthresh after a congestion event (fast retransmit or timeout); at least
    /// 2·SMSS. Records the pre-event state for [`CongestionOps::undo_cwnd`].
    fn ssthresh(&mut self, now: Instant, w: &Window, flight_size: u64) -> u64;
    /// A retransmission timeout happened (cwnd is reset by the sender).
    fn on_timeout(&mut self, now: Instant);
    /// The reduction that began with the last `ssthresh` call was spurious: returns the
    /// cwnd to restore (Linux `tcp_reno_undo_cwnd`: max(cwnd, prior_cwnd)) and rolls the
    /// algorithm's own state back (RFC 9438 §4.9 for CUBIC).
    fn undo_cwnd(&mut self, w: &Window) -> u64;
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
            CongestionControl::RenoLinux => Cc::Reno(reno::Reno::linux()),
            CongestionControl::Cubic => Cc::Cubic(cubic::Cubic::default()),
        }
    }
    pub fn kind(&self) -> CongestionControl {
        match self {
            Cc::Reno(r) if r.halves_cwnd() => CongestionControl::RenoLinux,
            Cc::Reno(_) => CongestionControl::Reno,
            Cc::Cubic(_) => CongestionControl::Cubic,
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
    fn undo_cwnd(&mut self, w: &Window) -> u64 {
        self.ops().undo_cwnd(w)
    }
}

//! Congestion control behind a small trait ([`CongestionOps`]) and an enum ([`Cc`]) the
//! sender matches on. The sender owns cwnd and ssthresh (in bytes); the algorithm decides
//! growth, the reduction target and the undo value.
//!
//! Call order the algorithms expect from the sender:
//! - `on_ack` for ACKs of new data outside recovery (RFC 5681 §3.1 growth);
//! - on a congestion event `ssthresh` (a pure question: what would it be now), then
//!   `on_congestion_event` once (the algorithm's own reduction: CUBIC's W_max and epoch),
//!   then the sender sets cwnd;
//! - on an RTO: the same if the RTO starts a new reduction, then `on_timeout`.
//!
//! Undo needs nothing from the algorithms: [`Cc`] is a `Copy` value, and the sender's one
//! undo checkpoint (`rto::undo::Snapshot`) holds a copy of it taken at the first reduction
//! of an episode, restored whole when that reduction proves spurious (quiche's
//! checkpoint/rollback, quinn's `pre_congestion_state`; RFC 9438 §4.9 for CUBIC).

pub mod bbr;
pub mod bictcp;
pub mod cubic;
pub mod cwnd_limited;
pub mod hystart;
pub mod rate;
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
    /// The ssthresh a congestion event now would set (fast retransmit or timeout); at
    /// least 2·SMSS. No side effect.
    fn ssthresh(&self, now: Instant, w: &Window, flight_size: u64) -> u64;
    /// A congestion event happened (after `ssthresh` was asked, before the sender cuts
    /// cwnd): the algorithm's own state reacts (RFC 9438 §4.6-4.7; RFC 3465's count).
    fn on_congestion_event(&mut self, now: Instant, w: &Window);
    /// A retransmission timeout happened (cwnd is reset by the sender).
    fn on_timeout(&mut self, now: Instant);
}

/// The per-connection algorithm (a value: copying it is the undo checkpoint).
#[derive(Copy, Clone, Debug)]
pub enum Cc {
    Reno(reno::Reno),
    Cubic(cubic::Cubic),
    /// BBR sets cwnd itself on every ACK (`cong_control`): its model is the sender's
    /// (`bbr::Bbr`, not part of the undo checkpoint: Linux's `bbr_undo_cwnd` restores
    /// nothing), and the ops below leave the window alone.
    Bbr,
}

impl Cc {
    pub fn new(kind: CongestionControl) -> Cc {
        match kind {
            CongestionControl::Reno => Cc::Reno(reno::Reno::default()),
            CongestionControl::RenoLinux => Cc::Reno(reno::Reno::linux()),
            CongestionControl::Cubic => Cc::Cubic(cubic::Cubic::default()),
            CongestionControl::Bbr => Cc::Bbr,
            CongestionControl::CubicLinux => Cc::Cubic(cubic::Cubic::linux()),
        }
    }
    pub fn kind(&self) -> CongestionControl {
        match self {
            Cc::Reno(r) if r.halves_cwnd() => CongestionControl::RenoLinux,
            Cc::Reno(_) => CongestionControl::Reno,
            Cc::Cubic(c) if c.is_linux() => CongestionControl::CubicLinux,
            Cc::Cubic(_) => CongestionControl::Cubic,
            Cc::Bbr => CongestionControl::Bbr,
        }
    }
    /// Chooses the slow-start rule (RFC 3465 ABC, or Linux's).
    pub fn set_slow_start(&mut self, rule: reno::SlowStart) {
        match self {
            Cc::Reno(r) => r.set_slow_start(rule),
            Cc::Cubic(c) => c.reno_mut().set_slow_start(rule),
            Cc::Bbr => {}
        }
    }
    /// The algorithm sets cwnd itself from rate samples (Linux `cong_control`).
    pub fn controls_cwnd(&self) -> bool {
        matches!(self, Cc::Bbr)
    }
    /// Turns CUBIC's HyStart on (Linux flavour); Reno has none.
    pub fn set_hystart(&mut self, h: hystart::HyStart) {
        if let Cc::Cubic(c) = self {
            c.set_hystart(h);
        }
    }
    /// One ACK's RTT sample (Linux `pkts_acked`, before growth): true when HyStart ends
    /// slow start now (the sender sets ssthresh = cwnd).
    pub fn on_rtt_sample(&mut self, s: &hystart::Sample) -> bool {
        match self {
            Cc::Cubic(c) => c.on_rtt_sample(s),
            Cc::Reno(_) | Cc::Bbr => false,
        }
    }
    /// The first data after the flight emptied, `idle` after the last (Linux
    /// `CA_EVENT_TX_START`): CUBIC shifts its epoch (`cubictcp_cwnd_event`).
    pub fn on_tx_start(&mut self, now: Instant, idle: Duration) {
        if let Cc::Cubic(c) = self {
            c.on_tx_start(now, idle);
        }
    }
    fn ops(&mut self) -> Option<&mut dyn CongestionOps> {
        match self {
            Cc::Reno(r) => Some(r),
            Cc::Cubic(c) => Some(c),
            Cc::Bbr => None,
        }
    }
}

impl CongestionOps for Cc {
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>) {
        if let Some(o) = self.ops() {
            o.on_ack(now, w, acked, srtt)
        }
    }
    fn ssthresh(&self, now: Instant, w: &Window, flight_size: u64) -> u64 {
        match self {
            Cc::Reno(r) => r.ssthresh(now, w, flight_size),
            Cc::Cubic(c) => c.ssthresh(now, w, flight_size),
            // `bbr_ssthresh` returns snd_ssthresh as it is.
            Cc::Bbr => w.ssthresh,
        }
    }
    fn on_congestion_event(&mut self, now: Instant, w: &Window) {
        if let Some(o) = self.ops() {
            o.on_congestion_event(now, w)
        }
    }
    fn on_timeout(&mut self, now: Instant) {
        if let Some(o) = self.ops() {
            o.on_timeout(now)
        }
    }
}

//! Reno (RFC 5681 §3.1) with appropriate byte counting (RFC 3465, L = 2).
//!
//! - Slow start (cwnd < ssthresh): cwnd += min(acked, L·SMSS) per ACK (RFC 3465 §2.2).
//!   As in the RFCs, the increase is not clipped at ssthresh (Linux `tcp_slow_start` clips
//!   and carries the rest into congestion avoidance).
//! - Congestion avoidance: bytes_acked accumulates; each time it reaches cwnd it drops by
//!   cwnd and cwnd grows by one SMSS (RFC 3465 §2.1, RFC 5681 §3.1). The carried surplus
//!   is kept below one window, so a stretch ACK yields one increase, not a burst of them.
//! - ssthresh = max(FlightSize / 2, 2·SMSS) (RFC 5681 eq. 4); the `reno-linux` variant
//!   halves cwnd instead, as Linux `tcp_reno_ssthresh` does (max(cwnd >> 1, 2) packets).

use super::controller::Saved;
use super::{Checkpoint, CongestionController, ConnInfo, Window};
use crate::time::{Duration, Instant};

/// RFC 3465 §2.2 limit L on slow-start growth per ACK, in SMSS.
pub const ABC_L: u64 = 2;

/// How slow start grows cwnd on an ACK.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum SlowStart {
    /// RFC 3465 §2.2: cwnd += min(acked, L·SMSS) with L = 2, and L = 1 in the slow start
    /// that follows a retransmission timeout (§2.3); the last step may pass ssthresh.
    #[default]
    Abc,
    /// Linux `tcp_slow_start`: cwnd = min(cwnd + acked, ssthresh), no per-ACK cap; what
    /// is left of `acked` goes on to congestion avoidance.
    Linux,
}

/// The Reno controller (RFC 5681 §3.1 with RFC 3465 byte counting; `reno-linux` as
/// Linux `tcp_reno_cong_avoid` and `tcp_reno_ssthresh`). CUBIC reuses it for its
/// Reno-friendly region and slow start.
#[derive(Copy, Clone, Debug, Default)]
pub struct Reno {
    slow_start: SlowStart,
    /// In the slow start that follows a timeout (RFC 3465 §2.3: L = 1).
    after_rto: bool,
    /// RFC 3465 bytes_acked, for congestion avoidance.
    bytes_acked: u64,
    /// ssthresh from cwnd (Linux) rather than FlightSize (RFC 5681).
    from_cwnd: bool,
}

impl Reno {
    /// Reno with Linux's ssthresh rule: max(cwnd/2, 2·SMSS).
    pub fn linux() -> Reno {
        Reno {
            from_cwnd: true,
            ..Reno::default()
        }
    }

    /// True for the Linux ssthresh rule.
    pub fn halves_cwnd(&self) -> bool {
        self.from_cwnd
    }

    /// RFC 3465 bytes_acked.
    pub fn bytes_acked(&self) -> u64 {
        self.bytes_acked
    }

    /// Chooses the slow-start rule.
    pub fn set_slow_start(&mut self, rule: SlowStart) {
        self.slow_start = rule;
    }

    /// One slow-start step for `acked` bytes; returns what is left for congestion
    /// avoidance (always 0 under ABC).
    pub fn slow_start(&mut self, w: &mut Window, acked: u64) -> u64 {
        match self.slow_start {
            SlowStart::Abc => {
                let l = if self.after_rto { 1 } else { ABC_L };
                w.cwnd = w.cwnd.saturating_add(acked.min(l.saturating_mul(w.smss())));
                self.after_rto &= w.in_slow_start();
                0
            }
            SlowStart::Linux => {
                let grown = w.cwnd.saturating_add(acked).min(w.ssthresh).max(w.cwnd);
                let used = grown - w.cwnd;
                w.cwnd = grown;
                acked - used.min(acked)
            }
        }
    }

    /// RFC 3465 §2.1 congestion avoidance: one SMSS per cwnd of bytes acknowledged.
    pub fn congestion_avoidance(&mut self, w: &mut Window, acked: u64) {
        self.bytes_acked = self.bytes_acked.saturating_add(acked);
        if self.bytes_acked >= w.cwnd {
            self.bytes_acked -= w.cwnd;
            w.cwnd = w.cwnd.saturating_add(w.smss());
            // A stretch ACK of more than cwnd must not buy increases on the following
            // ACKs too (RFC 5681: at most SMSS per RTT): keep less than one window.
            self.bytes_acked = self.bytes_acked.min(w.cwnd - 1);
        }
    }

    /// Clears the byte count (after a reduction or timeout, RFC 3465 §2.1).
    pub fn reset(&mut self) {
        self.bytes_acked = 0;
        self.after_rto = false;
    }
}

impl CongestionController for Reno {
    fn on_ack(&mut self, _now: Instant, w: &mut Window, acked: u64, _srtt: Option<Duration>) {
        let mut acked = acked;
        if w.in_slow_start() {
            acked = self.slow_start(w, acked);
        }
        if !w.in_slow_start() {
            self.after_rto = false;
            if acked > 0 {
                self.congestion_avoidance(w, acked);
            }
        }
    }
    fn ssthresh(&self, _now: Instant, w: &Window, flight_size: u64) -> u64 {
        // RFC 5681 eq. (4), or Linux tcp_reno_ssthresh.
        let base = if self.from_cwnd { w.cwnd } else { flight_size };
        (base / 2).max(2u64.saturating_mul(w.smss()))
    }
    fn on_congestion_event(&mut self, _now: Instant, _w: &Window) {
        self.reset();
    }
    fn on_timeout(&mut self, _now: Instant, _c: &ConnInfo) {
        self.bytes_acked = 0;
        self.after_rto = true;
    }
    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(*self)
    }
    fn checkpoint(&self) -> Checkpoint {
        Checkpoint(Saved::Reno(*self))
    }
    fn restore(&mut self, c: &Checkpoint) {
        if let Saved::Reno(r) = c.0 {
            *self = r;
        }
    }
}

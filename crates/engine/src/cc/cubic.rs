//! CUBIC (RFC 9438).
//!
//! Window state (`W_max`, `cwnd_epoch`, `W_est`, `cwnd_prior`) is kept in segments as
//! `f64`, as the RFC writes it; cwnd itself stays in bytes (the sender's [`Window`]).
//! - Slow start below ssthresh as Reno with ABC, L = 2 (§4.10 allows RFC 5681 slow start;
//!   HyStart++ is not implemented). The Linux flavour adds Linux's HyStart
//!   ([`super::hystart`]).
//! - Congestion avoidance (§4.2–§4.5): at the first ACK of an epoch, epoch_start = now,
//!   cwnd_epoch = cwnd, W_est = cwnd_epoch, K = ∛((W_max − cwnd_epoch)/C). If cwnd_epoch ≥
//!   W_max the curve starts at its plateau: K = 0 and origin = cwnd_epoch (as Linux
//!   `bictcp_update`). Per ACK: W_est += α_cubic·acked/cwnd (§4.3, α_cubic becomes 1 once
//!   W_est ≥ cwnd_prior); if W_cubic(t) < W_est, cwnd = W_est (Reno-friendly region);
//!   otherwise target = W_cubic(t + SRTT) clamped to [cwnd, 1.5·cwnd] and cwnd grows by
//!   (target − cwnd)·acked/cwnd bytes (concave and convex regions, §4.4–§4.5), with the
//!   integer remainder carried so no growth is lost to rounding. Without an SRTT the
//!   growth is Reno's.
//! - Congestion event: fast convergence (§4.7) sets W_max; **ssthresh = max(cwnd·β, 2·SMSS)
//!   from cwnd, as Linux `cubictcp_recalc_ssthresh` does** (RFC 9438 §4.6 uses
//!   FlightSize·β; the `linux-classic` preset runs CUBIC, so Linux wins). β = 0.7 exactly in
//!   bytes (Linux: `cwnd*717 >> 10` in packets; both give 10 → 7, 20 → 14 segments).
//! - Timeout (§4.8): the epoch restarts; the first CA stage after it uses K = 0 and
//!   W_max = cwnd_epoch (Linux `bictcp_reset` on entering Loss).
//! - Undo (§4.9): the state before the last congestion event is restored.
//!
//! The cube root is computed with Newton's method from IEEE basic operations only, so
//! results are bit-identical on every platform (deterministic simulation).

use super::bictcp::Bictcp;
use super::controller::Saved;
use super::hystart::{HyStart, Sample};
use super::reno::Reno;
use super::{Checkpoint, CongestionController, ConnInfo, Window};
use crate::time::{Duration, Instant};

/// RFC 9438 §4.1.1 C, in segments / s³.
pub const C: f64 = 0.4;
/// RFC 9438 §4.1.1 β_cubic.
pub const BETA: f64 = 0.7;
/// RFC 9438 §4.3 α_cubic = 3(1 − β)/(1 + β) ≈ 0.5294.
pub const ALPHA: f64 = 3.0 * (1.0 - BETA) / (1.0 + BETA);

/// CUBIC's state. A `Copy` value: the sender's undo checkpoint is a copy of it, so a
/// spurious congestion event rolls all of it back (RFC 9438 §4.9).
#[derive(Copy, Clone, Debug)]
pub struct Cubic {
    /// Slow start, and congestion avoidance while there is no SRTT.
    reno: Reno,
    /// RFC 9438 §4.7 fast convergence (on by default, as in Linux).
    fast_convergence: bool,
    /// W_max, segments: the window just before the last reduction (after fast convergence).
    w_max: f64,
    /// K, seconds: when W_cubic reaches its origin.
    k: f64,
    /// The plateau of the current curve: max(W_max, cwnd_epoch) (Linux bic_origin_point).
    origin: f64,
    /// Start of the current congestion-avoidance stage; `None` until its first ACK.
    epoch_start: Option<Instant>,
    /// cwnd at epoch_start, segments.
    cwnd_epoch: f64,
    /// W_est, segments: the Reno-friendly window estimate.
    w_est: f64,
    /// cwnd_prior, segments: cwnd at the last congestion event.
    cwnd_prior: f64,
    /// The next epoch is the first after a timeout (§4.8).
    after_timeout: bool,
    /// Remainder of the byte growth, numerator over cwnd (keeps sub-byte increments).
    carry: u64,
    /// Linux's HyStart (off unless the sender turns it on).
    hystart: HyStart,
    /// `cubic-linux`: congestion avoidance and ssthresh as Linux computes them (`bic`).
    linux: bool,
    /// Bytes acknowledged short of a whole packet (`cubic-linux` counts packets).
    acked_carry: u32,
    bic: Bictcp,
}

impl Default for Cubic {
    fn default() -> Self {
        Cubic {
            reno: Reno::default(),
            fast_convergence: true,
            w_max: 0.0,
            k: 0.0,
            origin: 0.0,
            epoch_start: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            cwnd_prior: 0.0,
            after_timeout: false,
            carry: 0,
            hystart: HyStart::default(),
            linux: false,
            acked_carry: 0,
            bic: Bictcp::default(),
        }
    }
}

/// Milliseconds (Linux jiffies at HZ = 1000).
fn ms(t: Instant) -> u64 {
    t.as_micros() / 1000
}

/// Cube root of `x` (0 for x ≤ 0 or NaN), by Newton's method from basic IEEE operations.
pub fn cbrt(x: f64) -> f64 {
    if x.is_nan() || x <= 0.0 {
        return 0.0;
    }
    if x.is_infinite() {
        return x;
    }
    // fdlibm's first guess (exponent / 3 in the high word), good to ~5 bits.
    let hi = (x.to_bits() >> 32) / 3 + 0x2A9F_7893;
    let mut y = f64::from_bits(hi << 32).max(f64::MIN_POSITIVE);
    // After one step y ≥ ∛x (AM–GM) and the iterates fall monotonically: stop when they
    // no longer do. The bound only guards pathological starting points.
    y = (2.0 * y + x / (y * y)) / 3.0;
    for _ in 0..2000 {
        let next = (2.0 * y + x / (y * y)) / 3.0;
        if next >= y {
            break;
        }
        y = next;
    }
    y
}

/// Segments → bytes, rounded down, saturating (NaN → 0).
fn bytes(seg: f64, mss: u64) -> u64 {
    (seg * mss as f64) as u64
}

/// Bytes → segments.
fn segs(b: u64, mss: u64) -> f64 {
    b as f64 / mss as f64
}

impl Cubic {
    /// The Reno state behind slow start and the estimate without SRTT.
    pub fn reno_mut(&mut self) -> &mut Reno {
        &mut self.reno
    }
    /// Turns fast convergence (§4.7) on or off.
    pub fn set_fast_convergence(&mut self, on: bool) {
        self.fast_convergence = on;
    }
    /// W_max, segments.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }
    /// K, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }
    /// The value W_cubic tends to at t = K, segments.
    pub fn origin(&self) -> f64 {
        self.origin
    }
    /// The start of the current congestion-avoidance epoch (RFC 9438 §4.2, Linux
    /// `epoch_start`); `None` until the first ACK in congestion avoidance after a
    /// reduction or timeout.
    pub fn epoch_start(&self) -> Option<Instant> {
        self.epoch_start
    }
    /// cwnd_epoch, segments.
    pub fn cwnd_epoch(&self) -> f64 {
        self.cwnd_epoch
    }
    /// W_est, segments.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }
    /// cwnd_prior, segments.
    pub fn cwnd_prior(&self) -> f64 {
        self.cwnd_prior
    }
    /// α_cubic now in use (§4.3): ALPHA, or 1 once W_est has reached cwnd_prior.
    pub fn alpha(&self) -> f64 {
        if self.w_est >= self.cwnd_prior {
            1.0
        } else {
            ALPHA
        }
    }
    /// RFC 9438 eq. 1: W_cubic(t) = C·(t − K)³ + W_max, segments, t in seconds since the
    /// epoch (W_max here is the curve's origin).
    pub fn w_cubic(&self, t: f64) -> f64 {
        let d = t - self.k;
        C * d * d * d + self.origin
    }

    /// CUBIC as Linux computes it (`cubic-linux`, [`super::bictcp`]).
    pub fn linux() -> Cubic {
        Cubic {
            linux: true,
            ..Cubic::default()
        }
    }
    /// This is the `cubic-linux` variant (Linux `tcp_cubic.c` arithmetic) rather than
    /// RFC 9438's.
    pub fn is_linux(&self) -> bool {
        self.linux
    }
    /// The Linux state, for `cubic-linux`.
    pub fn bictcp(&self) -> Option<&Bictcp> {
        self.linux.then_some(&self.bic)
    }

    /// Replaces the hybrid slow start (`hystart`, `hystart_detect` settings).
    pub fn set_hystart(&mut self, h: HyStart) {
        self.hystart = h;
    }

    /// Linux `cubictcp_acked`: samples within 1 s of an epoch's start are discarded
    /// ("right after fast recovery"); the rest feed HyStart. True when slow start ends.
    pub fn on_rtt_sample(&mut self, s: &Sample) -> bool {
        let recent = match self.bictcp() {
            Some(b) => b
                .epoch_start()
                .is_some_and(|e| ms(s.now).saturating_sub(e) < 1000),
            None => self
                .epoch_start
                .is_some_and(|e| s.now - e < Duration::from_secs(1)),
        };
        if recent {
            return false;
        }
        self.hystart.on_sample(s)
    }

    /// Data leaves after `idle` with nothing in flight (Linux `cubictcp_cwnd_event`,
    /// `CA_EVENT_TX_START`): the epoch moves forward by the idle time, never past `now`,
    /// so an application-limited pause does not count as time on the curve.
    pub fn on_tx_start(&mut self, now: Instant, idle: Duration) {
        if self.linux {
            self.bic.on_tx_start(ms(now), idle.as_millis() as u64);
        }
        if let Some(e) = self.epoch_start {
            if !idle.is_zero() {
                self.epoch_start = Some((e + idle).min(now));
            }
        }
    }

    /// The first ACK of a congestion-avoidance stage (§4.2, §4.8).
    fn start_epoch(&mut self, now: Instant, cwnd: f64) {
        self.epoch_start = Some(now);
        self.cwnd_epoch = cwnd;
        self.w_est = cwnd;
        self.carry = 0;
        if self.after_timeout {
            // §4.8: K = 0 and W_max = cwnd at the start of this stage.
            self.w_max = cwnd;
            self.after_timeout = false;
        }
        if cwnd < self.w_max {
            self.k = cbrt((self.w_max - cwnd) / C);
            self.origin = self.w_max;
        } else {
            self.k = 0.0;
            self.origin = cwnd;
        }
    }

    /// Congestion avoidance with an RTT estimate (§4.2–§4.5).
    fn cubic_update(&mut self, now: Instant, w: &mut Window, acked: u64, rtt: Duration) {
        let mss = w.smss();
        let cwnd = w.cwnd.max(1);
        let epoch = match self.epoch_start {
            Some(e) => e,
            None => {
                self.start_epoch(now, segs(cwnd, mss));
                now
            }
        };
        let t = (now - epoch).as_secs_f64();
        // §4.3 Reno-friendly estimate, per ACK, in segments.
        self.w_est += self.alpha() * acked as f64 / cwnd as f64;
        if self.w_cubic(t) < self.w_est {
            // Reno-friendly region: follow W_est (never shrinking cwnd on an ACK).
            w.cwnd = w.cwnd.max(bytes(self.w_est, mss));
            self.carry = 0;
            return;
        }
        // §4.2 target, clamped to [cwnd, 1.5·cwnd].
        let max_target = cwnd.saturating_add(cwnd / 2);
        let target = bytes(self.w_cubic(t + rtt.as_secs_f64()), mss).clamp(cwnd, max_target);
        let num = (target - cwnd) as u128 * acked as u128 + u128::from(self.carry);
        let inc = num / cwnd as u128;
        // Less than cwnd: fits the u64 it came from.
        self.carry = (num % cwnd as u128) as u64;
        w.cwnd = w
            .cwnd
            .saturating_add(u64::try_from(inc).unwrap_or(u64::MAX));
    }
}

impl CongestionController for Cubic {
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>) {
        let mut acked = acked;
        if w.in_slow_start() {
            acked = self.reno.slow_start(w, acked);
            if acked == 0 || w.in_slow_start() {
                return;
            }
        }
        if self.linux {
            let b = &mut self.bic;
            // Linux counts packets (`tcp_cong_avoid_ai`); time in jiffies.
            let mss = w.smss();
            let delay_min = self.hystart.delay_min().map_or(0, |d| d.as_micros() as u64);
            // Whole packets only: pieces of a segment (ACK division) add up to one.
            let bytes = acked.saturating_add(u64::from(self.acked_carry));
            self.acked_carry = (bytes % mss) as u32;
            let cwnd = b.on_ack(ms(now), w.cwnd / mss, bytes / mss, delay_min);
            w.cwnd = w.cwnd.max(cwnd.saturating_mul(mss));
            return;
        }
        match srtt {
            Some(rtt) => self.cubic_update(now, w, acked, rtt),
            None => self.reno.congestion_avoidance(w, acked),
        }
    }

    fn ssthresh(&self, _now: Instant, w: &Window, _flight_size: u64) -> u64 {
        if self.linux {
            return self
                .bic
                .ssthresh(w.cwnd / w.smss())
                .saturating_mul(w.smss());
        }
        // §4.6 multiplicative decrease, from cwnd as Linux: β = 7/10 in integer bytes.
        let ssthresh = (w.cwnd as u128 * 7 / 10) as u64;
        ssthresh.max(2u64.saturating_mul(w.smss()))
    }

    fn on_congestion_event(&mut self, _now: Instant, w: &Window) {
        let mss = w.smss();
        if self.linux {
            self.bic.recalc_ssthresh(w.cwnd / mss);
            // Linux `tcp_init_cwnd_reduction`: `snd_cwnd_cnt = 0`.
            self.bic.start_reduction();
            self.reno.reset();
            return;
        }
        let cwnd = segs(w.cwnd, mss);
        // §4.7 fast convergence: release bandwidth to new flows when the window shrank.
        self.w_max = if self.fast_convergence && cwnd < self.w_max {
            cwnd * (1.0 + BETA) / 2.0
        } else {
            cwnd
        };
        self.cwnd_prior = cwnd;
        self.epoch_start = None;
        self.after_timeout = false;
        self.carry = 0;
        self.reno.reset();
        // §4.2 K as of the event, assuming the sender sets cwnd = ssthresh; recomputed
        // from the real cwnd when the next epoch starts.
        let ssthresh = segs(self.ssthresh(_now, w, 0), mss);
        self.k = cbrt((self.w_max - ssthresh) / C);
        self.origin = self.w_max.max(ssthresh);
    }

    fn on_timeout(&mut self, now: Instant, c: &ConnInfo) {
        // §4.8: the next congestion-avoidance stage starts a new curve at its plateau.
        self.epoch_start = None;
        self.after_timeout = true;
        self.carry = 0;
        // `cubictcp_state(TCP_CA_Loss)`: `bictcp_reset` and a new HyStart round.
        self.hystart.reset();
        self.bic.reset();
        self.reno.on_timeout(now, c);
    }

    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(*self)
    }

    fn on_slow_start_sample(&mut self, s: &Sample) -> bool {
        self.on_rtt_sample(s)
    }

    fn on_tx_start(&mut self, now: Instant, idle: Option<Duration>, _c: &ConnInfo) {
        if let Some(idle) = idle {
            Cubic::on_tx_start(self, now, idle);
        }
    }

    fn checkpoint(&self) -> Checkpoint {
        Checkpoint(Saved::Cubic(*self))
    }

    fn restore(&mut self, c: &Checkpoint) {
        if let Saved::Cubic(s) = c.0 {
            *self = s;
        }
    }
}

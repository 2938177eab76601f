//! Round-trip time estimation and the RTO value.
//!
//! Two estimators, chosen by [`RttEstimator`]:
//! - RFC 6298 §2 (SRTT/RTTVAR with α = 1/8, β = 1/4, RTO = SRTT + max(G, 4·RTTVAR), floored
//!   at `min_rto` (§2.4), capped at `max_rto` (§2.5)), in exact nanosecond arithmetic;
//! - Linux `tcp_rtt_estimator` + `tcp_set_rto` (net/ipv4/tcp_input.c, include/net/tcp.h;
//!   digest §2.2), in integer microseconds with Linux's scaling so numbers match Linux.
//!
//! Both share RFC 6298 §5.5 exponential backoff and a windowed min RTT (Kathleen Nichols'
//! filter as Linux `lib/win_minmax.c`, window `tcp_min_rtt_wlen` = 300 s by default).
//!
//! The caller applies Karn's rule (RFC 6298 §3): only unambiguous samples reach
//! [`Rtt::on_sample`]. A sample of zero is treated as 1 µs; huge samples saturate.

mod linux;
mod windowed_min;

pub use linux::LinuxVars;
pub use windowed_min::WindowedMin;

use crate::config::RttEstimator;
use crate::time::{dur_nanos, Duration, Instant};

/// RFC 6298 clock granularity G.
pub const GRANULARITY: Duration = Duration::from_millis(1);

/// RFC 6298 §2.1: the RTO before any sample (also Linux `TCP_TIMEOUT_INIT`).
#[cfg_attr(not(feature = "introspect"), allow(dead_code))] // used by observers
pub const INITIAL_RTO: Duration = Duration::from_secs(1);

/// RFC 6298 §5.7: the RTO to use once data flows if the SYN timed out.
#[cfg_attr(not(feature = "introspect"), allow(dead_code))] // used by observers
pub const SYN_TIMEOUT_RTO: Duration = Duration::from_secs(3);

/// Linux `sysctl_tcp_min_rtt_wlen` default: the min-RTT filter's window.
pub const MIN_RTT_WINDOW: Duration = Duration::from_secs(300);

/// The smallest sample accepted; zero samples are raised to it.
const MIN_SAMPLE: Duration = Duration::from_micros(1);

/// `d` in microseconds, saturating (Linux keeps RTT state in µs).
fn us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Nanoseconds back to a `Duration` (a `u64` of nanoseconds always fits).
fn from_ns(ns: u128) -> Duration {
    Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
}

/// Estimator state. Field names follow RFC 6298 (`srtt`, `rttvar`, `rto`) and, for the
/// Linux estimator, `struct tcp_sock` ([`LinuxVars`]).
#[derive(Clone, Debug)]
pub struct Rtt {
    kind: RttEstimator,
    /// RFC 6298 SRTT (for Linux: `srtt_us / 8`, exactly, in nanoseconds).
    srtt: Option<Duration>,
    /// RFC 6298 RTTVAR (for Linux: `mdev_us / 4`).
    rttvar: Duration,
    /// Linux estimator state (unused by RFC 6298).
    linux: LinuxVars,
    /// The RTO formula's value before floor and ceiling.
    raw_rto: Option<Duration>,
    /// RTO before backoff, after the estimator's floor/ceiling.
    rto: Duration,
    /// `rto` with the backoff applied, kept up to date (read on every ACK).
    rto_backed_off: Duration,
    min_rto: Duration,
    max_rto: Duration,
    backoff: u32,
    latest: Option<Duration>,
    min_rtt: WindowedMin,
    min_rtt_window: Duration,
    samples: u64,
    /// RFC 6298 G.
    granularity: Duration,
    /// The configured minimum RTO (`min_rto` may be raised above it after spurious
    /// timeouts, seed 004 "Min++").
    base_min_rto: Duration,
    /// The next sample re-initialises SRTT and RTTVAR (seed 004 "Reseed").
    reseed: bool,
    /// Backoff that samples do not clear (seed 004 "Back-off").
    kept_backoff: u32,
}

impl Rtt {
    /// `initial_rto` is the RTO before any sample (RFC 6298 §2.1: 1 s), capped at `max_rto`.
    /// `min_rto` is RFC 6298 §2.4's floor on RTO, or Linux's `rto_min` floor on the
    /// variance term.
    pub fn new(
        kind: RttEstimator,
        initial_rto: Duration,
        min_rto: Duration,
        max_rto: Duration,
    ) -> Self {
        Rtt {
            kind,
            srtt: None,
            rttvar: Duration::ZERO,
            linux: LinuxVars::default(),
            raw_rto: None,
            rto: initial_rto.min(max_rto),
            rto_backed_off: initial_rto.min(max_rto),
            min_rto,
            max_rto,
            backoff: 0,
            latest: None,
            min_rtt: WindowedMin::new(),
            min_rtt_window: MIN_RTT_WINDOW,
            samples: 0,
            granularity: GRANULARITY,
            base_min_rto: min_rto,
            reseed: false,
            kept_backoff: 0,
        }
    }

    /// Sets RFC 6298's clock granularity G (default [`GRANULARITY`]); applies from the
    /// next sample.
    pub fn set_granularity(&mut self, g: Duration) {
        self.granularity = g.max(MIN_SAMPLE);
    }
    /// RFC 6298's clock granularity G.
    pub fn granularity(&self) -> Duration {
        self.granularity
    }

    /// A new RTT sample `r` taken at `now`. `snd_una` (after this ACK) and `snd_nxt` let
    /// the Linux estimator decay its variance once per round trip. A valid sample clears
    /// the backoff: RFC 6298 §5 lets the RTO "collapse" after a new measurement, and Linux
    /// `tcp_ack_update_rtt` zeroes `icsk_backoff`. Also feeds the windowed min RTT.
    pub fn on_sample(&mut self, now: Instant, r: Duration, snd_una: u64, snd_nxt: u64) {
        let r = r.max(MIN_SAMPLE);
        self.latest = Some(r);
        self.update_min_rtt(now, r);
        if core::mem::take(&mut self.reseed) {
            self.srtt = None;
        }
        let first = self.srtt.is_none();
        let raw = match self.kind {
            RttEstimator::Rfc6298 => self.rfc6298(r),
            RttEstimator::Linux => {
                let m = us(r).max(1);
                self.linux
                    .estimate(first, m, us(self.min_rto), snd_una, snd_nxt);
                self.srtt = Some(from_ns(self.linux.srtt_us as u128 * 125));
                self.rttvar = from_ns(self.linux.mdev_us as u128 * 250);
                // tcp_set_rto: no floor on the RTO itself (rttvar_us ≥ rto_min already).
                Duration::from_micros(self.linux.rto_us())
            }
        };
        self.set_raw_rto(raw);
        self.backoff = self.kept_backoff;
        self.refresh_rto();
        self.samples = self.samples.saturating_add(1);
    }

    /// The RTO from the formula's value: RFC 6298 §2.4 floor then §2.5 maximum (the cap
    /// wins if they conflict); Linux `tcp_bound_rto` (a raised `min_rto` is a floor too).
    fn set_raw_rto(&mut self, raw: Duration) {
        self.raw_rto = Some(raw);
        self.rto = match self.kind {
            RttEstimator::Rfc6298 => raw.max(self.min_rto).min(self.max_rto),
            RttEstimator::Linux if self.min_rto > self.base_min_rto => {
                raw.max(self.min_rto).min(self.max_rto)
            }
            RttEstimator::Linux => raw.min(self.max_rto),
        };
    }

    /// Replaces the estimate (RFC 4015 §3.1 step 11: SRTT and RTTVAR set from the
    /// pre-timeout values and a sample) and recomputes the RTO with its bounds; clears
    /// the backoff (but not a kept one). For the Linux estimator, `srtt_us` = 8·SRTT,
    /// `mdev_us` = 4·RTTVAR and its variance term never below rto_min.
    pub fn set_estimate(&mut self, srtt: Duration, rttvar: Duration) {
        let srtt = srtt.max(MIN_SAMPLE);
        self.srtt = Some(srtt);
        self.rttvar = rttvar;
        let raw = match self.kind {
            RttEstimator::Rfc6298 => srtt + (rttvar * 4).max(self.granularity),
            RttEstimator::Linux => {
                let l = &mut self.linux;
                l.srtt_us = us(srtt).max(1).saturating_mul(8);
                l.mdev_us = us(rttvar).saturating_mul(4);
                l.rttvar_us = l.mdev_us.max(us(self.base_min_rto));
                l.mdev_max_us = l.rttvar_us;
                Duration::from_micros(l.rto_us())
            }
        };
        self.set_raw_rto(raw);
        self.backoff = self.kept_backoff;
        self.refresh_rto();
    }

    /// The next sample re-initialises SRTT and RTTVAR as a first measurement (RFC 6298
    /// §2.2; seed 004 "Reseed").
    pub fn reseed_on_next_sample(&mut self) {
        self.reseed = true;
    }
    /// A reseed is pending.
    pub fn reseed_pending(&self) -> bool {
        self.reseed
    }
    /// Samples no longer clear the backoff below `count` (seed 004 "Back-off": the
    /// count the spurious timeout reached); the backoff is at least `count` from now on.
    pub fn keep_backoff(&mut self, count: u32) {
        self.kept_backoff = count;
        self.backoff = self.backoff.max(count);
        self.refresh_rto();
    }
    /// The backoff that samples keep.
    pub fn kept_backoff(&self) -> u32 {
        self.kept_backoff
    }
    /// Raises the minimum RTO by `by` (seed 004 "Min++"), capped at the maximum.
    pub fn raise_min_rto(&mut self, by: Duration) {
        self.min_rto = (self.min_rto + by).min(self.max_rto);
        if let Some(raw) = self.raw_rto {
            self.set_raw_rto(raw);
        } else {
            self.rto = self.rto.max(self.min_rto).min(self.max_rto);
        }
        self.refresh_rto();
    }
    /// Undoes every adaptation (a genuine timeout): the configured minimum RTO, samples
    /// clear the backoff again, no reseed pending.
    pub fn reset_adaptation(&mut self) {
        self.reseed = false;
        self.kept_backoff = 0;
        if self.min_rto != self.base_min_rto {
            self.min_rto = self.base_min_rto;
            if let Some(raw) = self.raw_rto {
                self.set_raw_rto(raw);
            }
            self.refresh_rto();
        }
    }

    /// RFC 6298 §2.2/§2.3 in nanoseconds; returns SRTT + max(G, K·RTTVAR).
    fn rfc6298(&mut self, r: Duration) -> Duration {
        let r_ns = dur_nanos(r) as u128;
        let (srtt, rttvar) = match self.srtt {
            // §2.2: SRTT = R, RTTVAR = R/2.
            None => (r_ns, r_ns / 2),
            // §2.3: RTTVAR first, from the old SRTT; then SRTT. One rounding each.
            Some(old) => {
                let (old, var) = (dur_nanos(old), dur_nanos(self.rttvar));
                if old < SMALL && var < SMALL && (r_ns as u64) < SMALL {
                    // u128 division is slow, and this runs per ACK.
                    let (s, v) = step_u64(old, var, r_ns as u64);
                    (u128::from(s), u128::from(v))
                } else {
                    step_u128(old as u128, var as u128, r_ns)
                }
            }
        };
        self.srtt = Some(from_ns(srtt));
        self.rttvar = from_ns(rttvar);
        let var = (4 * rttvar).max(dur_nanos(self.granularity) as u128);
        from_ns(srtt + var)
    }

    /// A min-RTT sample that should not feed SRTT (e.g. a RACK sample); `on_sample` already
    /// calls this. Returns the new windowed min.
    pub fn update_min_rtt(&mut self, now: Instant, r: Duration) -> Duration {
        self.min_rtt
            .update(self.min_rtt_window, now, r.max(MIN_SAMPLE))
    }

    /// The estimator this instance runs.
    pub fn kind(&self) -> RttEstimator {
        self.kind
    }
    /// SRTT, once a sample was taken. For Linux: `srtt_us / 8` without truncation.
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }
    /// RTTVAR (RFC 6298); for Linux the mean deviation `mdev_us / 4`. Linux's RTO uses
    /// `rttvar_us` instead (see [`Rtt::linux_vars`]).
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
    /// The most recent sample.
    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }
    /// The windowed min RTT (Linux `tcp_min_rtt`; RFC 8985 RACK.min_RTT).
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt.get()
    }
    /// The min-RTT filter itself.
    pub fn min_rtt_filter(&self) -> &WindowedMin {
        &self.min_rtt
    }
    /// The window over which RACK.min_RTT is the minimum.
    pub fn min_rtt_window(&self) -> Duration {
        self.min_rtt_window
    }
    /// Sets the min-RTT window (Linux `tcp_min_rtt_wlen`); applies from the next sample.
    pub fn set_min_rtt_window(&mut self, win: Duration) {
        self.min_rtt_window = win;
    }
    /// At least one RTT sample was taken.
    pub fn has_sample(&self) -> bool {
        self.srtt.is_some()
    }
    /// Samples taken so far.
    pub fn sample_count(&self) -> u64 {
        self.samples
    }
    /// The Linux estimator's state, if this is the Linux estimator and it has a sample.
    pub fn linux_vars(&self) -> Option<LinuxVars> {
        (self.kind == RttEstimator::Linux && self.has_sample()).then_some(self.linux)
    }
    /// The RTO formula before floor and ceiling: SRTT + max(G, 4·RTTVAR) for RFC 6298,
    /// (srtt_us >> 3) + rttvar_us for Linux. `None` before the first sample.
    pub fn raw_rto(&self) -> Option<Duration> {
        self.raw_rto
    }
    /// The floor on RTO (RFC 6298 §2.4) or on its variance term (Linux).
    pub fn min_rto(&self) -> Duration {
        self.min_rto
    }
    /// The cap on RTO (RFC 6298 §2.5).
    pub fn max_rto(&self) -> Duration {
        self.max_rto
    }
    /// The RTO without backoff.
    pub fn base_rto(&self) -> Duration {
        self.rto
    }
    /// The RTO with exponential backoff (RFC 6298 §5.5; Linux `inet_csk_rto_backoff`):
    /// base_rto · 2^backoff, capped at the maximum.
    #[allow(clippy::misnamed_getters)] // `rto` is the base; this is it backed off
    pub fn rto(&self) -> Duration {
        self.rto_backed_off
    }
    fn refresh_rto(&mut self) {
        self.rto_backed_off = if self.backoff >= 64 {
            self.max_rto
        } else {
            let ns = (dur_nanos(self.rto) as u128) << self.backoff;
            from_ns(ns).min(self.max_rto)
        };
    }
    /// One more doubling (RFC 6298 §5.5), after a timeout.
    pub fn backoff(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
        self.refresh_rto();
    }
    /// Takes back the last `backoff` (its retransmission never left the host).
    pub fn unbackoff(&mut self) {
        self.backoff = self.backoff.saturating_sub(1).max(self.kept_backoff);
        self.refresh_rto();
    }
    /// Consecutive timeouts backing RTO off (RFC 6298 §5.5).
    pub fn backoff_count(&self) -> u32 {
        self.backoff
    }
    /// Ends the backoff, down to what `keep_backoff` kept (RFC 6298 §5.7).
    pub fn reset_backoff(&mut self) {
        self.backoff = self.kept_backoff;
        self.refresh_rto();
    }
    /// Sets the unbacked-off RTO directly (RFC 6298 §5.7: 3 s after a SYN timeout), capped
    /// at the maximum. The next sample recomputes it.
    pub fn set_base_rto(&mut self, rto: Duration) {
        self.rto = rto.min(self.max_rto);
        self.refresh_rto();
    }
}

/// Below this (36 years in ns) [`step_u64`] cannot overflow: 7·SRTT + R < 8·2⁶⁰ = 2⁶³
/// and 3·RTTVAR + |SRTT − R| < 4·2⁶⁰ = 2⁶², so it computes exactly what [`step_u128`]
/// does (the same integers, the same floor divisions).
const SMALL: u64 = 1 << 60;

/// RFC 6298 §2.3 in u64 nanoseconds, for SRTT, RTTVAR and R below [`SMALL`]: (SRTT, RTTVAR).
fn step_u64(old: u64, var: u64, r: u64) -> (u64, u64) {
    ((7 * old + r) / 8, (3 * var + old.abs_diff(r)) / 4)
}

/// RFC 6298 §2.3 in u128 nanoseconds (any Duration): (SRTT, RTTVAR).
fn step_u128(old: u128, var: u128, r: u128) -> (u128, u128) {
    ((7 * old + r) / 8, (3 * var + old.abs_diff(r)) / 4)
}

#[cfg(test)]
mod tests;

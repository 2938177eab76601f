//! Background traffic: non-TCP packet streams that share the forward bottleneck queue with
//! the measured connections, so that they see queueing delay and drop-tail losses made by
//! other traffic (seed 002's Tmix background, seed 004's CBR sources). Their packets take
//! queue space and link time and are then forgotten: they are not reported as flows.
//!
//! Two kinds, each a `[[background]]` table (see [`crate::scenario`]):
//! - `cbr`: a constant-bit-rate stream of `packet_bytes` packets at `rate_mbps` (ns-2's
//!   CBR agent, as seed 004's dumbbell used).
//! - `bursts`: bursts arriving as a Poisson process (`rate_per_s`), each of a size drawn
//!   from a heavy-tailed distribution (`pareto` with shape `shape`, or `lognormal` with σ
//!   `shape`; `exponential` and `fixed` for comparison), rounded up to whole packets and
//!   sent back to back at `rate_mbps`.
//!   Overlapping bursts add up: an on/off aggregate whose heavy-tailed burst sizes make the
//!   load self-similar, the property Tmix-like web background traffic is used for.
//!
//! - `tcp`: responsive background — short TCP connections, each a real lossrec
//!   `Sender`/`Receiver` pair with the source's preset, arriving as a Poisson process
//!   (`rate_per_s`, or `load` × the forward rate ÷ the mean size) with sizes drawn like
//!   the bursts'. Unlike `bursts`, which send at line rate whatever the queue does, they
//!   slow down when the bottleneck drops their packets (the reason web background traffic
//!   is generated as TCP connections: ns-2's PackMime and Tmix replay connections, not
//!   packets). They share both bottleneck queues with the measured flows but are reported
//!   only in their source's counters, never among the measured flows.
//!
//! Each source draws from its own seeded stream ([`BACKGROUND`] + its index), so the same
//! seed gives the same background whatever the measured senders do; the queue they meet
//! does depend on the senders, as in a real shared link.

use crate::rng::Stream;

/// Base of the random-stream ids of background sources (source `k` uses `BACKGROUND + k`).
pub const BACKGROUND: u64 = 2 << 32;

/// Most background sources a scenario may declare.
pub const MAX_SOURCES: usize = 64;

/// The distribution of burst sizes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum BurstDist {
    Fixed,
    Exponential,
    /// Pareto with shape α > 1 and the given mean (x_m = mean · (α − 1) / α).
    Pareto {
        shape: f64,
    },
    /// Lognormal with the given mean and σ of the underlying normal.
    Lognormal {
        sigma: f64,
    },
}

impl BurstDist {
    /// One burst size in bytes (at least 1), mean `mean`, capped at `max`.
    pub fn draw(self, mean: f64, max: u64, rng: &mut Stream) -> u64 {
        let x = match self {
            BurstDist::Fixed => mean,
            BurstDist::Exponential => rng.exponential(mean),
            BurstDist::Pareto { shape } => {
                let xm = mean * (shape - 1.0) / shape;
                // 1 - unit() is in (0, 1]: the power never divides by zero.
                xm / (1.0 - rng.unit()).powf(1.0 / shape)
            }
            BurstDist::Lognormal { sigma } => {
                let mu = mean.ln() - sigma * sigma / 2.0;
                let u1 = 1.0 - rng.unit();
                let u2 = rng.unit();
                let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
                (mu + sigma * z).exp()
            }
        };
        (x.round().clamp(1.0, 1e15) as u64).clamp(1, max.max(1))
    }
}

/// What a source sends.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SourceKind {
    Cbr,
    Bursts {
        rate_per_s: f64,
        mean_bytes: f64,
        dist: BurstDist,
        max_bytes: u64,
    },
    /// Short TCP connections (see the module doc).
    Tcp {
        rate_per_s: f64,
        mean_bytes: f64,
        dist: BurstDist,
        max_bytes: u64,
        /// The senders' preset (a name of `lossrec::PRESETS`).
        preset: &'static str,
        /// Arrivals while this many of the source's connections are open are turned away.
        max_open: u32,
    },
}

/// One `[[background]]` source.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SourceSpec {
    pub kind: SourceKind,
    /// The rate its packets are sent at (CBR: its rate; bursts: each burst's rate).
    pub rate_bps: u64,
    /// Wire size of its packets.
    pub packet_bytes: u64,
    pub start_ns: u64,
    pub stop_ns: Option<u64>,
}

impl SourceSpec {
    /// Gap between two packets of `bytes` at the source's rate, at least 1 ns.
    pub fn gap_ns(&self, bytes: u64) -> u64 {
        let bits = u128::from(bytes) * 8 * 1_000_000_000;
        u64::try_from(bits.div_ceil(u128::from(self.rate_bps.max(1))))
            .unwrap_or(u64::MAX)
            .max(1)
    }

    /// Whether the source still sends at `t`.
    pub fn active(&self, t: u64) -> bool {
        t >= self.start_ns && self.stop_ns.is_none_or(|s| t < s)
    }
}

/// Per-source counters (the background is not reported as flows; tests read these).
/// `packets`, `bytes` and `dropped` count what the source offered to the forward
/// bottleneck queue and what that queue dropped (for `tcp`: data segments, wire bytes).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SourceStats {
    pub packets: u64,
    pub bytes: u64,
    pub dropped: u64,
    pub bursts: u64,
    /// `tcp`: connections started, finished, and turned away at `max_open`.
    pub connections: u64,
    pub finished: u64,
    pub rejected: u64,
    /// `tcp`: bytes delivered in order to the receivers (finished and still open).
    pub delivered_bytes: u64,
    /// `tcp`: retransmissions and timeouts of its senders.
    pub retransmits: u64,
    pub rtos: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mean_of(d: BurstDist, n: u64) -> f64 {
        let mut r = Stream::new(4, BACKGROUND);
        (0..n)
            .map(|_| d.draw(50_000.0, u64::MAX, &mut r))
            .sum::<u64>() as f64
            / n as f64
    }

    #[test]
    fn burst_sizes_have_their_mean() {
        assert_eq!(mean_of(BurstDist::Fixed, 10), 50_000.0);
        let e = mean_of(BurstDist::Exponential, 100_000);
        assert!((e - 50_000.0).abs() < 1_000.0, "{e}");
        let l = mean_of(BurstDist::Lognormal { sigma: 1.0 }, 200_000);
        assert!((l - 50_000.0).abs() < 1_500.0, "{l}");
        // Shape 2.5 has a finite variance, so the sample mean converges usefully.
        let p = mean_of(BurstDist::Pareto { shape: 2.5 }, 400_000);
        assert!((p - 50_000.0).abs() < 1_500.0, "{p}");
    }

    #[test]
    fn pareto_is_heavy_tailed_and_bounded_below() {
        let mut r = Stream::new(1, BACKGROUND + 1);
        let d = BurstDist::Pareto { shape: 1.2 };
        let xs: Vec<u64> = (0..100_000)
            .map(|_| d.draw(60_000.0, u64::MAX, &mut r))
            .collect();
        let xm: f64 = 60_000.0 * 0.2 / 1.2;
        assert!(xs.iter().all(|&x| x as f64 >= xm.floor()));
        // P(X > 100 x_m) = 100^-1.2 ≈ 0.4 %: a heavy tail an exponential would not have.
        let big = xs.iter().filter(|&&x| x as f64 > 100.0 * xm).count();
        assert!((200..700).contains(&big), "{big}");
    }

    #[test]
    fn caps_and_gaps() {
        let mut r = Stream::new(1, 1);
        for _ in 0..1000 {
            let x = BurstDist::Pareto { shape: 1.1 }.draw(1e6, 5000, &mut r);
            assert!((1..=5000).contains(&x));
        }
        let s = SourceSpec {
            kind: SourceKind::Cbr,
            rate_bps: 1_000_000,
            packet_bytes: 1000,
            start_ns: 10,
            stop_ns: Some(20),
        };
        assert_eq!(s.gap_ns(1000), 8_000_000);
        assert!(!s.active(9) && s.active(10) && s.active(19) && !s.active(20));
    }
}

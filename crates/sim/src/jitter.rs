//! RTT variability: per-packet delay jitter on one direction of the path (`[path.jitter]`
//! for data, `[path.ack_jitter]` for ACKs; see [`crate::scenario`]).
//!
//! Each packet gets an extra delay drawn from a distribution — `uniform` on `[0, 2·mean]`,
//! `exponential`, or `pareto` (shape α, heavy-tailed: the occasional long stall of a mobile
//! channel's link-layer retransmissions) — and never more than `max_ms`. Real paths vary
//! their delay this way (queueing elsewhere, wireless MAC retries, ACK compression on the
//! return path); RFC 6298's RTO exists because of it, and seed 000 §1 blames large RTOs on
//! "variance in measured RTTs ... intermediate queuing, and service variability in mobile
//! channels". Without it a simulated path has a constant RTT and spurious timeouts
//! hardly exist.
//!
//! By default the jitter does not reorder: a packet is never delivered before one that
//! left the link ahead of it (as netem does with a FIFO child qdisc — a delayed packet
//! holds up those behind it, like a link-layer retransmission). Since a FIFO link's
//! departures do not decrease, the held arrival is still within `max_ms` of the packet's
//! own undelayed arrival, so the bound holds for every packet. `reorder = true` lets each
//! packet keep its own draw.
//!
//! Draws come from the direction's own seeded stream ([`crate::rng::component`]), so the
//! same seed gives the same delays.

use crate::rng::Stream;

/// The distribution of one packet's extra delay.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum JitterDist {
    /// Uniform on `[0, 2·mean]`.
    Uniform,
    Exponential,
    /// Pareto (shifted to start at zero: Lomax) with shape α > 1 and the given mean.
    Pareto {
        shape: f64,
    },
}

/// One direction's jitter.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct JitterSpec {
    pub dist: JitterDist,
    pub mean_ns: u64,
    /// No packet is delayed more than this.
    pub max_ns: u64,
    /// Let a packet's own draw reorder it past the packets ahead of it.
    pub reorder: bool,
}

impl JitterSpec {
    /// One packet's extra delay in nanoseconds, in `[0, max_ns]`.
    pub fn draw(&self, rng: &mut Stream) -> u64 {
        let mean = self.mean_ns as f64;
        let x = match self.dist {
            JitterDist::Uniform => rng.unit() * 2.0 * mean,
            JitterDist::Exponential => rng.exponential(mean),
            // Pareto shifted to start at zero (Lomax): λ·((1−U)^(−1/α) − 1), mean λ/(α−1).
            JitterDist::Pareto { shape } => {
                let lambda = mean * (shape - 1.0);
                // 1 − unit() is in (0, 1]: the power never divides by zero.
                lambda * ((1.0 - rng.unit()).powf(-1.0 / shape) - 1.0)
            }
        };
        (x.max(0.0).round().min(self.max_ns as f64)) as u64
    }
}

/// A direction's jitter state: its spec, its stream, and the latest arrival it has given
/// (packets are held behind it unless the spec reorders).
#[derive(Debug)]
pub struct Jitter {
    pub spec: JitterSpec,
    rng: Stream,
    last: u64,
}

impl Jitter {
    pub fn new(spec: JitterSpec, rng: Stream) -> Jitter {
        Jitter { spec, rng, last: 0 }
    }

    /// The arrival time of a packet that would arrive at `t` without jitter. Packets must
    /// be given in the order they left the link (non-decreasing `t` for one link).
    pub fn arrival(&mut self, t: u64) -> u64 {
        let at = t.saturating_add(self.spec.draw(&mut self.rng));
        if self.spec.reorder {
            return at;
        }
        self.last = self.last.max(at);
        self.last
    }

    /// `t` plus a draw, neither held behind earlier packets nor holding later ones (a
    /// packet another model already reorders).
    pub fn unheld(&mut self, t: u64) -> u64 {
        t.saturating_add(self.spec.draw(&mut self.rng))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(dist: JitterDist, reorder: bool) -> JitterSpec {
        JitterSpec {
            dist,
            mean_ns: 5_000_000,
            max_ns: 40_000_000,
            reorder,
        }
    }

    #[test]
    fn draws_have_their_mean_and_stay_bounded() {
        for (d, tol) in [
            (JitterDist::Uniform, 0.02),
            (JitterDist::Exponential, 0.03),
            (JitterDist::Pareto { shape: 2.5 }, 0.06),
        ] {
            let s = spec(d, false);
            let mut r = Stream::new(7, 99);
            let xs: Vec<u64> = (0..200_000).map(|_| s.draw(&mut r)).collect();
            assert!(xs.iter().all(|&x| x <= s.max_ns), "{d:?}");
            let mean = xs.iter().sum::<u64>() as f64 / xs.len() as f64;
            // The cap at 8× the mean trims a little of the exponential's and Pareto's tail.
            assert!((mean / 5e6 - 1.0).abs() < tol + 0.03, "{d:?}: {mean}");
            assert!(
                xs.iter().any(|&x| x < 500_000),
                "{d:?}: some packets barely delayed"
            );
        }
    }

    #[test]
    fn same_seed_same_delays_other_seed_other_delays() {
        let s = spec(JitterDist::Exponential, false);
        let run = |seed| {
            let mut j = Jitter::new(s, Stream::new(seed, 1));
            (0..100u64)
                .map(|k| j.arrival(k * 1_000_000))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    #[test]
    fn without_reordering_arrivals_keep_order_and_the_bound() {
        let s = spec(JitterDist::Pareto { shape: 1.5 }, false);
        let mut j = Jitter::new(s, Stream::new(1, 2));
        let mut prev = 0;
        for k in 0..100_000u64 {
            let t = k * 120_000; // a packet every 0.12 ms, far below the jitter
            let a = j.arrival(t);
            assert!(a >= prev && a >= t && a - t <= s.max_ns);
            prev = a;
        }
        let mut j = Jitter::new(spec(JitterDist::Uniform, true), Stream::new(1, 2));
        let arr: Vec<u64> = (0..1000u64).map(|k| j.arrival(k * 120_000)).collect();
        assert!(
            arr.windows(2).any(|w| w[1] < w[0]),
            "reorder = true reorders"
        );
    }
}

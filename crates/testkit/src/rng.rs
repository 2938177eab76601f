//! The one seeded RNG: one stream per component, derived from a run's seed.
//!
//! Every random decision (a link's loss model, reordering, workload arrivals, a property
//! test's path) draws from its own [`Stream`], seeded from `(seed, component id)`. Adding a
//! component, or a component drawing more numbers, therefore never shifts another
//! component's draws: a scenario with data loss gives the same losses whether or not ACK
//! loss is also enabled.

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

/// SplitMix64's finaliser: a bijective mix so nearby seeds give unrelated streams.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One component's random stream (PCG-64 MCG: small, fast, good enough for simulation).
#[derive(Clone, Debug)]
pub struct Stream(Pcg64Mcg);

impl Stream {
    /// The stream of component `id` in the run seeded with `seed`.
    pub fn new(seed: u64, id: u64) -> Stream {
        Stream(Pcg64Mcg::seed_from_u64(
            mix64(seed) ^ mix64(id.wrapping_mul(0x2545_F491_4F6C_DD1D)),
        ))
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }
    /// Uniform in [0, 1) with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    /// True with probability `p` (exactly never for p ≤ 0, always for p ≥ 1).
    pub fn chance(&mut self, p: f64) -> bool {
        if p <= 0.0 {
            false
        } else if p >= 1.0 {
            true
        } else {
            self.unit() < p
        }
    }
    /// Uniform integer in [lo, hi] (inclusive); `lo` when the range is empty.
    pub fn between(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        let span = hi - lo + 1;
        if span == 0 {
            return self.next_u64();
        }
        // Lemire's multiply-shift; the bias (< span / 2^64) is irrelevant here.
        lo + ((u128::from(self.next_u64()) * u128::from(span)) >> 64) as u64
    }
    /// An exponentially distributed value with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        // 1 - unit() is in (0, 1], so ln never sees zero.
        -(1.0 - self.unit()).ln() * mean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| Stream::new(7, 1).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        let mut x = Stream::new(7, 1);
        let mut y = Stream::new(7, 2);
        let mut z = Stream::new(8, 1);
        let (x1, y1, z1) = (x.next_u64(), y.next_u64(), z.next_u64());
        assert!(x1 != y1 && x1 != z1 && y1 != z1);
    }

    #[test]
    fn unit_and_between_stay_in_range() {
        let mut s = Stream::new(1, 1);
        for _ in 0..10_000 {
            let u = s.unit();
            assert!((0.0..1.0).contains(&u));
            let b = s.between(3, 9);
            assert!((3..=9).contains(&b));
        }
        assert_eq!(s.between(5, 5), 5);
        assert_eq!(s.between(6, 5), 6);
    }

    #[test]
    fn chance_matches_probability() {
        let mut s = Stream::new(42, 3);
        let hits = (0..100_000).filter(|_| s.chance(0.1)).count();
        assert!((9_000..11_000).contains(&hits), "{hits}");
        assert!(!s.chance(0.0) && s.chance(1.0));
    }

    #[test]
    fn exponential_mean() {
        let mut s = Stream::new(3, 5);
        let n = 50_000;
        let mean = (0..n).map(|_| s.exponential(2.0)).sum::<f64>() / n as f64;
        assert!((mean - 2.0).abs() < 0.05, "{mean}");
    }
}

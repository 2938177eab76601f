//! Reordering: chosen packets take an extra delay on top of the link's, so packets sent after
//! them overtake them. Packets are chosen by index among their flow's packets in that
//! direction (`packets`), and/or at random with probability `fraction`; the extra delay is
//! `delay_ms`, or uniform in `[delay_ms, delay_max_ms]` when a maximum is given. A delayed
//! packet does not hold back the queue behind it.

use crate::rng::Stream;

/// Reordering parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct ReorderSpec {
    /// Sorted, deduplicated packet indices.
    pub packets: Vec<u64>,
    pub fraction: f64,
    pub delay_ns: u64,
    pub delay_max_ns: Option<u64>,
}

/// Reordering state: its own random stream.
#[derive(Clone, Debug)]
pub struct Reorder {
    spec: ReorderSpec,
    rng: Stream,
    /// Packets delayed so far.
    pub delayed: u64,
}

impl Reorder {
    pub fn new(spec: ReorderSpec, rng: Stream) -> Reorder {
        Reorder {
            spec,
            rng,
            delayed: 0,
        }
    }

    /// Extra delay in nanoseconds for the flow's packet number `index` (0 = not reordered).
    pub fn extra(&mut self, index: u64) -> u64 {
        let chosen = self.spec.packets.binary_search(&index).is_ok();
        // Draw for every packet so one packet's choice never shifts the draws of the next.
        let random = self.rng.chance(self.spec.fraction);
        if !(chosen || random) {
            return 0;
        }
        self.delayed += 1;
        match self.spec.delay_max_ns {
            Some(max) => self.rng.between(self.spec.delay_ns, max),
            None => self.spec.delay_ns,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_packets_get_the_fixed_delay() {
        let spec = ReorderSpec {
            packets: vec![2, 5],
            fraction: 0.0,
            delay_ns: 7,
            delay_max_ns: None,
        };
        let mut r = Reorder::new(spec, Stream::new(1, 3));
        let d: Vec<u64> = (0..7).map(|i| r.extra(i)).collect();
        assert_eq!(d, vec![0, 0, 7, 0, 0, 7, 0]);
    }

    #[test]
    fn fraction_and_uniform_delay() {
        let spec = ReorderSpec {
            packets: vec![],
            fraction: 0.2,
            delay_ns: 10,
            delay_max_ns: Some(20),
        };
        let mut r = Reorder::new(spec, Stream::new(1, 3));
        let d: Vec<u64> = (0..50_000).map(|i| r.extra(i)).collect();
        let n = d.iter().filter(|&&x| x > 0).count();
        assert!((9_000..11_000).contains(&n), "{n}");
        assert!(d.iter().all(|&x| x == 0 || (10..=20).contains(&x)));
    }
}

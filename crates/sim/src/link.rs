//! One direction of the bottleneck: a drop-tail FIFO served at a fixed rate, then a fixed
//! propagation delay; and the delay spikes that stall the path.
//!
//! A packet of `size` bytes entering at `now` waits until every packet ahead of it has been
//! serialised, takes `size · 8 / rate` to serialise, then `delay` to propagate. The queue holds
//! at most `queue_packets` packets (or `queue_bytes` bytes), counting the one being
//! serialised; a packet that would exceed the limit is dropped (drop-tail).
//!
//! With `ecn_mark_packets = K` the queue marks instead of waiting to drop: an ECT packet
//! that arrives to find K or more packets ahead of it leaves marked CE (RFC 3168 §5; a
//! step threshold as DCTCP's `K`, RFC 8257 §3.1). Not-ECT packets are never marked, and
//! the drop-tail limit still applies to everything.
//!
//! Sizes on the wire are the payload plus [`HEADER_BYTES`] (IPv4 20 + TCP 20 + timestamp
//! option 12), for every packet including pure ACKs and SYNs, whatever options are actually
//! in use; link-layer framing is not counted.

use crate::rng::{component, mix64};
use std::collections::VecDeque;

/// Bytes added to every payload on the wire: IPv4 (20) + TCP (20) + timestamps option (12).
pub const HEADER_BYTES: u64 = 52;

/// How many packets or bytes the drop-tail queue holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
}

/// One direction's parameters.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LinkSpec {
    pub rate_bps: u64,
    /// One-way propagation delay in nanoseconds.
    pub delay_ns: u64,
    pub queue: QueueLimit,
    /// Mark ECT packets CE when this many packets are ahead of them (`None`: never).
    pub ecn_mark_packets: Option<u64>,
}

/// A link's state: when the transmitter is next free, and the departure times of what is
/// queued (a ring buffer, so steady state allocates nothing).
#[derive(Debug)]
pub struct Link {
    pub spec: LinkSpec,
    busy_until: u64,
    fifo: VecDeque<(u64, u64)>,
    queued_bytes: u64,
    /// Packets dropped because the queue was full.
    pub queue_drops: u64,
    /// ECT packets marked CE.
    pub ce_marks: u64,
    /// The last serialisation time computed, with its size and rate: a direction carries
    /// packets of one or two sizes (full segments, bare ACKs), so most packets reuse it
    /// instead of a u64 division each (issue 29, the simulator's share).
    last_tx: Option<(u64, u64, u64)>,
}

impl Link {
    pub fn new(spec: LinkSpec) -> Link {
        Link {
            spec,
            busy_until: 0,
            fifo: VecDeque::new(),
            queued_bytes: 0,
            queue_drops: 0,
            ce_marks: 0,
            last_tx: None,
        }
    }

    /// [`Link::tx_time`], remembered for the last size and rate asked.
    fn tx_time_cached(&mut self, size: u64) -> u64 {
        let rate = self.spec.rate_bps;
        match self.last_tx {
            Some((s, r, t)) if s == size && r == rate => t,
            _ => {
                let t = self.tx_time(size);
                self.last_tx = Some((size, rate, t));
                t
            }
        }
    }

    /// Serialisation time of `size` bytes, rounded up to a nanosecond.
    pub fn tx_time(&self, size: u64) -> u64 {
        let r = self.spec.rate_bps.max(1);
        // In u64 when the numerator fits (any packet below 2.3 GB): the same ceiling,
        // without a 128-bit division per packet.
        if let Some(bits) = size.checked_mul(8_000_000_000) {
            return bits.div_ceil(r);
        }
        let bits = u128::from(size) * 8 * 1_000_000_000;
        u64::try_from(bits.div_ceil(u128::from(r))).unwrap_or(u64::MAX)
    }

    /// Offers a packet of `size` wire bytes at `now`; returns when its last bit leaves the
    /// queue (add the propagation delay for its arrival), or `None` when drop-tail drops it.
    pub fn enqueue(&mut self, now: u64, size: u64) -> Option<u64> {
        while let Some(&(depart, sz)) = self.fifo.front() {
            if depart > now {
                break;
            }
            self.fifo.pop_front();
            self.queued_bytes -= sz;
        }
        let full = match self.spec.queue {
            QueueLimit::Packets(n) => self.fifo.len() as u64 >= n,
            QueueLimit::Bytes(b) => self.queued_bytes + size > b,
        };
        if full {
            self.queue_drops += 1;
            return None;
        }
        let depart = self
            .busy_until
            .max(now)
            .saturating_add(self.tx_time_cached(size));
        self.busy_until = depart;
        self.fifo.push_back((depart, size));
        self.queued_bytes += size;
        Some(depart)
    }

    /// After a successful `enqueue` of an ECT packet: whether it leaves marked CE (at
    /// least `ecn_mark_packets` packets were ahead of it). Counts the mark.
    pub fn mark_ce(&mut self) -> bool {
        let ahead = (self.fifo.len() as u64).saturating_sub(1);
        let mark = self.spec.ecn_mark_packets.is_some_and(|k| ahead >= k);
        self.ce_marks += u64::from(mark);
        mark
    }

    /// Packets waiting or being serialised at the last `enqueue`.
    pub fn backlog(&self) -> usize {
        self.fifo.len()
    }
}

/// Periodic stalls: from `start_ns`, every `period_ns` (or once, with no period) the path
/// holds packets for a stall of `extra_ns`, or, when `extra_max_ns` is larger, of a length
/// drawn per spike uniformly from `[extra_ns, extra_max_ns]` (GPRS cell reselections last
/// 3-15 s: seed 004). A packet that would arrive during a stall arrives when it ends;
/// arrival order is kept because the mapping is monotone (every stall is shorter than the
/// period).
///
/// Spike `k`'s length is a hash of `(seed, SPIKES component, k)`, not a draw from a stream,
/// so that `adjust` needs no state and gives the same stall whatever order packets ask in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SpikeSpec {
    pub start_ns: u64,
    /// `None`: one spike only.
    pub period_ns: Option<u64>,
    pub extra_ns: u64,
    /// The longest stall; equal to `extra_ns` when every spike is the same.
    pub extra_max_ns: u64,
    /// Stop after this many spikes.
    pub count: Option<u64>,
    /// The run's seed, which draws variable stall lengths.
    pub seed: u64,
}

impl SpikeSpec {
    /// The same spikes with stall lengths drawn from `seed` (the run's seed).
    pub fn with_seed(self, seed: u64) -> SpikeSpec {
        SpikeSpec { seed, ..self }
    }

    /// How long spike `k` (0-based) stalls the path.
    pub fn extra_of(&self, k: u64) -> u64 {
        if self.extra_max_ns <= self.extra_ns {
            return self.extra_ns;
        }
        let span = u128::from(self.extra_max_ns - self.extra_ns) + 1;
        let h = mix64(mix64(self.seed) ^ mix64(component::SPIKES) ^ mix64(k.wrapping_add(1)));
        self.extra_ns + ((u128::from(h) * span) >> 64) as u64
    }

    /// The arrival time after the stall, if `t` falls in one.
    pub fn adjust(&self, t: u64) -> u64 {
        if t < self.start_ns {
            return t;
        }
        let since = t - self.start_ns;
        let (k, within) = match self.period_ns {
            Some(p) if p > 0 => (since / p, since % p),
            _ => (0, since),
        };
        if self.period_ns.is_none() && k > 0 {
            return t;
        }
        if self.count.is_some_and(|c| k >= c) {
            return t;
        }
        let extra = self.extra_of(k);
        if within < extra {
            t - within + extra
        } else {
            t
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(rate_bps: u64, queue: QueueLimit) -> Link {
        Link::new(LinkSpec {
            rate_bps,
            delay_ns: 0,
            queue,
            ecn_mark_packets: None,
        })
    }

    proptest::proptest! {
        /// The u64 path rounds up exactly as the u128 formula does, at any rate.
        #[test]
        fn tx_time_is_the_u128_ceiling(size in 0u64..(1 << 31), rate in 0u64..u64::MAX) {
            let l = link(rate, QueueLimit::Packets(10));
            let want = (u128::from(size) * 8_000_000_000).div_ceil(u128::from(rate.max(1)));
            proptest::prop_assert_eq!(u128::from(l.tx_time(size)), want);
        }
    }

    proptest::proptest! {
        /// Whatever sizes come and however the rate changes between them, the
        /// remembered serialisation time is the one computed afresh.
        #[test]
        fn cached_tx_time_is_tx_time(
            ops in proptest::collection::vec((0u64..4, 0u64..3), 1..50)
        ) {
            let mut l = link(100_000_000, QueueLimit::Packets(10));
            for (size, rate) in ops {
                let size = [40, 1500, 1, 9000][size as usize];
                l.spec.rate_bps = [100_000_000, 3, 10_000_000_000][rate as usize];
                proptest::prop_assert_eq!(l.tx_time_cached(size), l.tx_time(size));
            }
        }
    }

    #[test]
    fn serialisation_time() {
        let l = link(100_000_000, QueueLimit::Packets(10));
        assert_eq!(l.tx_time(1500), 120_000);
        let l = link(3, QueueLimit::Packets(10));
        assert_eq!(l.tx_time(1), 2_666_666_667);
    }

    #[test]
    fn back_to_back_packets_queue_behind_each_other() {
        let mut l = link(8_000_000, QueueLimit::Packets(10)); // 1 byte per µs
        assert_eq!(l.enqueue(0, 1000), Some(1_000_000));
        assert_eq!(l.enqueue(0, 1000), Some(2_000_000));
        // After the queue drained, a packet starts at once.
        assert_eq!(l.enqueue(5_000_000, 500), Some(5_500_000));
    }

    #[test]
    fn drop_tail_by_packets_counts_the_one_in_service() {
        let mut l = link(8_000_000, QueueLimit::Packets(2));
        assert!(l.enqueue(0, 1000).is_some());
        assert!(l.enqueue(0, 1000).is_some());
        assert!(l.enqueue(0, 1000).is_none());
        assert_eq!(l.queue_drops, 1);
        // The first departed at 1 ms: room for one more.
        assert_eq!(l.enqueue(1_000_000, 1000), Some(3_000_000));
        assert!(l.enqueue(1_000_000, 1000).is_none());
    }

    #[test]
    fn drop_tail_by_bytes() {
        let mut l = link(8_000_000, QueueLimit::Bytes(2500));
        assert!(l.enqueue(0, 1000).is_some());
        assert!(l.enqueue(0, 1000).is_some());
        assert!(l.enqueue(0, 1000).is_none());
        assert!(l.enqueue(0, 500).is_some());
        assert_eq!(l.backlog(), 3);
    }

    #[test]
    fn spikes_hold_packets_until_the_stall_ends() {
        let ms = 1_000_000;
        let s = SpikeSpec {
            start_ns: 100 * ms,
            period_ns: Some(1000 * ms),
            extra_ns: 30 * ms,
            extra_max_ns: 30 * ms,
            count: None,
            seed: 1,
        };
        assert_eq!(s.adjust(50 * ms), 50 * ms);
        assert_eq!(s.adjust(100 * ms), 130 * ms);
        assert_eq!(s.adjust(129 * ms), 130 * ms);
        assert_eq!(s.adjust(130 * ms), 130 * ms);
        assert_eq!(s.adjust(1110 * ms), 1130 * ms);
        let once = SpikeSpec {
            period_ns: None,
            ..s
        };
        assert_eq!(once.adjust(110 * ms), 130 * ms);
        assert_eq!(once.adjust(1110 * ms), 1110 * ms);
        let two = SpikeSpec {
            count: Some(2),
            ..s
        };
        assert_eq!(two.adjust(1110 * ms), 1130 * ms);
        assert_eq!(two.adjust(2110 * ms), 2110 * ms);
    }

    #[test]
    fn variable_spikes_draw_each_stall_from_the_range_by_seed() {
        let ms = 1_000_000;
        let s = SpikeSpec {
            start_ns: 0,
            period_ns: Some(20_000 * ms),
            extra_ns: 3_000 * ms,
            extra_max_ns: 15_000 * ms,
            count: None,
            seed: 7,
        };
        let lens: Vec<u64> = (0..200).map(|k| s.extra_of(k)).collect();
        assert!(lens
            .iter()
            .all(|&l| (3_000 * ms..=15_000 * ms).contains(&l)));
        // Spread over the range, not one value: both thirds' ends are reached.
        assert!(lens.iter().any(|&l| l < 5_000 * ms) && lens.iter().any(|&l| l > 13_000 * ms));
        // Deterministic from the seed; another seed gives other stalls.
        assert_eq!(lens, (0..200).map(|k| s.extra_of(k)).collect::<Vec<_>>());
        let other = s.with_seed(8);
        assert_ne!(
            lens,
            (0..200).map(|k| other.extra_of(k)).collect::<Vec<_>>()
        );
        // A packet inside spike k arrives when that spike's own stall ends.
        for k in [0u64, 1, 5] {
            let begin = k * 20_000 * ms;
            let end = begin + s.extra_of(k);
            assert_eq!(s.adjust(begin + ms), end);
            assert_eq!(s.adjust(end - 1), end);
            assert_eq!(s.adjust(end), end);
        }
        // A fixed range gives every spike the same stall.
        let fixed = SpikeSpec {
            extra_max_ns: 3_000 * ms,
            ..s
        };
        assert!((0..50).all(|k| fixed.extra_of(k) == 3_000 * ms));
    }
}

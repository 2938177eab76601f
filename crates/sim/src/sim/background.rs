//! Background sources on the forward bottleneck (see [`crate::background`]): each packet
//! is offered to the same drop-tail queue as the measured connections' data, then
//! forgotten once it has taken its place and link time.

use super::Sim;
use crate::background::{SourceKind, SourceSpec, SourceStats, BACKGROUND};
use crate::queue::Ev;
use crate::rng::Stream;
use crate::workload::poisson_gap;

/// The sources of a run: their specs, random streams and counters.
#[derive(Debug)]
pub(super) struct Sources {
    specs: Vec<SourceSpec>,
    rngs: Vec<Stream>,
    pub(super) stats: Vec<SourceStats>,
}

impl Sources {
    pub(super) fn new(specs: &[SourceSpec], seed: u64) -> Sources {
        Sources {
            specs: specs.to_vec(),
            rngs: (0..specs.len() as u64)
                .map(|k| Stream::new(seed, BACKGROUND + k))
                .collect(),
            stats: vec![SourceStats::default(); specs.len()],
        }
    }
}

impl Sim<'_> {
    /// Schedules every source's first arrival.
    pub(super) fn start_background(&mut self) {
        for (k, s) in self.bg.specs.iter().enumerate() {
            let at = match s.kind {
                SourceKind::Cbr => s.start_ns,
                SourceKind::Bursts { rate_per_s, .. } => s
                    .start_ns
                    .saturating_add(poisson_gap(&mut self.bg.rngs[k], rate_per_s)),
            };
            self.queue.push(at, Ev::BgArrival(k as u32));
        }
    }

    /// CBR: the stream starts. Bursts: a burst arrives (its packets start now, alongside
    /// any burst still sending) and the next arrival is drawn.
    pub(super) fn bg_arrival(&mut self, k: u32) {
        let s = self.bg.specs[k as usize];
        if !s.active(self.now) {
            return;
        }
        match s.kind {
            SourceKind::Cbr => self.bg_packet(k, u32::MAX),
            SourceKind::Bursts {
                rate_per_s,
                mean_bytes,
                dist,
                max_bytes,
            } => {
                let rng = &mut self.bg.rngs[k as usize];
                let size = dist.draw(mean_bytes, max_bytes, rng);
                let gap = poisson_gap(rng, rate_per_s);
                self.bg.stats[k as usize].bursts += 1;
                self.queue
                    .push(self.now.saturating_add(gap), Ev::BgArrival(k));
                // Whole packets: the burst is rounded up to the source's packet size.
                let packets = size.div_ceil(s.packet_bytes).min(u64::from(u32::MAX - 1));
                self.bg_packet(k, packets as u32);
            }
        }
    }

    /// Sends one packet of source `k` (`left` packets remain) and schedules the next.
    pub(super) fn bg_packet(&mut self, k: u32, left: u32) {
        let s = self.bg.specs[k as usize];
        if !s.active(self.now) || left == 0 {
            return;
        }
        let size = s.packet_bytes;
        let st = &mut self.bg.stats[k as usize];
        st.packets += 1;
        st.bytes += size;
        if self.fwd.enqueue(self.now, size).is_none() {
            st.dropped += 1;
        }
        let rest = if left == u32::MAX { left } else { left - 1 };
        if rest > 0 {
            let at = self.now.saturating_add(s.gap_ns(size));
            self.queue.push(at, Ev::BgPacket { src: k, left: rest });
        }
    }
}

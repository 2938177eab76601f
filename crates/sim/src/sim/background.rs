//! Background sources on the forward bottleneck (see [`crate::background`]): each packet
//! is offered to the same drop-tail queue as the measured connections' data, then
//! forgotten once it has taken its place and link time. A `tcp` source's connections are
//! flows of their own (slots after the measured connections' in `Sim::flows`), run by the
//! same code as the measured ones; only their start, their end and their counters are
//! handled here.

use super::Sim;
use crate::background::{SourceKind, SourceSpec, SourceStats, BACKGROUND};
use crate::flow::Flow;
use crate::queue::Ev;
use crate::rng::Stream;
use crate::workload::poisson_gap;
use crate::ScenarioError;
use lossrec::{Config, Range, Receiver, Sender};
use std::sync::Arc;

/// The sources of a run: their specs, random streams and counters.
#[derive(Debug)]
pub(super) struct Sources {
    specs: Vec<SourceSpec>,
    rngs: Vec<Stream>,
    pub(super) stats: Vec<SourceStats>,
    /// `tcp` sources: their senders' config (one copy per source).
    configs: Vec<Option<Arc<Config>>>,
    /// `tcp` sources: connections open now.
    open: Vec<u32>,
    /// The source of each background connection, by `flow index − first`.
    source_of: Vec<u32>,
    /// The flow index of the first background connection (the measured connections'
    /// count).
    pub(super) first: u32,
}

impl Sources {
    pub(super) fn new(specs: &[SourceSpec], seed: u64, first: u32) -> Sources {
        Sources {
            specs: specs.to_vec(),
            rngs: (0..specs.len() as u64)
                .map(|k| Stream::new(seed, BACKGROUND + k))
                .collect(),
            stats: vec![SourceStats::default(); specs.len()],
            configs: specs
                .iter()
                .map(|s| match s.kind {
                    SourceKind::Tcp { preset, .. } => Config::preset(preset).ok().map(Arc::new),
                    _ => None,
                })
                .collect(),
            open: vec![0; specs.len()],
            source_of: Vec::new(),
            first,
        }
    }

    /// The source of flow `i`, if it is a background connection.
    #[inline]
    pub(super) fn source(&self, i: u32) -> Option<usize> {
        let j = i.checked_sub(self.first)?;
        self.source_of.get(j as usize).map(|&k| k as usize)
    }
}

impl Sim<'_> {
    /// Schedules every source's first arrival.
    pub(super) fn start_background(&mut self) {
        for (k, s) in self.bg.specs.iter().enumerate() {
            let at = match s.kind {
                SourceKind::Cbr => s.start_ns,
                SourceKind::Bursts { rate_per_s, .. } | SourceKind::Tcp { rate_per_s, .. } => s
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
            SourceKind::Tcp {
                rate_per_s,
                mean_bytes,
                dist,
                max_bytes,
                max_open,
                ..
            } => {
                let rng = &mut self.bg.rngs[k as usize];
                let size = dist.draw(mean_bytes, max_bytes, rng);
                let gap = poisson_gap(rng, rate_per_s);
                self.queue
                    .push(self.now.saturating_add(gap), Ev::BgArrival(k));
                if self.bg.open[k as usize] >= max_open {
                    self.bg.stats[k as usize].rejected += 1;
                } else {
                    self.bg_connect(k as usize, size);
                }
            }
        }
    }

    /// A `tcp` source's connection of `size` bytes starts: a flow in the next free slot.
    fn bg_connect(&mut self, k: usize, size: u64) {
        let now = self.now();
        let Some(cfg) = self.bg.configs[k].clone() else {
            return;
        };
        let sender = match Sender::new(cfg.clone(), now) {
            Ok(s) => s,
            Err(e) => {
                self.error = Some(ScenarioError {
                    origin: self.sc.origin.clone(),
                    line: None,
                    column: None,
                    field: Some(format!("background[{k}].preset")),
                    message: e.to_string(),
                });
                return;
            }
        };
        let mut rcfg = self.sc.receiver.clone();
        rcfg.mss = cfg.mss;
        let receiver = Receiver::new(rcfg, now);
        let mut f = Box::new(Flow::new(sender, receiver, self.now, Range::new(0, size)));
        f.sender.write(now, size);
        f.sender.close(now);
        let Ok(i) = u32::try_from(self.flows.len()) else {
            self.bg.stats[k].rejected += 1;
            return;
        };
        self.flows.push(Some(f));
        self.bg.source_of.push(k as u32);
        self.bg.open[k] += 1;
        self.bg.stats[k].connections += 1;
        self.open += 1;
        self.peak_open = self.peak_open.max(self.open);
        self.after_sender(i);
    }

    /// Background connection `i` (of source `k`) has every byte acknowledged, or the run
    /// ended with it open: add it to its source's counters and free it.
    pub(super) fn bg_finish(&mut self, i: u32, k: usize, finished: bool) {
        let Some(f) = self.flows[i as usize].take() else {
            return;
        };
        let st = &mut self.bg.stats[k];
        let s = f.sender.stats();
        st.delivered_bytes += f.receiver.delivered().min(f.message.end);
        st.retransmits += s.retrans_segs;
        st.rtos += s.timeouts;
        if finished {
            st.finished += 1;
            self.bg.open[k] -= 1;
            self.open -= 1;
        }
    }

    /// A background connection's data segment met the forward queue (`dropped` there).
    pub(super) fn bg_offered(&mut self, k: usize, bytes: u64, dropped: bool) {
        let st = &mut self.bg.stats[k];
        st.packets += 1;
        st.bytes += bytes;
        st.dropped += u64::from(dropped);
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

//! Putting packets on the path: the loss models, reordering, the bottleneck queue and
//! the propagation delay decide whether and when a segment or an ACK arrives; arrivals
//! are scheduled on the event queue's lanes (see [`crate::queue`]).

use super::Sim;
use crate::link::HEADER_BYTES;
use crate::loss::PacketInfo;
use crate::trace::DropCause;
use lossrec::{Ack, IpEcn, Range, Transmit};

impl Sim<'_> {
    /// Puts a sender's segment on the forward path.
    pub(super) fn send_data(&mut self, i: u32, tx: Transmit) {
        let bg = self.bg.source(i);
        if bg.is_none() {
            if let Some(t) = self.trace.as_mut() {
                t.send(self.now, i, &tx);
            }
            if let Some(p) = self.pcap.as_mut() {
                p.data(self.now, i, &tx.segment());
            }
        }
        let mut extra = 0;
        if !tx.range.is_empty() {
            self.data_packets += 1;
            let Some(f) = self.flows[i as usize].as_deref_mut() else {
                return;
            };
            let index = f.data_idx;
            f.data_idx += 1;
            if bg.is_none() && !self.data_loss.is_none() {
                let info = PacketInfo {
                    flow: u64::from(i),
                    index,
                    range: tx.range,
                    retransmission: tx.why.is_retransmission(),
                    message: f.message,
                    mss: self.mss,
                };
                if self.data_loss.drop(&info, &mut f.tx_counts) {
                    if let Some(t) = self.trace.as_mut() {
                        t.drop_data(self.now, i, tx.range, DropCause::Loss);
                    }
                    self.sent_data(i, &tx, true);
                    return;
                }
            }
            if let Some(r) = self.data_reorder.as_mut().filter(|_| bg.is_none()) {
                extra = r.extra(index);
            }
        }
        let size = HEADER_BYTES + tx.range.len();
        let depart = self.fwd.enqueue(self.now, size);
        if let Some(k) = bg.filter(|_| !tx.range.is_empty()) {
            self.bg_offered(k, size, depart.is_none());
        }
        let Some(depart) = depart else {
            if let Some(t) = self.trace.as_mut().filter(|_| bg.is_none()) {
                t.drop_data(self.now, i, tx.range, DropCause::Queue);
            }
            self.sent_data(i, &tx, true);
            return;
        };
        self.sent_data(i, &tx, false);
        let at = self.arrival(depart, self.fwd.spec.delay_ns, extra, true);
        let mut seg = tx.segment();
        if seg.ecn.ip != IpEcn::NotEct && self.fwd.mark_ce() {
            seg.ecn.ip = IpEcn::Ce;
        }
        self.queue.push_data(at, i, extra > 0, seg);
    }

    /// Counts a data segment the sender emitted, and whether the path dropped it.
    fn sent_data(&mut self, i: u32, tx: &Transmit, lost: bool) {
        if tx.range.is_empty() {
            return;
        }
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        let retx = tx.why.is_retransmission();
        let tail_from = f.message.end.saturating_sub(4 * f.sender.mss());
        if !retx && lost && tx.range.end > tail_from && tx.range.start < f.message.end {
            f.counters.tail_drops += 1;
        }
        if retx && lost {
            f.counters.lost_retransmits += 1;
            if f.episodes.in_fast_recovery() {
                f.counters.lost_fast_retransmits += 1;
            }
        }
        f.episodes.on_send(retx, lost);
    }

    /// Puts a receiver's ACK on the reverse path.
    pub(super) fn send_ack(&mut self, i: u32, ack: Ack) {
        let measured = self.measured(i);
        if measured {
            self.rx_ack(i, &ack);
        }
        let mut extra = 0;
        if ack.syn.is_none() && measured {
            let Some(f) = self.flows[i as usize].as_deref_mut() else {
                return;
            };
            let index = f.ack_idx;
            f.ack_idx += 1;
            if !self.ack_loss.is_none() {
                let info = PacketInfo {
                    flow: u64::from(i),
                    index,
                    range: Range::default(),
                    retransmission: false,
                    message: f.message,
                    mss: self.mss,
                };
                if self.ack_loss.drop(&info, &mut f.tx_counts) {
                    if let Some(t) = self.trace.as_mut() {
                        t.drop_ack(self.now, i, &ack, DropCause::Loss);
                    }
                    return;
                }
            }
            if let Some(r) = self.ack_reorder.as_mut() {
                extra = r.extra(index);
            }
        }
        let Some(depart) = self.rev.enqueue(self.now, HEADER_BYTES) else {
            if let Some(t) = self.trace.as_mut().filter(|_| measured) {
                t.drop_ack(self.now, i, &ack, DropCause::Queue);
            }
            return;
        };
        let at = self.arrival(depart, self.rev.spec.delay_ns, extra, false);
        self.queue.push_ack(at, i, extra > 0, ack);
    }

    /// When a packet that left the bottleneck at `depart` arrives: propagation, any
    /// reordering delay, the direction's jitter (a packet the reordering model delays
    /// keeps its own draw rather than being held in line), then the delay spikes.
    fn arrival(&mut self, depart: u64, delay: u64, extra: u64, data: bool) -> u64 {
        let mut t = depart.saturating_add(delay);
        let jitter = if data {
            self.data_jitter.as_mut()
        } else {
            self.ack_jitter.as_mut()
        };
        if let Some(j) = jitter {
            t = if extra > 0 { j.unheld(t) } else { j.arrival(t) };
        }
        let t = t.saturating_add(extra);
        match &self.sc.spikes {
            Some(s) => s.with_seed(self.seed).adjust(t),
            None => t,
        }
    }
}

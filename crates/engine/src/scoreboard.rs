//! The scoreboard of RFC 6675 §3-4: every sent, unacknowledged segment in sequence order,
//! with its SACK, loss and retransmission marks, and the aggregates that give `pipe`
//! (SetPipe) and `NextSeg` without walking the whole window on every ACK.
//!
//! Segments live in a `VecDeque` ordered by sequence (sent in order, acknowledged from the
//! front), found by binary search. A SACK edge inside a segment splits it, so every byte
//! keeps exactly one state. Counters (`sacked`, `lost`, `retrans` bytes) are kept
//! incrementally; [`Scoreboard::recount`] re-derives them for the debug invariants.
//!
//! IsLost (RFC 6675 §4) is evaluated as: at least DupThresh SACKed segments above S, or more
//! than (DupThresh − 1)·SMSS SACKed bytes above S. Because that predicate only becomes true
//! as one walks down the sequence space, the un-SACKed segments below a boundary
//! (`lost_upto`) are exactly the lost ones, and the boundary only moves forward between
//! timeouts — each ACK costs O(newly SACKed + newly lost) segments, not O(window).
//! RFC 3517's variant of the byte rule and FACK's boundary (everything un-SACKed more
//! than DupThresh·SMSS below SND.FACK) move the same boundary.
//!
//! For reordering detection (digest §8.4) each ACK also records the lowest newly
//! delivered, never-retransmitted byte that lay below SND.FACK as the ACK arrived.

mod check;
mod hint;
mod nextseg;
mod parts;
pub mod proof;
mod rack;
mod sack;
mod seg;
mod summary;
pub mod timeorder;
mod undo;

use std::collections::VecDeque;

use crate::cc::rate::TxState;
use crate::packet::Range;
use crate::time::Instant;
use timeorder::{TimeOrder, NIL};

pub use rack::{Delivered, RackFilter, RackMarks};
pub use seg::{Acked, NextSegRule, SentSeg};
pub use summary::AckSummary;

const CACHE: usize = crate::packet::MAX_SACK_BLOCKS;

/// The sender's scoreboard.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSeg>,
    snd_una: u64,
    snd_nxt: u64,
    /// The byte and segment counts pipe is made of (`parts::Counts`).
    count: parts::Counts,
    /// The IsLost boundary and what lies below it (`parts::LostBoundary`).
    bound: parts::LostBoundary,
    /// Highest SACKed offset + 1 (SND.FACK); `snd_una` when nothing is SACKed.
    high_sacked: u64,
    /// RFC 6675 HighRxt: end of the highest retransmitted segment in this recovery.
    pub high_rxt: u64,
    /// RFC 6675 RescueRxt.
    pub rescue_rxt: Option<u64>,
    /// Transmissions so far (the source of `SentSeg::xmit_order`).
    xmit_counter: u64,
    /// Segments ever marked lost, a retransmission's loss counted again (Linux `tp->lost`).
    lost_total: u64,
    /// No outstanding retransmission was sent at an SND.NXT below this (Linux
    /// `lost_retrans_low`): SACKs must reach above it before any can be found lost.
    lost_retrans_low: u64,
    /// What the last rescue retransmission (NextSeg rule 4) carried.
    rescued: Option<Range>,
    /// The retransmissions a cumulative ACK removed (`parts::AckedRetrans`).
    proofs: parts::AckedRetrans,
    /// SACK tags whole segments only (Linux), not octets (RFC 6675).
    whole_segments: bool,
    /// Where NextSeg rules 1 and 3 resume (`parts::NextSegCursors`).
    cursor: parts::NextSegCursors,
    /// The previous ACK's blocks and where its marking ended (`parts::SackMemo`).
    sack_memo: parts::SackMemo,
    /// Segments split because a SACK edge fell inside them.
    splits: u64,
    /// Segments removed from the front so far: `popped + i` names segment `i` across ACKs.
    popped: u64,
    /// What the ACK being processed saw as it arrived (`parts::ThisAck`).
    this_ack: parts::ThisAck,
    /// Keep the transmit-time order (RACK needs it).
    time_order: bool,
    /// Every outstanding transmission in time order (RFC 8985 §6.2 step 5).
    tsorted: TimeOrder,
    /// RACK step 2's filter for this ACK, and the most recently sent segments it delivered.
    rack_filter: RackFilter,
    delivered: Delivered,
    /// What the last transmission changed (`undo_last_send`), once `record_sends` asked.
    last_send: Option<Box<undo::LastSend>>,
}

impl Scoreboard {
    /// An empty scoreboard at offset 0.
    pub fn new() -> Self {
        Scoreboard::default()
    }

    /// Takes `old`'s growable buffers (segments, transmit-time order), emptied, in place
    /// of this scoreboard's, which must be new (`Sender::recycle`): only capacity moves,
    /// so this scoreboard behaves as a new one does.
    pub(crate) fn reuse_storage(&mut self, old: &mut Scoreboard) {
        debug_assert!(self.segs.is_empty() && self.tsorted.is_empty());
        let mut segs = core::mem::take(&mut old.segs);
        segs.clear();
        self.segs = segs;
        self.tsorted.reuse_storage(&mut old.tsorted);
    }

    /// SND.UNA.
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    /// SND.NXT.
    pub fn snd_nxt(&self) -> u64 {
        self.snd_nxt
    }
    /// FlightSize (RFC 5681): SND.NXT − SND.UNA.
    pub fn flight_size(&self) -> u64 {
        self.snd_nxt - self.snd_una
    }
    /// Bytes SACKed above SND.UNA.
    pub fn sacked_bytes(&self) -> u64 {
        self.count.sacked_bytes
    }
    /// Segments SACKed above SND.UNA.
    pub fn sacked_segs(&self) -> u64 {
        self.count.sacked_segs
    }
    /// Bytes marked lost, retransmitted or not (RFC 6675 §4: pipe = FlightSize − SACKed −
    /// lost + retransmitted).
    pub fn lost_bytes(&self) -> u64 {
        self.count.lost_bytes
    }
    /// Bytes of lost segments retransmitted and not yet acknowledged.
    pub fn retrans_bytes(&self) -> u64 {
        self.count.retrans_bytes
    }
    /// Lost bytes awaiting retransmission.
    pub fn lost_pending_bytes(&self) -> u64 {
        self.count.lost_pending_bytes
    }
    /// SND.FACK: one past the highest SACKed byte, or SND.UNA.
    pub fn high_sacked(&self) -> u64 {
        self.high_sacked.max(self.snd_una)
    }
    /// Segments outstanding.
    pub fn len(&self) -> usize {
        self.segs.len()
    }
    /// Segments split so far because a SACK edge fell inside them.
    pub fn splits(&self) -> u64 {
        self.splits
    }
    /// Nothing outstanding.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }
    /// The outstanding segments in sequence order.
    pub fn segments(&self) -> impl DoubleEndedIterator<Item = &SentSeg> + ExactSizeIterator {
        self.segs.iter()
    }
    /// The first outstanding segment.
    pub fn head(&self) -> Option<&SentSeg> {
        self.segs.front()
    }
    /// The last outstanding segment.
    pub fn last(&self) -> Option<&SentSeg> {
        self.segs.back()
    }
    /// The highest outstanding segment is SACKed.
    pub fn last_sacked(&self) -> bool {
        self.segs.back().is_some_and(|s| s.sacked)
    }

    /// RFC 6675 SetPipe, in bytes: un-SACKed bytes not deemed lost, plus retransmitted
    /// bytes still outstanding.
    pub fn pipe(&self) -> u64 {
        self.flight_size() - self.count.sacked_bytes - self.count.lost_bytes
            + self.count.retrans_bytes
    }

    /// Records the first transmission of `[start, end)`, which must begin at SND.NXT.
    pub fn on_send_new(&mut self, now: Instant, range: Range, psh: bool, fin: bool) {
        debug_assert_eq!(range.start, self.snd_nxt);
        self.note_send(None);
        let xmit_order = self.next_xmit_order();
        self.segs.push_back(SentSeg {
            start: range.start,
            end: range.end,
            sacked: false,
            lost: false,
            retrans: false,
            ever_retrans: false,
            orig_proven: false,
            xmit_count: 1,
            first_sent: now,
            last_sent: now,
            xmit_order,
            rexmit_nxt: 0,
            psh,
            fin,
            packet_end: true,
            ts_node: NIL,
            tx: TxState::default(),
        });
        self.snd_nxt = range.end;
        if self.time_order {
            let i = self.segs.len() - 1;
            self.link(i);
        }
    }

    /// The newest segment does not end its packet: the next one continues it.
    pub fn continue_packet(&mut self) {
        if let Some(s) = self.segs.back_mut() {
            s.packet_end = false;
        }
    }

    /// Links segment `i`'s current transmission at the tail of the time order.
    fn link(&mut self, i: usize) {
        let hint = self.hint_for(i);
        let s = &mut self.segs[i];
        s.ts_node =
            self.tsorted
                .push_back_hinted(s.last_sent, s.xmit_order, (s.start, s.end), hint);
    }

    /// Segment `i` no longer counts for its transmission's node.
    fn unlink(&mut self, i: usize) {
        let id = core::mem::replace(&mut self.segs[i].ts_node, NIL);
        if id != NIL {
            self.tsorted.release(id);
        }
    }

    /// Records a retransmission of the segment starting at `start`; returns it.
    pub fn on_retransmit(&mut self, now: Instant, start: u64) -> Option<SentSeg> {
        let i = self.index_of(start)?;
        if self.last_send.is_some() {
            self.note_send(Some(self.segs[i]));
        }
        if self.count.retrans_bytes == 0 {
            self.lost_retrans_low = self.snd_nxt; // Linux `tcp_retransmit_skb`
        }
        let snd_nxt = self.snd_nxt;
        let s = &mut self.segs[i];
        s.rexmit_nxt = snd_nxt;
        if !s.retrans && !s.sacked {
            s.retrans = true;
            self.count.retrans_bytes += s.end - s.start;
            if s.lost {
                self.count.lost_pending_bytes -= s.end - s.start;
            }
        }
        self.sent_again(now, i);
        let seg = self.segs[i];
        self.high_rxt = self.high_rxt.max(seg.end);
        Some(seg)
    }

    /// A retransmission that does not count as one in flight: Linux's TLP probe
    /// (`tcp_send_loss_probe` sets only `TCPCB_EVER_RETRANS`, digest §9.3). RACK still sees
    /// the new transmit time. Does not move HighRxt.
    pub fn on_retransmit_untracked(&mut self, now: Instant, start: u64) -> Option<SentSeg> {
        let i = self.index_of(start)?;
        if self.last_send.is_some() {
            self.note_send(Some(self.segs[i]));
        }
        self.sent_again(now, i);
        Some(self.segs[i])
    }

    /// Transmit bookkeeping shared by every retransmission (RFC 8985 §6.1).
    fn sent_again(&mut self, now: Instant, i: usize) {
        self.unlink(i);
        let order = self.next_xmit_order();
        let s = &mut self.segs[i];
        s.ever_retrans = true;
        s.xmit_count += 1;
        s.last_sent = now;
        s.xmit_order = order;
        if self.time_order && s.in_time_order() {
            self.link(i);
        }
    }

    /// Segments ever marked lost (Linux `tp->lost`).
    pub fn lost_total(&self) -> u64 {
        self.lost_total
    }

    /// Records what the transmission covering `range` stamped for delivery-rate
    /// estimation (a sender that estimates it, Linux `tcp_rate_skb_sent`): on every
    /// segment it carried.
    pub fn stamp_tx(&mut self, range: Range, tx: TxState) {
        let mut i = self.segs.partition_point(|s| s.end <= range.start);
        while let Some(s) = self.segs.get_mut(i).filter(|s| s.start < range.end) {
            s.tx = tx;
            i += 1;
        }
    }

    fn next_xmit_order(&mut self) -> u64 {
        self.xmit_counter += 1;
        self.xmit_counter
    }

    /// Tag whole segments only (Linux `tcp_match_skb_to_sack`) instead of octets.
    pub fn set_whole_segments(&mut self, on: bool) {
        self.whole_segments = on;
    }

    /// Forgets `cut` bytes at the front of segment `i` in the counters.
    fn uncount(&mut self, i: usize, cut: u64) {
        let s = self.segs[i];
        if s.sacked {
            self.count.sacked_bytes -= cut;
            if s.end <= self.bound.lost_upto {
                self.bound.sacked_below_bytes -= cut;
            }
        }
        if s.lost {
            self.count.lost_bytes -= cut;
            if !s.retrans {
                self.count.lost_pending_bytes -= cut;
            }
        }
        if s.retrans {
            self.count.retrans_bytes -= cut;
        }
    }

    fn uncount_seg(&mut self, s: &SentSeg) {
        let len = s.len();
        if s.sacked {
            self.count.sacked_bytes -= len;
            self.count.sacked_segs -= 1;
            if s.end <= self.bound.lost_upto {
                self.bound.sacked_below_bytes -= len;
                self.bound.sacked_below_segs -= 1;
            }
        }
        if s.lost {
            self.count.lost_bytes -= len;
            if !s.retrans {
                self.count.lost_pending_bytes -= len;
            }
        }
        if s.retrans {
            self.count.retrans_bytes -= len;
        }
    }
}

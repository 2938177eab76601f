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
pub mod proof;
mod rack;
mod sack;
mod summary;
pub mod timeorder;
mod undo;

use std::collections::VecDeque;

use crate::cc::rate::TxState;
use crate::packet::Range;
use crate::time::Instant;
use timeorder::{TimeOrder, NIL};

pub use rack::{Delivered, RackFilter, RackMarks};
pub use summary::AckSummary;

/// One segment that was sent and is not cumulatively acknowledged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SentSeg {
    /// First stream offset.
    pub start: u64,
    /// End stream offset (exclusive).
    pub end: u64,
    /// SACKed (RFC 6675 §4 IsLost/SetPipe).
    pub sacked: bool,
    /// Deemed lost (IsLost, or marked at a timeout).
    pub lost: bool,
    /// A retransmission of it is outstanding (counts in pipe, RFC 6675 "S ≤ HighRxt").
    pub retrans: bool,
    /// Retransmitted at least once (Karn's rule, RFC 6298 §3).
    pub ever_retrans: bool,
    /// SACKed by an ACK for its original transmission (`proof`: a DSACK for it counts).
    pub orig_proven: bool,
    /// Transmissions of it so far.
    pub xmit_count: u32,
    /// When it was first sent.
    pub first_sent: Instant,
    /// When it was last sent (RACK xmit_ts).
    pub last_sent: Instant,
    /// SND.NXT when it was last retransmitted (Linux's `ack_seq` for
    /// `tcp_mark_lost_retrans`).
    pub rexmit_nxt: u64,
    /// Its current transmission's place among all transmissions: orders what was sent at
    /// one instant as a finer clock would (RACK's "sent after", RFC 8985 §6.2).
    pub xmit_order: u64,
    /// Sent with PSH.
    pub psh: bool,
    /// Carries the FIN.
    pub fin: bool,
    /// The last segment of a packet as first sent (Linux flavour; what Linux retransmits
    /// as one skb, `sender::push`).
    pub packet_end: bool,
    /// Its current transmission's node in the transmit-time order (`u32::MAX` when not
    /// linked: SACKed, lost awaiting retransmission, or the order is not kept).
    pub ts_node: u32,
    /// What its current transmission recorded for delivery-rate estimation.
    pub tx: TxState,
}

impl SentSeg {
    /// Bytes.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    /// No byte.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
    /// `[start, end)`.
    pub fn range(&self) -> Range {
        Range::new(self.start, self.end)
    }
    /// Still outstanding with its current transmission, as RACK sees it: not SACKed, and
    /// not lost while awaiting a retransmission (RFC 8985's "infinite" xmit_ts).
    pub fn in_time_order(&self) -> bool {
        !self.sacked && (!self.lost || self.retrans)
    }
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    /// Bytes newly acknowledged.
    pub bytes: u64,
    /// Send time of the newest acknowledged segment, if it was never retransmitted.
    pub rtt_sample_sent: Option<Instant>,
    /// Some acknowledged segment had been retransmitted.
    pub any_retransmitted: bool,
    /// Bytes acknowledged that had been SACKed before (already counted as delivered).
    pub was_sacked: u64,
    /// Bytes acknowledged of an un-SACKed segment the ACK ends inside (its prefix).
    pub partial: u64,
    /// It acknowledged at least one whole segment (Linux: acknowledged a packet).
    pub completes_a_segment: bool,
    /// It ended strictly inside a segment (a receiver acknowledges the segments it
    /// received whole; a slice of a divided ACK ends anywhere).
    pub ends_inside: bool,
    /// The earliest last transmission among acknowledged segments that had been
    /// retransmitted (for the timestamp check of RFC 3522 §2).
    pub oldest_retrans_sent: Option<Instant>,
    /// The earliest first transmission among the acknowledged segments: a timestamp
    /// echo older than it was not sent for any of them (RFC 7323 §4).
    pub oldest_sent: Option<Instant>,
}

/// Which NextSeg rule (RFC 6675 §4) chose a retransmission.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NextSegRule {
    /// Rule 1: the lowest lost segment above HighRxt.
    // Built only by `next_seg_fallback`, which only `introspect` users call.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    Lost,
    /// Rule 3: the lowest un-SACKed segment above HighRxt below the highest SACK.
    Unsacked,
    /// Rule 4: the once-per-recovery rescue retransmission.
    Rescue,
}

const CACHE: usize = crate::packet::MAX_SACK_BLOCKS;

/// The sender's scoreboard.
#[derive(Clone, Debug, Default)]
pub struct Scoreboard {
    segs: VecDeque<SentSeg>,
    snd_una: u64,
    snd_nxt: u64,
    sacked_bytes: u64,
    sacked_segs: u64,
    lost_bytes: u64,
    retrans_bytes: u64,
    /// Lost bytes with no retransmission outstanding: what NextSeg rule 1 may still send.
    lost_pending_bytes: u64,
    /// Every un-SACKed segment ending at or below this offset is lost.
    lost_upto: u64,
    /// SACKed bytes/segments below `lost_upto`.
    sacked_below_bytes: u64,
    sacked_below_segs: u64,
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
    /// The last few retransmitted segments a cumulative ACK removed, with how often each
    /// was retransmitted: what a DSACK for data already acknowledged can prove spurious.
    acked_retrans: [(u64, u32, u32); proof::ACKED_RETRANS],
    acked_retrans_next: usize,
    /// SACK tags whole segments only (Linux), not octets (RFC 6675).
    whole_segments: bool,
    /// NextSeg rule 1 never needs to look below this offset again.
    rule1_from: u64,
    /// `popped + index` (mod 2³²) of the segment at `rule1_from` (see `hint`).
    rule1_hint: u32,
    /// Nor does rule 3 (see `next_seg_fallback_with`).
    rule3_from: u64,
    /// Where rule 3's last walk stopped (`popped + index`, mod 2³²; see `hint`).
    rule3_hint: u32,
    /// Where the last IsLost walk stopped, the segment at `lost_upto` (likewise).
    lost_hint: u32,
    /// Blocks of the previous ACK, all already applied (Linux `recv_sack_cache`).
    sack_cache: [Range; CACHE],
    /// The same blocks as the peer sent them (before whole-segment tagging).
    sack_cache_raw: [Range; CACHE],
    /// Segments split because a SACK edge fell inside them.
    splits: u64,
    /// Segments removed from the front so far: `popped + i` names segment `i` across ACKs.
    popped: u64,
    /// Where the last SACK marking ended (`popped + index`): a growing block's next edge
    /// is almost always there, which saves a binary search over the window per ACK.
    sack_hint: u64,
    /// SND.FACK when the current ACK arrived ([`Scoreboard::begin_ack`]).
    ack_fack: u64,
    /// Lowest byte this ACK delivered (SACKed or cumulatively acknowledged, never
    /// retransmitted, not SACKed before) that lay below `ack_fack`.
    reorder_low: Option<u64>,
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
        self.sacked_bytes
    }
    /// Segments SACKed above SND.UNA.
    pub fn sacked_segs(&self) -> u64 {
        self.sacked_segs
    }
    /// Bytes marked lost, retransmitted or not (RFC 6675 §4: pipe = FlightSize − SACKed −
    /// lost + retransmitted).
    pub fn lost_bytes(&self) -> u64 {
        self.lost_bytes
    }
    /// Bytes of lost segments retransmitted and not yet acknowledged.
    pub fn retrans_bytes(&self) -> u64 {
        self.retrans_bytes
    }
    /// Lost bytes awaiting retransmission.
    pub fn lost_pending_bytes(&self) -> u64 {
        self.lost_pending_bytes
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
        self.flight_size() - self.sacked_bytes - self.lost_bytes + self.retrans_bytes
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
        if self.retrans_bytes == 0 {
            self.lost_retrans_low = self.snd_nxt; // Linux `tcp_retransmit_skb`
        }
        let snd_nxt = self.snd_nxt;
        let s = &mut self.segs[i];
        s.rexmit_nxt = snd_nxt;
        if !s.retrans && !s.sacked {
            s.retrans = true;
            self.retrans_bytes += s.end - s.start;
            if s.lost {
                self.lost_pending_bytes -= s.end - s.start;
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
            self.sacked_bytes -= cut;
            if s.end <= self.lost_upto {
                self.sacked_below_bytes -= cut;
            }
        }
        if s.lost {
            self.lost_bytes -= cut;
            if !s.retrans {
                self.lost_pending_bytes -= cut;
            }
        }
        if s.retrans {
            self.retrans_bytes -= cut;
        }
    }

    fn uncount_seg(&mut self, s: &SentSeg) {
        let len = s.len();
        if s.sacked {
            self.sacked_bytes -= len;
            self.sacked_segs -= 1;
            if s.end <= self.lost_upto {
                self.sacked_below_bytes -= len;
                self.sacked_below_segs -= 1;
            }
        }
        if s.lost {
            self.lost_bytes -= len;
            if !s.retrans {
                self.lost_pending_bytes -= len;
            }
        }
        if s.retrans {
            self.retrans_bytes -= len;
        }
    }
}

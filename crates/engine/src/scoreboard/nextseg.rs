//! The scoreboard's loss marks and NextSeg: the IsLost boundary of RFC 6675 §4 (with RFC
//! 3517's byte rule and FACK's boundary as variants), the head and timeout marks, and
//! NextSeg's rules 1, 3 and 4 with HighRxt and RescueRxt.

use super::{timeorder, NextSegRule, Scoreboard, SentSeg};
use crate::packet::Range;
use crate::time::Instant;

impl Scoreboard {
    /// Advances the IsLost boundary (RFC 6675 §4) and marks newly lost segments.
    /// Calls `on_lost` with each; returns how many.
    pub fn update_lost(&mut self, dupthresh: u32, mss: u64, on_lost: impl FnMut(Range)) -> u32 {
        let byte_limit = u64::from(dupthresh.saturating_sub(1)).saturating_mul(mss);
        self.update_lost_with(dupthresh, byte_limit, on_lost)
    }

    /// IsLost as RFC 3517 §4 words it: DupThresh discontiguous SACKed ranges, or
    /// DupThresh·SMSS SACKed bytes, above the segment.
    pub fn update_lost_3517(
        &mut self,
        dupthresh: u32,
        mss: u64,
        on_lost: impl FnMut(Range),
    ) -> u32 {
        let bytes = u64::from(dupthresh).saturating_mul(mss).saturating_sub(1);
        self.update_lost_with(dupthresh, bytes, on_lost)
    }

    /// IsLost with the byte rule "more than `byte_limit` SACKed bytes above".
    fn update_lost_with(
        &mut self,
        dupthresh: u32,
        byte_limit: u64,
        mut on_lost: impl FnMut(Range),
    ) -> u32 {
        let mut marked = 0;
        if self.count.sacked_segs == self.bound.sacked_below_segs {
            return 0; // nothing SACKed above the boundary: nothing new can be lost
        }
        let mut i = self.lost_upto_index();
        while i < self.segs.len() {
            let s = self.segs[i];
            if s.sacked {
                self.bound.sacked_below_bytes += s.len();
                self.bound.sacked_below_segs += 1;
            } else {
                let above_segs = self.count.sacked_segs - self.bound.sacked_below_segs;
                let above_bytes = self.count.sacked_bytes - self.bound.sacked_below_bytes;
                if above_segs < u64::from(dupthresh) && above_bytes <= byte_limit {
                    break;
                }
                if !s.lost {
                    self.mark_one_lost(i);
                    marked += 1;
                    on_lost(s.range());
                }
            }
            self.bound.lost_upto = s.end;
            i += 1;
        }
        self.bound.lost_hint = self.hint_for(i);
        marked
    }

    /// Marks segment `i` (not SACKed, not lost) lost; a retransmission of it still
    /// outstanding keeps it in flight (RFC 6675 HighRxt).
    fn mark_one_lost(&mut self, i: usize) {
        let s = &mut self.segs[i];
        debug_assert!(!s.lost && !s.sacked);
        s.lost = true;
        let (start, len, retrans) = (s.start, s.len(), s.retrans);
        self.count.lost_bytes += len;
        self.lost_total += 1;
        if !retrans {
            self.count.lost_pending_bytes += len;
            self.rule1_back_to(i, start);
            self.unlink(i);
        }
    }

    /// FACK (TLP draft §2.2, digest §6): every un-SACKed segment ending at or below
    /// `limit` (SND.FACK − DupThresh·SMSS) is lost. Moves the same boundary as IsLost.
    pub fn update_lost_fack(&mut self, limit: u64, mut on_lost: impl FnMut(Range)) -> u32 {
        let mut marked = 0;
        let mut i = self.lost_upto_index();
        while i < self.segs.len() && self.segs[i].end <= limit {
            let s = self.segs[i];
            if s.sacked {
                self.bound.sacked_below_bytes += s.len();
                self.bound.sacked_below_segs += 1;
            } else if !s.lost {
                self.mark_one_lost(i);
                marked += 1;
                on_lost(s.range());
            }
            self.bound.lost_upto = s.end;
            i += 1;
        }
        self.bound.lost_hint = self.hint_for(i);
        marked
    }

    /// The head segment is deemed lost (RFC 6675 §5: IsLost(HighACK + 1)).
    pub fn head_lost(&self) -> bool {
        self.segs.front().is_some_and(|s| s.lost)
    }

    /// Marks the head lost (fast retransmit entry without enough SACKs, as Linux's
    /// `tcp_mark_head_lost` does for the first segment).
    pub fn mark_head_lost(&mut self) {
        if self.segs.front().is_some_and(|s| !s.lost && !s.sacked) {
            self.mark_one_lost(0);
        }
    }

    /// RFC 6675 §5.1 / RFC 5681 §3.1 after a timeout: every un-SACKed segment is lost and no
    /// retransmission is in flight any more. O(window), once per timeout.
    pub fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.retrans = false;
            s.ts_node = timeorder::NIL;
            if !s.sacked {
                self.lost_total += u64::from(!s.lost);
                s.lost = true;
            }
        }
        self.tsorted.clear();
        self.count.retrans_bytes = 0;
        self.count.lost_bytes = self.flight_size() - self.count.sacked_bytes;
        self.count.lost_pending_bytes = self.count.lost_bytes;
        self.bound.lost_upto = self.snd_nxt;
        self.bound.sacked_below_bytes = self.count.sacked_bytes;
        self.bound.sacked_below_segs = self.count.sacked_segs;
        self.start_recovery_episode();
    }

    /// At a timeout, a SACKed head means the receiver reneged — discarded data it had
    /// SACKed (RFC 2018 §8): every SACK mark is forgotten, so that [`Self::mark_all_lost`]
    /// has it all resent (Linux `tcp_timeout_mark_lost`, `TCPSACKReneging`). Returns
    /// whether it did.
    pub fn renege_if_head_sacked(&mut self) -> bool {
        if !self.segs.front().is_some_and(|s| s.sacked) {
            return false;
        }
        for s in self.segs.iter_mut() {
            s.sacked = false;
        }
        self.count.sacked_bytes = 0;
        self.count.sacked_segs = 0;
        self.bound.sacked_below_bytes = 0;
        self.bound.sacked_below_segs = 0;
        self.high_sacked = self.snd_una;
        // Blocks the receiver sends again are news now.
        self.sack_memo.sack_cache = [Range::default(); super::CACHE];
        self.sack_memo.sack_cache_raw = [Range::default(); super::CACHE];
        true
    }

    /// Clears every loss mark (Linux `tcp_undo_cwnd_reduction(sk, true)`): a spurious
    /// timeout or fast retransmit is undone, so nothing is resent that was delivered
    /// (RFC 4015 step 8, "resume with previously unsent data"). Retransmissions still
    /// outstanding stay in flight. The transmit-time order is rebuilt (segments that were
    /// awaiting retransmission rejoin it at their last transmission). O(window log window),
    /// once per undo.
    pub fn unmark_lost(&mut self) {
        if self.count.lost_bytes == 0 {
            return;
        }
        for s in self.segs.iter_mut() {
            s.lost = false;
        }
        self.count.lost_bytes = 0;
        self.count.lost_pending_bytes = 0;
        self.bound.lost_upto = self.snd_una;
        self.bound.sacked_below_bytes = 0;
        self.bound.sacked_below_segs = 0;
        self.cursor.rule1_from = self.snd_una;
        self.cursor.rule3_from = self.snd_una;
        if self.time_order {
            self.tsorted.clear();
            let mut order: Vec<usize> = (0..self.segs.len())
                .filter(|&i| self.segs[i].in_time_order())
                .collect();
            order.sort_by_key(|&i| self.segs[i].xmit_order);
            for s in self.segs.iter_mut() {
                s.ts_node = timeorder::NIL;
            }
            for i in order {
                self.link(i);
            }
        }
    }

    /// Lost retransmissions as Linux 2.6.25–4.3 found them with FACK in Recovery
    /// (`tcp_mark_lost_retrans`): an outstanding retransmission is lost once SACKed data
    /// reaches above the SND.NXT it was sent at. It becomes lost awaiting retransmission
    /// again. Walks from the head to the last outstanding retransmission, and only when
    /// SACKs passed the lowest such SND.NXT (`lost_retrans_low`). Returns how many.
    pub fn mark_lost_retrans(&mut self, mut on_lost: impl FnMut(Range)) -> u32 {
        let received_upto = self.high_sacked;
        if self.count.retrans_bytes == 0 || received_upto <= self.lost_retrans_low {
            return 0;
        }
        let (mut left, mut new_low, mut n) = (self.count.retrans_bytes, self.snd_nxt, 0);
        let mut i = 0;
        while i < self.segs.len() && left > 0 {
            let s = self.segs[i];
            if s.retrans {
                left -= s.len();
                if received_upto > s.rexmit_nxt {
                    self.retransmission_lost(i);
                    on_lost(s.range());
                    n += 1;
                } else {
                    new_low = new_low.min(s.rexmit_nxt);
                }
            }
            i += 1;
        }
        if self.count.retrans_bytes > 0 {
            self.lost_retrans_low = new_low;
        }
        n
    }

    /// Segment `i`'s outstanding retransmission is lost: it is lost and awaits another.
    fn retransmission_lost(&mut self, i: usize) {
        self.unlink(i);
        let s = &mut self.segs[i];
        let (start, len, was_lost) = (s.start, s.len(), s.lost);
        s.retrans = false;
        s.lost = true;
        self.count.retrans_bytes -= len;
        self.count.lost_pending_bytes += len;
        self.lost_total += 1;
        if !was_lost {
            self.count.lost_bytes += len;
        }
        self.rule1_back_to(i, start);
        self.cursor.rule3_from = self.cursor.rule3_from.min(start);
    }

    /// Resets HighRxt/RescueRxt and the NextSeg cursor for a new recovery episode.
    pub fn start_recovery_episode(&mut self) {
        self.high_rxt = self.snd_una;
        self.rescue_rxt = None;
        self.cursor.rule1_from = self.snd_una;
        self.cursor.rule3_from = self.snd_una;
    }

    /// The lowest segment that is lost and has no retransmission outstanding
    /// (RFC 6675 NextSeg rule 1; also the slow-start repair after a timeout).
    ///
    /// Nothing below the cursor `rule1_from` awaits retransmission (every mark that makes a
    /// segment lost moves the cursor back to it, since RACK marks in time order, not
    /// sequence order); with nothing pending the answer costs nothing.
    pub fn next_lost(&mut self) -> Option<SentSeg> {
        if self.count.lost_pending_bytes == 0 {
            return None;
        }
        // From the cursor's remembered index: at 100,000 segments a binary search per
        // retransmission was a tenth of the per-ACK cost (issue 16's per_ack bench).
        let mut i = self.index_after(self.cursor.rule1_from, self.rule1_index_hint());
        while let Some(s) = self.segs.get(i) {
            if s.lost && !s.retrans && !s.sacked {
                let s = *s;
                self.cursor.rule1_from = s.start;
                self.cursor.rule1_hint = self.hint_for(i);
                return Some(s);
            }
            i += 1;
        }
        debug_assert!(false, "lost bytes pending but none found above the cursor");
        self.cursor.rule1_from = self.snd_nxt;
        self.cursor.rule1_hint = self.hint_for(i);
        None
    }

    /// How many segments from `from` to the end of its packet as first sent are, one
    /// after another, lost with no retransmission outstanding: what one Linux
    /// retransmission of an skb may cover (`tcp_retransmit_skb`; a SACKed or already
    /// repaired segment would have split it).
    pub fn lost_run(&self, from: u64) -> u64 {
        let i = self.index_after(from, self.rule1_index_hint());
        let mut n = 0;
        for s in self.segs.range(i..) {
            if !s.lost || s.retrans || s.sacked {
                break;
            }
            n += 1;
            if s.packet_end {
                break;
            }
        }
        n
    }

    /// RFC 6675 NextSeg rules 3 and 4, used when no new data can be sent.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn next_seg_fallback(&mut self, recovery_point: u64) -> Option<(SentSeg, NextSegRule)> {
        self.next_seg_fallback_with(recovery_point, true)
    }

    /// NextSeg rules 3 and 4, with rule 4 (the rescue retransmission) only if `rescue`
    /// (RFC 3517 and Linux have no rule 4).
    pub fn next_seg_fallback_with(
        &mut self,
        recovery_point: u64,
        rescue: bool,
    ) -> Option<(SentSeg, NextSegRule)> {
        // Rule 3 from its cursor: nothing below `rule3_from` qualifies (SACK marks stay;
        // a retransmission that stops counting moves the cursor back), so an ACK costs
        // the segments newly passed, not every SACKed one above HighRxt.
        let high = self.high_sacked();
        let from = self.high_rxt.max(self.cursor.rule3_from);
        let mut i = self.index_after(from, self.unhint(self.cursor.rule3_hint));
        while i < self.segs.len() && self.segs[i].start < high {
            let s = self.segs[i];
            if !s.sacked && !s.retrans && s.start >= self.high_rxt {
                self.cursor.rule3_from = s.start;
                self.cursor.rule3_hint = self.hint_for(i);
                return Some((s, NextSegRule::Unsacked));
            }
            i += 1;
        }
        self.cursor.rule3_from = self.segs.get(i).map_or(self.snd_nxt, |s| s.start).max(from);
        self.cursor.rule3_hint = self.hint_for(i);
        // Rule 4: once per recovery, the highest outstanding un-SACKed segment.
        if rescue && self.rescue_rxt.is_none_or(|r| self.snd_una > r) {
            if let Some(s) = self.segs.iter().rev().find(|s| !s.sacked) {
                self.rescue_rxt = Some(recovery_point);
                return Some((*s, NextSegRule::Rescue));
            }
        }
        None
    }

    /// Records a rescue retransmission without advancing HighRxt (RFC 6675 §4 rule 4).
    pub fn on_rescue_retransmit(&mut self, now: Instant, start: u64) -> Option<SentSeg> {
        let high_rxt = self.high_rxt;
        let s = self.on_retransmit(now, start);
        self.high_rxt = high_rxt;
        // The sequence space it occupies, its FIN's octet included: a DSACK of its copy
        // reports that (RFC 2883 §4), and must be recognised as the rescue's.
        self.rescued = s.map(|s| Range::new(s.start, s.end + u64::from(s.fin)));
        s
    }

    /// The sequence space the last rescue retransmission occupied (its data, and the
    /// FIN's octet when it carried the FIN).
    pub fn rescued(&self) -> Option<Range> {
        self.rescued
    }
}

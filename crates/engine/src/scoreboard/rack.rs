//! The scoreboard's side of RACK (RFC 8985 §6; decisions in [`crate::detect::rack`]): which
//! segments an ACK delivered, newest by transmit time (§6.2 step 2), the time-based loss
//! marks over the transmit-time order (§6.2 step 5), lost retransmissions, and the marks
//! of an RTO (§6.3).

use super::timeorder::{TimeOrder, TsNode, NIL};
use super::{Scoreboard, SentSeg};
use crate::cc::rate::TxState;
use crate::detect::rack::sent_after;
use crate::packet::Range;
use crate::time::{Duration, Instant};

/// RFC 8985 §6.2 step 2's filter for retransmitted segments, for the ACK being processed:
/// a retransmitted segment is skipped when the ACK's timestamp echo is older than its last
/// transmission, or when it was (re)sent less than min_RTT ago (the ACK is probably for an
/// earlier copy).
///
/// The timestamp test applies to cumulatively acknowledged segments only, as Linux does
/// (`tcp_skb_spurious_retrans`): an ACK for out-of-order data echoes the TSval of the last
/// in-order segment (RFC 7323 §4.3), never the SACKed one's, so applied to a SACKed
/// retransmission it would reject every one — the probe's SACK in RFC 8985 Figure 1
/// included.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RackFilter {
    /// The time of the ACK or timer.
    pub now: Instant,
    /// RACK.min_RTT, if sampled.
    pub min_rtt: Option<Duration>,
    /// The ACK's TSecr, in the sender's TS clock (µs + 1, see `Sender` timestamps).
    pub ts_ecr: Option<u64>,
}

impl RackFilter {
    pub(super) fn accepts(&self, s: &SentSeg, by_sack: bool) -> bool {
        if !s.ever_retrans {
            return true;
        }
        if !by_sack
            && self
                .ts_ecr
                .is_some_and(|ecr| ecr < s.last_sent.as_micros() + 1)
        {
            return false;
        }
        let rtt = self.now.saturating_duration_since(s.last_sent);
        self.min_rtt.is_none_or(|m| rtt >= m)
    }
}

/// The most recently sent segments one ACK delivered (cumulatively or by SACK), by
/// (transmit time, end sequence).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Among all of them (Linux's rate sample `prior_delivered` comes from this one).
    pub newest: Option<(Instant, u64)>,
    /// Among those RACK may use (RFC 8985 §6.2 step 2).
    pub newest_valid: Option<(Instant, u64)>,
    /// The highest-sequence one RACK may use among those SACKed, and among those
    /// cumulatively acknowledged: Linux calls `tcp_rack_advance` for each, SACKed ones
    /// first (`tcp_sacktag_write_queue`, blocks sorted), then acknowledged ones
    /// (`tcp_clean_rtx_queue`), and keeps the last one's RTT.
    last_sacked_valid: Option<(Instant, u64)>,
    last_acked_valid: Option<(Instant, u64)>,
    /// The lowest end of a never-retransmitted segment among them (F-RTO's "original
    /// data acknowledged"; Linux `FLAG_ORIG_SACK_ACKED` when at or below `high_seq`).
    pub orig_min_end: Option<u64>,
    /// A segment that was ever retransmitted was cumulatively acknowledged (Linux
    /// `FLAG_RETRANS_DATA_ACKED` from `tcp_clean_rtx_queue`).
    pub retrans_cum_acked: bool,
    /// The highest end among them (RFC 5682 §3.1 step 3a: "covers beyond RecoveryPoint").
    pub max_end: Option<u64>,
    /// What the most recently sent of them recorded when it left (`tcp_rate_skb_delivered`
    /// takes its rate sample from it), with its send time.
    pub newest_tx: Option<(TxState, Instant)>,
    /// Whole segments delivered (Linux `tp->delivered` counts packets; a partial ACK of a
    /// segment delivers none).
    pub segs: u64,
}

impl Delivered {
    pub(super) fn note(&mut self, f: &RackFilter, s: &SentSeg, by_sack: bool) {
        let me = (s.last_sent, s.xmit_order);
        let newer =
            |cur: Option<(Instant, u64)>| cur.is_none_or(|(t, e)| sent_after(me.0, me.1, t, e));
        if newer(self.newest) {
            self.newest = Some(me);
            self.newest_tx = Some((s.tx, s.last_sent));
        }
        let valid = f.accepts(s, by_sack);
        if newer(self.newest_valid) && valid {
            self.newest_valid = Some(me);
        }
        if valid {
            let last = if by_sack {
                &mut self.last_sacked_valid
            } else {
                &mut self.last_acked_valid
            };
            if last.is_none_or(|(_, e)| s.end > e) {
                *last = Some((s.last_sent, s.end));
            }
        }
        if s.ever_retrans && !by_sack {
            self.retrans_cum_acked = true;
        }
        if !s.ever_retrans {
            self.orig_min_end = Some(self.orig_min_end.map_or(s.end, |e| e.min(s.end)));
        }
        self.max_end = Some(self.max_end.map_or(s.end, |e| e.max(s.end)));
    }
}

impl Delivered {
    /// The send time whose RTT Linux's RACK keeps after this ACK (`rack.rtt_us` is set
    /// by every `tcp_rack_advance`; the last call wins).
    pub fn linux_rtt_from(&self) -> Option<Instant> {
        self.last_acked_valid
            .or(self.last_sacked_valid)
            .map(|(t, _)| t)
    }
}

/// What one pass of RACK's loss marking did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RackMarks {
    /// Bytes newly marked lost.
    pub lost_bytes: u64,
    /// Retransmissions found lost (Linux `TCPLostRetransmit`).
    pub lost_retrans: u32,
    /// The longest wait before a segment sent before RACK.segment times out (RFC 8985
    /// §6.2 step 5 `timeout`): arm the reorder timer for it.
    pub wait: Option<Duration>,
}

impl Scoreboard {
    /// Keep (or stop keeping) the transmit-time order RACK walks. Turning it on links what
    /// is outstanding in sequence order (their send times may then be out of order, which
    /// only makes detection more conservative until they are acknowledged).
    pub fn set_time_order(&mut self, on: bool) {
        if on == self.time_order {
            return;
        }
        self.time_order = on;
        self.tsorted.clear();
        for i in 0..self.segs.len() {
            self.segs[i].ts_node = NIL;
            let s = self.segs[i];
            if on && s.in_time_order() {
                self.link(i);
            }
        }
    }

    /// The transmit-time order (RFC 8985 §5.2).
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn time_order(&self) -> &TimeOrder {
        &self.tsorted
    }

    /// The first transmission of the segment at `start`, recorded earlier, actually left
    /// now, after segments recorded since (the optimistic-ACK defence's held segment,
    /// `detect::optack`): it moves to the tail of the transmit order, so RACK (RFC 8985
    /// §6.2 "sent after") sees it sent after them, and is not marked retransmitted.
    pub fn restamp(&mut self, now: Instant, start: u64) {
        let Some(i) = self.index_of(start) else {
            return;
        };
        self.unlink(i);
        let order = self.next_xmit_order();
        let s = &mut self.segs[i];
        s.last_sent = s.last_sent.max(now);
        s.first_sent = s.first_sent.max(now);
        s.xmit_order = order;
        if self.time_order && s.in_time_order() {
            self.link(i);
        }
    }

    /// RFC 8985 §6.2 step 5 (RACK_detect_loss) over the transmit-time order: every
    /// outstanding transmission sent before RACK.segment (`rack` = its xmit_ts and end_seq)
    /// is lost once `lost_after` (RACK.rtt + reo_wnd) has passed since it was sent; the
    /// others set how long to wait. A lost segment whose retransmission is outstanding is a
    /// lost retransmission: it becomes lost again (to be resent). Stops at the first
    /// transmission not sent before RACK.segment, so the cost is what it marks or waits for.
    pub fn rack_detect_lost(
        &mut self,
        rack: (Instant, u64),
        lost_after: Duration,
        now: Instant,
        mut on_lost: impl FnMut(Range, bool),
    ) -> RackMarks {
        let mut out = RackMarks::default();
        let mut at = self.tsorted.first();
        while let Some((id, n)) = at {
            if !sent_after(rack.0, rack.1, n.xmit_ts, n.order) {
                break;
            }
            let deadline = n.xmit_ts + lost_after;
            if deadline > now {
                // Deadlines are sorted as send times are: no node after this one is lost
                // yet, and the last one sent before RACK.segment waits the longest
                // (`tcp_rack_detect_loss` walks them all for that maximum; the cursor
                // finds it without). Unsorted (after `set_time_order`), walk them.
                let before = |m: &TsNode| sent_after(rack.0, rack.1, m.xmit_ts, m.order);
                if let Some((_, last)) = self.tsorted.last_before(id, before) {
                    out.wait = Some(last.xmit_ts + lost_after - now);
                    break;
                }
            }
            // Walk on before marking: marking unlinks the node.
            at = self.tsorted.next(id);
            if deadline <= now {
                self.mark_node_lost(id, &n, &mut out, &mut on_lost);
            } else {
                let w = deadline - now;
                out.wait = Some(out.wait.map_or(w, |m: Duration| m.max(w)));
            }
        }
        out
    }

    /// RFC 8985 §6.3 (RACK_mark_losses_on_RTO): the segment at SND.UNA is lost, and every
    /// other outstanding transmission sent at least `lost_after` (RACK.rtt + reo_wnd) ago.
    /// Segments sent more recently keep their marks (and retransmissions stay in flight).
    pub fn rack_mark_on_rto(
        &mut self,
        lost_after: Duration,
        now: Instant,
        mut on_lost: impl FnMut(Range, bool),
    ) -> RackMarks {
        let mut out = RackMarks::default();
        if let Some(&head) = self.segs.front() {
            if !head.sacked && (!head.lost || head.retrans) {
                self.mark_seg_lost(0, &mut out, &mut on_lost);
            }
        }
        while let Some((id, n)) = self.tsorted.first() {
            if n.xmit_ts + lost_after > now {
                break;
            }
            self.mark_node_lost(id, &n, &mut out, &mut on_lost);
        }
        self.start_recovery_episode();
        out
    }

    /// Marks lost every segment still outstanding with transmission `id`.
    fn mark_node_lost(
        &mut self,
        id: u32,
        n: &TsNode,
        out: &mut RackMarks,
        on_lost: &mut impl FnMut(Range, bool),
    ) {
        let mut i = self.index_after(n.start, self.unhint(n.seg_hint));
        while i < self.segs.len() && self.segs[i].start < n.end {
            if self.segs[i].ts_node == id {
                self.mark_seg_lost(i, out, on_lost);
            }
            i += 1;
        }
    }

    /// Segment `i` (not SACKed) is lost now; if a retransmission of it was outstanding,
    /// that retransmission is what was lost.
    fn mark_seg_lost(
        &mut self,
        i: usize,
        out: &mut RackMarks,
        on_lost: &mut impl FnMut(Range, bool),
    ) {
        let s = self.segs[i];
        debug_assert!(!s.sacked);
        if s.retrans {
            self.segs[i].retrans = false;
            self.count.retrans_bytes -= s.len();
            out.lost_retrans += 1;
        }
        debug_assert!(!s.lost || s.retrans, "already awaiting retransmission");
        if !s.lost {
            self.segs[i].lost = true;
            self.count.lost_bytes += s.len();
        }
        self.count.lost_pending_bytes += s.len();
        self.lost_total += 1;
        out.lost_bytes += s.len();
        self.unlink(i);
        // Lost marks arrive in time order, not sequence order: NextSeg rule 1 must look
        // here again.
        self.rule1_back_to(i, s.start);
        self.cursor.rule3_from = self.cursor.rule3_from.min(s.start);
        on_lost(s.range(), s.retrans);
    }
}

//! What one ACK delivered without SACK, and what a receiver that cuts its ACKs into slices
//! (ACK division, Savage, Cardwell, Wetherall, Anderson, CCR 1999 §2.1) may change.
//!
//! DeliveredData without SACK (RFC 6937 §2, RFC 9937 §6): one SMSS per duplicate ACK, and
//! on an advance Δsnd.una less what the duplicates already counted, all but the hole the
//! advance filled (Linux `tcp_remove_reno_sacks`: "one ACK acked hole, the rest eat
//! duplicate ACKs"). The hole is only filled by an advance that acknowledges a
//! retransmission the receiver has had time to answer; the other slices of a divided ACK
//! deliver nothing the duplicates did not count. Linux credits one packet to every ACK
//! that completes one, so there ten slices of one partial ACK are worth ten holes; here
//! they are worth the one the whole ACK is worth.
//!
//! With SACK under the Linux flavour, an ACK that ends inside a segment delivers nothing
//! until the ACK that completes it (`hold_partial`; Linux counts packets).
//!
//! Where the ACK ends comes from the scoreboard's walk (`Acked`): whether it completes a
//! segment (Linux acknowledges no packet otherwise, `tcp_clean_rtx_queue`) and whether it
//! ends inside one. In RTO recovery the RFC flavour also reads how much of what it covers
//! was resent or sent new (`sent_since_rto`, RFC 3465 §2.3).

use super::state::Ca;
use super::Sender;
use crate::config::resolved::Detection;
use crate::detect::reordering;
use crate::event::{EventKind, ReorderSignal};
use crate::packet::Range;
use crate::scoreboard::Acked;
use crate::time::{Duration, Instant};

impl Sender {
    /// In the RFC flavour's RTO recovery, the bytes below `cumulative` (read before the
    /// ACK is applied) that were retransmitted (at any time: a segment resent before the
    /// timeout counts too) or sent new past the recovery point, at least min_RTT ago, so
    /// that this ACK can be their answer (RFC 3465 §2.3). Elsewhere nothing reads it and
    /// the walk is skipped; the ACK's other facts come from the scoreboard's own walk.
    pub(super) fn sent_since_rto(&self, now: Instant, cumulative: u64) -> u64 {
        let Ca::Loss { recovery_point, .. } = self.core.ca else {
            return 0;
        };
        if self.alg.rules.growth_by_delivered {
            return 0;
        }
        let min_rtt = self.core.rtt.min_rtt().unwrap_or_default();
        self.core
            .sb
            .segments()
            .take_while(|s| s.start < cumulative)
            .filter(|s| answered_by(now, s.last_sent, min_rtt))
            .filter(|s| s.ever_retrans || s.start >= recovery_point)
            .map(|s| Range::new(s.start, s.end.min(cumulative)).len())
            .sum()
    }

    /// RFC 6937 §2 DeliveredData. With SACK: Δsnd.una + ΔSACKd. Without: one SMSS per
    /// duplicate ACK, and on an advance Δsnd.una less the SMSS already credited to the
    /// duplicates it covers — all but the hole itself when `hole_filled`.
    pub(super) fn delivered_data(
        &mut self,
        now: Instant,
        acked: &Acked,
        newly_sacked: u64,
        is_dup: bool,
        hole_filled: bool,
    ) -> u64 {
        if self.sack_ok {
            return acked.bytes + newly_sacked - acked.was_sacked;
        }
        let mut delivered = 0;
        if acked.bytes > 0 {
            // One SMSS is the hole the advance filled. The rest of Δsnd.una was counted by
            // the duplicates (RFC 9937 §6: "minus 1 SMSS per earlier duplicate"), however
            // many ACKs it is cut into.
            let hole = if hole_filled { self.mss } else { 0 };
            let consumed = self
                .core
                .dup
                .reno_sacked
                .min(acked.bytes.saturating_sub(hole));
            self.core.dup.reno_sacked -= consumed;
            delivered += acked.bytes - consumed;
            self.remove_reno_dupacks(now, acked.bytes.div_ceil(self.mss));
        }
        if let Some(budget) = self.dupack_budget_mut() {
            // RFC 9937 §6: the episode's estimated DeliveredData stays within RecoverFS,
            // however often the receiver repeats itself (Savage et al.'s DupACK spoofing;
            // `dupack_budget`, beyond Linux).
            delivered = delivered.min(*budget);
            *budget -= delivered;
        }
        if is_dup {
            // Never credit more than is outstanding beyond the hole (Linux
            // `tcp_limit_reno_sacked`), nor beyond the episode's budget.
            let cap = self.core.sb.flight_size().saturating_sub(self.mss);
            let mut credit = (self.core.dup.reno_sacked + self.mss)
                .min(cap)
                .saturating_sub(self.core.dup.reno_sacked);
            if let Some(budget) = self.dupack_budget_mut() {
                credit = credit.min(*budget);
                *budget -= credit;
            }
            delivered += credit;
            self.core.dup.reno_sacked += credit;
        }
        if self.core.sb.flight_size() == 0 {
            self.core.dup.reno_sacked = 0;
            self.core.dup.reno = 0;
        }
        delivered
    }

    /// Without SACK, in fast recovery: how much more DeliveredData the episode may be
    /// credited (RFC 9937 §6); `None` outside one.
    pub(super) fn episode_budget(&self) -> Option<u64> {
        match self.core.ca {
            Ca::Recovery { budget, .. } => budget,
            _ => None,
        }
    }

    /// The budget `dupack_budget` enforces: the episode's, or after an undo what the
    /// undone one had left (`DupAcks::undone_budget`).
    fn dupack_budget_mut(&mut self) -> Option<&mut u64> {
        if !self.alg.dupack_budget {
            return None;
        }
        match self.core.ca.budget_mut() {
            Some(b) => Some(b),
            None => self.core.dup.undone_budget.as_mut(),
        }
    }

    /// Linux counts delivery in packets: an ACK ending inside a one-segment skb
    /// acknowledges no packet (`tcp_clean_rtx_queue` stops at it) and `tp->delivered`
    /// moves only when the skb completes. With SACK under the Linux flavour, the bytes an
    /// ACK acknowledged of the segment it ends inside are held back from DeliveredData
    /// (`acked_sacked`) until the ACK that completes the segment, so a divided ACK grows
    /// cwnd and releases data when, and as much as, the whole ACK would.
    pub(super) fn hold_partial(&mut self, delivered: u64, acked: &Acked) -> u64 {
        if !self.alg.rules.hold_partial_segments || !self.sack_ok || acked.bytes == 0 {
            return delivered;
        }
        // Acknowledging more than the tail of the segment it ends in completes the one
        // before, whose held prefix is delivered now.
        let released = if acked.bytes > acked.partial {
            std::mem::take(&mut self.core.dup.held_partial)
        } else {
            0
        };
        self.core.dup.held_partial += acked.partial;
        (delivered + released).saturating_sub(acked.partial)
    }

    /// Linux `tcp_add_reno_sack`: every duplicate ACK counts in `sacked_out` (the ones
    /// the ACK budget ignores included: Linux has no such budget), which
    /// `tcp_limit_reno_sacked` keeps below the segments outstanding.
    pub(super) fn add_reno_dupack(&mut self, now: Instant) {
        self.core.dup.reno = self.core.dup.reno.saturating_add(1);
        self.limit_reno_dupacks(now, 0);
    }

    /// Linux `tcp_remove_reno_sacks`: an advance of `acked_segs` fills one hole and eats
    /// the rest from the duplicates, then `tcp_check_reno_reordering(sk, acked)`.
    fn remove_reno_dupacks(&mut self, now: Instant, acked_segs: u64) {
        let eaten = u32::try_from(acked_segs.saturating_sub(1)).unwrap_or(u32::MAX);
        self.core.dup.reno = self.core.dup.reno.saturating_sub(eaten);
        self.limit_reno_dupacks(now, acked_segs);
    }

    /// Linux `tcp_limit_reno_sacked` (one hole): clamps the count, and a clamp is
    /// reordering (`tcp_check_reno_reordering`).
    fn limit_reno_dupacks(&mut self, now: Instant, addend: u64) {
        let packets_out = self.core.sb.flight_size().div_ceil(self.mss);
        let room = u32::try_from(packets_out.saturating_sub(1)).unwrap_or(u32::MAX);
        if self.core.dup.reno > room {
            self.core.dup.reno = room;
            self.check_reno_reordering(now, addend);
        }
    }

    /// Linux `tcp_check_reno_reordering`: "if we receive more dupacks than we expected
    /// counting segments in assumption of absent reordering, interpret this as
    /// reordering" — `tp->reordering` becomes `packets_out + addend` (at most 300), so
    /// duplicates no longer reach the threshold, and `TCPRenoReorder` counts it. The
    /// RACK-era kernels assign it; 3.x-4.4 went through `tcp_update_reordering`, which
    /// only raises it.
    fn check_reno_reordering(&mut self, now: Instant, addend: u64) {
        if !self.alg.adaptive_reordering {
            return;
        }
        let packets_out = self.core.sb.flight_size().div_ceil(self.mss);
        let metric = (packets_out + addend).min(u64::from(reordering::MAX_REORDERING)) as u32;
        let before = self.core.reorder.degree;
        self.core.reorder.degree = match self.alg.loss_detection {
            Detection::Rack { .. } => metric,
            _ => self.core.reorder.degree.max(metric),
        };
        self.core.reorder.seen = true;
        // Linux counts every clamp; the event says only what changed (a spoofer clamps on
        // every copy).
        self.stats.reno_reorder += 1;
        if self.core.reorder.degree != before {
            let degree = u64::from(self.core.reorder.degree);
            let by = ReorderSignal::DupAcks;
            self.emit(now, EventKind::Reordering { degree, by });
        }
    }

    /// Without SACK: whether this advance fills the hole (one SMSS of DeliveredData, and
    /// RFC 6582's partial ACK). With `ack_division_guard`, only one that acknowledges a
    /// retransmission the receiver has had time to answer ([`Sender::renew_reno_budget`]);
    /// without it, as Linux's `tcp_remove_reno_sacks` credits one packet to every ACK that
    /// acknowledges one (`tcp_clean_rtx_queue`), any advance that completes a segment too.
    pub(super) fn fills_hole(&mut self, now: Instant, acked: &Acked, min_rtt: Duration) -> bool {
        let answered = self.renew_reno_budget(now, acked, min_rtt);
        answered || (!self.alg.ack_division_guard && acked.completes_a_segment)
    }

    /// NewReno repairs one hole per round trip (RFC 6582 §3.2): a partial ACK covering a
    /// retransmission old enough to have been answered (sent at least `min_rtt` ago, as it
    /// stood before this ACK) shows the receiver really got it, and starts the episode's
    /// next round with what is in flight now as its RecoverFS. A spoofer's copies arrive
    /// right after the retransmission they provoke and renew nothing. Returns whether the
    /// ACK acknowledged such a retransmission (outside a non-SACK recovery: any advance).
    fn renew_reno_budget(&mut self, now: Instant, acked: &Acked, min_rtt: Duration) -> bool {
        let Some(budget) = self.episode_budget().or(self.core.dup.undone_budget) else {
            return true;
        };
        let answered = acked
            .oldest_retrans_sent
            .is_some_and(|sent| answered_by(now, sent, min_rtt));
        if answered {
            let in_flight = self
                .core
                .sb
                .flight_size()
                .saturating_sub(self.core.dup.reno_sacked);
            if let Some(b) = self.core.ca.budget_mut() {
                *b = budget.max(in_flight);
            } else if let Some(b) = self.core.dup.undone_budget.as_mut() {
                *b = budget.max(in_flight);
            }
        }
        answered
    }
}

/// Whether an ACK at `now` can be the answer to a transmission at `sent`: at least min_RTT
/// later, and later at all (before any RTT sample).
pub(super) fn answered_by(now: Instant, sent: Instant, min_rtt: Duration) -> bool {
    let elapsed = now.saturating_duration_since(sent);
    elapsed >= min_rtt && elapsed > Duration::ZERO
}

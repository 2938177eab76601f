//! F-RTO on the sender (RFC 5682; Linux `tcp_process_loss` with `tcp_frto`; decisions in
//! [`crate::rto::frto`]): the ACKs after a timeout that judge it, the new data its step 2b
//! sends, the room check while in RTO recovery, and what a genuine timeout leaves.

use super::pending::{FrtoNew, Pending};
use super::spurious::{Counter, SpurAck, Verdict};
use super::{RecoveryState, Sender};
use crate::event::{EventKind, SpuriousSignal};
use crate::packet::{Transmit, Why};
use crate::rto::frto::{self, Decision, Variant};
use crate::time::Instant;

impl Sender {
    /// RFC 5682 (and Linux's F-RTO) on one ACK in RTO recovery.
    pub(super) fn frto_on_ack(&mut self, now: Instant, a: &SpurAck) -> Option<Verdict> {
        if self.state() != RecoveryState::Loss || !self.core.evidence.frto.in_progress() {
            return None;
        }
        let delivered = a.delivered;
        // Without SACK, Linux cannot tell an original's arrival from its retransmission's
        // once a retransmitted segment is among those acknowledged (`tcp_clean_rtx_queue`:
        // `FLAG_RETRANS_DATA_ACKED` clears `FLAG_ORIG_SACK_ACKED` for Reno).
        let ambiguous = self.alg.rules.reno_retrans_ack_not_original
            && !self.sack_ok
            && delivered.retrans_cum_acked;
        // `ack_division_guard` (beyond Linux): once an ACK answered the timeout's
        // retransmission, the originals it did not cover were lost or already reported
        // (the receiver's one answer covers all it holds); a divided answer's later
        // slices acknowledge them only as pieces of that answer, never as proof that the
        // timeout was spurious (Linux undoes on the second slice, `tcp_process_loss`).
        if self.alg.ack_division_guard && a.answers_retrans {
            self.core.evidence.frto.retrans_answered = true;
        }
        let ambiguous = ambiguous || self.core.evidence.frto.retrans_answered;
        let orig_acked = !ambiguous
            && delivered
                .orig_min_end
                .is_some_and(|e| e <= self.core.evidence.frto.recover);
        let beyond_recover = delivered
            .max_end
            .is_some_and(|e| e > self.core.evidence.frto.recover);
        let view = frto::AckView {
            advanced: a.advanced,
            cumulative: self.core.sb.snd_una(),
            dupack: a.dupack,
            orig_acked,
            newly_sacked: a.newly_sacked,
            beyond_recover,
            snd_nxt: self.core.sb.snd_nxt(),
            can_send_new: self.can_send_new_segment(),
        };
        match self.core.evidence.frto.on_ack(&view) {
            Decision::Wait => None,
            Decision::SendNew => {
                if self.core.evidence.frto.variant == Variant::Linux {
                    // high_seq = snd_nxt; new data as cwnd allows on this ACK.
                    self.extend_loss(self.core.evidence.frto.recover);
                    self.pending = Pending::FrtoNew(FrtoNew::CwndAllows);
                } else {
                    self.pending = Pending::FrtoNew(FrtoNew::Segments(2));
                }
                None
            }
            Decision::Spurious => Some(Verdict {
                timeout: true,
                late: false,
                by: SpuriousSignal::Frto,
                unmark: true,
                counter: Counter::Loss,
            }),
            Decision::Genuine { cwnd_cap } => {
                self.genuine_rto(now, SpuriousSignal::Frto, cwnd_cap);
                None
            }
        }
    }

    /// F-RTO or Eifel found the timeout genuine: conventional RTO recovery goes on (with
    /// F-RTO's cwnd cap), and the RTO adaptations end (seed 004: "reset to the standard
    /// timer upon a genuine timeout").
    pub(super) fn genuine_rto(&mut self, now: Instant, by: SpuriousSignal, cwnd_cap: Option<u64>) {
        self.core.evidence.frto.stop();
        self.drop_frto_new();
        self.stats.genuine_rtos += 1;
        // RFC 5682 3a (2a): "no more than 3·MSS" (2·MSS) — as much as conventional
        // recovery would have reached by now, two (one) round trips after the timeout.
        if let Some(cap) = cwnd_cap {
            let cap = (cap * self.mss).max(self.mss);
            self.cwnd = cap;
            self.core.cwnd_ceiling = Some(cap); // "no more than": not grown by this ACK either
        }
        self.core.rtt.reset_adaptation();
        self.emit(now, EventKind::GenuineRto { by });
    }

    pub(super) fn drop_frto_new(&mut self) {
        if self.pending.frto_new().is_some() {
            self.pending = Pending::Nothing;
        }
    }

    /// Linux's F-RTO step 2b when cwnd leaves no room for new data after all
    /// (`tcp_xmit_recovery`: nothing new sent → `frto = 0`).
    pub(super) fn frto_check_room(&mut self, now: Instant) {
        if self.pending.frto_new().is_none() || self.core.evidence.frto.variant != Variant::Linux {
            return;
        }
        let room = self.cwnd.saturating_sub(self.core.sb.pipe());
        if room
            < self
                .mss
                .min(self.stream.written.saturating_sub(self.core.sb.snd_nxt()))
        {
            self.genuine_rto(now, SpuriousSignal::Frto, None);
        }
    }

    /// What F-RTO lets the RTO recovery send now, if it is deciding: `Some(t)` a new
    /// segment of step 2b, `Some(None)` nothing (retransmissions wait for the verdict),
    /// `None` F-RTO does not interfere.
    pub(super) fn frto_transmit(&mut self, now: Instant) -> Option<Option<Transmit>> {
        let rfc = self.core.evidence.frto.variant != Variant::Linux;
        let holding = self.core.evidence.frto.in_progress() && rfc;
        let Some(left) = self.pending.frto_new() else {
            return holding.then_some(None);
        };
        let room = if rfc {
            u64::MAX // RFC 5682 2b: two new segments whatever cwnd says
        } else {
            self.cwnd.saturating_sub(self.core.sb.pipe())
        };
        match self.new_data(now, room, Why::New) {
            Some(t) => {
                self.pending = match left {
                    FrtoNew::Segments(n) if n > 1 => Pending::FrtoNew(FrtoNew::Segments(n - 1)),
                    FrtoNew::Segments(_) => Pending::Nothing,
                    FrtoNew::CwndAllows => Pending::FrtoNew(left),
                };
                Some(Some(t))
            }
            // Linux `tcp_xmit_recovery`: once new data went out on this ACK, no
            // retransmission follows it.
            None if !rfc && self.core.sb.snd_nxt() > self.core.evidence.frto.recover => Some(None),
            None => {
                self.drop_frto_new();
                holding.then_some(None)
            }
        }
    }
}

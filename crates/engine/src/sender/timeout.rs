//! The retransmission timeout (RFC 6298 §5.4-5.6 with RFC 5681 §3.1 and RFC 6675 §5.1;
//! Linux `tcp_retransmit_timer`, `tcp_enter_loss`, `tcp_timeout_mark_lost`): RTO recovery
//! begins, the reduction and its undo snapshot, what is marked lost, the back-off; and the
//! SYN's own timeout.

use super::pending::Pending;
use super::{Conn, RecoveryState, Sender};
use crate::detect::reordering;
use crate::event::EventKind;
use crate::packet::Why;
use crate::time::Instant;
use crate::timer::TimerKind;

impl Sender {
    /// RFC 6298 §5.4-5.6 with RFC 5681 §3.1 and RFC 6675 §5.1.
    pub(super) fn on_rto(&mut self, now: Instant) {
        if let Conn::Handshake { retransmitted, .. } = &mut self.conn {
            *retransmitted = true;
            self.on_syn_timeout(now);
            return;
        }
        if self.core.sb.flight_size() == 0 {
            self.core.timer.stop();
            return;
        }
        self.stats.timeouts += 1;
        let repeated = self.core.rto_retransmits > 0;
        self.core.rto_retransmits = self.core.rto_retransmits.saturating_add(1);
        if self.state() == RecoveryState::Recovery {
            self.stats.recovery_fail += 1;
        }
        // Linux `tcp_enter_loss` (digest §16): the adaptive threshold falls back.
        let open = matches!(self.state(), RecoveryState::Open | RecoveryState::Disorder);
        self.core.reorder.degree = reordering::after_timeout(
            self.core.reorder.degree,
            self.alg.dupthresh,
            open,
            self.core.sb.sacked_segs(),
        );
        let fresh = if self.alg.rules.rto_keeps_recovery_ssthresh {
            // Linux `tcp_enter_loss`: a new reduction only from Open/Disorder, after the
            // previous episode's point, or in Loss before any timeout retransmission —
            // an RTO during fast recovery keeps the recovery's ssthresh and undo marker.
            open || self.core.ca.reduction_point() <= Some(self.core.sb.snd_una())
                || (self.state() == RecoveryState::Loss && !repeated)
        } else {
            // RFC 5681 §3.1: ssthresh is held when the timer fires again for the same data.
            self.core.rtt.backoff_count() == 0 || self.state() != RecoveryState::Loss
        };
        let in_recovery = matches!(self.state(), RecoveryState::Recovery | RecoveryState::Loss);
        self.timeout_reduction(now, fresh);
        if self.core.sb.renege_if_head_sacked() {
            // Linux `tcp_timeout_mark_lost`: everything is lost, RACK's filter aside.
            self.stats.sack_reneging += 1;
            self.core.sb.mark_all_lost();
        } else if self.rack_active() {
            // RFC 8985 §6.3: only the head and what has timed out.
            self.rack_mark_on_rto(now);
        } else {
            self.core.sb.mark_all_lost();
        }
        self.cwnd = if self.alg.rules.rto_cwnd_in_flight_plus_one {
            // Linux `tcp_enter_loss`: in flight (after the marks) + 1 — one segment unless
            // RACK left recent transmissions unmarked.
            self.core.sb.pipe() + self.mss
        } else {
            self.mss // loss window (RFC 5681 §3.1)
        };
        // RFC 6298 §5.4: the timeout retransmits the head (a probe still pending is moot).
        self.pending = Pending::Head(Why::RtoRetransmit);
        self.core.tlp_draft.reset();
        self.core.tlp.reset();
        self.begin_loss();
        self.cc_on_timeout(now);
        self.core.dup.on_timeout();
        self.core.rtt.backoff();
        self.core
            .timer
            .arm(TimerKind::Rto, now, now + self.core.rtt.rto());
        self.spurious_on_rto(in_recovery, repeated);
        let kind = EventKind::Rto {
            snd_una: self.core.sb.snd_una(),
            backoff: self.core.rtt.backoff_count(),
            rto_us: self.core.rtt.rto().as_micros() as u64,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        };
        self.emit(now, kind);
    }

    /// The SYN (or SYN-ACK) timed out: back off and send it again (RFC 6298 §5.5-5.6).
    fn on_syn_timeout(&mut self, now: Instant) {
        self.core.rtt.backoff();
        self.pending = Pending::Syn;
        self.stats.syn_retrans += 1;
        let backoff = self.core.rtt.backoff_count();
        self.emit(now, EventKind::SynTimeout { backoff });
        self.core
            .timer
            .arm(TimerKind::Rto, now, now + self.core.rtt.rto());
    }

    /// The timeout's reduction. Undo is a value: a timeout that starts a reduction
    /// (`fresh`) saves the state before it; one during fast recovery or repeating for the
    /// same data joins that episode.
    fn timeout_reduction(&mut self, now: Instant, fresh: bool) {
        if fresh && self.state() != RecoveryState::Recovery {
            self.undo_begin(true);
        } else {
            self.undo_join_timeout();
        }
        if fresh {
            self.reduce_ssthresh(now, self.core.sb.flight_size());
        }
    }
}

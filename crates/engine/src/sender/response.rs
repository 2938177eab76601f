//! What a spurious verdict does (seed 004, RFC 4015, Linux `tcp_undo_cwnd_reduction`):
//! the response from the one undo snapshot, the loss marks cleared so nothing delivered is
//! resent, the recovery state left, and the RTO adapted (seed 004's Std, Reseed, Back-off,
//! Min++; RFC 4015 step 11).

use super::spurious::{Counter, Verdict, MIN_RTO_STEP};
use super::state::Ca;
use super::Sender;
use crate::cc::CongestionController;
use crate::config::{RtoAdaptation, SpuriousResponse};
use crate::event::{EventKind, SpuriousSignal};
use crate::rto::eifel;
use crate::rto::undo::{self, Current, Snapshot};
use crate::time::{Duration, Instant};

impl Sender {
    /// Applies a spurious verdict: the response from the snapshot, the marks, the state,
    /// the RTO adaptation.
    pub(super) fn apply_verdict(&mut self, now: Instant, v: Verdict, bytes_acked: u64, ece: bool) {
        let Some(s) = self.core.evidence.undo.snapshot.take() else {
            return;
        };
        self.core.evidence.frto.stop();
        self.drop_frto_new();
        self.emit(
            now,
            EventKind::Spurious {
                timeout: v.timeout,
                late: v.late,
                by: v.by,
            },
        );
        // Linux counts `TCPSpuriousRTOs` in `tcp_try_undo_loss` for an F-RTO undo only.
        let frto_only = self.alg.rules.spurious_rtos_frto_only;
        if v.timeout && (!frto_only || v.by == SpuriousSignal::Frto) {
            self.stats.spurious_rtos += 1;
        }
        let response = self.alg.spurious_response;
        // Linux `tcp_undo_cwnd_reduction`: the algorithm rolls back to the checkpoint and
        // cwnd is its `undo_cwnd`: max(cwnd, prior_cwnd) (`tcp_reno_undo_cwnd`), or cwnd as
        // it is for a controller that sets cwnd itself (its own `undo_cwnd`).
        let undo_cwnd = if undo::restores_cc(response) && s.restorable {
            self.cc.restore(&s.cc);
            let restored = self.undo_base_cwnd(s.cwnd).max(s.cwnd);
            self.cc.undo_cwnd(self.cwnd, restored)
        } else {
            self.cwnd
        };
        let c = Current {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            flight_size: self.core.sb.flight_size(),
            bytes_acked,
            iw: u64::from(self.alg.shell.initial_cwnd) * self.mss,
            undo_cwnd,
            // RFC 4015 step 9: an acceptable ACK with ECN-Echo keeps the reduction.
            ece,
        };
        match undo::respond(response, &s, v.timeout, &c) {
            Some((cwnd, ssthresh)) => {
                self.cwnd = cwnd.max(self.mss);
                self.ssthresh = ssthresh.max(2 * self.mss);
                if response == SpuriousResponse::Rfc4015 {
                    // RFC 4015 sets cwnd from this ACK's bytes_acked: it is not grown again.
                    self.core.cwnd_ceiling = Some(self.cwnd);
                }
                // Linux `tcp_ecn_withdraw_cwr`: the reduction is gone, so is its CWR.
                self.ecn.queue_cwr = false;
                self.count_undo(v.counter);
                self.emit(
                    now,
                    EventKind::Undo {
                        cwnd: self.cwnd,
                        ssthresh: self.ssthresh,
                    },
                );
            }
            // Linux `tcp_undo_cwnd_reduction` restores nothing when the episode began on
            // an ECN-Echo (`prior_ssthresh` = 0), yet its callers count the undo.
            None if !s.restorable && self.alg.rules.undo_counted_without_restore => {
                self.count_undo(v.counter);
            }
            None => self.stats.spurious_kept += 1,
        }
        // Linux `tcp_try_undo_dsack`: the reordering window persists one recovery longer.
        if v.counter == Counter::Dsack && self.alg.rules.dsack_undo_keeps_reo_wnd {
            self.core.rack.on_dsack_undo();
        }
        if v.unmark {
            self.core.sb.unmark_lost();
        }
        self.core.rto_retransmits = 0;
        self.leave_recovery_undone(now);
        if v.timeout {
            self.adapt_rto(&s, response);
        }
    }

    /// An undo, in `TCPUndo` and its own counter (Linux `tcp_try_undo_recovery`,
    /// `tcp_try_undo_partial`, `tcp_try_undo_dsack`, `tcp_try_undo_loss`).
    fn count_undo(&mut self, counter: Counter) {
        self.stats.undos += 1;
        match counter {
            Counter::Full => self.stats.full_undo += 1,
            Counter::Partial => self.stats.partial_undo += 1,
            Counter::Dsack => self.stats.dsack_undo += 1,
            Counter::Loss => self.stats.loss_undo += 1,
        }
    }

    /// The cwnd an undo compares with the one it had (`prior`). Without SACK, a fast
    /// recovery's window came from duplicate ACKs alone: NewReno inflates cwnd by one SMSS
    /// per duplicate "artificially", only to clock out segments (RFC 5681 §3.2 step 4, RFC
    /// 6582 §3.2), and PRR's pipe + sndcnt (RFC 6937) grows with what earlier episodes
    /// sent. Neither is a window to keep (a DupACK spoofer's copies would be kept as
    /// window), so the undo restores `prior`. Linux gets there another way: its
    /// `sacked_out` survives the undo and keeps `tcp_packets_in_flight` down.
    fn undo_base_cwnd(&self, prior: u64) -> u64 {
        if !self.sack_ok && matches!(self.core.ca, Ca::Recovery { .. }) {
            self.cwnd.min(prior)
        } else {
            self.cwnd
        }
    }

    /// The episode is over: back to Open (Disorder while SACKed data remains).
    fn leave_recovery_undone(&mut self, now: Instant) {
        if self.core.ca.recovery_point().is_none() {
            return;
        }
        self.core.dup.on_undo();
        if self.alg.dupack_budget {
            self.core.dup.undone_budget = self.episode_budget();
        }
        // Linux's undo keeps `sacked_out` (`tcp_try_undo_partial`, `tcp_try_undo_dsack`);
        // only the end of recovery and a timeout reset it (`tcp_reset_reno_sack`).
        self.drop_head_retransmit();
        // RFC 8985 §6.2 step 4 counts every recovery's end; Linux only those not undone
        // (`tcp_try_undo_recovery`).
        if !self.alg.rules.undone_recovery_not_counted {
            self.core.rack.on_recovery_end();
        }
        self.end_recovery(now);
    }

    /// Seed 004's RTO adaptations after a spurious timeout, and RFC 4015 step 11.
    fn adapt_rto(&mut self, s: &Snapshot, response: SpuriousResponse) {
        match self.alg.rto_adaptation {
            RtoAdaptation::Std => {}
            RtoAdaptation::Reseed => self.core.rtt.reseed_on_next_sample(),
            RtoAdaptation::Backoff => self.core.rtt.keep_backoff(s.backoff),
            RtoAdaptation::MinPlus => self.core.rtt.raise_min_rto(MIN_RTO_STEP),
        }
        if response == SpuriousResponse::Rfc4015 {
            if let Some(p) = s.eifel.filter(|p| p.srtt_prev.is_some()) {
                self.core.evidence.eifel_adapt = Some(Box::new((s.high, p)));
            }
        }
    }

    /// An RTT sample `r` on an ACK: RFC 4015 step 11 takes the first one from data sent
    /// after the spurious timeout (SND.UNA beyond what was outstanding then); every other
    /// sample goes to the estimator.
    pub(super) fn take_rtt_sample(&mut self, now: Instant, r: Duration) {
        match self.core.evidence.eifel_adapt.as_deref() {
            Some(&(high, p)) if self.core.sb.snd_una() > high => {
                self.core.evidence.eifel_adapt = None;
                let (srtt, rttvar) = eifel::adapt(&p, r);
                self.core.rtt.update_min_rtt(now, r);
                self.core.rtt.set_estimate(srtt, rttvar);
            }
            _ => self
                .core
                .rtt
                .on_sample(now, r, self.core.sb.snd_una(), self.core.sb.snd_nxt()),
        }
    }
}

//! The recovery state machine: loss marking by the configured detector (RFC 6675 IsLost,
//! RFC 3517's variant, FACK), entering and leaving fast recovery (RFC 6675 §5, RFC 6582
//! §3.2) with the reducer deciding cwnd and the send quota. The retransmission timeout is
//! `sender::timeout`; growth outside recovery is `sender::growth`.

use super::ack::{AckSummary, Prior};
use super::pending::Pending;
use super::{RecoveryState, Sender};
use crate::cc::CongestionController;
use crate::config::resolved::{Detection, DupThreshRule};
use crate::config::RecoveryExit;
use crate::detect::{dupthresh, fack};
use crate::event::{Event, EventKind, LossDetector};
use crate::packet::Why;
use crate::reduce::{Entry, RecoveryAck};
use crate::time::Instant;

impl Sender {
    /// What the retransmission that starts a recovery is: RACK's, or the dupthresh/FACK
    /// fast retransmit.
    pub(super) fn recovery_why(&self) -> Why {
        if self.rack_active() {
            Why::RackRetransmit
        } else {
            Why::FastRetransmit
        }
    }

    /// An ACK outside recovery: mark losses, then start recovery (dupthresh or FACK), an
    /// early retransmit (immediate or delayed), or grow cwnd.
    pub(super) fn on_ack_open(&mut self, now: Instant, a: &AckSummary) {
        if !self.open_starts_episode(now, a) {
            self.grow_cwnd(now, a);
            self.settle();
        }
    }

    /// The Open state's loss marking and what it starts: fast recovery, a CWR episode on
    /// ECN-Echo, an early retransmit. Returns whether one started (no growth then).
    fn open_starts_episode(&mut self, now: Instant, a: &AckSummary) -> bool {
        let newly_lost = self.mark_lost(now);
        if self.core.sb.flight_size() > 0 && self.loss_trigger() {
            self.enter_recovery(now, self.recovery_why(), a.prior);
            if a.ece {
                // Linux `tcp_enter_recovery(sk, ece_ack)`: no `prior_ssthresh` to restore.
                self.ecn_forbid_restore();
            }
            self.reduce_on_ack(a, newly_lost);
            return true;
        }
        // RFC 3168 §6.1.2 (Linux `tcp_try_to_open` → `tcp_enter_cwr`), then this ACK's
        // reduction step (`tcp_cong_control`); no growth on it. Not with nothing
        // outstanding before the ACK: Linux's `tcp_ack` skips the state machine then.
        if a.ece && a.prior.flight > 0 {
            self.enter_cwr(now);
            if self.core.reducer.prr().is_some() {
                self.reduce_on_ack(a, newly_lost);
            }
            return true;
        }
        if self.core.sb.flight_size() > 0 {
            if let Some(trigger) = self.early_retransmit_check() {
                if self.maybe_delay_early_retransmit(now, trigger) {
                    // Waiting on the deadline: the connection stays in Disorder.
                } else {
                    self.early_retransmit(now, trigger, a.prior);
                    self.reduce_on_ack(a, newly_lost);
                    return true;
                }
            }
        }
        false
    }

    /// An ACK in fast recovery: leave it at the recovery point, else mark losses (SACK) or
    /// handle a NewReno partial ACK, and let the reducer set cwnd.
    pub(super) fn on_ack_recovery(&mut self, now: Instant, a: &AckSummary) {
        if a.ece {
            self.ecn_forbid_restore(); // Linux `tcp_fastretrans_alert` (A)
        }
        // RFC 5681 §3.2 step 6 (Reno): the first ACK of new data ends recovery.
        let reno_exit = self.alg.recovery_exit == RecoveryExit::FirstNewAck && a.acked > 0;
        if !reno_exit && self.holds_at_recovery_point() {
            // Linux `tcp_is_non_sack_preventing_reopen`: `tcp_fastretrans_alert` returns
            // before marking losses or counting the duplicate (`tcp_add_reno_sack`), so
            // only `tcp_cong_control`'s reduction step runs, on what was delivered.
            let delivered = if a.acked > 0 { a.delivered } else { 0 };
            self.reduce_on_ack(&AckSummary { delivered, ..*a }, 0);
            return;
        }
        if reno_exit || self.core.ca.recovery_point() <= Some(self.core.sb.snd_una()) {
            self.exit_recovery(now);
            // Linux `tcp_fastretrans_alert`: once `tcp_try_undo_recovery` has set the
            // state Open, the same ACK takes the Open case — `tcp_identify_packet_loss`,
            // then `tcp_time_to_recover` may start the next recovery at once. (Growth on
            // this ACK is not part of the rule: kernels before 4.x ran `tcp_cong_avoid`
            // before the state machine, and not in Recovery.)
            if self.alg.rules.loss_check_on_recovery_exit {
                self.open_starts_episode(now, a);
            }
            return;
        }
        let mut newly_lost = self.mark_lost(now);
        // RFC 6582 §3.2 step 5: the partial ACK — the answer to the retransmission of the
        // previous hole — says the first unacknowledged segment is lost too (not a
        // SafeACK for PRR); retransmit it now. An advance that answers no retransmission,
        // or ends inside a segment the receiver holds the start of, is not that evidence
        // (a slice of a divided ACK, Savage et al. 1999: resending the segment after it
        // would only draw duplicate ACKs from a receiver that has it); a duplicate ACK
        // that follows it is (RFC 5681 §3.2), and the head goes then.
        let partial = !self.sack_ok
            && ((a.acked > 0 && a.fills_hole && !a.ends_inside)
                || (a.is_dup && self.core.sb.head().is_some_and(|h| !h.ever_retrans)));
        if partial {
            let before = self.core.sb.lost_bytes();
            self.core.sb.mark_head_lost();
            newly_lost += self.core.sb.lost_bytes() - before;
            self.pending = Pending::Head(Why::FastRetransmit);
        }
        self.reduce_on_ack(a, newly_lost);
        if partial {
            self.emit(
                now,
                EventKind::PartialAck {
                    snd_una: self.core.sb.snd_una(),
                    cwnd: self.cwnd,
                },
            );
        }
    }

    /// An ACK in RTO recovery: growth (the slow-start repair), F-RTO's room check, and the
    /// end at the recovery point; RACK goes on detecting meanwhile (RFC 8985 §6.3).
    pub(super) fn on_ack_loss(&mut self, now: Instant, a: &AckSummary, recovery_point: u64) {
        if a.ece {
            self.ecn_forbid_restore(); // Linux `tcp_fastretrans_alert` (A)
        }
        let reported = self.loss_consume_reported(a.acked);
        let a = &AckSummary {
            reported_before: a.reported_before + reported,
            ..*a
        };
        self.grow_cwnd(now, a);
        if a.sent_since_rto > 0 && a.echo_answers_retrans {
            self.loss_answered();
        }
        self.frto_check_room(now);
        if self.core.sb.snd_una() >= recovery_point {
            self.core.rack.on_recovery_end();
            self.genuine_loss_end();
            self.end_recovery(now);
        } else if self.rack_active() {
            self.rack_detect(now, false);
        }
    }

    /// The reducer's answer to one ACK in recovery becomes cwnd (not on a Linux old ACK).
    pub(super) fn reduce_on_ack(&mut self, a: &AckSummary, newly_lost: u64) {
        // A controller with `cong_control` sets cwnd; PRR does not (Linux
        // `tcp_cong_control`).
        if self.cc.sets_cwnd() {
            return;
        }
        if !a.cong_control {
            let room = self.cwnd.saturating_sub(self.recovery_pipe());
            self.core.reducer.on_old_ack(room);
            return;
        }
        let r = RecoveryAck {
            delivered: a.delivered,
            acked: a.acked,
            dupack: a.is_dup,
            newly_lost,
            pipe: self.recovery_pipe(),
            flight_size: self.core.sb.flight_size(),
            mss: self.mss,
        };
        self.cwnd = self
            .core
            .reducer
            .on_ack(&r, self.cwnd, self.ssthresh)
            .max(self.mss);
    }

    /// Marks what the loss detector now deems lost (SACK only); returns the bytes.
    pub(super) fn mark_lost(&mut self, now: Instant) -> u64 {
        if !self.sack_ok {
            return 0;
        }
        if self.rack_active() {
            return self.rack_detect(now, false);
        }
        let (d, mss) = (self.reordering(), self.mss);
        let detector = self.loss_detection();
        let before = self.core.sb.lost_bytes();
        let by = match detector {
            Detection::Fack { .. } => LossDetector::Fack,
            _ => LossDetector::DupThresh,
        };
        let fack_limit = fack::lost_below(self.core.sb.high_sacked(), d, mss);
        let lost_retrans = detector == (Detection::Fack { lost_retrans: true })
            && self.state() == RecoveryState::Recovery;
        let (sb, events, dropped) = (
            &mut self.core.sb,
            &mut self.events,
            &mut self.events_dropped,
        );
        if lost_retrans {
            let found = sb.mark_lost_retrans(|r| {
                let kind = EventKind::LostRetransmit {
                    start: r.start,
                    end: r.end,
                };
                super::push_event(events, dropped, Event { at: now, kind });
            });
            self.stats.lost_retransmit += u64::from(found);
        }
        let on_lost = |r: crate::packet::Range| {
            let kind = EventKind::MarkLost {
                start: r.start,
                end: r.end,
                by,
            };
            super::push_event(events, dropped, Event { at: now, kind });
        };
        match detector {
            Detection::DupThresh {
                rule: DupThreshRule::Rfc6675,
            } => sb.update_lost(d, mss, on_lost),
            Detection::DupThresh {
                rule: DupThreshRule::Rfc3517,
            } => sb.update_lost_3517(d, mss, on_lost),
            Detection::Fack { .. } => sb.update_lost_fack(fack_limit, on_lost),
            Detection::Rack { .. } => 0,
        };
        self.core.sb.lost_bytes() - before
    }

    /// Whether fast recovery starts now (with data outstanding).
    pub(super) fn loss_trigger(&self) -> bool {
        let d = self.reordering();
        if !self.sack_ok {
            return self.core.dup.count >= d; // RFC 5681 §3.2 / RFC 6582
        }
        let head_lost = self.core.sb.head_lost();
        match self.loss_detection() {
            Detection::DupThresh {
                rule: DupThreshRule::Rfc6675,
            } => dupthresh::should_enter_recovery(self.core.dup.count, d, head_lost),
            // RFC 3517 §5: only DupThresh duplicate ACKs start recovery.
            Detection::DupThresh {
                rule: DupThreshRule::Rfc3517,
            } => self.core.dup.count >= d,
            Detection::Fack { .. } => {
                fack::should_enter_recovery(
                    self.core.sb.high_sacked(),
                    self.core.sb.snd_una(),
                    d,
                    self.mss,
                ) || dupthresh::should_enter_recovery(self.core.dup.count, d, head_lost)
            }
            // RFC 8985 §6.2: any segment RACK marked lost starts fast recovery (Linux
            // `tcp_time_to_recover`: lost_out).
            Detection::Rack { .. } => self.core.sb.lost_bytes() > 0,
        }
    }

    /// A reduction's entry or end sets cwnd (at least one segment) — unless the congestion
    /// controller sets it itself from rate samples (`sets_cwnd`): Linux's
    /// `tcp_end_cwnd_reduction` and `tcp_cong_control` leave cwnd to `cong_control`.
    pub(super) fn reduction_sets_cwnd(&mut self, cwnd: u64) {
        if !self.cc.sets_cwnd() {
            self.cwnd = cwnd.max(self.mss);
        }
    }

    /// A forced head retransmission still waiting is no longer due (the episode ended).
    pub(super) fn drop_head_retransmit(&mut self) {
        if matches!(self.pending, Pending::Head(_)) {
            self.pending = Pending::Nothing;
        }
    }

    /// A congestion event: ssthresh from the congestion control (at least 2·SMSS), which
    /// then reduces its own state.
    pub(super) fn reduce_ssthresh(&mut self, now: Instant, flight: u64) {
        let w = self.window();
        self.ssthresh = self.cc.ssthresh(now, &w, flight).max(2 * self.mss);
        self.cc.on_congestion_event(now, &w);
    }

    /// RFC 6675 §5 step 4 / RFC 6582 §3.2 step 2; `why` names the head's retransmission.
    pub(super) fn enter_recovery(&mut self, now: Instant, why: Why, prior: Prior) {
        // From a CWR episode the reduction is already under way (Linux
        // `tcp_enter_recovery`: no new ssthresh while `tcp_in_cwnd_reduction`, and the
        // snapshot cannot restore: `prior_ssthresh` = 0).
        let from_cwr = self.in_cwr();
        self.undo_begin(false); // "undo is a value": the state before the reduction
        let flight = self.core.sb.flight_size();
        if !from_cwr {
            self.reduce_ssthresh(now, flight);
        }
        if !(from_cwr && self.core.reducer.prr().is_some()) {
            let entry = Entry {
                ssthresh: self.ssthresh,
                cwnd: self.cwnd,
                flight_size: flight,
                prior_flight: prior.flight,
                prior_sacked: prior.sacked,
                mss: self.mss,
                sack: self.sack_ok,
            };
            let cwnd = self.core.reducer.on_enter(&entry);
            self.reduction_sets_cwnd(cwnd);
        }
        // RFC 9937 §6: RecoverFS (FlightSize at entry) bounds the non-SACK estimate of the
        // whole episode, the duplicates that started it included.
        let budget = (!self.sack_ok).then(|| flight.saturating_sub(self.core.dup.reno_sacked));
        self.begin_recovery(budget);
        self.core.sb.start_recovery_episode();
        // The head is lost (with SACK: IsLost may not say so yet; without SACK it is the
        // segment the duplicates point at, as Linux's `tcp_mark_head_lost`). RACK marks
        // what it found lost itself; an early retransmit still means the head.
        if !self.rack_active() || why == Why::EarlyRetransmit {
            self.core.sb.mark_head_lost();
        }
        // TLP draft §3.2 (2), RFC 8985 §7.1: a new episode starts with recovery.
        self.core.tlp_draft.reset();
        self.core.tlp.reset();
        if self.sack_ok {
            self.stats.sack_recovery += 1;
        } else {
            self.stats.reno_recovery += 1;
        }
        self.pending = Pending::Head(why);
        let kind = EventKind::EnterRecovery {
            recovery_point: self.core.sb.snd_nxt(),
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            pipe: self.pipe(),
        };
        self.emit(now, kind);
    }

    /// Without SACK, Linux holds Recovery while SND.UNA is exactly at the recovery point
    /// "until something *above* high_seq is ACKed" (`tcp_is_non_sack_preventing_reopen`,
    /// RFC 2582's guard against a false fast retransmit on the duplicates that follow).
    fn holds_at_recovery_point(&self) -> bool {
        self.alg.rules.reno_holds_recovery_at_high_seq
            && !self.sack_ok
            && self.core.ca.recovery_point() == Some(self.core.sb.snd_una())
    }

    fn exit_recovery(&mut self, now: Instant) {
        let flight = self.core.sb.flight_size();
        let cwnd = self
            .core
            .reducer
            .on_exit(self.cwnd, self.ssthresh, flight, self.mss);
        self.reduction_sets_cwnd(cwnd);
        self.core.dup.on_recovery_exit();
        self.drop_head_retransmit();
        self.core.rack.on_recovery_end();
        self.end_recovery(now);
    }

    /// The window a retransmission may use now: the reducer's quota in fast recovery,
    /// else cwnd less pipe (Linux `tcp_snd_cwnd - tcp_packets_in_flight`).
    pub(super) fn retransmit_room(&self) -> u64 {
        if self.state() == RecoveryState::Recovery {
            let (cwnd, pipe) = (self.cwnd, self.recovery_pipe());
            self.core
                .reducer
                .quota(cwnd, pipe, self.core.sb.flight_size(), self.mss)
        } else {
            self.cwnd.saturating_sub(self.core.sb.pipe())
        }
    }
}

//! RACK on the sender (RFC 8985 §6; decisions in [`crate::detect::rack`], marks in
//! [`crate::scoreboard::Scoreboard::rack_detect_lost`]): steps 2 and 4 on every ACK,
//! step 5 when the state machine asks for losses, the reorder timer's expiry (Linux
//! `tcp_rack_reo_timeout`), and the RTO's marks (§6.3).

use super::{RecoveryState, Sender};
use crate::cc::CongestionController;
use crate::detect::rack::{ReoInputs, Variant};
use crate::event::{Event, EventKind, LossDetector};
use crate::packet::{Range, Why};
use crate::scoreboard::{Delivered, RackMarks};
use crate::time::Instant;

impl Sender {
    /// RFC 8985 §6.2 step 2 (RACK.segment and RACK.rtt from the newest valid delivered
    /// segment; step 1's min_RTT is the estimator's filter) and the DSACK part of step 4.
    /// Step 3's reordering evidence arrives through the SACK reordering check.
    pub(super) fn rack_on_ack(
        &mut self,
        now: Instant,
        d: &Delivered,
        dsack: bool,
        tlp_dsack: bool,
    ) {
        self.core.rack_wait = None;
        self.core.rack_advanced = self
            .core
            .rack
            .update(d.newest_valid, d.linux_rtt_from(), now);
        self.core.rack.on_ack_dsack(
            dsack,
            tlp_dsack,
            self.core.sb.snd_una(),
            self.core.sb.snd_nxt(),
            d.newest.map(|(t, _)| t),
            now,
        );
    }

    /// RFC 8985 §6.2 steps 4-5: the reordering window, then the time-based marks; the
    /// longest wait goes to `rack_wait` for the reorder timer. Linux runs it only when
    /// RACK.segment advanced (`tcp_rack_mark_lost`), unless the timer fired. Returns the
    /// bytes newly marked lost (lost retransmissions included).
    pub(super) fn rack_detect(&mut self, now: Instant, from_timer: bool) -> u64 {
        let Some(segment) = self.core.rack.segment() else {
            return 0;
        };
        if self.core.rack.variant() == Variant::Linux && !from_timer && !self.core.rack_advanced {
            return 0;
        }
        self.core.rack_advanced = false;
        let inputs = ReoInputs {
            in_recovery: matches!(self.state(), RecoveryState::Recovery | RecoveryState::Loss),
            segs_sacked: self.core.sb.sacked_segs(),
            dupthresh: match self.core.rack.variant() {
                Variant::Rfc8985 => self.alg.dupthresh,
                Variant::Linux => self.reordering(),
            },
            min_rtt: self.core.rtt.min_rtt(),
            srtt: self.core.rtt.srtt(),
        };
        self.core.rack.compute_reo_wnd(&inputs);
        let lost_after = self.core.rack.lost_after();

        let (sb, events, dropped) = (
            &mut self.core.sb,
            &mut self.events,
            &mut self.events_dropped,
        );
        let marks = sb.rack_detect_lost(segment, lost_after, now, |r, was_retrans| {
            push_lost(events, dropped, now, r, was_retrans);
        });
        self.apply_marks(&marks);
        self.core.rack_wait = marks.wait;
        marks.lost_bytes
    }

    fn apply_marks(&mut self, marks: &RackMarks) {
        self.stats.lost_retransmit += u64::from(marks.lost_retrans);
    }

    /// RACK's reorder timer expired (Linux `tcp_rack_reo_timeout`): detect again; new
    /// losses outside recovery start it. Then RFC 8985 re-arms the timer if something is
    /// still waiting; Linux (and with nothing waiting) the RTO, anchored at the head.
    pub(super) fn on_reo_timeout(&mut self, now: Instant) {
        if self.core.sb.flight_size() == 0 {
            self.core.timer.stop();
            return;
        }
        let lost = if self.rack_active() {
            self.rack_detect(now, true)
        } else {
            0
        };
        self.emit(now, EventKind::ReoTimeout { lost });
        // Linux `tcp_rack_reo_timeout`: recovery from any state but Recovery (Loss keeps
        // its own repair); from CWR it continues that reduction.
        let from = self.state();
        if lost > 0
            && matches!(
                from,
                RecoveryState::Open | RecoveryState::Disorder | RecoveryState::Cwr
            )
        {
            let prior = self.prior();
            self.enter_recovery(now, Why::RackRetransmit, prior);
            if self.alg.rules.reo_timeout_reduces_at_once {
                // Linux `tcp_rack_reo_timeout`: `tcp_cwnd_reduction(sk, 1, lost, 0)` at
                // once, one segment counted as delivered.
                let a = super::ack::AckSummary {
                    acked: 0,
                    delivered: self.mss,
                    optack_credit: 0,
                    reported_before: 0,
                    fills_hole: false,
                    ends_inside: false,
                    sent_since_rto: 0,
                    echo_answers_retrans: false,
                    is_dup: false,
                    cong_control: true,
                    ece: false,
                    prior,
                };
                self.reduce_on_ack(&a, lost);
            }
        } else if from == RecoveryState::Recovery
            && self.alg.rules.reo_timeout_in_recovery_fills_cwnd
            && !self.cc.sets_cwnd()
        {
            // Linux `tcp_rack_reo_timeout` → `tcp_xmit_retransmit_queue`: bounded by
            // cwnd − in flight, and the marks just took segments out of the flight. (A
            // controller that sets cwnd is bounded so already; PRR then only counts.)
            let room = self.cwnd.saturating_sub(self.recovery_pipe());
            self.core.reducer.on_old_ack(room);
        }
        match self.core.rack_wait.take() {
            Some(wait) if self.core.rack.variant() == Variant::Rfc8985 => {
                self.arm_reo_timer(now, wait)
            }
            _ => self.rearm_rto(now),
        }
    }

    /// RFC 8985 §6.3 at a timeout: the head and every transmission older than RACK.rtt +
    /// reo_wnd (Linux: RACK.rtt) is lost; recent ones are not, so a spurious timeout does
    /// not resend the whole window.
    pub(super) fn rack_mark_on_rto(&mut self, now: Instant) {
        let lost_after = self.core.rack.rto_lost_after();
        let (sb, events, dropped) = (
            &mut self.core.sb,
            &mut self.events,
            &mut self.events_dropped,
        );
        let marks = sb.rack_mark_on_rto(lost_after, now, |r, was_retrans| {
            if was_retrans {
                push_lost(events, dropped, now, r, true);
            }
        });
        self.apply_marks(&marks);
    }
}

fn push_lost(
    events: &mut std::collections::VecDeque<Event>,
    dropped: &mut u64,
    now: Instant,
    r: Range,
    was_retrans: bool,
) {
    let kind = if was_retrans {
        EventKind::LostRetransmit {
            start: r.start,
            end: r.end,
        }
    } else {
        EventKind::MarkLost {
            start: r.start,
            end: r.end,
            by: LossDetector::Rack,
        }
    };
    super::push_event(events, dropped, Event { at: now, kind });
}

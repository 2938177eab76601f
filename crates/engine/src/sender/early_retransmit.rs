//! Early Retransmit on the sender (RFC 5827; decisions in [`crate::detect::early_retransmit`]):
//! checking the conditions after an ACK, the mitigations (App. A.1 off after reordering,
//! A.2 rate cap, A.3 delay), and the delayed form on the single deadline (Linux 3.6's
//! `ICSK_TIME_EARLY_RETRANS`): armed for max(SRTT/4, 2 ms) unless the RTO would fire first,
//! cancelled by any ACK, fast-retransmitting on expiry.

use super::ack::Prior;
use super::state::DelayedEr;
use super::{RecoveryState, Sender};
use crate::config::resolved::ErMode;
use crate::detect::early_retransmit::{self as er, Trigger, View};
use crate::event::EventKind;
use crate::packet::Why;
use crate::time::Instant;
use crate::timer::TimerKind;

impl Sender {
    /// Whether an early retransmit is allowed now (outside recovery).
    pub(super) fn early_retransmit_check(&self) -> Option<Trigger> {
        let ErMode::On {
            disable_on_reordering,
            rate_cap_percent,
            ..
        } = self.alg.early_retransmit
        else {
            return None;
        };
        if (disable_on_reordering && self.core.reorder.seen)
            || !er::within_rate_cap(
                rate_cap_percent,
                self.stats.early_retrans,
                self.stats.data_segs_out,
            )
        {
            return None;
        }
        let view = View {
            oseg: self.core.sb.len() as u64,
            ownd: self.core.sb.flight_size(),
            sacked_segs: self.core.sb.sacked_segs(),
            sacked_bytes: self.core.sb.sacked_bytes(),
            last_sacked: self.core.sb.last_sacked(),
            dupacks: self.core.dup.count,
            sack: self.sack_ok,
            mss: self.mss,
            can_send_new: self.can_send_new(),
        };
        er::check(self.alg.early_retransmit, &view)
    }

    /// RFC 5827 §2 (b): previously unsent data is ready and the receive window admits a
    /// segment of it (then limited transmit, not ER, applies).
    fn can_send_new(&self) -> bool {
        let start = self.core.sb.snd_nxt();
        let avail = self.stream.written.saturating_sub(start);
        let rwnd_room = (self.core.sb.snd_una() + self.peer.window).saturating_sub(start);
        avail > 0 && rwnd_room >= self.mss.min(avail)
    }

    /// Arms the delayed early retransmit if configured (always for the TLP draft §4.2
    /// case) and possible: an RTT sample exists and the RTO would not fire first (Linux
    /// `tcp_pause_early_retransmit`). Returns whether it was armed.
    pub(super) fn maybe_delay_early_retransmit(&mut self, now: Instant, trigger: Trigger) -> bool {
        let delayed = matches!(self.alg.early_retransmit, ErMode::On { delayed: true, .. });
        if !(delayed || trigger == Trigger::Enhanced) {
            return false;
        }
        let Some(delay) = er::delay(self.core.rtt.srtt()) else {
            return false;
        };
        // What it displaces: the RTO, or a pending PTO or reorder timer.
        let (Some(kind), Some(at)) = (self.core.timer.kind(), self.core.timer.deadline()) else {
            return false;
        };
        if at <= now + delay {
            return false;
        }
        self.delay_early_retransmit(DelayedEr {
            displaced: (kind, at),
            enhanced: trigger == Trigger::Enhanced,
        });
        self.core
            .timer
            .arm(TimerKind::EarlyRetransmit, now, now + delay);
        self.stats.early_retrans_delayed += 1;
        self.emit(
            now,
            EventKind::EarlyRetransmitDelayed {
                delay_us: delay.as_micros() as u64,
            },
        );
        true
    }

    /// Starts fast recovery by an early retransmit of the head.
    pub(super) fn early_retransmit(&mut self, now: Instant, trigger: Trigger, prior: Prior) {
        self.emit(
            now,
            EventKind::EarlyRetransmit {
                snd_una: self.core.sb.snd_una(),
                enhanced: trigger == Trigger::Enhanced,
            },
        );
        self.enter_recovery(now, Why::EarlyRetransmit, prior);
    }

    /// Any ACK cancels a pending delayed early retransmit: the RTO it displaced returns.
    pub(super) fn cancel_delayed_early_retransmit(&mut self) {
        let delayed = self.take_delayed_er();
        if self.core.timer.kind() == Some(TimerKind::EarlyRetransmit) {
            if let Some(DelayedEr {
                displaced: (kind, at),
                ..
            }) = delayed
            {
                self.core.timer.restore(kind, at);
            }
        }
    }

    /// The delayed early retransmit's deadline passed with no ACK in between: the RTO
    /// returns to the slot and, if ER still applies, fast recovery starts.
    pub(super) fn on_delayed_early_retransmit(&mut self, now: Instant) {
        let delayed = self.take_delayed_er();
        match delayed {
            Some(DelayedEr {
                displaced: (kind, at),
                ..
            }) => self.core.timer.restore(kind, at),
            None => self.arm_rto(now),
        }
        let open = matches!(self.state(), RecoveryState::Open | RecoveryState::Disorder);
        if !open || self.core.sb.flight_size() == 0 {
            return;
        }
        let enhanced = delayed.is_some_and(|d| d.enhanced);
        if let Some(trigger) = self.early_retransmit_check() {
            let trigger = if enhanced { Trigger::Enhanced } else { trigger };
            let prior = self.prior();
            self.early_retransmit(now, trigger, prior);
        }
    }
}

//! The recovery state machine (Linux `tcp_ca_state` names; RFC 6675 §5, RFC 6582 §3.2,
//! RFC 6298 §5 with RFC 6675 §5.1): one value whose variants carry their episode's data.
//! The transitions below are its only writers; each emits its event.
//!
//! Cwr (a reduction without retransmission) is entered on ECN-Echo (`sender::ecn`, Linux
//! `tcp_enter_cwr`); a loss found by a tail loss probe cuts cwnd at once without staying
//! in it (Linux `tcp_init_cwnd_reduction` + `tcp_end_cwnd_reduction` +
//! `tcp_try_keep_open`).

use super::Sender;
use crate::event::EventKind;
use crate::time::Instant;
use crate::timer::TimerKind;

/// Linux's congestion states (`tcp_ca_state`), which name the recovery state machine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecoveryState {
    /// Nothing suspicious.
    Open = 0,
    /// SACKs or duplicate ACKs seen, no loss inferred yet.
    Disorder = 1,
    /// A cwnd reduction without retransmission (ECN, TLP-detected loss).
    Cwr = 2,
    /// Fast recovery.
    Recovery = 3,
    /// Recovery after a retransmission timeout.
    Loss = 4,
}

impl RecoveryState {
    /// The lower-case name used in traces and `TcpInfo` (`open`, `disorder`, `cwr`,
    /// `recovery`, `loss`).
    pub fn name(self) -> &'static str {
        match self {
            RecoveryState::Open => "open",
            RecoveryState::Disorder => "disorder",
            RecoveryState::Cwr => "cwr",
            RecoveryState::Recovery => "recovery",
            RecoveryState::Loss => "loss",
        }
    }
}

#[cfg(test)]
mod tests;

/// Where the connection's loss recovery is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ca {
    /// Nothing suspicious.
    Open,
    /// SACKs or duplicate ACKs seen, no loss inferred yet. `delayed_er`: a delayed early
    /// retransmit waits on the deadline (RFC 5827 App. A.3, Linux 3.6's
    /// `ICSK_TIME_EARLY_RETRANS`); any ACK cancels it.
    Disorder { delayed_er: Option<DelayedEr> },
    /// Fast recovery until SND.UNA reaches `recovery_point` (RFC 6675 RecoveryPoint, RFC
    /// 6582 `recover`, Linux `high_seq`): SND.NXT when it began. Without SACK, `budget`:
    /// how much more DeliveredData the episode may be credited (RFC 9937 §6: the non-SACK
    /// estimate never exceeds RecoverFS in total, the mitigation of Savage et al.'s
    /// duplicate-ACK spoofing; `dupack_budget`).
    Recovery {
        recovery_point: u64,
        budget: Option<u64>,
    },
    /// RTO recovery until SND.UNA reaches `recovery_point`: SND.NXT at the timeout (RFC
    /// 6675 §5.1), or at F-RTO's step 2b (Linux). Without SACK, `reported`: bytes above
    /// the hole that duplicate ACKs had reported delivered before the timeout, not yet
    /// covered; `hole`: bytes of the segment at SND.UNA at the timeout, which no
    /// duplicate reported, not yet covered. `answered`: an ACK whose timestamp echo shows
    /// it answers a retransmission covered data sent since the timeout.
    Loss {
        recovery_point: u64,
        reported: u64,
        hole: u64,
        answered: bool,
    },
    /// A cwnd reduction on ECN-Echo (RFC 3168 §6.1.2) until SND.UNA passes `high_seq`
    /// (Linux `high_seq`): SND.NXT when it began. The reducer holds its PRR counters.
    Cwr { high_seq: u64 },
}

impl Ca {
    /// Linux's name for it.
    pub fn name(self) -> RecoveryState {
        match self {
            Ca::Open => RecoveryState::Open,
            Ca::Disorder { .. } => RecoveryState::Disorder,
            Ca::Recovery { .. } => RecoveryState::Recovery,
            Ca::Loss { .. } => RecoveryState::Loss,
            Ca::Cwr { .. } => RecoveryState::Cwr,
        }
    }

    /// The episode's recovery point, in fast or RTO recovery.
    pub fn recovery_point(self) -> Option<u64> {
        match self {
            Ca::Recovery { recovery_point, .. } | Ca::Loss { recovery_point, .. } => {
                Some(recovery_point)
            }
            Ca::Open | Ca::Disorder { .. } | Ca::Cwr { .. } => None,
        }
    }

    /// Where the reduction in progress ends (Linux `high_seq` in CWR, Recovery or Loss).
    pub fn reduction_point(self) -> Option<u64> {
        match self {
            Ca::Cwr { high_seq } => Some(high_seq),
            ca => ca.recovery_point(),
        }
    }
}

/// A delayed early retransmit waiting on the deadline: what it displaced from the single
/// slot (the RTO, or a pending probe or reorder timer), restored when it fires or an ACK
/// cancels it, and whether it is the TLP draft §4.2 case.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DelayedEr {
    pub displaced: (TimerKind, Instant),
    pub enhanced: bool,
}

impl Ca {
    /// The episode's non-SACK DeliveredData budget, in fast recovery.
    pub fn budget_mut(&mut self) -> Option<&mut u64> {
        match self {
            Ca::Recovery { budget, .. } => budget.as_mut(),
            _ => None,
        }
    }
}

impl Sender {
    /// Open, or Disorder while SACK marks or duplicate ACKs remain (keeping a Disorder
    /// episode's data).
    pub(super) fn settle(&mut self) {
        let suspicious = self.core.sb.sacked_bytes() > 0 || self.core.dup.count > 0;
        match self.core.ca {
            Ca::Disorder { .. } if suspicious => {}
            _ if suspicious => self.core.ca = Ca::Disorder { delayed_er: None },
            _ => self.core.ca = Ca::Open,
        }
    }

    /// A delayed early retransmit is armed: the connection waits in Disorder.
    pub(super) fn delay_early_retransmit(&mut self, d: DelayedEr) {
        self.core.ca = Ca::Disorder {
            delayed_er: Some(d),
        };
    }

    /// The delayed early retransmit leaves the Disorder episode (fired or cancelled).
    pub(super) fn take_delayed_er(&mut self) -> Option<DelayedEr> {
        match &mut self.core.ca {
            Ca::Disorder { delayed_er } => delayed_er.take(),
            _ => None,
        }
    }

    /// Fast recovery begins (RFC 6675 §5 step 4: RecoveryPoint = HighData) — or, from a
    /// CWR episode, keeps its point (Linux `tcp_enter_recovery` leaves `high_seq` alone
    /// while `tcp_in_cwnd_reduction`). `budget`: the non-SACK bound (RFC 9937 §6).
    pub(super) fn begin_recovery(&mut self, budget: Option<u64>) {
        // A new episode brings its own budget.
        self.core.dup.undone_budget = None;
        let recovery_point = match self.core.ca {
            Ca::Cwr { high_seq } => high_seq,
            _ => self.core.sb.snd_nxt(),
        };
        self.core.ca = Ca::Recovery {
            recovery_point,
            budget,
        };
    }

    /// A reduction without retransmission begins (RFC 3168 §6.1.2; Linux `tcp_enter_cwr`)
    /// until SND.UNA passes `high_seq`.
    pub(super) fn begin_cwr(&mut self, high_seq: u64) {
        self.core.ca = Ca::Cwr { high_seq };
    }

    /// RTO recovery begins (RFC 6675 §5.1: RecoveryPoint = HighData), remembering what
    /// the duplicate ACKs had reported (before their count is reset): one segment each,
    /// every duplicate counted as Linux's `sacked_out` counts them, at most what is
    /// outstanding beyond the hole.
    pub(super) fn begin_loss(&mut self) {
        let (reported, hole) = match self.core.sb.segments().next() {
            Some(head) if !self.sack_ok => {
                let hole = head.end - head.start;
                let beyond = self.core.sb.flight_size().saturating_sub(hole);
                let reported = u64::from(self.core.dup.reno).saturating_mul(self.mss);
                (reported.min(beyond), hole)
            }
            _ => (0, 0),
        };
        self.core.ca = Ca::Loss {
            recovery_point: self.core.sb.snd_nxt(),
            reported,
            hole,
            answered: false,
        };
    }

    /// An ACK in RTO recovery answered the timeout's retransmission (its echo shows it).
    pub(super) fn loss_answered(&mut self) {
        if let Ca::Loss { answered, .. } = &mut self.core.ca {
            *answered = true;
        }
    }

    /// In RTO recovery without SACK, an advance of `acked` bytes: how many of them the
    /// duplicates before the timeout had reported delivered (the hole first takes its
    /// share, which none reported).
    pub(super) fn loss_consume_reported(&mut self, acked: u64) -> u64 {
        let Ca::Loss { reported, hole, .. } = &mut self.core.ca else {
            return 0;
        };
        let in_hole = acked.min(*hole);
        *hole -= in_hole;
        let consumed = (*reported).min(acked - in_hole);
        *reported -= consumed;
        consumed
    }

    /// Linux F-RTO's step 2b moves RTO recovery's end to SND.NXT (`high_seq = snd_nxt`
    /// in `tcp_process_loss`).
    pub(super) fn extend_loss(&mut self, recovery_point: u64) {
        if let Ca::Loss {
            reported,
            hole,
            answered,
            ..
        } = self.core.ca
        {
            self.core.ca = Ca::Loss {
                recovery_point,
                reported,
                hole,
                answered,
            };
        }
    }

    /// Fast or RTO recovery ends (at its recovery point, or undone): back to Open, or
    /// Disorder while SACK marks remain. Emits ExitRecovery/ExitLoss.
    pub(super) fn end_recovery(&mut self, now: Instant) {
        let was = self.core.ca;
        self.core.dup.count = 0;
        self.core.ca = if self.core.sb.sacked_bytes() > 0 {
            Ca::Disorder { delayed_er: None }
        } else {
            Ca::Open
        };
        let (snd_una, cwnd) = (self.core.sb.snd_una(), self.cwnd);
        let kind = match was {
            Ca::Loss { .. } => EventKind::ExitLoss { snd_una, cwnd },
            _ => EventKind::ExitRecovery { snd_una, cwnd },
        };
        self.emit(now, kind);
    }
}

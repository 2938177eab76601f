//! The recovery state machine (Linux `tcp_ca_state` names; RFC 6675 §5, RFC 6582 §3.2,
//! RFC 6298 §5 with RFC 6675 §5.1): one value whose variants carry their episode's data.
//! The transitions below are its only writers; each emits its event.
//!
//! Cwr (a reduction without retransmission) is entered on ECN-Echo (`sender::ecn`, Linux
//! `tcp_enter_cwr`); a loss found by a tail loss probe cuts cwnd at once without staying
//! in it (Linux `tcp_init_cwnd_reduction` + `tcp_end_cwnd_reduction` +
//! `tcp_try_keep_open`).

use super::{RecoveryState, Sender};
use crate::event::EventKind;
use crate::time::Instant;

/// Where the connection's loss recovery is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ca {
    /// Nothing suspicious.
    Open,
    /// SACKs or duplicate ACKs seen, no loss inferred yet.
    Disorder,
    /// Fast recovery until SND.UNA reaches `recovery_point` (RFC 6675 RecoveryPoint, RFC
    /// 6582 `recover`, Linux `high_seq`): SND.NXT when it began.
    Recovery { recovery_point: u64 },
    /// RTO recovery until SND.UNA reaches `recovery_point`: SND.NXT at the timeout (RFC
    /// 6675 §5.1), or at F-RTO's step 2b (Linux). `answered`: an ACK has covered data
    /// sent since the timeout, at least min_RTT after it was sent (the RFC flavour's slow
    /// start counts only such data from then on, RFC 3465 §2.3).
    Loss { recovery_point: u64, answered: bool },
    /// A cwnd reduction on ECN-Echo (RFC 3168 §6.1.2) until SND.UNA passes `high_seq`
    /// (Linux `high_seq`): SND.NXT when it began. The reducer holds its PRR counters.
    Cwr { high_seq: u64 },
}

impl Ca {
    /// Linux's name for it.
    pub fn name(self) -> RecoveryState {
        match self {
            Ca::Open => RecoveryState::Open,
            Ca::Disorder => RecoveryState::Disorder,
            Ca::Recovery { .. } => RecoveryState::Recovery,
            Ca::Loss { .. } => RecoveryState::Loss,
            Ca::Cwr { .. } => RecoveryState::Cwr,
        }
    }

    /// The episode's recovery point, in fast or RTO recovery.
    pub fn recovery_point(self) -> Option<u64> {
        match self {
            Ca::Recovery { recovery_point } | Ca::Loss { recovery_point, .. } => {
                Some(recovery_point)
            }
            Ca::Open | Ca::Disorder | Ca::Cwr { .. } => None,
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

impl Sender {
    /// Open, or Disorder while SACK marks or duplicate ACKs remain.
    pub(super) fn settle(&mut self) {
        self.ca = if self.sb.sacked_bytes() > 0 || self.dupacks > 0 {
            Ca::Disorder
        } else {
            Ca::Open
        };
    }

    /// Fast recovery begins (RFC 6675 §5 step 4: RecoveryPoint = HighData) — or, from a
    /// CWR episode, keeps its point (Linux `tcp_enter_recovery` leaves `high_seq` alone
    /// while `tcp_in_cwnd_reduction`).
    pub(super) fn begin_recovery(&mut self) {
        let recovery_point = match self.ca {
            Ca::Cwr { high_seq } => high_seq,
            _ => self.sb.snd_nxt(),
        };
        self.ca = Ca::Recovery { recovery_point };
    }

    /// RTO recovery begins (RFC 6675 §5.1: RecoveryPoint = HighData).
    pub(super) fn begin_loss(&mut self) {
        self.ca = Ca::Loss {
            recovery_point: self.sb.snd_nxt(),
            answered: false,
        };
    }

    /// An ACK in RTO recovery covered data sent since the timeout that it can be the
    /// answer to.
    pub(super) fn loss_answered(&mut self) {
        if let Ca::Loss { answered, .. } = &mut self.ca {
            *answered = true;
        }
    }

    /// Linux F-RTO's step 2b moves RTO recovery's end to SND.NXT (`high_seq = snd_nxt`
    /// in `tcp_process_loss`).
    pub(super) fn extend_loss(&mut self, recovery_point: u64) {
        if let Ca::Loss { answered, .. } = self.ca {
            self.ca = Ca::Loss {
                recovery_point,
                answered,
            };
        }
    }

    /// Fast or RTO recovery ends (at its recovery point, or undone): back to Open, or
    /// Disorder while SACK marks remain. Emits ExitRecovery/ExitLoss.
    pub(super) fn end_recovery(&mut self, now: Instant) {
        let was = self.ca;
        self.dupacks = 0;
        self.ca = if self.sb.sacked_bytes() > 0 {
            Ca::Disorder
        } else {
            Ca::Open
        };
        let (snd_una, cwnd) = (self.sb.snd_una(), self.cwnd);
        let kind = match was {
            Ca::Loss { .. } => EventKind::ExitLoss { snd_una, cwnd },
            _ => EventKind::ExitRecovery { snd_una, cwnd },
        };
        self.emit(now, kind);
    }
}

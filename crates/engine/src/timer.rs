//! The one loss-recovery deadline, tagged with its purpose (RFC 8985 §5.4, Linux
//! `icsk_pending`): the reorder timer, the probe timeout, delayed early retransmit and the
//! RTO share a single slot; arming one replaces the others.

use crate::time::Instant;

/// What the deadline is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind {
    /// Retransmission timeout (also the SYN timeout during the handshake).
    Rto,
    /// Delayed early retransmit (RFC 5827 App. A.3; Linux `ICSK_TIME_EARLY_RETRANS`):
    /// fast-retransmit when it expires; any ACK cancels it.
    EarlyRetransmit,
}

impl TimerKind {
    pub fn name(self) -> &'static str {
        match self {
            TimerKind::Rto => "rto",
            TimerKind::EarlyRetransmit => "early_retransmit",
        }
    }
}

/// The armed deadline, if any.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Timer {
    slot: Option<(TimerKind, Instant)>,
}

impl Timer {
    pub fn arm(&mut self, kind: TimerKind, at: Instant) {
        self.slot = Some((kind, at));
    }
    pub fn stop(&mut self) {
        self.slot = None;
    }
    pub fn deadline(&self) -> Option<Instant> {
        self.slot.map(|(_, at)| at)
    }
    pub fn kind(&self) -> Option<TimerKind> {
        self.slot.map(|(k, _)| k)
    }
    pub fn is_armed(&self) -> bool {
        self.slot.is_some()
    }
    /// The kind, if the deadline has passed at `now`.
    pub fn expired(&self, now: Instant) -> Option<TimerKind> {
        self.slot.filter(|&(_, at)| at <= now).map(|(k, _)| k)
    }
}

//! The one loss-recovery deadline, tagged with its purpose (RFC 8985 §5.4, Linux
//! `icsk_pending`): the reorder timer, the probe timeout, delayed early retransmit, the
//! RTO and the persist timer share a single slot; arming one replaces the others.

use crate::time::Instant;

/// What the deadline is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind {
    /// Retransmission timeout (also the SYN timeout during the handshake).
    Rto,
    /// Delayed early retransmit (RFC 5827 App. A.3; Linux `ICSK_TIME_EARLY_RETRANS`):
    /// fast-retransmit when it expires; any ACK cancels it.
    EarlyRetransmit,
    /// Tail loss probe timeout, PTO (TLP draft §2.1, RFC 8985 §7.2; Linux
    /// `ICSK_TIME_LOSS_PROBE`): send a probe when it expires.
    LossProbe,
    /// RACK's reorder timer (RFC 8985 §6.2 step 5; Linux `ICSK_TIME_REO_TIMEOUT`): run
    /// RACK's loss detection again when it expires.
    ReoTimeout,
    /// The persist timer (RFC 9293 §3.8.6.1; Linux `ICSK_TIME_PROBE0`): probe a zero
    /// window when it expires. Armed only with nothing in flight.
    Persist,
}

impl TimerKind {
    /// The trace name, e.g. `rto`.
    pub fn name(self) -> &'static str {
        match self {
            TimerKind::Rto => "rto",
            TimerKind::EarlyRetransmit => "early_retransmit",
            TimerKind::LossProbe => "loss_probe",
            TimerKind::ReoTimeout => "reo_timeout",
            TimerKind::Persist => "persist",
        }
    }
}

/// The armed deadline, if any.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Timer {
    slot: Option<(TimerKind, Instant)>,
}

impl Timer {
    /// Arms `kind` for `at`, replacing what was armed.
    pub fn arm(&mut self, kind: TimerKind, at: Instant) {
        self.slot = Some((kind, at));
    }
    /// Disarms it.
    pub fn stop(&mut self) {
        self.slot = None;
    }
    /// When it fires, if armed.
    pub fn deadline(&self) -> Option<Instant> {
        self.slot.map(|(_, at)| at)
    }
    /// What is armed.
    pub fn kind(&self) -> Option<TimerKind> {
        self.slot.map(|(k, _)| k)
    }
    /// Something is armed.
    pub fn is_armed(&self) -> bool {
        self.slot.is_some()
    }
    /// The kind, if the deadline has passed at `now`.
    pub fn expired(&self, now: Instant) -> Option<TimerKind> {
        self.slot.filter(|&(_, at)| at <= now).map(|(k, _)| k)
    }
}

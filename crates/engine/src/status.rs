//! What a caller must not miss about a sender's lifetime, as values: a sender that stopped
//! (the optimistic-ACK defence, `detect::optack`) says so here and with an
//! [`EventKind::OptAckDetected`](crate::EventKind::OptAckDetected) event, not only in a
//! counter.

use crate::sender::Sender;

impl Sender {
    /// The sender has stopped for good: the optimistic-ACK defence found the peer
    /// acknowledging data it never received (Savage et al. 1999 §4.3). From then on
    /// `poll_transmit` and `poll_timeout` return `None` and inputs are ignored, so a
    /// driver that sees `poll_transmit` return `None` with data outstanding checks this
    /// and ends the connection (e.g. with a RST) rather than waiting for a timer that will
    /// never be armed.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.optack_detected()
    }
}

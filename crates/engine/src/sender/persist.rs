//! The persist timer (RFC 9293 §3.8.6.1): a peer that closes its window while data waits
//! and nothing is in flight would leave the connection with nothing to wake it — its
//! window update may be lost, and no ACK comes for data not sent. The sender probes the
//! window on the one deadline (kind [`TimerKind::Persist`]) with exponential backoff.
//!
//! As Linux:
//! - `tcp_check_probe_timer`: blocked by the window with nothing in flight and no deadline
//!   armed → arm a probe one `tcp_probe0_base` (the RTO, at least the minimum RTO) away;
//! - `tcp_ack_probe`: an ACK while nothing was in flight either opened the window (stop,
//!   backoff back to 0) or re-arms the probe from now with the current backoff;
//! - `tcp_probe_timer` / `tcp_send_probe0`: send a probe, back off (at most 15 doublings,
//!   `tcp_retries2`), re-arm at `tcp_probe0_when`, capped at the maximum RTO. The probe
//!   never aborts the connection while the peer answers (Linux resets `icsk_probes_out`
//!   on every ACK);
//! - `tcp_xmit_probe_skb`: the probe is an empty segment at SND.UNA − 1, which the receiver
//!   must find unacceptable and answer with an ACK (RFC 9293 §3.10.7.4). Counted as
//!   `TCPWinProbe`.
//!
//! Deviation: before anything was acknowledged (SND.UNA = 0) there is no offset below
//! SND.UNA in the stream space; the probe is then an empty segment at 0 (on the wire
//! `crates/wire` maps it to ISN + 1, which a Linux receiver does not answer).

use super::pending::Pending;
use super::Sender;
use crate::packet::{Range, Transmit, Why};
use crate::time::{Duration, Instant};
use crate::timer::TimerKind;

/// Linux `tcp_retries2`: the backoff stops doubling after this many probes.
const MAX_PROBE_BACKOFF: u32 = 15;

impl Sender {
    /// Data waits, nothing is in flight, and the peer's window has no room for any of it.
    pub(super) fn window_blocked(&self) -> bool {
        let nxt = self.core.sb.snd_nxt();
        self.is_established()
            && self.core.sb.flight_size() == 0
            && self.stream.written > nxt
            && self.core.sb.snd_una() + self.peer.window <= nxt
    }

    /// Linux `tcp_probe0_when`: the RTO (at least the minimum RTO) doubled per probe,
    /// capped at the maximum RTO.
    pub(super) fn persist_interval(&self) -> Duration {
        let base = self.core.rtt.rto().max(self.alg.shell.min_rto);
        let shifted = base.saturating_mul(1 << self.peer.persist_backoff.min(MAX_PROBE_BACKOFF));
        shifted.min(self.alg.shell.max_rto)
    }

    /// Linux `tcp_check_probe_timer`, after sending stopped: arm the probe when blocked
    /// and no deadline is armed.
    pub(super) fn persist_check(&mut self, now: Instant) {
        if self.window_blocked() && !self.core.timer.is_armed() {
            self.core
                .timer
                .arm(TimerKind::Persist, now, now + self.persist_interval());
        }
    }

    /// Linux `tcp_ack_probe` (an ACK while nothing was in flight) and the check after
    /// any ACK that left the sender blocked.
    pub(super) fn persist_on_ack(&mut self, now: Instant, nothing_was_in_flight: bool) {
        if !self.window_blocked() {
            self.peer.persist_backoff = 0;
            if self.core.timer.kind() == Some(TimerKind::Persist) {
                self.core.timer.stop();
            }
            return;
        }
        if nothing_was_in_flight || !self.core.timer.is_armed() {
            self.core
                .timer
                .arm(TimerKind::Persist, now, now + self.persist_interval());
        }
    }

    /// Linux `tcp_probe_timer` → `tcp_send_probe0`.
    pub(super) fn on_persist_timeout(&mut self, now: Instant) {
        self.core.timer.stop();
        if !self.window_blocked() {
            self.peer.persist_backoff = 0;
            return; // data in flight (its RTO rules) or the window opened
        }
        if self.pending == Pending::Nothing {
            self.pending = Pending::WindowProbe;
        }
        self.peer.persist_backoff = (self.peer.persist_backoff + 1).min(MAX_PROBE_BACKOFF);
        self.core
            .timer
            .arm(TimerKind::Persist, now, now + self.persist_interval());
    }

    /// Linux `tcp_xmit_probe_skb`: an empty segment at SND.UNA − 1.
    pub(super) fn window_probe_transmit(&mut self, now: Instant) -> Option<Transmit> {
        if !self.window_blocked() {
            return None;
        }
        self.stats.win_probes += 1;
        let at = self.core.sb.snd_una().saturating_sub(1);
        Some(self.segment(now, Range::new(at, at), Why::WindowProbe, false, false))
    }
}

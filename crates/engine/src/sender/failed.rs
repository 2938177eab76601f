//! Transmissions that never left the host: the caller reports that the segment it just
//! took from `poll_transmit` could not be sent (a full or dropping queue, ENOBUFS), and
//! the sender takes the transmission back as Linux does when `tcp_transmit_skb` fails.
//!
//! - New data (`tcp_write_xmit`): the segment stays unsent (SND.NXT, the push state, PRR's
//!   `prr_out`, the timers and TLP as before it) and sending stops; with nothing in
//!   flight `tcp_check_probe_timer` arms the probe timer ([`TimerKind::Persist`]), whose
//!   expiry retries.
//! - A retransmission (`tcp_retransmit_skb`, `__tcp_retransmit_skb`): the segment is not
//!   marked retransmitted (still lost, out of the pipe), `TCPRetransFail` counts it,
//!   `TCPFastRetrans`/`TCPSlowStartRetrans` do not; `tcp_xmit_retransmit_queue` and
//!   `tcp_rack_reo_timeout` stop. What Linux does before handing the skb down stays done:
//!   `total_retrans` (`RetransSegs`), the undo bookkeeping (`undo_retrans`,
//!   `retrans_stamp`), `TCPCB_EVER_RETRANS` and the skb's timestamp — so the RTO that
//!   `tcp_rearm_rto` re-arms from the head runs from the attempt. A forced fast
//!   retransmission stays forced (`tcp_cwnd_reduction`: `prr_out` is still 0).
//! - The timeout's own retransmission (`tcp_retransmit_timer`): the timer returns after
//!   `TCP_RESOURCE_PROBE_INTERVAL` (500 ms) and the backoff is not doubled.
//! - A tail loss probe (`tcp_send_loss_probe`): no probe episode, not counted in
//!   `TCPLossProbes`; `tcp_rearm_rto` re-arms the RTO.
//! - A zero-window probe (`tcp_send_probe0`): the probe timer returns after 500 ms, no
//!   backoff.
//! - SYN, SYN-ACK and the handshake ACK: nothing to take back (the SYN's timer resends).
//!
//! The sender keeps what taking back needs only after
//! [`allow_transmit_failures`](Sender::allow_transmit_failures) (one allocation), so a
//! connection whose sends cannot fail pays nothing for it.
//!
//! Sending resumes at the next input (`on_ack`, `on_timeout`, `write`), as Linux tries
//! again on the next ACK or timer. Not modelled: Linux also enters CWR when a qdisc
//! drops (`__tcp_transmit_skb`: `net_xmit_eval` > 0 → `tcp_enter_cwr`; no effect in
//! Recovery or Loss); the congestion controller (its model, HyStart) keeps what it saw
//! of the attempt.

use super::pending::Pending;
use super::Sender;
use crate::packet::{Transmit, Why};
use crate::probe::{tlp, tlp_draft};
use crate::time::{Duration, Instant};
use crate::timer::{Timer, TimerKind};

/// Linux `TCP_RESOURCE_PROBE_INTERVAL` (HZ / 2): the retry after a local failure.
pub const RESOURCE_PROBE_INTERVAL: Duration = Duration::from_millis(500);

/// Why [`Sender::transmit_failed`] changed nothing.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TransmitFailedError {
    /// [`Sender::allow_transmit_failures`] was not called: the sender kept no record of
    /// its transmissions.
    NotAllowed,
    /// Not the transmission `poll_transmit` returned last, or an input (ACK, timeout,
    /// write) or another report came after it: only the last one can be taken back.
    NotLastPolled,
}

impl core::fmt::Display for TransmitFailedError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            TransmitFailedError::NotAllowed => {
                "transmit failures were not allowed (Sender::allow_transmit_failures)"
            }
            TransmitFailedError::NotLastPolled => {
                "only the transmission poll_transmit returned last can be reported failed"
            }
        })
    }
}

impl std::error::Error for TransmitFailedError {}

/// The sender as it was before the last `poll_transmit`, for taking it back.
#[derive(Clone, Debug, Default)]
pub(super) struct XmitUndo {
    /// The last transmission polled, while it can still be reported failed.
    last: Option<Transmit>,
    /// A transmission failed: nothing more goes out until the next input.
    blocked: bool,
    /// What the reducer counted of it: bytes, forced, and the quota before.
    reducer: Option<(u64, bool, u64)>,
    timer: Timer,
    pending: Pending,
    fin_sent: bool,
    tlp: Option<tlp::Episode>,
    tlp_draft: tlp_draft::Episode,
    persist_backoff: u32,
}

impl Sender {
    /// The caller's transmissions can fail to leave the host: from now on the sender keeps
    /// what [`transmit_failed`](Sender::transmit_failed) needs to take the last one back
    /// (a few hundred bytes, allocated once here; a connection that never calls this
    /// pays nothing).
    pub fn allow_transmit_failures(&mut self) {
        self.xmit_undo.get_or_insert_with(Box::default);
        self.push.record();
        self.core.sb.record_sends();
    }

    /// A transmission failed and no input came since: nothing goes out.
    pub(super) fn xmit_blocked(&self) -> bool {
        self.xmit_undo.as_ref().is_some_and(|u| u.blocked)
    }

    /// Before choosing a transmission: keep what taking it back restores (the push
    /// queue and the scoreboard keep their own record of the last segment, and counters
    /// are taken back by kind).
    pub(super) fn xmit_snapshot(&mut self) {
        let Some(u) = self.xmit_undo.as_deref_mut() else {
            return;
        };
        u.last = None;
        self.push.undo_begin();
        u.reducer = None;
        u.timer = self.core.timer;
        u.pending = self.pending;
        u.fin_sent = self.stream.fin_sent;
        u.tlp = Some(self.core.tlp);
        u.tlp_draft = self.core.tlp_draft;
        u.persist_backoff = self.peer.persist_backoff;
    }

    /// The reducer is about to count `bytes` sent in recovery.
    pub(super) fn xmit_on_reducer(&mut self, bytes: u64, forced: bool) {
        let quota = self.core.reducer.prr().map_or(0, |p| p.quota());
        if let Some(u) = self.xmit_undo.as_deref_mut() {
            u.reducer = Some((bytes, forced, quota));
        }
    }

    /// `poll_transmit` returned `t` (or nothing).
    pub(super) fn xmit_polled(&mut self, t: Option<Transmit>) {
        if let Some(u) = self.xmit_undo.as_deref_mut() {
            u.last = t;
        }
    }

    /// An input arrived: what was polled before it went out; sending may resume.
    pub(super) fn xmit_on_input(&mut self) {
        if let Some(u) = self.xmit_undo.as_deref_mut() {
            u.last = None;
            u.blocked = false;
        }
    }

    /// The transmission `t`, just returned by `poll_transmit`, did not leave the host
    /// (see the module documentation for what the sender does, as Linux). Report it
    /// before any other call; nothing more is sent until the next input. Needs
    /// [`allow_transmit_failures`](Sender::allow_transmit_failures) first.
    pub fn transmit_failed(
        &mut self,
        now: Instant,
        t: &Transmit,
    ) -> Result<(), TransmitFailedError> {
        let Some(u) = self.xmit_undo.as_deref_mut() else {
            return Err(TransmitFailedError::NotAllowed);
        };
        if u.last != Some(*t) {
            return Err(TransmitFailedError::NotLastPolled);
        }
        u.last = None;
        u.blocked = true;
        let u = u.clone();
        match t.why {
            Why::Syn | Why::SynAck | Why::HandshakeAck => {}
            Why::WindowProbe => {
                // `tcp_send_probe0`: no backoff for a local failure (the timer's probe
                // had already counted one).
                let timer_probe = u.pending == Pending::WindowProbe;
                self.peer.persist_backoff = u.persist_backoff;
                if timer_probe {
                    self.peer.persist_backoff = self.peer.persist_backoff.saturating_sub(1);
                }
                self.core
                    .timer
                    .arm(TimerKind::Persist, now, now + RESOURCE_PROBE_INTERVAL);
            }
            _ => self.take_back(now, t, u),
        }
        self.check_invariants();
        Ok(())
    }

    /// Data, new or retransmitted, that did not leave.
    fn take_back(&mut self, now: Instant, t: &Transmit, mut u: XmitUndo) {
        let timeout_rexmit = u.pending == Pending::Head(Why::RtoRetransmit);
        self.core.sb.undo_last_send();
        self.push.undo_last();
        if let Some((bytes, forced, quota)) = u.reducer.take() {
            self.core.reducer.on_transmit_failed(bytes, forced, quota);
        }
        // `DataSegsOut`, `RetransSegs` (`total_retrans`) count the attempt, as Linux
        // counts before handing the skb down; the rest only what left.
        let retransmission = t.why.is_retransmission();
        let s = &mut self.stats;
        let undo = |c: &mut u64| *c = c.saturating_sub(1);
        match t.why {
            Why::FastRetransmit | Why::Rescue | Why::RackRetransmit => undo(&mut s.fast_retrans),
            Why::EarlyRetransmit => {
                undo(&mut s.fast_retrans);
                undo(&mut s.early_retrans);
            }
            Why::RtoRetransmit if !timeout_rexmit => undo(&mut s.slow_start_retrans),
            Why::LimitedTransmit => undo(&mut s.limited_transmit),
            Why::Probe(_) => undo(&mut s.loss_probes),
            _ => {}
        }
        if retransmission {
            s.retrans_fail += 1;
        }
        self.stream.fin_sent = u.fin_sent;
        if let Some(e) = u.tlp.take() {
            self.core.tlp = e;
        }
        self.core.tlp_draft = u.tlp_draft;
        match t.why {
            Why::RtoRetransmit if timeout_rexmit => {
                self.core.rtt.unbackoff();
                self.core
                    .timer
                    .arm(TimerKind::Rto, now, now + RESOURCE_PROBE_INTERVAL);
            }
            // `tcp_rearm_rto` in place of the PTO: anchored to the head.
            Why::Probe(_) => {
                let at = self.rto_expiry(now, false);
                self.core.timer.arm(TimerKind::Rto, now, at);
            }
            // A fast retransmission forced out regardless of the quota stays due.
            _ if retransmission => {
                if matches!(u.pending, Pending::Head(_)) {
                    self.pending = u.pending;
                }
            }
            _ => {
                self.core.timer = u.timer;
                self.pending = u.pending;
                // `tcp_check_probe_timer`: nothing in flight, data waits.
                let waits = self.stream.written > self.core.sb.snd_nxt();
                if self.core.sb.flight_size() == 0 && waits && !self.core.timer.is_armed() {
                    let at = now + self.persist_interval();
                    self.core.timer.arm(TimerKind::Persist, now, at);
                }
            }
        }
    }
}

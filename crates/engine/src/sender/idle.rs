//! The window after the connection went quiet (Linux flavour).
//!
//! - `tcp_slow_start_after_idle_check` (include/net/tcp.h), called when a write queues a
//!   new skb (`tcp_skb_entail`): with `tcp_slow_start_after_idle` on, nothing in flight
//!   and more than an RTO since data last left (`tp->lsndtime`), `tcp_cwnd_restart`
//!   (tcp_output.c): ssthresh = `tcp_current_ssthresh` (at least ¾ cwnd), and cwnd is
//!   halved once per RTO of idle time beyond the first, but not below min(IW, cwnd) —
//!   RFC 5681 §4.1's restart window, as RFC 7661 §4.2 describes Linux.
//! - `tcp_ack_update_window` (tcp_input.c) runs the same check on an ACK that changes
//!   SND.WND while unsent data waits: a peer that reopens its window after a long
//!   zero-window stall gets the restarted window, not the one from before the stall
//!   (zero-window probes carry no data, so they leave `lsndtime` alone). The check sees
//!   `packets_out` before the ACK cleans the retransmission queue.
//! - `tcp_event_data_sent`: every data segment sets `lsndtime`; the first after the
//!   flight emptied is `CA_EVENT_TX_START`, on which CUBIC moves its epoch forward by the
//!   idle time (`cubictcp_cwnd_event`) so the curve resumes where it stopped.

use super::Sender;
use crate::packet::{Transmit, Why};
use crate::time::Instant;

impl Sender {
    /// The application writes at `now` (before its bytes are queued).
    pub(super) fn idle_on_write(&mut self, now: Instant) {
        if !self.alg.rules.idle_restart
            || self.core.sb.flight_size() > 0
            || self.stream.written > self.core.sb.snd_nxt()
        {
            return;
        }
        self.cwnd_restart_after_idle(now);
    }

    /// An ACK (`tcp_ack_update_window`) that may have `changed` the peer's window;
    /// `prior_flight` is what was in flight before the ACK.
    pub(super) fn idle_on_window_update(&mut self, now: Instant, changed: bool, prior_flight: u64) {
        if !changed
            || !self.alg.rules.idle_restart
            || prior_flight > 0
            || self.stream.written <= self.core.sb.snd_nxt()
        {
            return;
        }
        self.cwnd_restart_after_idle(now);
    }

    /// `tcp_slow_start_after_idle_check`'s idle test and `tcp_cwnd_restart`.
    fn cwnd_restart_after_idle(&mut self, now: Instant) {
        let Some(last) = self.stream.last_data_sent else {
            return;
        };
        let rto = self.core.rtt.rto();
        let mut idle = now - last;
        if idle <= rto {
            return;
        }
        let mss = self.mss.max(1);
        let cwnd_segs = self.cwnd / mss;
        // tcp_current_ssthresh: max(ssthresh, cwnd/2 + cwnd/4) outside a reduction.
        let three_quarters = ((cwnd_segs >> 1) + (cwnd_segs >> 2)) * mss;
        self.ssthresh = self.ssthresh.max(three_quarters);
        let restart = (u64::from(self.alg.shell.initial_cwnd) * mss).min(self.cwnd);
        let mut cwnd = self.cwnd;
        loop {
            idle = idle.saturating_sub(rto);
            if idle.is_zero() || cwnd <= restart {
                break;
            }
            cwnd = ((cwnd / mss) >> 1) * mss;
        }
        self.cwnd = cwnd.max(restart);
    }

    /// A transmission left (`tcp_event_data_sent`; pure ACKs do not count).
    pub(super) fn idle_on_transmit(&mut self, now: Instant, t: &Transmit) {
        if t.range.is_empty() {
            return;
        }
        // CA_EVENT_TX_START: new data and nothing else in flight.
        let first = t.why == Why::New && self.core.sb.flight_size() == t.range.len();
        if first {
            let idle = match (self.stream.last_data_sent, self.alg.rules.cc_tx_start_event) {
                (Some(last), true) => Some(now - last),
                _ => None,
            };
            self.cc_on_tx_start(now, idle);
        }
        self.stream.last_data_sent = Some(now);
    }
}

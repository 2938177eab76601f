//! The congestion controller on the sender (`cc`): the moments of the controller trait
//! ([`crate::cc::CongestionController`]) called from the ACK, transmit, idle and timeout
//! paths with the connection as the controller sees it ([`ConnInfo`]), and — for a
//! controller that takes rate samples — delivery-rate estimation (Linux `tcp_rate.c`:
//! `tcp_rate_skb_sent` on every transmission, `tcp_rate_gen` on every ACK before
//! `tcp_cong_control`), whose sample the controller gets with the ACK.

use super::ack::AckSummary;
use super::Sender;
use crate::cc::rate::{Rate, RateSample, TxState};
use crate::cc::{CongestionController, ConnInfo, SentInfo};
use crate::packet::{Transmit, Why};
use crate::scoreboard::AckSummary as ScoreboardAck;
use crate::time::{Duration, Instant};

/// Delivery-rate estimation (only for a controller that wants rate samples).
#[derive(Clone, Debug, Default)]
pub struct RateSampler {
    rate: Rate,
    /// `tp->lost` when the previous ACK was processed.
    lost: u64,
    /// The RTT sample of the ACK being processed (`ca_rtt_us`).
    ack_rtt: Option<Duration>,
    /// What the transmission being made records (`tcp_rate_skb_sent`).
    tx: TxState,
}

impl RateSampler {
    /// A sampler if `cc` takes rate samples.
    pub fn for_controller(cc: &impl CongestionController) -> Option<Box<RateSampler>> {
        cc.wants_rate_samples()
            .then(|| Box::new(RateSampler::default()))
    }
}

impl Sender {
    /// The connection as the controller sees it at `now`.
    fn conn_info(&self, now: Instant) -> ConnInfo {
        let r = self.rate.as_deref();
        let mut c = ConnInfo::new(now, self.window());
        c.pipe = self.pipe();
        c.delivered = r.map_or(0, |r| r.rate.delivered);
        c.delivered_time = r.map_or(now, |r| r.rate.delivered_time);
        c.lost = self.core.sb.lost_total();
        c.app_limited = r.is_some_and(|r| r.rate.is_app_limited());
        c.state = self.state();
        c.srtt = self.core.rtt.srtt();
        c
    }

    /// Before a transmission: what it records for rate estimation (`tcp_rate_skb_sent`;
    /// `idle`: nothing in flight, the interval restarts).
    pub(super) fn rate_before_send(&mut self, now: Instant, idle: bool) {
        if let Some(r) = self.rate.as_deref_mut() {
            r.tx = r.rate.on_send(now, idle);
        }
    }

    /// After a data transmission `t` stamped `at`: its segments keep their rate stamp, and
    /// the controller hears of it.
    pub(super) fn cc_on_sent(&mut self, at: Instant, t: &Transmit) {
        if let Some(r) = self.rate.as_deref() {
            self.core.sb.stamp_tx(t.range, r.tx);
        }
        let sent = SentInfo {
            bytes: t.range.len(),
            retransmission: t.why != Why::New,
        };
        self.cc.on_packet_sent(at, &sent);
    }

    /// Sending restarts with nothing in flight (`CA_EVENT_TX_START`, detected in
    /// `sender::idle`), `idle` after the last data where the flavour reports it.
    pub(super) fn cc_on_tx_start(&mut self, now: Instant, idle: Option<Duration>) {
        let c = self.conn_info(now);
        self.cc.on_tx_start(now, idle, &c);
    }

    /// `tcp_rate_check_app_limited` when the application writes.
    pub(super) fn rate_on_write(&mut self) {
        if self.rate.is_none() {
            return;
        }
        let unsent_below_mss =
            self.stream.written.saturating_sub(self.core.sb.snd_nxt()) < self.mss;
        let in_flight = self.pipe().div_ceil(self.mss);
        let cwnd = self.cwnd / self.mss;
        let lost_unrepaired = self.core.sb.lost_pending_bytes() > 0;
        if let Some(r) = self.rate.as_deref_mut() {
            r.rate
                .check_app_limited(unsent_below_mss, in_flight, cwnd, lost_unrepaired);
        }
    }

    /// A retransmission timeout, after the loss window was set (`tcp_enter_loss` →
    /// `set_state(TCP_CA_Loss)`).
    pub(super) fn cc_on_timeout(&mut self, now: Instant) {
        let c = self.conn_info(now);
        self.cc.on_timeout(now, &c);
    }

    /// The RTT sample the ACK being processed produced (`ca_rtt_us`), for its rate sample
    /// (`rs.rtt`).
    pub(super) fn rate_on_rtt_sample(&mut self, rtt: Duration) {
        if let Some(r) = self.rate.as_deref_mut() {
            r.ack_rtt = Some(rtt);
        }
    }

    /// `tcp_rate_gen` + `tcp_cong_control` → `cong_control`, after the state machine:
    /// the ACK's rate sample goes to a controller that takes them, which may set cwnd.
    pub(super) fn cc_on_ack(&mut self, now: Instant, a: &AckSummary, sb: &ScoreboardAck) {
        let (mss, prior_pipe) = (self.mss, a.prior.flight.saturating_sub(a.prior.sacked));
        let (min_rtt, lost_total) = (self.core.rtt.min_rtt(), self.core.sb.lost_total());
        let Some(r) = self.rate.as_deref_mut() else {
            return;
        };
        let losses = lost_total - r.lost;
        r.lost = lost_total;
        let rtt = r.ack_rtt.take();
        let mut rs = RateSample::default();
        if let Some((tx, sent)) = sb.delivered.newest_tx {
            r.rate.on_delivered(&mut rs, tx, sent);
        }
        r.rate.note_delivered(sb.delivered.segs);
        r.rate
            .on_ack(now, sb.delivered.segs, losses, min_rtt, &mut rs);
        rs.rtt = rtt.or_else(|| {
            sb.delivered
                .newest_valid
                .map(|(sent, _)| now.saturating_duration_since(sent))
        });
        rs.prior_in_flight = prior_pipe.div_ceil(mss);
        if !a.cong_control {
            return;
        }
        let c = self.conn_info(now);
        let mut w = self.window();
        let v = self.cc.on_rate_sample(now, &rs, &c, &mut w);
        if v.app_limited {
            if let Some(r) = self.rate.as_deref_mut() {
                r.rate.mark_app_limited(c.pipe.div_ceil(mss));
            }
        }
        // A controller's cwnd is never below one segment, nor its ssthresh below two.
        self.cwnd = w.cwnd.max(mss);
        if w.ssthresh != self.ssthresh {
            self.ssthresh = w.ssthresh.max(2 * mss);
        }
    }
}

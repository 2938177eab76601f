//! BBR on the sender (`cc = bbr`; model in [`crate::cc::bbr`]): the rate sample of each
//! ACK (Linux `tcp_rate_gen` before `tcp_cong_control`), the model's cwnd in place of
//! growth and of the reducer's cwnd, and the pacing rate (`sk_pacing_rate`), which
//! `sender::pacing` applies as for every paced flow (BBR asks for internal pacing,
//! `SK_PACING_NEEDED`).

use super::ack::AckSummary;
use super::{RecoveryState, Sender};
use crate::cc::bbr::{Bbr, CaState, Conn};
use crate::cc::rate::{Rate, RateSample, TxState};
use crate::packet::Range;
use crate::scoreboard::AckSummary as ScoreboardAck;
use crate::time::{Duration, Instant};

/// BBR's state on a connection: the model and the delivery counters.
#[derive(Clone, Debug)]
pub struct Model {
    pub bbr: Bbr,
    pub rate: Rate,
    /// `tp->lost` when the previous ACK was processed.
    lost: u64,
    /// The RTT sample of the ACK being processed (`ca_rtt_us`).
    pub(super) ack_rtt: Option<Duration>,
    /// What the transmission being made records (`tcp_rate_skb_sent`).
    tx: TxState,
}

impl Model {
    pub fn new(now: Instant, mss: u64, cwnd_segs: u64) -> Model {
        Model {
            bbr: Bbr::new(now, mss, cwnd_segs, None),
            rate: Rate::default(),
            lost: 0,
            ack_rtt: None,
            tx: TxState::default(),
        }
    }
}

impl Sender {
    fn ca_state(&self) -> CaState {
        match self.state() {
            RecoveryState::Open => CaState::Open,
            RecoveryState::Disorder => CaState::Disorder,
            RecoveryState::Cwr => CaState::Cwr,
            RecoveryState::Recovery => CaState::Recovery,
            RecoveryState::Loss => CaState::Loss,
        }
    }

    fn bbr_conn(&self, now: Instant) -> Conn {
        let m = self.bbr.as_deref();
        Conn {
            now,
            mss: self.mss,
            cwnd: self.cwnd / self.mss,
            in_flight: self.pipe().div_ceil(self.mss),
            delivered: m.map_or(0, |m| m.rate.delivered),
            delivered_time: m.map_or(now, |m| m.rate.delivered_time),
            lost: self.sb.lost_total(),
            ca: self.ca_state(),
            srtt: self.rtt.srtt(),
        }
    }

    /// Before a transmission: what it records for rate estimation (`tcp_rate_skb_sent`;
    /// `idle`: nothing in flight, the interval restarts).
    pub(super) fn bbr_before_send(&mut self, now: Instant, idle: bool) {
        if let Some(m) = self.bbr.as_deref_mut() {
            m.tx = m.rate.on_send(now, idle);
        }
    }

    /// Sending restarts from idle (`CA_EVENT_TX_START`, detected in `sender::idle`).
    pub(super) fn bbr_on_tx_start(&mut self, now: Instant) {
        if self.bbr.is_none() {
            return;
        }
        let c = self.bbr_conn(now);
        if let Some(m) = self.bbr.as_deref_mut() {
            let app_limited = m.rate.is_app_limited();
            m.bbr.on_tx_start(app_limited, &c);
        }
    }

    /// After a data transmission of `range`: its segments keep their rate stamp.
    pub(super) fn bbr_after_send(&mut self, range: Range) {
        if let Some(m) = self.bbr.as_deref() {
            self.sb.stamp_tx(range, m.tx);
        }
    }

    /// `tcp_rate_check_app_limited` when the application writes.
    pub(super) fn bbr_on_write(&mut self) {
        let unsent_below_mss = self.stream.written.saturating_sub(self.sb.snd_nxt()) < self.mss;
        let in_flight = self.pipe().div_ceil(self.mss);
        let cwnd = self.cwnd / self.mss;
        let lost_unrepaired = self.sb.lost_pending_bytes() > 0;
        if let Some(m) = self.bbr.as_deref_mut() {
            m.rate
                .check_app_limited(unsent_below_mss, in_flight, cwnd, lost_unrepaired);
        }
    }

    /// `tcp_enter_loss` → `bbr_set_state(TCP_CA_Loss)`.
    pub(super) fn bbr_on_rto(&mut self, now: Instant) {
        let c = self.bbr_conn(now);
        if let Some(m) = self.bbr.as_deref_mut() {
            m.bbr.on_loss_state(&c);
        }
    }

    /// `bbr_ssthresh` at the start of a reduction: save cwnd.
    pub(super) fn bbr_on_congestion_event(&mut self) {
        let cwnd = self.cwnd / self.mss;
        if let Some(m) = self.bbr.as_deref_mut() {
            m.bbr.on_congestion_event(cwnd);
        }
    }

    /// `tcp_rate_gen` + `tcp_cong_control` → `bbr_main`, after the state machine.
    pub(super) fn bbr_on_ack(&mut self, now: Instant, a: &AckSummary, sb: &ScoreboardAck) {
        let (mss, prior_pipe) = (self.mss, a.prior.flight.saturating_sub(a.prior.sacked));
        let (min_rtt, lost_total) = (self.rtt.min_rtt(), self.sb.lost_total());
        let Some(m) = self.bbr.as_deref_mut() else {
            return;
        };
        let losses = lost_total - m.lost;
        m.lost = lost_total;
        let rtt = m.ack_rtt.take();
        let mut rs = RateSample::default();
        if let Some((tx, sent)) = sb.delivered.newest_tx {
            m.rate.on_delivered(&mut rs, tx, sent);
        }
        m.rate.note_delivered(sb.delivered.segs);
        m.rate
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
        let c = self.bbr_conn(now);
        let Some(m) = self.bbr.as_deref_mut() else {
            return;
        };
        let d = m.bbr.on_ack(&rs, &c);
        if d.app_limited {
            m.rate.mark_app_limited(c.in_flight);
        }
        self.cwnd = d.cwnd.max(1) * mss;
        if let Some(s) = d.ssthresh {
            self.ssthresh = s.max(2) * mss;
        }
    }
}

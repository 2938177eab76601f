//! BBR behind the controller trait: Linux's `tcp_bbr_cong_ops` moments — `cong_control`
//! (`bbr_main`) on every ACK's rate sample, `ssthresh` (`bbr_ssthresh`: remember cwnd,
//! leave ssthresh), `set_state(TCP_CA_Loss)` on a timeout, `cwnd_event(CA_EVENT_TX_START)`,
//! `undo_cwnd` (`bbr_undo_cwnd`: cwnd as it is) — and `SK_PACING_NEEDED` with its own
//! pacing rate (`bbr_init`, `bbr_set_pacing_rate`).

use super::{Bbr, CaState, Conn};
use crate::cc::rate::RateSample;
use crate::cc::{CongestionController, ConnInfo, RateVerdict, Window};
use crate::sender::RecoveryState;
use crate::time::{Duration, Instant};

/// What BBR reads of the connection (`tcp_sock`), in packets as Linux counts.
fn conn(now: Instant, c: &ConnInfo) -> Conn {
    let mss = c.window.smss();
    Conn {
        now,
        mss: c.window.mss,
        cwnd: c.window.cwnd / mss,
        in_flight: c.pipe.div_ceil(mss),
        delivered: c.delivered,
        delivered_time: c.delivered_time,
        lost: c.lost,
        ca: match c.state {
            RecoveryState::Open => CaState::Open,
            RecoveryState::Disorder => CaState::Disorder,
            RecoveryState::Cwr => CaState::Cwr,
            RecoveryState::Recovery => CaState::Recovery,
            RecoveryState::Loss => CaState::Loss,
        },
        srtt: c.srtt,
    }
}

impl CongestionController for Bbr {
    /// Never asked: BBR sets cwnd itself ([`sets_cwnd`](Self::sets_cwnd)).
    fn on_ack(&mut self, _now: Instant, _w: &mut Window, _acked: u64, _srtt: Option<Duration>) {}

    /// `bbr_ssthresh` returns `snd_ssthresh` as it is.
    fn ssthresh(&self, _now: Instant, w: &Window, _flight_size: u64) -> u64 {
        w.ssthresh
    }

    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(self.clone())
    }

    /// `bbr_ssthresh` → `bbr_save_cwnd`.
    fn on_congestion_event(&mut self, _now: Instant, w: &Window) {
        Bbr::on_congestion_event(self, w.cwnd / w.smss());
    }

    /// `tcp_enter_loss` → `bbr_set_state(TCP_CA_Loss)`.
    fn on_timeout(&mut self, now: Instant, c: &ConnInfo) {
        self.on_loss_state(&conn(now, c));
    }

    fn wants_rate_samples(&self) -> bool {
        true
    }

    /// `bbr_main`: the model's cwnd (and ssthresh on entering DRAIN) in packets.
    fn on_rate_sample(
        &mut self,
        now: Instant,
        rs: &RateSample,
        c: &ConnInfo,
        w: &mut Window,
    ) -> RateVerdict {
        let mss = w.mss;
        let d = Bbr::on_ack(self, rs, &conn(now, c));
        w.cwnd = d.cwnd.max(1) * mss;
        if let Some(s) = d.ssthresh {
            w.ssthresh = s.max(2) * mss;
        }
        RateVerdict {
            app_limited: d.app_limited,
        }
    }

    fn sets_cwnd(&self) -> bool {
        true
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)`, whatever the idle time.
    fn on_tx_start(&mut self, now: Instant, _idle: Option<Duration>, c: &ConnInfo) {
        Bbr::on_tx_start(self, c.app_limited, &conn(now, c));
    }

    fn on_mss(&mut self, mss: u64) {
        self.set_mss(mss);
    }

    /// `bbr_init`: `cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED)`.
    fn needs_pacing(&self) -> bool {
        true
    }

    fn pacing_rate(&self) -> Option<u64> {
        Some(Bbr::pacing_rate(self))
    }

    /// `bbr_undo_cwnd`: cwnd as it is.
    fn undo_cwnd(&self, cwnd: u64, _restored: u64) -> u64 {
        cwnd
    }
}

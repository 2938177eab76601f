//! Feeding CUBIC's HyStart (`cc::hystart`) from the ACK path (Linux flavour): the RTT of
//! the newest segment an ACK acknowledged (Linux `ca_rtt_us`, none when retransmitted
//! data was acknowledged), before cwnd grows on that ACK (`tcp_clean_rtx_queue` calls
//! `pkts_acked` before `tcp_cong_control`). An exit sets ssthresh = cwnd.

use super::Sender;
use crate::cc::hystart::{HyStart, Sample};
use crate::cc::CongestionController;
use crate::config::{HyStart as Mode, HyStartRounds};
use crate::event::EventKind;
use crate::scoreboard::Acked;
use crate::time::{Duration, Instant};

impl Sender {
    /// The HyStart the configuration asks for (Linux flavour only).
    pub(super) fn hystart_config(&self) -> HyStart {
        let (train, delay) = match (self.alg.rules.hystart, self.cfg.hystart) {
            (false, _) | (_, Mode::Off) => (false, false),
            (_, Mode::AckTrain) => (true, false),
            (_, Mode::Delay) => (false, true),
            (_, Mode::On) => (true, true),
        };
        HyStart::new(train, delay)
            .with_low_window_rounds(self.cfg.hystart_rounds == HyStartRounds::LowWindow)
    }

    /// An ACK acknowledged `acked` cumulatively at `now`.
    pub(super) fn hystart_on_ack(&mut self, now: Instant, acked: &Acked) {
        if !self.alg.rules.hystart || acked.any_retransmitted {
            return;
        }
        let Some(sent) = acked.rtt_sample_sent else {
            return;
        };
        let mss = self.mss.max(1);
        let s = Sample {
            now,
            rtt: now - sent,
            snd_una: self.core.sb.snd_una(),
            snd_nxt: self.core.sb.snd_nxt(),
            cwnd_segs: self.cwnd / mss,
            in_slow_start: self.cwnd < self.ssthresh,
            ack_delay: self.hystart_ack_delay(),
            paced: self.paced(),
        };
        if self.cc.on_slow_start_sample(&s) {
            self.ssthresh = self.cwnd;
            self.emit(
                now,
                EventKind::SlowStartExit {
                    cwnd: self.cwnd,
                    rtt_us: u64::try_from(s.rtt.as_micros()).unwrap_or(u64::MAX),
                },
            );
        }
    }

    /// Linux `hystart_ack_delay`: min(1 ms, four 64 KB GSO packets at the pacing rate).
    fn hystart_ack_delay(&self) -> Duration {
        let rate = self.sk_pacing_rate();
        if rate == 0 {
            return Duration::ZERO;
        }
        let us = (65_536u128 * 4 * 1_000_000 / u128::from(rate)).min(1000);
        Duration::from_micros(us as u64)
    }
}

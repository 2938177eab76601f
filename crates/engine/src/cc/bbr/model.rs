//! BBR's model updates on one ACK (`bbr_update_model` in Linux 4.9) and its cwnd rule
//! (`bbr_set_cwnd`, `bbr_set_cwnd_to_recover_or_restore`).

use super::*;

impl Bbr {
    /// `bbr_update_bw`: round counting and the max-bw filter (app-limited samples only
    /// when they raise it).
    pub(super) fn update_bw(&mut self, rs: &RateSample, c: &Conn) {
        self.round_start = false;
        let (Some(delivered), Some(interval), Some(prior)) =
            (rs.delivered, rs.interval, rs.prior_delivered)
        else {
            return;
        };
        if prior >= self.next_rtt_delivered {
            self.next_rtt_delivered = c.delivered;
            self.rtt_cnt += 1;
            self.round_start = true;
            self.packet_conservation = false;
        }
        self.lt_sampling(rs, c);
        let us = (interval.as_micros() as u64).max(1);
        let bw = delivered.saturating_mul(BW_UNIT) / us;
        if !rs.is_app_limited || bw >= self.max_bw() {
            self.bw.update(BW_RTTS, self.rtt_cnt, bw);
        }
    }

    /// `bbr_update_cycle_phase` / `bbr_is_next_cycle_phase`: PROBE_BW's gain cycle.
    pub(super) fn update_cycle_phase(&mut self, rs: &RateSample, c: &Conn) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let min_rtt = self.min_rtt.unwrap_or(Duration::MAX);
        let full_length = c.delivered_time.saturating_duration_since(self.cycle_stamp) > min_rtt;
        let bw = self.max_bw();
        let next = if self.pacing_gain == BBR_UNIT {
            full_length
        } else if self.pacing_gain > BBR_UNIT {
            full_length
                && (rs.losses > 0 || rs.prior_in_flight >= self.target_cwnd(bw, self.pacing_gain))
        } else {
            full_length || rs.prior_in_flight <= self.target_cwnd(bw, BBR_UNIT)
        };
        if next {
            self.advance_cycle_phase(c.delivered_time);
        }
    }

    fn advance_cycle_phase(&mut self, delivered_time: Instant) {
        self.cycle_idx = (self.cycle_idx + 1) & (CYCLE_LEN - 1);
        self.cycle_stamp = delivered_time;
    }

    /// `bbr_reset_probe_bw_mode`: the cycle starts at a pseudo-random phase other than
    /// the 3/4 one (`prandom_u32_max(bbr_cycle_rand)`); the engine has no RNG, so the
    /// phase comes from a hash of the time, which is deterministic for a given run.
    fn reset_probe_bw_mode(&mut self, c: &Conn) {
        self.mode = Mode::ProbeBw;
        let r = splitmix(c.now.as_nanos() ^ c.delivered) % CYCLE_RAND;
        self.cycle_idx = CYCLE_LEN - 1 - r as u8;
        self.advance_cycle_phase(c.delivered_time);
    }

    fn reset_mode(&mut self, c: &Conn) {
        if self.full_bw_reached {
            self.reset_probe_bw_mode(c);
        } else {
            self.mode = Mode::Startup;
        }
    }

    /// `bbr_check_full_bw_reached`: three rounds without 25 % growth fill the pipe.
    pub(super) fn check_full_bw_reached(&mut self, rs: &RateSample) {
        if self.full_bw_reached || !self.round_start || rs.is_app_limited {
            return;
        }
        let thresh = (self.full_bw * FULL_BW_THRESH) >> BBR_SCALE;
        if self.max_bw() >= thresh {
            self.full_bw = self.max_bw();
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= FULL_BW_CNT;
    }

    /// `bbr_check_drain`: STARTUP → DRAIN (ssthresh = one BDP) → PROBE_BW once the
    /// flight is down to the BDP.
    pub(super) fn check_drain(&mut self, c: &Conn, d: &mut Decision) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            d.ssthresh = Some(self.target_cwnd(self.max_bw(), BBR_UNIT));
        }
        if self.mode == Mode::Drain && c.in_flight <= self.target_cwnd(self.max_bw(), BBR_UNIT) {
            self.reset_probe_bw_mode(c);
        }
    }

    /// `bbr_update_min_rtt`: the 10 s min-RTT filter and PROBE_RTT.
    pub(super) fn update_min_rtt(&mut self, rs: &RateSample, c: &Conn, d: &mut Decision) {
        let expired = c.now > self.min_rtt_stamp + MIN_RTT_WIN;
        if let Some(rtt) = rs.rtt {
            if self.min_rtt.is_none_or(|m| rtt <= m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = c.now;
            }
        }
        if expired && !self.idle_restart && self.mode != Mode::ProbeRtt {
            self.mode = Mode::ProbeRtt;
            self.save_cwnd(c.cwnd);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            d.app_limited = true;
            match self.probe_rtt_done {
                None if c.in_flight <= CWND_MIN_TARGET => {
                    self.probe_rtt_done = Some(c.now + PROBE_RTT_MODE);
                    self.probe_rtt_round_done = false;
                    self.next_rtt_delivered = c.delivered;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && c.now > done {
                        self.min_rtt_stamp = c.now;
                        self.restore_cwnd = true;
                        self.reset_mode(c);
                    }
                }
                None => {}
            }
        }
        self.idle_restart = false;
    }

    /// The gains of each mode (4.9 sets them where the mode changes).
    pub(super) fn update_gains(&mut self) {
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (HIGH_GAIN, HIGH_GAIN),
            Mode::Drain => (DRAIN_GAIN, HIGH_GAIN),
            Mode::ProbeBw if self.lt.use_bw => (BBR_UNIT, CWND_GAIN),
            Mode::ProbeBw => (PACING_GAIN[usize::from(self.cycle_idx)], CWND_GAIN),
            Mode::ProbeRtt => (BBR_UNIT, BBR_UNIT),
        };
    }

    /// `bbr_set_cwnd`: slow-start toward the target, or snap down to it once the pipe is
    /// full; packet conservation in recovery's first round; cwnd 4 in PROBE_RTT.
    pub(super) fn set_cwnd(&mut self, rs: &RateSample, c: &Conn, bw: u64) -> u64 {
        let acked = rs.acked_sacked;
        if acked == 0 {
            return c.cwnd; // 4.9: nothing fully ACKed, nothing changes
        }
        let mut cwnd = match self.recover_or_restore(rs, c) {
            Ok(conserved) => conserved,
            Err(cwnd) => {
                let target = self.target_cwnd(bw, self.cwnd_gain);
                let grown = if self.full_bw_reached {
                    (cwnd + acked).min(target)
                } else if cwnd < target || c.delivered < INIT_CWND {
                    cwnd + acked
                } else {
                    cwnd
                };
                grown.max(CWND_MIN_TARGET)
            }
        };
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(CWND_MIN_TARGET);
        }
        cwnd
    }

    /// `bbr_set_cwnd_to_recover_or_restore`: `Ok` with the conserving cwnd in recovery's
    /// first round, else `Err` with the cwnd to grow from.
    fn recover_or_restore(&mut self, rs: &RateSample, c: &Conn) -> Result<u64, u64> {
        let mut cwnd = c.cwnd;
        if rs.losses > 0 {
            cwnd = cwnd.saturating_sub(rs.losses).max(1);
        }
        if c.ca == CaState::Recovery && self.prev_ca != CaState::Recovery {
            self.packet_conservation = true;
            self.next_rtt_delivered = c.delivered;
            cwnd = c.in_flight + rs.acked_sacked;
        } else if self.prev_ca >= CaState::Recovery && c.ca < CaState::Recovery {
            self.restore_cwnd = true;
            self.packet_conservation = false;
        }
        self.prev_ca = c.ca;
        if self.restore_cwnd {
            cwnd = cwnd.max(self.prior_cwnd);
            self.restore_cwnd = false;
        }
        if self.packet_conservation {
            Ok(cwnd.max(c.in_flight + rs.acked_sacked))
        } else {
            Err(cwnd)
        }
    }

    /// `bbr_lt_bw_sampling`: two lossy intervals with consistent throughput mean a
    /// token-bucket policer; then pace at their average for 48 rounds.
    pub(super) fn lt_sampling(&mut self, rs: &RateSample, c: &Conn) {
        if self.lt.use_bw {
            if self.mode == Mode::ProbeBw && self.round_start {
                self.lt.rtt_cnt += 1;
                if self.lt.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset_lt(c);
                    self.reset_probe_bw_mode(c);
                }
            }
            return;
        }
        if !self.lt.is_sampling {
            if rs.losses == 0 {
                return;
            }
            self.reset_lt_interval(c);
            self.lt.is_sampling = true;
        }
        if rs.is_app_limited {
            self.reset_lt(c);
            return;
        }
        if self.round_start {
            self.lt.rtt_cnt = self.lt.rtt_cnt.saturating_add(1);
        }
        if self.lt.rtt_cnt < LT_INTVL_MIN_RTTS {
            return;
        }
        if self.lt.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset_lt(c);
            return;
        }
        if rs.losses == 0 {
            return;
        }
        let lost = c.lost - self.lt.last_lost;
        let delivered = c.delivered - self.lt.last_delivered;
        if delivered == 0 || (lost << BBR_SCALE) < LT_LOSS_THRESH * delivered {
            return;
        }
        let t_ms = c
            .delivered_time
            .as_millis()
            .saturating_sub(self.lt.last_stamp_ms);
        if t_ms < 1 {
            return;
        }
        let bw = delivered * BW_UNIT / (t_ms * 1000);
        self.lt_interval_done(bw, c);
    }

    fn lt_interval_done(&mut self, bw: u64, c: &Conn) {
        if self.lt.bw > 0 {
            let diff = bw.abs_diff(self.lt.bw);
            if diff * BBR_UNIT <= LT_BW_RATIO * self.lt.bw
                || self.rate_bytes_per_sec(diff, BBR_UNIT) <= LT_BW_DIFF
            {
                self.lt.bw = (bw + self.lt.bw) >> 1;
                self.lt.use_bw = true;
                self.pacing_gain = BBR_UNIT;
                self.lt.rtt_cnt = 0;
                return;
            }
        }
        self.lt.bw = bw;
        self.reset_lt_interval(c);
    }

    fn reset_lt_interval(&mut self, c: &Conn) {
        self.lt.last_stamp_ms = c.delivered_time.as_millis();
        self.lt.last_delivered = c.delivered;
        self.lt.last_lost = c.lost;
        self.lt.rtt_cnt = 0;
    }

    fn reset_lt(&mut self, c: &Conn) {
        self.lt.bw = 0;
        self.lt.use_bw = false;
        self.lt.is_sampling = false;
        self.reset_lt_interval(c);
    }
}

/// A fixed mixing function (SplitMix64's finaliser), for the cycle phase.
fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

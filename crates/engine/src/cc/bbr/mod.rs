//! BBR v1 as Linux 4.9 shipped it (`net/ipv4/tcp_bbr.c`, Cardwell et al., "BBR:
//! Congestion-Based Congestion Control", ACM Queue 14(5), 2016): a model of the path —
//! the windowed max delivery rate over 10 rounds and the windowed min RTT over 10 s —
//! sets the pacing rate (pacing_gain · bw) and cwnd (cwnd_gain · bw · min_rtt + the TSO
//! budget), through STARTUP (gain 2/ln 2), DRAIN, PROBE_BW (gains 5/4, 3/4, 1 × 6) and
//! PROBE_RTT (cwnd 4 for 200 ms and a round). Losses do not lower the model; recovery
//! runs packet conservation for its first round, then slow-starts back
//! (`bbr_set_cwnd_to_recover_or_restore`). The long-term sampler detects token-bucket
//! policers (`bbr_lt_bw_sampling`).
//!
//! Units as Linux: bandwidth in segments per µs scaled by 2^24, gains scaled by 2^8,
//! windows in segments. Where later kernels changed BBR v1 (ack-aggregation provisioning,
//! the 1 % pacing margin, EDT in-network estimates, the extra 2 segments in the first
//! PROBE_BW phase), this follows 4.9.

use crate::cc::rate::RateSample;
use crate::time::{Duration, Instant};

const BW_SCALE: u32 = 24;
const BW_UNIT: u64 = 1 << BW_SCALE;
const BBR_SCALE: u32 = 8;
const BBR_UNIT: u64 = 1 << BBR_SCALE;
const CYCLE_LEN: u8 = 8;
/// The bw filter's window, in rounds (`bbr_bw_rtts`).
const BW_RTTS: u64 = CYCLE_LEN as u64 + 2;
const MIN_RTT_WIN: Duration = Duration::from_secs(10);
const PROBE_RTT_MODE: Duration = Duration::from_millis(200);
/// Below this pacing rate (bytes/s) one TSO segment, else two (`bbr_min_tso_rate` / 8).
const MIN_TSO_RATE: u64 = 1_200_000 / 8;
/// 2/ln 2, the smallest gain that doubles the sending rate every round.
const HIGH_GAIN: u64 = BBR_UNIT * 2885 / 1000 + 1;
const DRAIN_GAIN: u64 = BBR_UNIT * 1000 / 2885;
const CWND_GAIN: u64 = BBR_UNIT * 2;
const PACING_GAIN: [u64; CYCLE_LEN as usize] = [
    BBR_UNIT * 5 / 4,
    BBR_UNIT * 3 / 4,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
    BBR_UNIT,
];
const CYCLE_RAND: u64 = 7;
const CWND_MIN_TARGET: u64 = 4;
const FULL_BW_THRESH: u64 = BBR_UNIT * 5 / 4;
const FULL_BW_CNT: u8 = 3;
const LT_INTVL_MIN_RTTS: u8 = 4;
const LT_LOSS_THRESH: u64 = 50;
const LT_BW_RATIO: u64 = BBR_UNIT / 8;
const LT_BW_DIFF: u64 = 4000 / 8;
const LT_BW_MAX_RTTS: u8 = 48;
/// `TCP_INIT_CWND`.
const INIT_CWND: u64 = 10;
/// `sk_gso_max_size - 1 - MAX_TCP_HEADER` on a typical NIC.
const GSO_MAX_BYTES: u64 = 65_536 - 1 - 320;

/// The connection's congestion state as BBR compares it (`icsk_ca_state` order).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum CaState {
    /// `TCP_CA_Open`: no loss or reordering suspected.
    #[default]
    Open,
    /// `TCP_CA_Disorder`: duplicate ACKs or SACKs seen, no recovery yet.
    Disorder,
    /// `TCP_CA_CWR`: a reduction without retransmission (ECN, local congestion).
    Cwr,
    /// `TCP_CA_Recovery`: fast recovery.
    Recovery,
    /// `TCP_CA_Loss`: recovery after a retransmission timeout.
    Loss,
}

/// BBR's mode (`enum bbr_mode`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// `BBR_STARTUP`: ramp up with a high gain until the bandwidth stops growing.
    #[default]
    Startup,
    /// `BBR_DRAIN`: drain the queue Startup built, until in-flight ≤ the estimated BDP.
    Drain,
    /// `BBR_PROBE_BW`: cycle the pacing gain around 1 to probe for and yield bandwidth.
    ProbeBw,
    /// `BBR_PROBE_RTT`: cut in-flight to 4 segments to measure the min RTT afresh.
    ProbeRtt,
}

/// What BBR reads of the connection on an ACK (Linux `tcp_sock` fields).
#[derive(Copy, Clone, Debug)]
pub struct Conn {
    /// The time of the ACK (`tp->tcp_mstamp`).
    pub now: Instant,
    /// The segment size, bytes (`tp->mss_cache`).
    pub mss: u64,
    /// `snd_cwnd`, segments.
    pub cwnd: u64,
    /// `tcp_packets_in_flight`, segments.
    pub in_flight: u64,
    /// `tp->delivered` and `tp->delivered_mstamp`.
    pub delivered: u64,
    /// `tp->delivered_mstamp`: when `delivered` last grew.
    pub delivered_time: Instant,
    /// `tp->lost`: segments ever marked lost.
    pub lost: u64,
    /// `icsk_ca_state`: BBR keeps the cwnd it had on entering recovery and restores it
    /// on leaving (`bbr_set_cwnd_to_recover_or_restore`).
    pub ca: CaState,
    /// `tp->srtt_us`, if any sample was taken; `bbr_init_pacing_rate_from_rtt` uses it.
    pub srtt: Option<Duration>,
}

/// What BBR decided on an ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The new `snd_cwnd`, segments.
    pub cwnd: u64,
    /// `snd_ssthresh` set on entering DRAIN, segments.
    pub ssthresh: Option<u64>,
    /// PROBE_RTT: samples are application-limited until what is in flight is delivered.
    pub app_limited: bool,
}

/// Kathleen Nichols' windowed max over round counts (`minmax_running_max`).
#[derive(Copy, Clone, Debug, Default)]
struct MaxFilter {
    s: [(u64, u64); 3],
}

impl MaxFilter {
    fn get(&self) -> u64 {
        self.s[0].1
    }
    fn update(&mut self, win: u64, t: u64, v: u64) {
        let val = (t, v);
        if v >= self.s[0].1 || t - self.s[2].0 > win {
            self.s = [val; 3];
            return;
        }
        if v >= self.s[1].1 {
            self.s[1] = val;
            self.s[2] = val;
        } else if v >= self.s[2].1 {
            self.s[2] = val;
        }
        let dt = t - self.s[0].0;
        if dt > win {
            self.s = [self.s[1], self.s[2], val];
            if t - self.s[0].0 > win {
                self.s = [self.s[1], self.s[2], val];
            }
        } else if self.s[1].0 == self.s[0].0 && dt > win / 4 {
            self.s[1] = val;
            self.s[2] = val;
        } else if self.s[2].0 == self.s[1].0 && dt > win / 2 {
            self.s[2] = val;
        }
    }
}

/// The long-term (policer) sampler's state.
#[derive(Copy, Clone, Debug, Default)]
struct LongTerm {
    is_sampling: bool,
    use_bw: bool,
    rtt_cnt: u8,
    bw: u64,
    last_delivered: u64,
    last_stamp_ms: u64,
    last_lost: u64,
}

/// BBR's per-connection state (`struct bbr`).
#[derive(Clone, Debug, Default)]
pub struct Bbr {
    mode: Mode,
    min_rtt: Option<Duration>,
    min_rtt_stamp: Instant,
    probe_rtt_done: Option<Instant>,
    probe_rtt_round_done: bool,
    bw: MaxFilter,
    rtt_cnt: u64,
    next_rtt_delivered: u64,
    cycle_stamp: Instant,
    cycle_idx: u8,
    prev_ca: CaState,
    packet_conservation: bool,
    restore_cwnd: bool,
    round_start: bool,
    idle_restart: bool,
    lt: LongTerm,
    pacing_gain: u64,
    cwnd_gain: u64,
    full_bw_reached: bool,
    full_bw_cnt: u8,
    full_bw: u64,
    has_seen_rtt: bool,
    prior_cwnd: u64,
    tso_segs_goal: u64,
    /// Bytes per second.
    pacing_rate: u64,
    mss: u64,
}

impl Bbr {
    /// `bbr_init` at `now`, with `cwnd` segments of `mss` bytes and the SRTT if known.
    pub fn new(now: Instant, mss: u64, cwnd: u64, srtt: Option<Duration>) -> Bbr {
        let mut b = Bbr {
            mss: mss.max(1),
            min_rtt_stamp: now,
            pacing_gain: HIGH_GAIN,
            cwnd_gain: HIGH_GAIN,
            ..Bbr::default()
        };
        b.init_pacing_rate(cwnd, srtt);
        b
    }

    /// The segment size settled by the handshake.
    pub fn set_mss(&mut self, mss: u64) {
        self.mss = mss.max(1);
    }

    /// The current mode (`bbr->mode`).
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// The pacing rate, bytes per second.
    pub fn pacing_rate(&self) -> u64 {
        self.pacing_rate
    }
    /// The bandwidth estimate, bytes per second.
    pub fn bw_bytes_per_sec(&self) -> u64 {
        self.rate_bytes_per_sec(self.bw(), BBR_UNIT)
    }
    /// The windowed minimum RTT (`bbr->min_rtt_us`, over `bbr_min_rtt_win_sec` = 10 s);
    /// `None` before the first sample.
    pub fn min_rtt(&self) -> Option<Duration> {
        self.min_rtt
    }
    /// Startup found the pipe full: the bandwidth grew less than 25% for 3 rounds
    /// (`bbr_full_bw_reached`, `bbr_check_full_bw_reached`).
    pub fn full_bw_reached(&self) -> bool {
        self.full_bw_reached
    }
    /// The pacing gain (`bbr->pacing_gain`), fixed point with `BBR_UNIT` = 256 as 1.0.
    pub fn pacing_gain(&self) -> u64 {
        self.pacing_gain
    }

    fn max_bw(&self) -> u64 {
        self.bw.get()
    }
    fn bw(&self) -> u64 {
        if self.lt.use_bw {
            self.lt.bw
        } else {
            self.max_bw()
        }
    }

    fn rate_bytes_per_sec(&self, rate: u64, gain: u64) -> u64 {
        let r = (u128::from(rate) * u128::from(self.mss) * u128::from(gain)) >> BBR_SCALE;
        ((r * 1_000_000) >> BW_SCALE).min(u128::from(u64::MAX)) as u64
    }

    /// `bbr_init_pacing_rate_from_rtt`: high_gain · cwnd / RTT (1 ms before a sample).
    fn init_pacing_rate(&mut self, cwnd: u64, srtt: Option<Duration>) {
        let rtt_us = match srtt {
            Some(s) => {
                self.has_seen_rtt = true;
                (s.as_micros() as u64).max(1)
            }
            None => 1000,
        };
        let bw = cwnd * BW_UNIT / rtt_us;
        self.pacing_rate = self.rate_bytes_per_sec(bw, HIGH_GAIN);
    }

    /// `bbr_set_pacing_rate`: never lower before the pipe was found full.
    fn set_pacing_rate(&mut self, bw: u64, gain: u64, c: &Conn) {
        let rate = self.rate_bytes_per_sec(bw, gain);
        if !self.has_seen_rtt && c.srtt.is_some() {
            self.init_pacing_rate(c.cwnd, c.srtt);
        }
        if self.full_bw_reached || rate > self.pacing_rate {
            self.pacing_rate = rate;
        }
    }

    /// `bbr_set_tso_segs_goal` with `tcp_tso_autosize`.
    fn set_tso_segs_goal(&mut self) {
        let min_segs = if self.pacing_rate < MIN_TSO_RATE {
            1
        } else {
            2
        };
        let bytes = (self.pacing_rate >> 10).min(GSO_MAX_BYTES);
        self.tso_segs_goal = (bytes / self.mss).max(min_segs).min(0x7F);
    }

    /// `bbr_target_cwnd`: ⌈bw · min_rtt · gain⌉ + 3 TSO bursts, rounded up to even.
    fn target_cwnd(&self, bw: u64, gain: u64) -> u64 {
        let Some(min_rtt) = self.min_rtt else {
            return INIT_CWND;
        };
        let w = u128::from(bw) * min_rtt.as_micros();
        let bdp = ((w * u128::from(gain)) >> BBR_SCALE).div_ceil(u128::from(BW_UNIT));
        let cwnd = (bdp.min(u128::from(u32::MAX)) as u64) + 3 * self.tso_segs_goal;
        (cwnd + 1) & !1
    }

    /// `bbr_save_cwnd`: the "last known good" cwnd, for after recovery or PROBE_RTT.
    fn save_cwnd(&mut self, cwnd: u64) {
        if self.prev_ca < CaState::Recovery && self.mode != Mode::ProbeRtt {
            self.prior_cwnd = cwnd;
        } else {
            self.prior_cwnd = self.prior_cwnd.max(cwnd);
        }
    }

    /// `bbr_ssthresh`: recovery or CWR starts; remember cwnd (ssthresh is left as it is).
    pub fn on_congestion_event(&mut self, cwnd: u64) {
        self.save_cwnd(cwnd);
    }

    /// `bbr_set_state(TCP_CA_Loss)`: an RTO ends the round and is a loss for the
    /// long-term sampler.
    pub fn on_loss_state(&mut self, c: &Conn) {
        self.prev_ca = CaState::Loss;
        self.full_bw = 0;
        self.round_start = true;
        let rs = RateSample {
            losses: 1,
            ..RateSample::default()
        };
        self.lt_sampling(&rs, c);
    }

    /// `bbr_cwnd_event(CA_EVENT_TX_START)`: sending restarts from idle.
    pub fn on_tx_start(&mut self, app_limited: bool, c: &Conn) {
        if app_limited {
            self.idle_restart = true;
            if self.mode == Mode::ProbeBw {
                self.set_pacing_rate(self.bw(), BBR_UNIT, c);
            }
        }
    }

    /// `bbr_main`: one ACK's rate sample updates the model, then pacing rate and cwnd.
    pub fn on_ack(&mut self, rs: &RateSample, c: &Conn) -> Decision {
        let mut d = Decision {
            cwnd: c.cwnd,
            ssthresh: None,
            app_limited: false,
        };
        self.update_bw(rs, c);
        self.update_cycle_phase(rs, c);
        self.check_full_bw_reached(rs);
        self.check_drain(c, &mut d);
        self.update_min_rtt(rs, c, &mut d);
        self.update_gains();
        let bw = self.bw();
        self.set_pacing_rate(bw, self.pacing_gain, c);
        self.set_tso_segs_goal();
        d.cwnd = self.set_cwnd(rs, c, bw);
        d
    }
}

mod model;
mod ops;

#[cfg(test)]
mod tests;

//! CUBIC's congestion avoidance as Linux computes it (net/ipv4/tcp_cubic.c
//! `bictcp_update`, `cubictcp_cong_avoid`, `cubictcp_recalc_ssthresh`, `bictcp_reset`;
//! net/ipv4/tcp_cong.c `tcp_cong_avoid_ai`), for the `cubic-linux` congestion control.
//!
//! Integer arithmetic in packets and jiffies (HZ = 1000: milliseconds), where RFC 9438
//! (the `cubic` value, [`super::cubic`]) is real-valued:
//! - `cnt`, the ACKed packets per cwnd increment, is recomputed at most once per
//!   HZ/32 = 31 ms while cwnd is unchanged; time on the curve is the epoch's age plus
//!   `delay_min` (CUBIC's smallest RTT sample) in units of 1/1024 s, with C = 410/1024 for
//!   a 100 ms RTT (`cube_rtt_scale`, `cube_factor`); K is the cube root of
//!   (W_max − cwnd)·2⁴⁰/410 (exact here, Linux looks up a table and refines once).
//! - Before any loss (W_max = 0) cnt is at most 20 (5 % per RTT); the TCP-friendly
//!   estimate `tcp_cwnd` gains a packet per (cwnd·15)/8 ACKed (`beta_scale` for β =
//!   717/1024) and caps cnt at cwnd / (tcp_cwnd − cwnd); cnt is at least 2.
//! - `tcp_cong_avoid_ai`: `snd_cwnd_cnt` counts ACKed packets; credit gathered at a
//!   larger cnt is spent as a single increment first.
//! - A congestion event: W_max = cwnd, or cwnd·(1 + β)/2 below the last W_max (fast
//!   convergence); ssthresh = max(cwnd·717/1024, 2). Entering Loss resets everything
//!   (`cubictcp_state` → `bictcp_reset`), W_max included.

/// `beta`: 717/1024 ≈ 0.7.
const BETA: u64 = 717;
const BETA_SCALE: u64 = 1024;
/// `beta_scale` = 8·(1024 + beta) / 3 / (1024 − beta).
const FRIENDLY_SCALE: u64 = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
/// `cube_rtt_scale` = bic_scale (41) · 10.
const CUBE_RTT_SCALE: u64 = 410;
/// `cube_factor` = 2^40 / (bic_scale · 10).
const CUBE_FACTOR: u64 = (1 << 40) / 410;
/// HZ / 32 jiffies (ms).
const UPDATE_GAP_MS: u32 = 31;

/// Linux's per-connection CUBIC state (`struct bictcp`, less HyStart) and
/// `tp->snd_cwnd_cnt`. Times are jiffies (ms).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Bictcp {
    cnt: u32,
    last_max_cwnd: u32,
    last_cwnd: u32,
    last_time: u32,
    origin: u32,
    k: u32,
    /// Start of the epoch, jiffies; 0 = none (as Linux).
    epoch_start: u32,
    ack_cnt: u32,
    tcp_cwnd: u32,
    snd_cwnd_cnt: u32,
}

/// Packets or jiffies as Linux's `u32`, saturating.
fn u32_of(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

/// Exact integer cube root (floor).
fn cube_root(a: u64) -> u64 {
    let mut x = (a as f64).cbrt() as u64;
    while x > 0 && x.saturating_mul(x).saturating_mul(x) > a {
        x -= 1;
    }
    while (x + 1).saturating_mul(x + 1).saturating_mul(x + 1) <= a {
        x += 1;
    }
    x
}

impl Bictcp {
    /// W_max, packets (`last_max_cwnd`).
    pub fn last_max_cwnd(&self) -> u64 {
        u64::from(self.last_max_cwnd)
    }
    /// ACKed packets per increment now (`ca->cnt`).
    pub fn cnt(&self) -> u64 {
        u64::from(self.cnt)
    }
    /// Start of the epoch, ms.
    pub fn epoch_start(&self) -> Option<u64> {
        (self.epoch_start != 0).then_some(u64::from(self.epoch_start))
    }

    /// `bictcp_reset` (entering Loss) with `tcp_enter_loss`'s `snd_cwnd_cnt = 0`.
    pub fn reset(&mut self) {
        *self = Bictcp::default();
    }

    /// `CA_EVENT_TX_START` after `idle_ms`: the epoch moves forward, never past `now`.
    pub fn on_tx_start(&mut self, now_ms: u64, idle_ms: u64) {
        if self.epoch_start != 0 && idle_ms > 0 {
            let e = (u64::from(self.epoch_start) + idle_ms).min(now_ms);
            self.epoch_start = u32_of(e).max(1);
        }
    }

    /// A reduction begins (Linux `tcp_init_cwnd_reduction`, and `tcp_enter_loss`):
    /// `snd_cwnd_cnt = 0`, so growth after it counts ACKs afresh instead of spending
    /// credit gathered before the loss.
    pub fn start_reduction(&mut self) {
        self.snd_cwnd_cnt = 0;
    }

    /// `cubictcp_recalc_ssthresh`: the new ssthresh, packets.
    pub fn recalc_ssthresh(&mut self, cwnd: u64) -> u64 {
        self.epoch_start = 0;
        self.last_max_cwnd = u32_of(if cwnd < u64::from(self.last_max_cwnd) {
            cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE)
        } else {
            cwnd
        });
        self.ssthresh(cwnd)
    }

    /// ssthresh a congestion event now would set: max(cwnd·717/1024, 2) packets.
    pub fn ssthresh(&self, cwnd: u64) -> u64 {
        (cwnd * BETA / BETA_SCALE).max(2)
    }

    /// Congestion avoidance on `acked` packets at `now_ms` with cwnd `cwnd` packets and
    /// CUBIC's `delay_min` (µs): the new cwnd (`bictcp_update` + `tcp_cong_avoid_ai`).
    pub fn on_ack(&mut self, now_ms: u64, cwnd: u64, acked: u64, delay_min_us: u64) -> u64 {
        let (cwnd, acked) = (u32_of(cwnd), u32_of(acked));
        self.update(u32_of(now_ms), cwnd, acked, delay_min_us);
        u64::from(self.cong_avoid_ai(cwnd, self.cnt, acked))
    }

    fn update(&mut self, now: u32, cwnd: u32, acked: u32, delay_min_us: u64) {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        if self.last_cwnd == cwnd && now.wrapping_sub(self.last_time) <= UPDATE_GAP_MS {
            return;
        }
        // The curve is recomputed at most once per jiffy.
        if !(self.epoch_start != 0 && now == self.last_time) {
            self.last_cwnd = cwnd;
            self.last_time = now;
            if self.epoch_start == 0 {
                // Jiffy 0 would read as "no epoch": Linux has the same blind spot.
                self.epoch_start = now.max(1);
                self.ack_cnt = acked;
                self.tcp_cwnd = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k = 0;
                    self.origin = cwnd;
                } else {
                    let w = u64::from(self.last_max_cwnd - cwnd);
                    self.k = u32_of(cube_root(CUBE_FACTOR.saturating_mul(w)));
                    self.origin = self.last_max_cwnd;
                }
            }
            let epoch = self.epoch_start;
            // usecs_to_jiffies rounds up.
            let t_ms = u64::from(now.wrapping_sub(epoch)) + delay_min_us.div_ceil(1000);
            let t = (t_ms << 10) / 1000;
            let offs = t.abs_diff(u64::from(self.k));
            let delta = ((u128::from(CUBE_RTT_SCALE) * u128::from(offs).pow(3)) >> 40) as u64;
            let origin = u64::from(self.origin);
            let target = if t < u64::from(self.k) {
                origin.saturating_sub(delta)
            } else {
                origin.saturating_add(delta)
            };
            let c = u64::from(cwnd);
            self.cnt = u32_of(if target > c {
                c / (target - c)
            } else {
                100 * c
            });
            if self.last_max_cwnd == 0 && self.cnt > 20 {
                self.cnt = 20;
            }
        }
        // TCP friendliness.
        let delta = u32_of((u64::from(cwnd) * FRIENDLY_SCALE) >> 3).max(1);
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.tcp_cwnd += 1;
        }
        if self.tcp_cwnd > cwnd {
            self.cnt = self.cnt.min(cwnd / (self.tcp_cwnd - cwnd));
        }
        self.cnt = self.cnt.max(2);
    }

    /// `tcp_cong_avoid_ai`: one packet per `w` packets ACKed.
    fn cong_avoid_ai(&mut self, cwnd: u32, w: u32, acked: u32) -> u32 {
        let mut cwnd = cwnd;
        if self.snd_cwnd_cnt >= w {
            self.snd_cwnd_cnt = 0;
            cwnd = cwnd.saturating_add(1);
        }
        self.snd_cwnd_cnt = self.snd_cwnd_cnt.saturating_add(acked);
        if self.snd_cwnd_cnt >= w {
            let delta = self.snd_cwnd_cnt / w;
            self.snd_cwnd_cnt -= delta * w;
            cwnd = cwnd.saturating_add(delta);
        }
        cwnd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_linux_s() {
        assert_eq!(FRIENDLY_SCALE, 15);
        assert_eq!(CUBE_FACTOR, 2_681_735_677);
        assert_eq!(cube_root(27), 3);
        assert_eq!(cube_root(26), 2);
        assert_eq!(cube_root(1 << 30), 1 << 10);
    }

    /// cubic-rto-ss-ca-cwnd-bump's rule: after a timeout (W_max reset to 0) cnt is 20,
    /// the friendly estimate passes cwnd 7 after 14 ACKs, and the credit gathered so far
    /// becomes a single increment at the next recomputation: 7 → 8 after 16 ACKs that
    /// come in groups 100 ms apart.
    #[test]
    fn after_a_timeout_cwnd_grows_by_one_per_twenty_then_tcp_friendly() {
        let mut b = Bictcp::default();
        let mut cwnd = 7;
        let mut now = 1000;
        let mut acks = 0;
        for group in [1, 7, 7, 1] {
            for i in 0..group {
                cwnd = b.on_ack(now + 2 * i, cwnd, 1, 100_000);
                acks += 1;
                if acks < 16 {
                    assert_eq!(cwnd, 7, "ack {acks}");
                }
            }
            now += 100;
        }
        assert_eq!((acks, cwnd), (16, 8));
    }

    #[test]
    fn ssthresh_and_fast_convergence() {
        let mut b = Bictcp::default();
        assert_eq!(b.recalc_ssthresh(10), 7);
        assert_eq!(b.last_max_cwnd(), 10);
        // A smaller window at the next loss: W_max = cwnd·(1 + β)/2.
        assert_eq!(b.recalc_ssthresh(8), 5);
        assert_eq!(b.last_max_cwnd(), 8 * 1741 / 2048);
        assert_eq!(b.ssthresh(2), 2);
    }
}

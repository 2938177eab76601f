//! Linux's RTT estimator: `tcp_rtt_estimator` and `__tcp_set_rto` (net/ipv4/tcp_input.c,
//! include/net/tcp.h; digest §2.2), in integer microseconds with Linux's scaling and
//! names, so the numbers match the kernel's.

/// The Linux estimator's state, with Linux's names and scaling (`struct tcp_sock`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct LinuxVars {
    /// 8 × SRTT, µs (`srtt_us`).
    pub srtt_us: u64,
    /// 4 × mean deviation, µs (`mdev_us`).
    pub mdev_us: u64,
    /// Largest `mdev_us` seen in the current round trip, at least rto_min (`mdev_max_us`).
    pub mdev_max_us: u64,
    /// The variance term of the RTO, 4 × mdev scale, never below rto_min (`rttvar_us`).
    pub rttvar_us: u64,
    /// `snd_nxt` when the current measurement round started (`rtt_seq`).
    pub rtt_seq: u64,
}

impl LinuxVars {
    /// `tcp_rtt_estimator` (tcp_input.c) for a measurement of `m` µs (m ≥ 1).
    pub(super) fn estimate(&mut self, first: bool, m: u64, rto_min_us: u64, snd_una: u64, snd_nxt: u64) {
        if first {
            // "no previous measure": srtt = m, mdev = 2m so the RTO is 3·RTT, but the
            // variance term is floored at rto_min.
            self.srtt_us = m.saturating_mul(8);
            self.mdev_us = m.saturating_mul(2);
            self.rttvar_us = self.mdev_us.max(rto_min_us);
            self.mdev_max_us = self.rttvar_us;
            self.rtt_seq = snd_nxt;
        } else {
            // Signed arithmetic as in the kernel (`long m`); i128 cannot overflow here.
            let mut m = m as i128 - (self.srtt_us >> 3) as i128; // error in rtt estimate
            let srtt = self.srtt_us as i128 + m; // srtt = 7/8 srtt + 1/8 new
            self.srtt_us = srtt.clamp(0, u64::MAX as i128) as u64;
            if m < 0 {
                // RTT fell: a finer gain (1/32 rather than 1/4) when |err| exceeds mdev, so
                // a sudden drop does not inflate the RTO (Eifel-like damping).
                m = -m - (self.mdev_us >> 2) as i128;
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= (self.mdev_us >> 2) as i128;
            }
            let mdev = self.mdev_us as i128 + m; // mdev = 3/4 mdev + 1/4 new
            self.mdev_us = mdev.clamp(0, u64::MAX as i128) as u64;
            if self.mdev_us > self.mdev_max_us {
                self.mdev_max_us = self.mdev_us;
                if self.mdev_max_us > self.rttvar_us {
                    self.rttvar_us = self.mdev_max_us;
                }
            }
            // Once per round trip (snd_una passed rtt_seq): let rttvar decay a quarter of
            // the way toward the largest mdev of the round, and start a new round.
            if snd_una > self.rtt_seq {
                if self.mdev_max_us < self.rttvar_us {
                    self.rttvar_us -= (self.rttvar_us - self.mdev_max_us) >> 2;
                }
                self.rtt_seq = snd_nxt;
                self.mdev_max_us = rto_min_us;
            }
        }
        self.srtt_us = self.srtt_us.max(1);
    }

    /// `__tcp_set_rto`: srtt + rttvar, in µs (before `tcp_bound_rto`). Linux then converts
    /// to jiffies, rounding up; this engine keeps microseconds.
    pub(super) fn rto_us(&self) -> u64 {
        (self.srtt_us >> 3).saturating_add(self.rttvar_us)
    }
}

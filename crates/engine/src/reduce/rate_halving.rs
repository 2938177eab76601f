//! Rate-halving as Linux ran it before 3.2 (`tcp_cwnd_down`, digest §12; RFC 6937 §1 and
//! its "Rate-Halving (Linux)" rows in §3.1): during recovery cwnd falls by one segment for
//! every second ACK that reports progress, not below ssthresh, and after every such ACK is
//! cut to pipe + 1 segment ("cwnd moderation"), so the sender sends one segment per two
//! ACKs. At the end of recovery cwnd = min(cwnd, ssthresh) (`tcp_complete_cwr`).
//!
//! Linux's floor was the congestion control's `min_cwnd`: ssthresh for CUBIC, ssthresh/2
//! for Reno; here it is ssthresh (digest §12: "until cwnd reaches ssthresh"). The
//! moderation is what leaves a small cwnd after burst losses (RFC 6937 §3.1).

use super::{Entry, RecoveryAck};

/// Per-episode state: Linux `snd_cwnd_cnt`, the parity of progress ACKs.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RateHalving {
    cnt: u32,
}

impl RateHalving {
    /// cwnd is not cut at entry; the triggering ACK's `on_ack` moderates it.
    pub fn on_enter(&mut self, e: &Entry) -> u64 {
        self.cnt = 0;
        e.cwnd
    }

    /// `tcp_cwnd_down` on an ACK with progress (DeliveredData > 0, or a duplicate ACK
    /// without SACK).
    pub fn on_ack(&mut self, a: &RecoveryAck, cwnd: u64, ssthresh: u64) -> u64 {
        if a.delivered == 0 && !a.dupack {
            return cwnd;
        }
        let decr = self.cnt + 1;
        self.cnt = decr & 1;
        let mut cwnd = cwnd;
        if decr >> 1 > 0 && cwnd > ssthresh {
            cwnd = cwnd.saturating_sub(a.mss);
        }
        cwnd.min(a.pipe + a.mss).max(a.mss)
    }
}

/// `tcp_complete_cwr`: cwnd = min(cwnd, ssthresh).
pub fn exit_cwnd(cwnd: u64, ssthresh: u64) -> u64 {
    cwnd.min(ssthresh)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(pipe: u64) -> RecoveryAck {
        RecoveryAck {
            delivered: 1,
            pipe,
            mss: 1,
            ..RecoveryAck::default()
        }
    }

    /// RFC 6937 §3.1 "Rate-Halving (Linux)", in segments from the triggering ACK (#3):
    /// cwnd 19 18 18 17 17 … as pipe falls 18 18 17 17 16 ….
    #[test]
    fn one_segment_every_second_ack() {
        let mut rh = RateHalving::default();
        let mut cwnd = rh.on_enter(&Entry {
            cwnd: 20,
            ..Entry::default()
        });
        let mut out = vec![];
        for pipe in [18, 18, 17, 17, 16, 16] {
            cwnd = rh.on_ack(&ack(pipe), cwnd, 10);
            out.push(cwnd);
        }
        assert_eq!(out, [19, 18, 18, 17, 17, 16]);
        // Burst loss: moderation to pipe + 1.
        let mut rh = RateHalving::default();
        assert_eq!(rh.on_ack(&ack(4), 20, 11), 5);
        assert_eq!(exit_cwnd(5, 11), 5);
        assert_eq!(exit_cwnd(14, 11), 11);
    }
}

//! Whether the connection uses its window, as Linux judges it before growing cwnd
//! (`tcp_cwnd_validate` at the end of `tcp_write_xmit`, `tcp_is_cwnd_limited`; the idea of
//! RFC 7661): cwnd grows only while the sender is cwnd-limited, and in slow start while
//! cwnd is below twice the most that was in flight during the last window, so that an
//! application-limited flow still doubles what it actually used.

/// Linux's `is_cwnd_limited`, `max_packets_out` and `cwnd_usage_seq`, in bytes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CwndUsage {
    /// The last window ended cwnd-limited (Linux `tp->is_cwnd_limited`).
    limited: bool,
    /// The most in flight during the current window (Linux `max_packets_out`).
    max_out: u64,
    /// SND.NXT when the current window started (Linux `cwnd_usage_seq`).
    usage_seq: u64,
}

impl CwndUsage {
    /// After a transmission of new data, or an attempt that cwnd stopped (Linux
    /// `tcp_cwnd_validate`): `flight` in flight now, `cwnd_limited` when in flight ≥ cwnd.
    pub fn on_send(&mut self, snd_una: u64, snd_nxt: u64, flight: u64, cwnd_limited: bool) {
        if snd_una >= self.usage_seq || cwnd_limited || (!self.limited && flight > self.max_out) {
            self.limited = cwnd_limited;
            self.max_out = flight;
            self.usage_seq = snd_nxt;
        }
    }

    /// Linux `tcp_is_cwnd_limited`: the window was used, or in slow start cwnd is below
    /// twice the most in flight.
    pub fn is_cwnd_limited(&self, cwnd: u64, in_slow_start: bool) -> bool {
        self.limited || (in_slow_start && cwnd < self.max_out.saturating_mul(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten segments of IW10 fill the window: growth continues to 20 on their ACKs; a
    /// flow that used only 4 of 10 segments grows only while cwnd < 8.
    #[test]
    fn window_use() {
        let mut u = CwndUsage::default();
        for i in 1..=10 {
            u.on_send(0, i * 1000, i * 1000, i * 1000 >= 10_000);
        }
        assert!(u.is_cwnd_limited(18_000, true));
        let mut a = CwndUsage::default();
        for i in 1..=4 {
            a.on_send(0, i * 1000, i * 1000, false);
        }
        assert!(a.is_cwnd_limited(7_000, true));
        assert!(!a.is_cwnd_limited(8_000, true));
        assert!(
            !a.is_cwnd_limited(7_000, false),
            "congestion avoidance: not limited"
        );
    }
}

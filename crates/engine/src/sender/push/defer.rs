//! Linux's TSO deferral (net/ipv4/tcp_output.c `tcp_tso_should_defer`, asked by
//! `tcp_write_xmit` for an skb of more than one segment): a small send is held back for
//! the next ACK when one is due, so that it can go as a bigger TSO packet. The rule is
//! `should_defer` over `DeferInputs`; `Sender::tso_defers` gathers them.

use crate::sender::Sender;
use crate::time::{Duration, Instant};

/// Linux `sysctl_tcp_tso_win_divisor` default: a third of the window is worth sending.
const TSO_WIN_DIVISOR: u64 = 3;
/// "Avoid bursty behavior by allowing defer only if the last write was recent (1 ms)".
const RECENT_WRITE: Duration = Duration::from_millis(1);

/// What `tcp_tso_should_defer` reads, in bytes and instants.
#[derive(Copy, Clone, Debug)]
pub(in crate::sender) struct DeferInputs {
    pub now: Instant,
    /// The last data transmission (`tp->tcp_wstamp_ns` without pacing).
    pub last_write: Option<Instant>,
    /// cwnd − packets in flight (`cong_win`).
    pub cong_win: u64,
    /// SND.UNA + SND.WND − the skb's start (`send_win`).
    pub send_win: u64,
    /// The peer's window and cwnd, for the window fraction.
    pub snd_wnd: u64,
    pub cwnd: u64,
    pub mss: u64,
    /// `tcp_tso_autosize`'s segments per packet (`max_segs`).
    pub max_segs: u64,
    /// The unsent skb at SND.NXT: its length, whether it is the write queue's tail, and
    /// whether it carries the FIN.
    pub skb_len: u64,
    pub skb_is_tail: bool,
    pub skb_fin: bool,
    /// The last transmission of the retransmission queue's head (`head->tstamp`).
    pub head_sent: Option<Instant>,
    pub srtt: Option<Duration>,
}

/// Linux `tcp_tso_should_defer` for a connection outside fast and RTO recovery (the
/// caller's `icsk_ca_state >= TCP_CA_Recovery` check); `true`: send nothing now.
pub(in crate::sender) fn should_defer(d: &DeferInputs) -> bool {
    let recent = d
        .last_write
        .is_some_and(|w| d.now.saturating_duration_since(w) <= RECENT_WRITE);
    if !recent {
        return false;
    }
    let limit = d.send_win.min(d.cong_win);
    // A full-sized TSO packet can be sent; or a middle skb can go whole.
    if limit >= d.max_segs * d.mss || (!d.skb_is_tail && limit >= d.skb_len) {
        return false;
    }
    // At least a fraction of the window is available.
    if limit >= d.snd_wnd.min(d.cwnd) / TSO_WIN_DIVISOR {
        return false;
    }
    let (Some(head), Some(srtt)) = (d.head_sent, d.srtt) else {
        return false;
    };
    // "If next ACK is likely to come too late, ie in more than min(1ms, half srtt), do
    // not defer" (6.18; the ACK is expected one SRTT after the head was sent).
    let expected = head + srtt;
    let threshold = (srtt / 2).min(RECENT_WRITE);
    if expected.saturating_duration_since(d.now) > threshold {
        return false;
    }
    if d.cong_win < d.send_win {
        if d.cong_win <= d.skb_len {
            return true;
        }
    } else if d.send_win <= d.skb_len {
        return true;
    }
    // This skb will get no more data (FIN): do not wait.
    !d.skb_fin
}

impl Sender {
    /// Linux `tcp_tso_should_defer` (from `tcp_write_xmit`, Open and Disorder): new data
    /// with `room` bytes of window waits for the next ACK. Asked only when more than one
    /// segment is unsent in the skb at SND.NXT (`tso_segs > 1`; a lone segment meets
    /// `tcp_nagle_test` instead).
    pub(in crate::sender) fn tso_defers(&self, now: Instant, room: u64) -> bool {
        let mss = self.mss.max(1);
        let nxt = self.core.sb.snd_nxt();
        // Asked per packet: the rest of one under way goes with it.
        if self.push_packet_continues(now, nxt) {
            return false;
        }
        let (end, tail) = self
            .push
            .send_head(nxt)
            .unwrap_or((self.stream.written, true));
        let skb_len = end.min(self.stream.written).saturating_sub(nxt);
        if skb_len <= mss {
            return false;
        }
        should_defer(&DeferInputs {
            now,
            last_write: self.stream.last_data_sent,
            cong_win: room,
            send_win: (self.core.sb.snd_una() + self.peer.window).saturating_sub(nxt),
            snd_wnd: self.peer.window,
            cwnd: self.cwnd,
            mss,
            max_segs: self.tso_max_segs(),
            skb_len,
            skb_is_tail: tail,
            skb_fin: tail && self.stream.closed,
            head_sent: self.core.sb.head().map(|h| h.last_sent),
            srtt: self.core.rtt.srtt(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_us(v: u64) -> Instant {
        Instant::from_micros(v)
    }
    /// The differential's pattern 103 at its second SACK: IW10 sent at 0, RTT 10 ms, one
    /// segment of quota, the last write 100 µs ago, five segments unsent.
    fn p103() -> DeferInputs {
        DeferInputs {
            now: at_us(10_250),
            last_write: Some(at_us(10_150)),
            cong_win: 1448,
            send_win: 60_000,
            snd_wnd: 65_000,
            cwnd: 14_480,
            mss: 1448,
            max_segs: 2,
            skb_len: 5 * 1448,
            skb_is_tail: true,
            skb_fin: true,
            head_sent: Some(at_us(0)),
            srtt: Some(Duration::from_micros(10_100)),
        }
    }

    #[test]
    fn tso_should_defer_table() {
        assert!(should_defer(&p103()), "one segment, ACK due, write recent");
        let cases: [(&str, DeferInputs); 6] = [
            (
                "last write over 1 ms ago",
                DeferInputs {
                    last_write: Some(at_us(9_000)),
                    ..p103()
                },
            ),
            (
                "a full TSO packet",
                DeferInputs {
                    cong_win: 2 * 1448,
                    ..p103()
                },
            ),
            (
                "a third of the window",
                DeferInputs {
                    cwnd: 3 * 1448,
                    ..p103()
                },
            ),
            (
                "the ACK is over 1 ms away",
                DeferInputs {
                    head_sent: Some(at_us(1_300)),
                    ..p103()
                },
            ),
            (
                "no RTT yet",
                DeferInputs {
                    srtt: None,
                    ..p103()
                },
            ),
            (
                "the skb fits and carries the FIN",
                DeferInputs {
                    skb_len: 1000,
                    ..p103()
                },
            ),
        ];
        for (why, d) in cases {
            assert!(!should_defer(&d), "{why}");
        }
        let no_fin = DeferInputs {
            skb_len: 1000,
            skb_fin: false,
            ..p103()
        };
        assert!(
            should_defer(&no_fin),
            "application-limited without FIN waits"
        );
    }
}

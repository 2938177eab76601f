//! BBR v1 on the sender (`cc = bbr`, Linux 4.9 `tcp_bbr.c`): pacing on the deadline, the
//! model's cwnd in recovery (`tcp_cong_control`'s `cong_control` hook), and no PRR
//! reduction or undo of the model.

mod common;
use common::*;
use lossrec::config::CongestionControl;
use lossrec::{Config, Duration, RecoveryState};

fn bbr() -> Config {
    let mut c = Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.cc = CongestionControl::Bbr;
    c
}

/// `bbr_init_pacing_rate_from_rtt` before any RTT sample: 2.885 · 10 segments per 1 ms
/// (28,867,159 B/s in Linux's fixed point with 1000-byte segments). Linux paces BBR as
/// any flow (`tcp_update_skb_after_send`): the first 10 segments leave at once; after
/// them each packet holds the next back by its payload at the pacing rate, on the
/// deadline.
#[test]
fn transmissions_are_paced_on_the_deadline() {
    let mut s = sender_with(bbr(), 40);
    assert_eq!(s.pacing_rate(), 28_867_159);
    assert_eq!(
        drain(&mut s, ms(0)).len(),
        10,
        "the initial window is not paced"
    );
    // The last packet of the window brought data_segs_out to 10: it holds the next one
    // back by its length (5 segments: half the window, `tcp_cwnd_test`) at the rate.
    s.on_ack(ms(0), &ack(2 * MSS));
    assert!(s.poll_transmit(ms(0)).is_none(), "the next packet waits");
    let at = s.poll_timeout().expect("the pacing deadline");
    assert_eq!(
        at - ms(0),
        Duration::from_nanos(5_000 * 1_000_000_000 / 28_867_159)
    );
    s.on_timeout(at);
    assert_eq!(s.poll_transmit(at).map(|t| t.range), Some(seg(10)));
}

/// Without BBR nothing is paced: the initial window leaves at once.
#[test]
fn other_algorithms_are_not_paced() {
    let mut c = bbr();
    c.cc = CongestionControl::Cubic;
    let mut s = sender_with(c, 20);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
}

/// Drains what the pacer allows up to `until`.
fn paced(s: &mut lossrec::Sender, from: lossrec::Instant, until: lossrec::Instant) -> u64 {
    let mut now = from;
    let mut n = 0;
    loop {
        while s.poll_transmit(now).is_some() {
            n += 1;
        }
        match s.poll_timeout() {
            Some(t) if t <= until => {
                now = t.max(now);
                s.on_timeout(now);
            }
            _ => return n,
        }
    }
}

/// Fast recovery under BBR: the first round conserves packets — cwnd = in flight + the
/// segments this ACK delivered (`bbr_set_cwnd_to_recover_or_restore`), never below it
/// after — instead of PRR's ssthresh-based reduction, and ssthresh is not lowered
/// (`bbr_ssthresh`).
#[test]
fn recovery_conserves_packets() {
    let mut s = sender_with(bbr(), 40);
    assert_eq!(paced(&mut s, ms(0), ms(5)), 10);
    // Segment 0 lost; RACK (reo_wnd 0 without an RTT sample) marks it at the first SACK.
    s.on_ack(ms(100), &sack_segs(0, 1, 2));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.ssthresh(), u64::MAX, "BBR leaves ssthresh alone");
    assert_eq!(s.pipe() / MSS, 8, "10 sent, 1 SACKed, 1 lost");
    assert_eq!(s.cwnd() / MSS, 9, "in flight 8 + 1 delivered");
    for k in 3..=6 {
        s.on_ack(ms(100), &sack_segs(0, 1, k));
        let in_flight = s.pipe() / MSS;
        assert!(s.cwnd() / MSS > in_flight, "k {k}: cwnd {}", s.cwnd() / MSS);
    }
}

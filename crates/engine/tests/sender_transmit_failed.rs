//! Transmissions that never left the host (`Sender::transmit_failed`): Linux's error paths
//! when `tcp_transmit_skb` fails locally (a qdisc that drops, ENOBUFS).
//!
//! - `tcp_write_xmit`: new data stays unsent (SND.NXT does not move) and sending stops;
//!   with nothing in flight `tcp_check_probe_timer` arms the probe timer, which retries.
//! - `tcp_retransmit_skb` / `__tcp_retransmit_skb`: the segment is not marked
//!   retransmitted (it stays lost, out of `retrans_out` and the pipe), `TCPRetransFail`
//!   counts it, `tcp_xmit_retransmit_queue` stops; the attempt still counts in
//!   `total_retrans` and the segment is never again an RTT sample (`TCPCB_EVER_RETRANS`).
//! - `tcp_retransmit_timer`: a failed timeout retransmission re-arms the timer at
//!   `TCP_RESOURCE_PROBE_INTERVAL` (500 ms) without backing off.

mod common;
use common::*;
use lossrec::timer::TimerKind;
use lossrec::{Config, Duration, RecoveryState, Why};

fn linux() -> Config {
    let mut c = Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    // The rule's arithmetic in exact time; the kernel's jiffies and timer wheel
    // (`timer_hz`) are held by `timer::tests` and `sender_rules::linux_timers_fire_on_the_wheel`.
    c.timer_hz = 0;
    c
}

/// Without `allow_transmit_failures` the sender keeps no record: a report is refused and
/// changes nothing.
#[test]
fn failures_must_be_allowed_first() {
    let mut s = sender_with(cfg(), 4);
    let t = s.poll_transmit(ms(0)).unwrap();
    assert_eq!(
        s.transmit_failed(ms(0), &t),
        Err(lossrec::sender::TransmitFailedError::NotAllowed)
    );
    assert_eq!(s.snd_nxt(), MSS);
    assert!(s.poll_transmit(ms(0)).is_some());
}

#[test]
fn failed_new_data_stays_unsent_and_is_retried() {
    let mut s = sender_with(cfg(), 4);
    s.allow_transmit_failures();
    let t = s.poll_transmit(ms(0)).unwrap();
    assert_eq!((t.range, t.why), (seg(0), Why::New));
    s.transmit_failed(ms(0), &t).unwrap();
    assert_eq!(s.snd_nxt(), 0, "the segment stays unsent");
    assert_eq!(s.flight_size(), 0);
    assert_eq!(
        s.poll_transmit(ms(0)),
        None,
        "sending stops until the next input"
    );
    // Nothing in flight: the probe timer retries (`tcp_check_probe_timer`).
    assert_eq!(s.timer_kind(), Some(TimerKind::Persist));
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    let again = sent(&mut s, at);
    assert_eq!(again[0], (0, Why::New), "{again:?}");
    assert_eq!(s.snd_nxt(), 4 * MSS);
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
}

#[test]
fn only_the_last_polled_transmission_can_fail() {
    let mut s = sender_with(cfg(), 4);
    s.allow_transmit_failures();
    let a = s.poll_transmit(ms(0)).unwrap();
    let b = s.poll_transmit(ms(0)).unwrap();
    assert!(
        s.transmit_failed(ms(0), &a).is_err(),
        "not the last one polled"
    );
    s.transmit_failed(ms(0), &b).unwrap();
    assert_eq!(s.snd_nxt(), MSS);
    assert!(
        s.transmit_failed(ms(0), &b).is_err(),
        "reported twice: the second report is refused"
    );
    s.on_ack(ms(100), &ack(MSS));
    assert!(
        s.transmit_failed(ms(100), &b).is_err(),
        "an input came in between"
    );
}

/// The upstream `cubic-rack-reo-timeout-retrans-failed-incoming-data` situation, written
/// afresh: RACK's reorder timer marks the head lost, recovery starts with cwnd = in flight
/// + 1 = 1 segment, and the retransmission fails.
#[test]
fn failed_rack_retransmission_stays_lost() {
    let mut s = lossrec::Sender::new(linux(), ms(0)).unwrap();
    s.allow_transmit_failures();
    s.write(ms(0), 10 * MSS);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    // Reordering: segments 9 and 3 SACKed, then everything arrives.
    s.on_ack(ms(20), &sack_segs(0, 9, 10));
    s.on_ack(ms(20), &sack(0, &[(3 * MSS, 4 * MSS), (9 * MSS, 10 * MSS)]));
    s.on_ack(ms(20), &ack(10 * MSS));
    assert!(s.reordering_seen());
    s.write(ms(40), 2 * MSS);
    assert_eq!(drain(&mut s, ms(40)).len(), 2);
    // Segment 11 arrives, 10 does not (yet).
    s.on_ack(ms(60), &sack_segs(10, 11, 12));
    assert_eq!(s.state(), RecoveryState::Disorder);
    assert_eq!(s.timer_kind(), Some(TimerKind::ReoTimeout));
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    assert_eq!(s.state(), RecoveryState::Recovery);
    let t = s.poll_transmit(at).unwrap();
    assert_eq!((t.range, t.why), (seg(10), Why::RackRetransmit));
    s.transmit_failed(at, &t).unwrap();
    assert_eq!(s.poll_transmit(at), None, "tcp_xmit_retransmit_queue stops");
    let sb = s.scoreboard();
    assert_eq!(sb.retrans_bytes(), 0, "not marked retransmitted");
    assert_eq!(
        sb.lost_pending_bytes(),
        MSS,
        "still lost, awaiting retransmission"
    );
    assert_eq!(s.pipe(), 0, "no packets in flight");
    assert_eq!(s.cwnd(), MSS);
    let st = s.stats();
    assert_eq!(st.get("TCPRetransFail"), Some(1));
    assert_eq!(st.fast_retrans, 0, "TCPFastRetrans counts only what left");
    assert_eq!(st.retrans_segs, 1, "total_retrans counts the attempt");
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    // An ACK that delivers nothing in recovery: cwnd stays (tcp_cwnd_reduction returns
    // early), and the retransmission is tried again.
    let later = at + Duration::from_millis(10);
    s.on_ack(later, &sack_segs(10, 11, 12));
    assert_eq!(s.cwnd(), MSS);
    let t = s.poll_transmit(later).unwrap();
    assert_eq!((t.range, t.why), (seg(10), Why::RackRetransmit));
    s.transmit_failed(later, &t).unwrap();
    assert_eq!(s.stats().get("TCPRetransFail"), Some(2));
    assert_eq!(s.cwnd(), MSS);
    // The RTO: its retransmission fails too, so the timer comes back in 500 ms with no
    // backoff; then it goes out.
    let rto_at = s.poll_timeout().unwrap();
    s.on_timeout(rto_at);
    let backoff = s.rtt().backoff_count();
    let t = s.poll_transmit(rto_at).unwrap();
    assert_eq!((t.range, t.why), (seg(10), Why::RtoRetransmit));
    s.transmit_failed(rto_at, &t).unwrap();
    assert_eq!(
        s.rtt().backoff_count(),
        backoff - 1,
        "no backoff for a local failure"
    );
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.poll_timeout(), Some(rto_at + Duration::from_millis(500)));
    assert_eq!(s.stats().slow_start_retrans, 0);
    let next = rto_at + Duration::from_millis(500);
    s.on_timeout(next);
    let t = s.poll_transmit(next).unwrap();
    assert_eq!((t.range, t.why), (seg(10), Why::RtoRetransmit));
    assert_eq!(s.scoreboard().retrans_bytes(), MSS);
    // The timer's own retransmission: `TCPTimeouts`, not `TCPSlowStartRetrans`
    // (`tcp_retransmit_timer`; see `sender_counters`).
    assert_eq!(s.stats().slow_start_retrans, 0);
    assert_eq!(s.stats().retrans_segs, 4, "every attempt, failed or not");
    assert_eq!(s.stats().get("TCPRetransFail"), Some(3));
}

/// The receiver's ACK for the segments it holds: cumulative up to the first hole, SACK
/// blocks for up to three runs above it.
fn ack_for(got: &[bool]) -> lossrec::Ack {
    let cum = got.iter().position(|g| !g).unwrap_or(got.len()) as u64;
    let mut blocks = Vec::new();
    let mut i = cum as usize;
    while i < got.len() && blocks.len() < 3 {
        if got[i] {
            let start = i;
            while i < got.len() && got[i] {
                i += 1;
            }
            blocks.push((start as u64 * MSS, i as u64 * MSS));
        } else {
            i += 1;
        }
    }
    sack(cum * MSS, &blocks)
}

mod props {
    use super::*;
    use proptest::prelude::*;

    const SEGS: usize = 20;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever fails locally and whatever the path loses, the invariants hold (the
        /// debug checks after every call), nothing unsent is retransmitted, and once
        /// failures stop every byte is delivered.
        #[test]
        fn failures_and_losses_never_wedge_the_sender(
            fail in prop::collection::vec(any::<bool>(), 0..120),
            lose in prop::collection::vec(prop::bool::weighted(0.2), 0..120),
            preset in prop::sample::select(vec!["linux", "rfc", "linux-3.17-tlp", "linux-rh-er"]),
        ) {
            let mut c = Config::preset(preset).unwrap();
            c.mss = MSS as u16;
            c.handshake = false;
            c.timestamps = false;
            let mut s = lossrec::Sender::new(c, ms(0)).unwrap();
            s.allow_transmit_failures();
            s.write(ms(0), SEGS as u64 * MSS);
            let mut got = [false; SEGS];
            let (mut now, mut k, mut high) = (ms(0), 0, 0);
            for _ in 0..5_000 {
                let mut arrived = false;
                while let Some(t) = s.poll_transmit(now) {
                    if t.why.is_retransmission() {
                        prop_assert!(t.range.end <= high, "retransmitted unsent data {:?}", t);
                    } else if !t.range.is_empty() {
                        high = high.max(t.range.end);
                    }
                    if fail.get(k).copied().unwrap_or(false) {
                        k += 1;
                        s.transmit_failed(now, &t).unwrap();
                        prop_assert_eq!(s.poll_transmit(now), None);
                        break;
                    }
                    if !lose.get(k).copied().unwrap_or(false) && !t.range.is_empty() {
                        got[(t.range.start / MSS) as usize] = true;
                        arrived = true;
                    }
                    k += 1;
                }
                if s.snd_una() == SEGS as u64 * MSS {
                    break;
                }
                now += Duration::from_millis(50);
                if arrived {
                    s.on_ack(now, &ack_for(&got));
                } else if let Some(d) = s.poll_timeout() {
                    now = now.max(d);
                    s.on_timeout(now);
                }
            }
            prop_assert_eq!(s.snd_una(), SEGS as u64 * MSS, "stuck at {:?}", s.state());
        }
    }
}

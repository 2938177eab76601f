//! Pacing for every congestion control (`pacing = internal | fq`; Linux's rules in
//! `lossrec::pacing`): `tcp_update_pacing_rate` after each ACK, departures per TSO packet
//! from `tcp_wstamp_ns`, on the sender's deadline.

mod common;
use common::*;
use lossrec::config::Pacing;
use lossrec::{Config, Duration};

fn linux(pacing: Pacing) -> Config {
    let mut c = Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.pacing = pacing;
    c
}

/// CUBIC with TCP's internal pacing: the first window leaves at once (no rate yet, and
/// the first 10 segments are never paced). An ACK of 4 segments 100 ms later: cwnd 14,
/// SRTT 100 ms, so 1000 · 14 / 100 ms · 200 % = 280 kB/s and 2-segment packets,
/// 7.142857 ms apart. The first packet is late: it leaves at once with half its interval
/// back as credit, so the second leaves 3.571 ms later and the third a whole interval
/// after that, each on the deadline.
#[test]
fn cubic_paced_internally_on_the_deadline() {
    let mut s = sender_with(linux(Pacing::Internal), 40);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    s.on_ack(ms(100), &ack(4 * MSS));
    assert_eq!(s.pacing_rate(), 280_000);
    let first: Vec<u64> = drain(&mut s, ms(100))
        .iter()
        .map(|t| t.range.start / MSS)
        .collect();
    assert_eq!(first, [10, 11], "one 2-segment packet");
    let second = s.poll_timeout().expect("the pacing deadline");
    assert_eq!(
        second - ms(100),
        Duration::from_nanos(7_142_857 - 3_571_428)
    );
    s.on_timeout(second);
    assert_eq!(sent(&mut s, second).len(), 2);
    let third = s.poll_timeout().expect("the next packet's time");
    assert_eq!(third - second, Duration::from_nanos(7_142_857));
    s.on_timeout(third);
    assert_eq!(sent(&mut s, third).len(), 2);
}

/// The same without pacing: what the window allows leaves at once.
#[test]
fn unpaced_cubic_sends_the_window_at_once() {
    let mut s = sender_with(linux(Pacing::Off), 40);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    s.on_ack(ms(100), &ack(4 * MSS));
    assert_eq!(drain(&mut s, ms(100)).len(), 8);
}

/// TCP's internal pacing holds back only what `tcp_write_xmit` sends (`tcp_pacing_check`);
/// the fast retransmit, the timeout's and the probes go through `tcp_retransmit_skb`
/// straight to the device, which without an EDT qdisc sends them at once. They must not
/// wait behind the pacing deadline.
#[test]
fn internal_pacing_does_not_hold_the_fast_retransmit() {
    let mut c = linux(Pacing::Internal);
    c.sack = false;
    let mut s = sender_with(c, 40);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    s.on_ack(ms(100), &ack(4 * MSS));
    assert_eq!(
        drain(&mut s, ms(100)).len(),
        2,
        "one paced 2-segment packet"
    );
    assert!(
        s.poll_timeout().unwrap() > ms(100),
        "the next departure is later"
    );
    for _ in 0..3 {
        s.on_ack(ms(100), &ack(4 * MSS));
    }
    let now: Vec<u64> = drain(&mut s, ms(100))
        .iter()
        .map(|t| t.range.start / MSS)
        .collect();
    assert!(
        now.contains(&4),
        "the fast retransmit leaves at once: {now:?}"
    );
}

/// With `fq`, packets wait for their departure time counted as sent (SND.NXT moved). One
/// acknowledged while it waits (a peer acknowledging ahead, or the ACK of an earlier
/// copy of a queued retransmission) is not handed out: nothing below SND.UNA leaves
/// (found by the sender_ops fuzz target).
#[test]
fn fq_drops_what_was_acknowledged_while_queued() {
    let mut s = sender_with(linux(Pacing::Fq), 40);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    s.on_ack(ms(100), &ack(4 * MSS));
    let now = drain(&mut s, ms(100)).len() as u64;
    assert!(s.snd_nxt() > (10 + now) * MSS, "packets wait in fq");
    let una = s.snd_nxt();
    s.on_ack(ms(101), &ack(una));
    let mut t = ms(101);
    for _ in 0..20 {
        for tx in drain(&mut s, t) {
            assert!(tx.range.start >= una, "{tx:?} below SND.UNA {una}");
        }
        match s.poll_timeout() {
            Some(d) => {
                t = d.max(t);
                s.on_timeout(t);
            }
            None => break,
        }
    }
}

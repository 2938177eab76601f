//! The persist timer (RFC 9293 §3.8.6.1; Linux `tcp_check_probe_timer`, `tcp_probe_timer`,
//! `tcp_send_probe0`, `tcp_ack_probe`): a zero window with data queued and nothing in
//! flight arms zero-window probes on the one deadline, backing off to the maximum RTO; a
//! window that reopens resumes sending. Issue 13 item 4: without it the connection
//! deadlocked.

mod common;
use common::*;
use lossrec::timer::TimerKind;
use lossrec::{Ack, Receiver, ReceiverConfig, Segment, Why};

fn zero(cum: u64) -> Ack {
    Ack {
        window: 0,
        ..ack(cum)
    }
}

#[test]
fn zero_window_then_reopen() {
    let mut s = sender_with(cfg(), 20);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    // Everything ACKed, but the receiver's buffer is full.
    assert!(on_ack(&mut s, ms(100), zero(10 * MSS)).is_empty());
    assert_eq!(
        s.timer_kind(),
        Some(TimerKind::Persist),
        "nothing armed: deadlock"
    );
    let first = s.poll_timeout().unwrap();
    s.on_timeout(first);
    let probes = drain(&mut s, first);
    assert_eq!(probes.len(), 1);
    assert_eq!(probes[0].why, Why::WindowProbe);
    assert!(probes[0].range.is_empty(), "a probe carries no data");
    assert_eq!(s.stats().win_probes, 1);
    assert_eq!(s.stats().get("TCPWinProbe"), Some(1));
    // Still closed: the next probe waits twice as long.
    let t = first + lossrec::Duration::from_millis(100);
    on_ack(&mut s, t, zero(10 * MSS));
    let second = s.poll_timeout().unwrap();
    assert!(second - t > first - ms(100), "{second:?} {first:?}");
    // The window opens: sending resumes under the RTO, no probe pending.
    let sent = on_ack(&mut s, t + lossrec::Duration::from_millis(1), ack(10 * MSS));
    assert!(!sent.is_empty());
    assert_eq!(sent[0], (10, Why::New));
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(
        s.stats().timeouts,
        0,
        "probing is not a retransmission timeout"
    );
}

/// A window that never opens: probes go on, each interval at least the previous one,
/// capped at the maximum RTO; nothing hangs, no data is sent.
#[test]
fn zero_window_forever_backs_off() {
    let mut s = sender_with(cfg(), 20);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), zero(10 * MSS));
    let max_rto = s.config().max_rto;
    let mut last = ms(100);
    let mut prev_gap = lossrec::Duration::ZERO;
    for k in 0..40 {
        let at = s.poll_timeout().expect("a probe is always scheduled");
        let gap = at - last;
        assert!(gap >= prev_gap, "probe {k}: {gap:?} after {prev_gap:?}");
        assert!(gap <= max_rto, "probe {k}: {gap:?} beyond the maximum RTO");
        s.on_timeout(at);
        let out = drain(&mut s, at);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].why, Why::WindowProbe);
        // The receiver answers every probe, window still 0.
        s.on_ack(at, &zero(10 * MSS));
        prev_gap = gap;
        last = at;
    }
    assert_eq!(prev_gap, max_rto);
    assert_eq!(s.stats().win_probes, 40);
    assert_eq!(s.snd_nxt(), 10 * MSS);
}

/// The receiver answers a probe (a segment below RCV.NXT is unacceptable, RFC 9293
/// §3.10.7.4: it is answered with an ACK carrying the current window).
#[test]
fn receiver_answers_a_window_probe() {
    let mut r = Receiver::new(
        ReceiverConfig {
            timestamps: false,
            ..ReceiverConfig::default()
        },
        ms(0),
    );
    r.on_segment(
        ms(0),
        &Segment {
            range: seg(0),
            ..Segment::default()
        },
    );
    while r.poll_ack(ms(0)).is_some() {}
    let probe = Segment {
        range: r_(MSS - 1),
        ..Segment::default()
    };
    r.on_segment(ms(10), &probe);
    let a = r.poll_ack(ms(10)).expect("the probe is answered");
    assert_eq!(a.cumulative, MSS);
}

fn r_(at: u64) -> lossrec::Range {
    r(at, at)
}

/// Without SACK every ACK is weighed against the segments that could have caused it
/// (`detect::ack_budget`): the answers to window probes must not use up what later
/// genuine duplicate ACKs need to start fast recovery.
#[test]
fn probe_answers_do_not_starve_fast_retransmit() {
    let mut c = cfg();
    c.sack = false;
    let mut s = sender_with(c, 100);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    // One ACK per segment, the window ending at segment 10; the last closes it.
    for k in 1..10 {
        let a = Ack {
            window: (10 - k) * MSS,
            ..ack(k * MSS)
        };
        assert!(on_ack(&mut s, ms(100), a).is_empty());
    }
    on_ack(&mut s, ms(100), zero(10 * MSS));
    let mut t = ms(100);
    for _ in 0..15 {
        t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        assert_eq!(drain(&mut s, t)[0].why, Why::WindowProbe);
        s.on_ack(t, &zero(10 * MSS));
    }
    // The answer to the last probe opens the window: new segments leave, the first is
    // lost, and three duplicates follow.
    let sent = on_ack(&mut s, t, ack(10 * MSS));
    assert!(sent.len() >= 4, "{sent:?}");
    let mut out = Vec::new();
    for _ in 0..3 {
        out.extend(on_ack(
            &mut s,
            t + lossrec::Duration::from_millis(100),
            ack(10 * MSS),
        ));
    }
    assert!(
        out.contains(&(10, Why::FastRetransmit)),
        "three genuine duplicates after probing: {out:?}"
    );
}

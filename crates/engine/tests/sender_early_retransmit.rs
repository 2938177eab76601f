//! Early Retransmit (RFC 5827) on the sender: the segment- and byte-based thresholds with
//! and without SACK, the precondition that no new segment can be sent, the mitigations of
//! App. A (delay on the deadline, off after reordering, rate cap) and the TLP draft §4.2
//! enhancement; spurious early retransmits found by DSACK and by timestamps.

mod common;
use common::*;
use lossrec::config::EarlyRetransmit;
use lossrec::timer::TimerKind;
use lossrec::{Config, RecoveryState, Sender, Why};

/// The RFC preset with ER, without RFC 6675's rescue retransmission (which would resend
/// the early-retransmitted segment at once: rule 4 picks the highest un-SACKed segment).
fn er_cfg(mode: EarlyRetransmit) -> Config {
    let mut c = cfg();
    c.early_retransmit = mode;
    c.rescue_retransmit = false;
    c
}

/// A sender that has measured SRTT = 100 ms (one segment out and acknowledged) and then
/// sent `segments` more; returns it and the offset of the first of them, in segments.
fn warmed(c: Config, segments: u64) -> Sender {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), MSS);
    sent(&mut s, ms(0));
    s.on_ack(ms(100), &ack(MSS));
    s.write(ms(100), segments * MSS);
    assert_eq!(sent(&mut s, ms(100)).len() as u64, segments);
    s
}

/// RFC 5827 §3.2 with SACK: three segments out, the first lost. One SACK is not enough
/// (oseg − 1 = 2 segments must be SACKed); the second SACK early-retransmits.
#[test]
fn segment_based_with_sack() {
    let mut s = sender_with(er_cfg(EarlyRetransmit::Rfc5827), 3);
    sent(&mut s, ms(0));
    assert!(on_ack(&mut s, ms(100), sack_segs(0, 1, 2)).is_empty());
    assert_eq!(s.state(), RecoveryState::Disorder);
    let out = on_ack(&mut s, ms(101), sack_segs(0, 1, 3));
    assert_eq!(out, vec![(0, Why::EarlyRetransmit)]);
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.stats().early_retrans, 1);
    assert_eq!(s.stats().sack_recovery, 1);
    on_ack(&mut s, ms(200), ack(3 * MSS));
    assert!(s.is_finished());
    // Without ER the same ACKs leave the loss to the RTO.
    let mut s = sender_with(cfg(), 3);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    assert!(on_ack(&mut s, ms(101), sack_segs(0, 1, 3)).is_empty());
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
}

/// RFC 5827 §3.2 without SACK: ER_thresh = oseg − 1 duplicate ACKs: two for three
/// segments, one for two.
#[test]
fn segment_based_without_sack() {
    for (segs, dups) in [(3u64, 2u32), (2, 1)] {
        let mut c = er_cfg(EarlyRetransmit::Rfc5827);
        c.sack = false;
        let mut s = sender_with(c, segs);
        sent(&mut s, ms(0));
        for d in 1..dups {
            assert!(on_ack(&mut s, ms(100 + u64::from(d)), ack(0)).is_empty());
        }
        let out = on_ack(&mut s, ms(150), ack(0));
        assert_eq!(out, vec![(0, Why::EarlyRetransmit)], "{segs} segments");
        assert_eq!(s.stats().reno_recovery, 1);
    }
}

/// RFC 5827 §3.1's examples (digest §7), SMSS 1460, segments of 400 bytes (small writes).
/// Ten of them: ownd 4000 < 4·1460, so byte-based ER_thresh = ⌈4000/1460⌉ − 1 = 2 and two
/// duplicate ACKs early-retransmit although ten segments are out — segment-based ER
/// (oseg 10 ≥ 4) waits for the third. Three of them: ownd 1200, ER_thresh 0, so
/// byte-based ER never helps, while segment-based ER needs oseg − 1 = 2 duplicates.
#[test]
fn byte_and_segment_based_pathologies() {
    let run = |mode: EarlyRetransmit, segs: u64, dups: u32| -> Vec<(u64, Why)> {
        let mut c = Config::rfc();
        c.handshake = false;
        c.timestamps = false;
        c.sack = false;
        c.mss = 1460;
        c.early_retransmit = mode;
        let mut s = Sender::new(c, ms(0)).unwrap();
        for _ in 0..segs {
            s.write(ms(0), 400);
            assert_eq!(drain(&mut s, ms(0)).len(), 1);
        }
        let mut out = vec![];
        for d in 0..dups {
            s.on_ack(ms(100 + u64::from(d)), &ack(0));
            out.extend(
                drain(&mut s, ms(100))
                    .iter()
                    .map(|t| (t.range.start, t.why)),
            );
        }
        out
    };
    assert_eq!(
        run(EarlyRetransmit::Rfc5827Bytes, 10, 2),
        vec![(0, Why::EarlyRetransmit)]
    );
    assert!(run(EarlyRetransmit::Rfc5827, 10, 2).is_empty());
    assert_eq!(
        run(EarlyRetransmit::Rfc5827, 10, 3),
        vec![(0, Why::FastRetransmit)]
    );
    assert!(run(EarlyRetransmit::Rfc5827Bytes, 3, 2).is_empty());
    assert_eq!(
        run(EarlyRetransmit::Rfc5827, 3, 2),
        vec![(0, Why::EarlyRetransmit)]
    );
}

/// RFC 5827 §3.1 with SACK: ER once ownd − SMSS bytes are SACKed.
#[test]
fn byte_based_with_sack() {
    let mut s = sender_with(er_cfg(EarlyRetransmit::Rfc5827Bytes), 3);
    sent(&mut s, ms(0));
    assert!(on_ack(&mut s, ms(100), sack_segs(0, 1, 2)).is_empty());
    let out = on_ack(&mut s, ms(101), sack_segs(0, 1, 3));
    assert_eq!(out, vec![(0, Why::EarlyRetransmit)]);
}

/// RFC 5827 §2 (b): with unsent data the receive window admits, limited transmit — not
/// ER — applies; once the window forbids new segments, ER does.
#[test]
fn only_when_no_new_segment_can_go() {
    let mut s = sender_with(er_cfg(EarlyRetransmit::Rfc5827), 5);
    // Only three segments fit the peer's window.
    let mut a = ack(0);
    a.window = 3 * MSS;
    s.on_ack(ms(0), &a);
    assert_eq!(sent(&mut s, ms(0)).len(), 3);
    let mut a = sack_segs(0, 1, 2);
    a.window = 3 * MSS;
    assert!(on_ack(&mut s, ms(100), a).is_empty());
    let mut a = sack_segs(0, 1, 3);
    a.window = 3 * MSS;
    assert_eq!(on_ack(&mut s, ms(101), a), vec![(0, Why::EarlyRetransmit)]);
    // With the window open, the same ACKs release new data (limited transmit) instead.
    let mut c = er_cfg(EarlyRetransmit::Rfc5827);
    c.initial_cwnd = 3;
    let mut s = sender_with(c, 5);
    assert_eq!(sent(&mut s, ms(0)).len(), 3);
    assert_eq!(
        on_ack(&mut s, ms(100), sack_segs(0, 1, 2)),
        vec![(3, Why::LimitedTransmit)]
    );
    assert_eq!(s.stats().early_retrans, 0);
}

/// Delayed ER (App. A.3; Linux `tcp_early_retrans=2`): the retransmission waits
/// max(SRTT/4, 2 ms) = 25 ms on the deadline; an ACK in between cancels it (and may arm a
/// fresh one); on expiry it fast-retransmits.
#[test]
fn delayed_early_retransmit() {
    let mut c = er_cfg(EarlyRetransmit::Rfc5827);
    c.er_delayed = true;
    let mut s = warmed(c.clone(), 3);
    assert_eq!(s.rtt().srtt(), Some(std::time::Duration::from_millis(100)));
    on_ack(&mut s, ms(200), sack_segs(1, 2, 3));
    assert!(on_ack(&mut s, ms(201), sack_segs(1, 2, 4)).is_empty());
    assert_eq!(s.timer_kind(), Some(TimerKind::EarlyRetransmit));
    assert_eq!(s.poll_timeout(), Some(ms(226)));
    assert_eq!(s.stats().early_retrans_delayed, 1);
    s.on_timeout(ms(226));
    assert_eq!(sent(&mut s, ms(226)), vec![(1, Why::EarlyRetransmit)]);
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));

    // The late segment arrives within the 25 ms: its ACK cancels the early retransmit.
    let mut s = warmed(c, 3);
    on_ack(&mut s, ms(200), sack_segs(1, 2, 3));
    on_ack(&mut s, ms(201), sack_segs(1, 2, 4));
    let rto = s.poll_timeout();
    assert!(on_ack(&mut s, ms(210), ack(4 * MSS)).is_empty());
    assert_eq!(s.timer_kind(), None, "all acknowledged");
    assert_ne!(s.poll_timeout(), rto);
    assert_eq!(s.stats().early_retrans, 0);
    assert_eq!(s.state(), RecoveryState::Open);
}

/// Without an RTT sample Linux does not delay (`tcp_pause_early_retransmit` needs srtt).
#[test]
fn no_delay_without_srtt() {
    let mut c = er_cfg(EarlyRetransmit::Rfc5827);
    c.er_delayed = true;
    let mut s = sender_with(c, 3);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    assert_eq!(
        on_ack(&mut s, ms(101), sack_segs(0, 1, 3)),
        vec![(0, Why::EarlyRetransmit)]
    );
}

/// TLP draft §4.2: scoreboard A _ _ S (three segments outstanding, the last SACKed)
/// allows a delayed early retransmit under `er-tlp` (RFC 5827 alone needs two SACKed).
#[test]
fn enhanced_early_retransmit() {
    let mut s = warmed(er_cfg(EarlyRetransmit::ErTlp), 4);
    on_ack(&mut s, ms(200), ack(2 * MSS)); // A: segment 1 acknowledged
    let out = on_ack(&mut s, ms(201), sack_segs(2, 4, 5)); // _ _ S
    assert!(out.is_empty());
    assert_eq!(s.timer_kind(), Some(TimerKind::EarlyRetransmit));
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    let out = sent(&mut s, at);
    assert_eq!(out[0], (2, Why::EarlyRetransmit));
    assert_eq!(s.state(), RecoveryState::Recovery);
    // Plain RFC 5827 does nothing here.
    let mut s = warmed(er_cfg(EarlyRetransmit::Rfc5827), 4);
    on_ack(&mut s, ms(200), ack(2 * MSS));
    assert!(on_ack(&mut s, ms(201), sack_segs(2, 4, 5)).is_empty());
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
}

/// A DSACK for the early retransmission shows it was spurious (the original was only
/// late): counted, reordering noted, and with `er_disable_on_reordering` (App. A.1)
/// no further early retransmit happens on this connection.
#[test]
fn spurious_by_dsack_disables_er() {
    let mut c = er_cfg(EarlyRetransmit::Rfc5827);
    c.er_disable_on_reordering = true;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 3 * MSS);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    assert_eq!(
        on_ack(&mut s, ms(101), sack_segs(0, 1, 3)),
        vec![(0, Why::EarlyRetransmit)]
    );
    on_ack(&mut s, ms(110), ack(3 * MSS)); // the original arrives
    s.on_ack(ms(150), &sack(3 * MSS, &[(0, MSS)])); // and then the retransmission: DSACK
    assert_eq!(s.stats().early_retrans_spurious, 1);
    assert!(s.reordering_seen());
    // Two more segments (cwnd is now 2), the first lost: ER would fire on the SACK of
    // the second (oseg 2, one SACKed) but is off.
    s.write(ms(150), 2 * MSS);
    assert_eq!(sent(&mut s, ms(150)).len(), 2);
    assert!(on_ack(&mut s, ms(250), sack_segs(3, 4, 5)).is_empty());
    assert_eq!(s.stats().early_retrans, 1);
}

/// RFC 3522 §2 with timestamps: the ACK covering the early retransmission echoes the
/// original's timestamp, so the retransmission was spurious.
#[test]
fn spurious_by_timestamp() {
    let mut c = er_cfg(EarlyRetransmit::Rfc5827);
    c.timestamps = true;
    c.initial_cwnd = 3;
    let mut s = sender_with(c, 3);
    let first = drain(&mut s, ms(0));
    let ts0 = first[0].ts.unwrap().val;
    let with_ts = |mut a: lossrec::Ack, ecr: u64| {
        a.ts = Some(lossrec::Timestamps { val: 1, ecr });
        a
    };
    s.on_ack(ms(100), &with_ts(sack_segs(0, 1, 2), ts0));
    s.on_ack(ms(101), &with_ts(sack_segs(0, 1, 3), ts0));
    assert_eq!(drain(&mut s, ms(101))[0].why, Why::EarlyRetransmit);
    // The original segment 0 (sent at 0) completes the window: ecr = its TSval.
    s.on_ack(ms(110), &with_ts(ack(3 * MSS), ts0));
    assert_eq!(s.stats().early_retrans_spurious, 1);
    assert_eq!(s.stats().ts_reorder, 1);
    assert!(s.reordering_seen());
}

/// App. A.2: early retransmits capped at a share of the segments sent.
#[test]
fn rate_cap() {
    let mut c = er_cfg(EarlyRetransmit::Rfc5827);
    c.er_rate_cap_percent = 20;
    let mut s = sender_with(c.clone(), 3);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    // 1 ER among 3 segments sent would be 33 % > 20 %: refused.
    assert!(on_ack(&mut s, ms(101), sack_segs(0, 1, 3)).is_empty());
    c.er_rate_cap_percent = 34;
    let mut s = sender_with(c, 3);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    assert_eq!(
        on_ack(&mut s, ms(101), sack_segs(0, 1, 3)),
        vec![(0, Why::EarlyRetransmit)]
    );
}

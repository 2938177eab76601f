//! Issue 13, DSACK spoofing: a DSACK proves a retransmission spurious only if the original
//! transmission reached the receiver, and the sender checks that at the moment the
//! retransmitted range is first covered (cumulatively or by SACK). Evidence: a cumulative
//! cover echoing a TSval older than the retransmission's (RFC 3522 §2, Linux
//! `tcp_packet_delayed`; an out-of-order segment does not update TS.Recent, RFC 7323 §4.3,
//! so a SACK's echo proves nothing), or any cover arriving sooner than min_RTT after the
//! retransmission (Linux `tcp_rack_advance`: "ACK too soon after the retransmission is for
//! the original"). A receiver that reports every hole-filling retransmission as a duplicate
//! (the attacker of `lossrec_testkit::attack`) then undoes nothing.
//!
//! Scenario (`reordered`): ten segments at 0; segment 0 ACKed at 100 ms (min_RTT 100 ms,
//! cwnd 11); segments 2-4 SACKed at 110 ms start fast recovery, which retransmits
//! segment 1 at 110 ms (TSval 110 001).

mod common;
use common::*;
use lossrec::config::{SpuriousDetection, SpuriousResponse};
use lossrec::{Ack, Config, RecoveryState, Sender, Timestamps, Why};

/// RFC 3708 DSACK detection with full undo (the only undo evidence is the DSACK count),
/// with the proof on (`dsack_proof`, a defence beyond the stacks).
fn dsack_undo(timestamps: bool) -> Config {
    let mut c = cfg();
    c.dsack_proof = true;
    c.spurious_detection = SpuriousDetection::Dsack;
    c.spurious_response = SpuriousResponse::FullUndo;
    c.rescue_retransmit = false;
    c.timestamps = timestamps;
    c
}

/// Linux's undo machinery (`undo_retrans`, `tcp_try_undo_dsack`).
fn linux_undo(timestamps: bool) -> Config {
    let mut c = dsack_undo(timestamps);
    c.spurious_detection = SpuriousDetection::Linux;
    c
}

fn tsval(t_ms: u64) -> u64 {
    t_ms * 1000 + 1
}

/// `a` echoing the TSval of a transmission at `sent_ms`, when timestamps are on.
fn echo(mut a: Ack, ts: bool, sent_ms: u64) -> Ack {
    if ts {
        a.ts = Some(Timestamps {
            val: 1,
            ecr: tsval(sent_ms),
        });
    }
    a
}

fn reordered(c: Config) -> Sender {
    let ts = c.timestamps;
    let mut s = sender_with(c, 10);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), echo(ack(MSS), ts, 0));
    for k in 3..=5 {
        s.on_ack(ms(110), &echo(sack(MSS, &[(2 * MSS, k * MSS)]), ts, 0));
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(sent(&mut s, ms(110))[0], (1, Why::FastRetransmit));
    assert_eq!(s.cwnd(), 4500);
    s
}

/// The DSACK for segment 1 (already cumulatively acknowledged by then).
fn dsack_1(ts: bool, at_ms: u64, echo_ms: u64) -> (lossrec::Instant, Ack) {
    (
        ms(at_ms),
        echo(sack(5 * MSS, &[(MSS, 2 * MSS)]), ts, echo_ms),
    )
}

fn undone(s: &Sender) -> bool {
    s.stats().undos > 0
}

/// Honest reordering without timestamps: the late original fills the hole 10 ms after the
/// retransmission left (sooner than min_RTT: the ACK is for the original), the
/// retransmission's DSACK follows: the reduction is undone.
#[test]
fn cover_sooner_than_min_rtt_proves_the_original() {
    for c in [dsack_undo(false), linux_undo(false)] {
        let mut s = reordered(c);
        on_ack(&mut s, ms(120), ack(5 * MSS));
        let (t, d) = dsack_1(false, 210, 0);
        s.on_ack(t, &d);
        assert!(undone(&s), "{:?}", s.stats());
        assert_eq!(s.cwnd(), 11 * MSS);
    }
}

/// The attacker without timestamps: the retransmission fills the hole and is ACKed a full
/// round trip after it left; a DSACK for it then proves nothing.
#[test]
fn cover_a_round_trip_later_proves_nothing() {
    for c in [dsack_undo(false), linux_undo(false)] {
        let mut s = reordered(c);
        on_ack(&mut s, ms(210), ack(5 * MSS));
        for k in 0..10 {
            let (t, d) = dsack_1(false, 211 + k, 0);
            s.on_ack(t, &d);
        }
        assert!(!undone(&s), "{:?}", s.stats());
        assert_eq!(s.undo_retrans(), 1, "the DSACK counted nothing");
        assert!(s.cwnd() < 11 * MSS);
    }
}

/// With timestamps the echo decides, however late the cover: an echo of the original's
/// TSval (0 ms) proves it arrived (the DSACK then undoes); an echo of the
/// retransmission's own TSval (110 ms) says the retransmission filled the hole.
#[test]
fn cumulative_echo_decides_with_timestamps() {
    let mut honest = reordered(dsack_undo(true));
    on_ack(&mut honest, ms(250), echo(ack(5 * MSS), true, 0));
    let (t, d) = dsack_1(true, 260, 0);
    honest.on_ack(t, &d);
    assert!(undone(&honest), "{:?}", honest.stats());

    for c in [dsack_undo(true), linux_undo(true)] {
        let mut s = reordered(c);
        on_ack(&mut s, ms(210), echo(ack(5 * MSS), true, 110));
        let (t, d) = dsack_1(true, 211, 110);
        s.on_ack(t, &d);
        assert!(!undone(&s), "{:?}", s.stats());
    }
}

/// The DSACK arrives on the very ACK that first covers the range (the lost-ACK case):
/// that ACK is the evidence.
#[test]
fn dsack_on_the_first_cover() {
    let mut honest = reordered(dsack_undo(false));
    honest.on_ack(ms(120), &sack(5 * MSS, &[(MSS, 2 * MSS)]));
    assert!(undone(&honest), "{:?}", honest.stats());

    let mut s = reordered(dsack_undo(false));
    s.on_ack(ms(210), &sack(5 * MSS, &[(MSS, 2 * MSS)]));
    assert!(!undone(&s), "{:?}", s.stats());
}

/// First covered by a SACK (still on the scoreboard when its DSACK comes): only the time
/// of the SACK can prove the original, its echo cannot (RFC 7323 §4.3).
#[test]
fn sacked_first_cover() {
    let blocks = |d: bool| {
        let mut b = vec![(2 * MSS, 5 * MSS), (MSS, 2 * MSS)];
        if d {
            b = vec![(MSS, 2 * MSS), (MSS, 5 * MSS)];
        }
        b
    };
    let run = |cover_ms: u64| {
        let mut s = reordered(dsack_undo(true));
        // An old echo on the SACK: the last in-order segment's, whatever filled the hole.
        s.on_ack(ms(cover_ms), &echo(sack(MSS, &blocks(false)), true, 0));
        s.on_ack(ms(cover_ms + 5), &echo(sack(MSS, &blocks(true)), true, 0));
        undone(&s)
    };
    assert!(
        run(120),
        "SACKed 10 ms after the retransmission: the original"
    );
    assert!(!run(210), "SACKed a round trip later: the retransmission");
}

/// `dsack_proof = false` (the `linux` preset's) keeps Linux's exact accounting (`tcp_check_dsack`,
/// `tcp_sacktag_one`): the attacker's DSACK undoes, as it does in Linux.
#[test]
fn linux_exact_accounting_when_asked() {
    let mut c = linux_undo(false);
    c.dsack_proof = false;
    let mut s = reordered(c);
    on_ack(&mut s, ms(210), ack(5 * MSS));
    let (t, d) = dsack_1(false, 211, 0);
    s.on_ack(t, &d);
    assert!(undone(&s), "{:?}", s.stats());
    // Issue 23 item 3: the stacks' presets keep their accounting; `hardened` proves.
    assert!(!Config::linux().dsack_proof && !Config::rfc().dsack_proof);
    assert!(Config::linux_hardened().resolve(true, true).dsack_proof);
}

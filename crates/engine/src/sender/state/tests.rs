//! The recovery state owns its episode: leaving a state drops its data, whichever
//! transition leaves it (the end of recovery, a timeout, an undo).

use crate::config::{SpuriousDetection, SpuriousResponse};
use crate::packet::{Ack, Timestamps};
use crate::time::Instant;
use crate::{Config, RecoveryState, Sender};

const MSS: u64 = 1000;

fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}

/// An ACK of `cum` echoing the TSval of a transmission at `sent_ms` (µs + 1).
fn echo(cum: u64, sent_ms: u64) -> Ack {
    let mut a = Ack::cumulative(cum);
    a.ts = Some(Timestamps {
        val: 1,
        ecr: sent_ms * 1000 + 1,
    });
    a
}

fn drain(s: &mut Sender, now: Instant) {
    while s.poll_transmit(now).is_some() {}
}

/// No SACK, timestamps, Linux's undo with full undo, the non-SACK budget (RFC 9937 §6)
/// on. Ten segments at 0; segment 0 ACKed at 100 ms; three duplicates at 110 ms start fast
/// recovery, which retransmits segment 1 (at 110 ms).
fn in_recovery() -> Sender {
    in_recovery_with(true)
}

/// [`in_recovery`], with `dupack_budget` as given.
fn in_recovery_with(dupack_budget: bool) -> Sender {
    let mut c = Config::rfc();
    c.mss = MSS as u16;
    c.handshake = false;
    c.sack = false;
    c.timestamps = true;
    c.spurious_detection = SpuriousDetection::Linux;
    c.spurious_response = SpuriousResponse::FullUndo;
    c.dupack_budget = dupack_budget;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 10 * MSS);
    drain(&mut s, ms(0));
    s.on_ack(ms(100), &echo(MSS, 0));
    drain(&mut s, ms(100));
    for _ in 0..3 {
        s.on_ack(ms(110), &echo(MSS, 0));
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert!(s.episode_budget().is_some(), "RecoverFS bounds the episode");
    drain(&mut s, ms(110));
    s
}

/// RFC 9937 §6's bound belongs to one fast recovery. An undo ends the episode (RFC 3522:
/// the ACK echoes the original's TSval, older than the retransmission; Linux
/// `tcp_try_undo_partial`), so it drops the bound as the end of recovery does; before,
/// the undo path (`leave_recovery_undone`) forgot it and the next Open ACKs were held to
/// a finished episode's budget.
#[test]
fn undo_drops_the_non_sack_episode_budget() {
    let mut s = in_recovery();
    s.on_ack(ms(120), &echo(5 * MSS, 0));
    assert_eq!(s.stats().undos, 1);
    assert_ne!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.episode_budget(), None);
}

/// Issue 26 item 4, `dupack_budget` (beyond Linux): the undone episode's budget is not
/// refunded. An undo says the recovery was not a loss, not that its duplicates were honest;
/// a DupACK spoofer whose every burst starts a recovery that the next timestamp echo undoes
/// would otherwise get a fresh budget each time (the hardened attacker's window grew to
/// 1.18x the honest one's on path 4 of the attack table when the undo dropped it). What
/// was left carries into the states that follow, until a new episode or a timeout.
#[test]
fn undo_carries_what_the_budget_had_left() {
    let mut s = in_recovery();
    let left = s.episode_budget().expect("in recovery");
    s.on_ack(ms(120), &echo(5 * MSS, 0));
    assert_eq!(s.stats().undos, 1);
    // What was left after the undoing ACK's own DeliveredData: never more than before it.
    let carried = s.core.dup.undone_budget.expect("carried past the undo");
    assert!(carried > 0 && carried <= left, "{carried} of {left}");
}

/// Without `dupack_budget` the undo carries nothing: the bound is the defence's.
#[test]
fn undo_carries_nothing_without_the_defence() {
    let mut s = in_recovery_with(false);
    s.on_ack(ms(120), &echo(5 * MSS, 0));
    assert_eq!(s.stats().undos, 1);
    assert_eq!(s.core.dup.undone_budget, None);
}

/// The end of recovery drops it too (as before): the ACK of everything echoes the
/// retransmission's TSval, so nothing is undone.
#[test]
fn recovery_end_drops_the_non_sack_episode_budget() {
    let mut s = in_recovery();
    s.on_ack(ms(300), &echo(10 * MSS, 110));
    assert_eq!(s.stats().undos, 0);
    assert_ne!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.episode_budget(), None);
}

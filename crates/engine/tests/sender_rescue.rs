//! RFC 6675 §4 NextSeg rule 4, the rescue retransmission: sent once per recovery when
//! rules 1–3 find nothing, of the highest outstanding un-SACKed segment, without any
//! evidence that it was lost. Its transmission says so (`Why::Rescue`), and a DSACK of it
//! is not reordering evidence: RFC 3708 §2 infers reordering from a DSACK only because a
//! retransmission was sent on a loss inference the reordering fooled; a rescue made none.
//! (Linux has no rule 4; only the presets with `rescue_retransmit` send one.)

mod common;
use common::*;
use lossrec::{EventKind, ReorderSignal, Why};

/// The DSACK-driven reordering events the sender emitted so far.
fn dsack_reordering(s: &mut lossrec::Sender) -> usize {
    std::iter::from_fn(|| s.poll_event())
        .filter(|e| {
            matches!(
                e.kind,
                EventKind::Reordering {
                    by: ReorderSignal::Dsack,
                    ..
                }
            )
        })
        .count()
}

/// Segment 0 is lost, segment 9 only delayed. After the fast retransmission of 0 is
/// acknowledged, rules 1–3 find nothing (9 lies above the highest SACKed octet), so rule 4
/// rescues 9. The delayed original then arrives, and the receiver reports the rescue's
/// copy as a DSACK.
#[test]
fn rescue_of_a_delayed_tail_is_labelled_and_its_dsack_is_not_reordering() {
    let mut c = cfg();
    c.limited_transmit = false;
    let mut s = sender_with(c, 10);
    assert_eq!(sent(&mut s, ms(0)).len(), 10);
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    on_ack(&mut s, ms(101), sack_segs(0, 1, 3));
    let out = on_ack(&mut s, ms(102), sack_segs(0, 1, 4));
    assert_eq!(out, vec![(0, Why::FastRetransmit)]);
    for (k, t) in (5..=9).zip(103..) {
        assert!(on_ack(&mut s, ms(t), sack_segs(0, 1, k)).is_empty());
    }
    // HighACK passes RescueRxt (the fast retransmission's last octet): rule 4.
    let out = on_ack(&mut s, ms(200), ack(9 * MSS));
    assert_eq!(out, vec![(9, Why::Rescue)], "RFC 6675 §4 rule 4");
    assert!(Why::Rescue.is_retransmission());
    assert_eq!(Why::Rescue.name(), "rescue");
    assert_eq!(
        s.stats().fast_retrans,
        2,
        "counted as Linux counts TCPFastRetrans"
    );
    dsack_reordering(&mut s);
    // The original of 9 arrives, then the rescue's copy: cumulative 10, DSACK of 9.
    on_ack(&mut s, ms(210), ack(10 * MSS));
    s.on_ack(ms(211), &sack(10 * MSS, &[(9 * MSS, 10 * MSS)]));
    assert_eq!(s.stats().dsack_recv, 1);
    assert_eq!(
        dsack_reordering(&mut s),
        0,
        "a rescue's DSACK is not reordering"
    );
}

/// The burst example of sender_rfc6675.rs: the rescue resends segment 3, which its fast
/// retransmission already repaired; the duplicate's DSACK is no reordering either.
#[test]
fn rescue_of_a_repaired_segment_dsack_is_not_reordering() {
    let mut c = cfg();
    c.limited_transmit = false;
    let mut s = sender_with(c, 10);
    sent(&mut s, ms(0));
    for (k, t) in (5..=10).zip(100..) {
        on_ack(&mut s, ms(t), sack_segs(0, 4, k));
    }
    let out = on_ack(&mut s, ms(150), sack_segs(1, 4, 10));
    assert_eq!(out, vec![(3, Why::Rescue)]);
    dsack_reordering(&mut s);
    s.on_ack(ms(200), &ack(10 * MSS));
    s.on_ack(ms(201), &sack(10 * MSS, &[(3 * MSS, 4 * MSS)]));
    assert_eq!(s.stats().dsack_recv, 1);
    assert_eq!(dsack_reordering(&mut s), 0);
}

/// The DSACK of an ordinary fast retransmission still is reordering evidence (RFC 3708).
#[test]
fn dsack_of_a_fast_retransmission_is_reordering() {
    let mut c = cfg();
    c.limited_transmit = false;
    let mut s = sender_with(c, 10);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    on_ack(&mut s, ms(101), sack_segs(0, 1, 3));
    assert_eq!(
        on_ack(&mut s, ms(102), sack_segs(0, 1, 4)),
        vec![(0, Why::FastRetransmit)]
    );
    dsack_reordering(&mut s);
    // The original of 0 was only late: everything arrives, then the retransmission's DSACK.
    s.on_ack(ms(110), &ack(10 * MSS));
    s.on_ack(ms(111), &sack(10 * MSS, &[(0, MSS)]));
    assert_eq!(dsack_reordering(&mut s), 1);
}

/// The rescued tail segment carries the FIN, so the receiver's DSACK of its copy covers
/// the FIN's octet too (RFC 2883 §4 reports the sequence space received twice; a FIN
/// occupies one): [9000, 10001). Found in the simulator's trace corpus
/// (example-bernoulli: DSACK 70952-72401 of a rescue of 70952-72400 raised `reordering`).
#[test]
fn dsack_of_a_rescue_that_carried_the_fin_is_not_reordering() {
    let mut c = cfg();
    c.limited_transmit = false;
    let mut s = sender_with(c, 10);
    let first = drain(&mut s, ms(0));
    assert!(
        first.last().is_some_and(|t| t.fin),
        "segment 9 carries the FIN"
    );
    on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
    on_ack(&mut s, ms(101), sack_segs(0, 1, 3));
    on_ack(&mut s, ms(102), sack_segs(0, 1, 4));
    for (k, t) in (5..=9).zip(103..) {
        on_ack(&mut s, ms(t), sack_segs(0, 1, k));
    }
    let out = drain(&mut s, ms(200));
    assert!(out.is_empty());
    s.on_ack(ms(200), &ack(9 * MSS));
    let out = drain(&mut s, ms(200));
    assert_eq!(out.len(), 1);
    assert_eq!(
        (out[0].range, out[0].why, out[0].fin),
        (seg(9), Why::Rescue, true)
    );
    dsack_reordering(&mut s);
    s.on_ack(ms(210), &ack(10 * MSS + 1));
    s.on_ack(ms(211), &sack(10 * MSS + 1, &[(9 * MSS, 10 * MSS + 1)]));
    assert_eq!(s.stats().dsack_recv, 1);
    assert_eq!(
        dsack_reordering(&mut s),
        0,
        "the FIN's octet is part of the rescue"
    );
}

//! The optimistic-ACK check's verdicts as tables of ACK sequences (`detect::optack`).

use super::*;
use crate::packet::Why;

const MSS: u64 = 1000;
const RTT: Duration = Duration::from_millis(100);

fn seg(i: u64) -> Range {
    Range::new(i * MSS, (i + 1) * MSS)
}

fn tx(i: u64) -> Transmit {
    Transmit {
        range: seg(i),
        why: Why::New,
        syn: None,
        fin: false,
        psh: false,
        ts: None,
        ecn: Default::default(),
    }
}

fn at(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

/// An ACK `ms` after the skip, min_RTT 100 ms.
fn ack(ms: u64, cum: u64, una: u64, blocks: &[Range], sack: bool) -> AckView<'_> {
    AckView {
        now: at(1000 + ms),
        cum,
        una,
        blocks,
        sack,
        min_rtt: RTT,
    }
}

/// Segment 5 held at 1 s, 6 and 7 sent ahead, then 5.
fn skipped() -> SkipSegment {
    skipped_at(5)
}

fn skipped_at(i: u64) -> SkipSegment {
    let mut s = SkipSegment::new(64, 7);
    hold(&mut s, i);
    s
}

fn hold(s: &mut SkipSegment, i: u64) {
    s.hold(at(1000), tx(i), Some(tx(i + 2)), seg(i + 2).end);
    assert_eq!(s.release().map(|t| t.range), Some(seg(i + 2)));
    assert_eq!(s.release().map(|t| t.range), Some(seg(i)));
}

#[test]
fn gaps_are_deterministic_bounded_and_average_the_interval() {
    let gaps = |seed| {
        let mut s = SkipSegment::new(16, seed);
        (0..2000).map(|_| s.draw()).collect::<Vec<_>>()
    };
    assert_eq!(gaps(1), gaps(1));
    assert_ne!(gaps(1), gaps(2));
    let g = gaps(3);
    assert!(g.iter().all(|&x| (1..=31).contains(&x)));
    let mean = g.iter().sum::<u64>() as f64 / g.len() as f64;
    assert!((14.0..18.0).contains(&mean), "{mean}");
}

#[test]
fn honest_reports_pass() {
    let k = seg(5).start;
    let six = [seg(6)];
    let six_seven = [Range::new(seg(6).start, seg(7).end)];
    let seven = [seg(7)];
    // (ACKs before the one covering 5, SACK in use, the case)
    let cases: [(&[AckView], bool, &str); 4] = [
        // SACK: the block of the segments ahead, cumulative ACK at the hole.
        (
            &[ack(100, k, k, &six, true), ack(100, k, k, &six_seven, true)],
            true,
            "sack",
        ),
        // SACK, a loss below 5: the block is the report.
        (
            &[ack(100, seg(3).start, seg(3).start, &six, true)],
            true,
            "sack, loss below",
        ),
        // SACK, segment 6 lost: 7's block is the report.
        (&[ack(101, k, k, &seven, true)], true, "sack, 6 lost"),
        // No SACK: the advance to 5 (a delayed ACK of 4), then 7's duplicate.
        (
            &[
                ack(100, k, seg(4).start, &[], false),
                ack(100, k, k, &[], false),
            ],
            false,
            "dup",
        ),
    ];
    for (before, sack, what) in cases {
        let mut s = skipped();
        for a in before {
            assert_eq!(s.on_ack(a), Verdict::Pending, "{what}");
        }
        let cover = ack(101, seg(7).end, k, &[], sack);
        assert_eq!(s.on_ack(&cover), Verdict::Pass, "{what}");
        assert_eq!(s.strikes(), 0);
    }
}

/// Issue 26 item 3: only an ACK the segments sent ahead caused reports the hole.
#[test]
fn an_ack_that_merely_stops_at_the_hole_is_no_report() {
    let k = seg(5).start;
    let cover = |sack| ack(102, seg(7).end, k, &[], sack);
    // An advance to 5 without SACK: the ACK of 4 stops there too.
    let mut s = skipped();
    s.on_ack(&ack(100, k, seg(4).start, &[], false));
    assert_eq!(s.on_ack(&cover(false)), Verdict::Strike);
    // A duplicate at 5 with SACK in use but no block: an honest receiver SACKs 6.
    let mut s = skipped();
    s.on_ack(&ack(100, k, k, &[], true));
    assert_eq!(s.on_ack(&cover(true)), Verdict::Strike);
    // A duplicate at 5 sooner than min_RTT after 6 and 7 left: not their answer (an
    // attacker's copy of its own ACK, or one of its ACKs capped at SND.NXT).
    let mut s = skipped();
    s.on_ack(&ack(99, k, k, &[], false));
    assert_eq!(s.on_ack(&cover(false)), Verdict::Strike);
    // The same at min_RTT is an answer.
    let mut s = skipped();
    s.on_ack(&ack(100, k, k, &[], false));
    assert_eq!(s.on_ack(&cover(false)), Verdict::Pass);
}

/// A peer stepping one segment per ACK covers 5 first, then 6 and 7: it claimed 5
/// arrived before the segments sent ahead of it, and they were never resent.
#[test]
fn covering_the_hole_before_the_segments_ahead_waits_for_them() {
    let mut s = skipped();
    assert_eq!(
        s.on_ack(&ack(10, seg(5).end, seg(5).start, &[], false)),
        Verdict::Pending
    );
    assert_eq!(
        s.on_ack(&ack(11, seg(6).end, seg(5).end, &[], false)),
        Verdict::Pending
    );
    assert_eq!(
        s.on_ack(&ack(12, seg(7).end, seg(6).end, &[], false)),
        Verdict::Strike
    );
    // If they were lost and resent meanwhile, nothing is judged.
    let mut s = skipped();
    s.on_ack(&ack(10, seg(5).end, seg(5).start, &[], false));
    s.on_retransmit(seg(6));
    assert_eq!(
        s.on_ack(&ack(300, seg(7).end, seg(5).end, &[], false)),
        Verdict::Void
    );
    assert_eq!(s.strikes(), 0);
}

#[test]
fn covering_the_hole_unreported_strikes_then_detects() {
    let mut s = skipped();
    assert_eq!(
        s.on_ack(&ack(10, seg(8).end, 0, &[], true)),
        Verdict::Strike
    );
    for k in 1..u64::from(STRIKES) {
        assert!(!s.detected());
        hold(&mut s, 20 * k);
        let v = s.on_ack(&ack(10, seg(20 * k + 3).end, 0, &[], true));
        let want = if k + 1 == u64::from(STRIKES) {
            Verdict::Detected
        } else {
            Verdict::Strike
        };
        assert_eq!(v, want);
    }
    assert!(s.detected() && !s.due());
}

#[test]
fn growth_withheld_by_the_report_is_given_back_once() {
    let k = seg(5).start;
    let mut s = skipped();
    s.on_ack(&ack(
        100,
        k,
        k,
        &[Range::new(seg(6).start, seg(7).end)],
        true,
    ));
    assert_eq!(s.on_ack(&ack(101, seg(7).end, k, &[], true)), Verdict::Pass);
    // Three segments acknowledged, one counted as delivered: the two ahead come back.
    assert_eq!(s.take_credit(3 * MSS, MSS), 2 * MSS);
    assert_eq!(s.take_credit(3 * MSS, MSS), 0);
    // Never more than this ACK acknowledged beyond what it delivered.
    let mut s = skipped();
    s.on_ack(&ack(100, k, k, &[], false));
    s.on_ack(&ack(101, seg(7).end, k, &[], false));
    assert_eq!(s.take_credit(3 * MSS, 3 * MSS), 0);
}

#[test]
fn a_pass_clears_the_strikes() {
    let mut s = skipped();
    assert_eq!(
        s.on_ack(&ack(10, seg(8).end, 0, &[], false)),
        Verdict::Strike
    );
    hold(&mut s, 20);
    let k = seg(20).start;
    s.on_ack(&ack(100, k, k, &[], false));
    assert_eq!(
        s.on_ack(&ack(101, seg(23).end, k, &[], false)),
        Verdict::Pass
    );
    assert_eq!(s.strikes(), 0);
}

#[test]
fn acking_the_held_segment_before_it_was_sent_is_proof() {
    let mut s = SkipSegment::new(64, 7);
    s.hold(at(1000), tx(5), Some(tx(7)), seg(7).end);
    assert_eq!(
        s.on_ack(&ack(1, seg(6).end, 0, &[], false)),
        Verdict::Detected
    );
    let mut s = SkipSegment::new(64, 7);
    s.hold(at(1000), tx(5), Some(tx(7)), seg(7).end);
    s.release();
    assert_eq!(
        s.on_ack(&ack(1, seg(2).end, 0, &[seg(5)], true)),
        Verdict::Detected
    );
}

#[test]
fn innocent_explanations_void_the_check() {
    let cover = || ack(200, seg(8).end, seg(3).start, &[], false);
    // Recovering a loss below it (NewReno: the answers to 6 and 7 were duplicates at
    // the lower hole).
    let mut s = skipped();
    s.on_ack(&ack(100, seg(3).start, seg(3).start, &[], false));
    s.on_retransmit(seg(3));
    assert_eq!(s.on_ack(&cover()), Verdict::Void);
    // Duplicates sooner than an answer, and retransmissions outside the segments
    // ahead, are no excuse.
    let mut s = skipped();
    s.on_ack(&ack(10, seg(3).start, seg(3).start, &[], false));
    s.on_retransmit(seg(3));
    s.on_retransmit(seg(8));
    assert_eq!(s.on_ack(&cover()), Verdict::Strike);
    // A timeout.
    let mut s = skipped();
    s.void();
    assert_eq!(s.on_ack(&cover()), Verdict::Pending);
    assert_eq!(s.strikes(), 0);
}

#[test]
fn the_held_segments_own_reordering_is_filtered() {
    let k = seg(5).start;
    let mut s = skipped();
    assert_eq!(s.reorder_filter(Some(k)), None);
    s.on_ack(&ack(100, k, k, &[], false));
    assert_eq!(
        s.on_ack(&ack(101, seg(8).end, k, &[], false)),
        Verdict::Pass
    );
    // Still filtered on the ACK that decided the check.
    assert_eq!(s.reorder_filter(Some(k)), None);
    assert_eq!(s.reorder_filter(Some(seg(4).start)), Some(seg(4).start));
    assert_eq!(s.reorder_filter(None), None);
}

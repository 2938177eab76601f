//! RFC 6675 §4 tables on the scoreboard alone: IsLost, SetPipe and NextSeg for a window of
//! ten 1000-byte segments (DupThresh 3, SMSS 1000).

use lossrec::scoreboard::{NextSegRule, Scoreboard};
use lossrec::{Instant, Range};

const MSS: u64 = 1000;

fn board(n: u64) -> Scoreboard {
    let mut sb = Scoreboard::new();
    for i in 0..n {
        sb.on_send_new(
            Instant::ZERO,
            Range::new(i * MSS, (i + 1) * MSS),
            false,
            false,
        );
    }
    sb
}
fn sack(sb: &mut Scoreboard, segs: &[u64]) {
    for &i in segs {
        sb.sack(Range::new(i * MSS, (i + 1) * MSS)).unwrap();
    }
    sb.update_lost(3, MSS, |_| {});
}
fn lost(sb: &Scoreboard) -> Vec<u64> {
    sb.segments()
        .filter(|s| s.lost)
        .map(|s| s.start / MSS)
        .collect()
}

/// Row by row: which segments IsLost marks and what SetPipe gives, as SACKs accumulate.
#[test]
fn islost_and_setpipe_table() {
    // (SACKed so far, lost segments, pipe in segments)
    let table: &[(&[u64], &[u64], u64)] = &[
        (&[], &[], 10),
        (&[2], &[], 9),
        (&[2, 4], &[], 8),
        // Three SACKed segments above 0 and 1: both lost; 3 has only two above it.
        (&[2, 4, 6], &[0, 1], 5),
        (&[2, 4, 6, 7], &[0, 1, 3], 3),
        (&[2, 4, 6, 7, 9], &[0, 1, 3, 5], 1),
    ];
    for (sacked, want_lost, want_pipe) in table {
        let mut sb = board(10);
        sack(&mut sb, sacked);
        assert_eq!(lost(&sb), *want_lost, "SACKed {sacked:?}");
        assert_eq!(sb.pipe(), want_pipe * MSS, "SACKed {sacked:?}");
        sb.check();
    }
}

/// NextSeg rule 1 walks the lost holes in order; retransmitted octets count twice in pipe
/// until SACKed or acknowledged.
#[test]
fn nextseg_rule1_then_rule3_then_rescue() {
    let mut sb = board(10);
    sb.start_recovery_episode();
    sack(&mut sb, &[2, 4, 6, 7]); // lost: 0, 1, 3; 5 not yet (only 6,7 above)
    let t = Instant::ZERO;
    let mut order = vec![];
    while let Some(s) = sb.next_lost() {
        order.push(s.start / MSS);
        sb.on_retransmit(t, s.start);
    }
    assert_eq!(order, vec![0, 1, 3]);
    // pipe = 10 − 4 SACKed − 3 lost + 3 retransmitted = 6.
    assert_eq!(sb.pipe(), 6 * MSS);
    assert_eq!(sb.high_rxt, 4 * MSS);
    // Rule 3: the lowest un-SACKed segment above HighRxt and below the highest SACK: 5.
    let (s, rule) = sb.next_seg_fallback(10 * MSS).unwrap();
    assert_eq!((s.start / MSS, rule), (5, NextSegRule::Unsacked));
    sb.on_retransmit(t, s.start);
    // Then rule 4 once: the highest outstanding un-SACKed segment (9); HighRxt unchanged.
    let (s, rule) = sb.next_seg_fallback(10 * MSS).unwrap();
    assert_eq!((s.start / MSS, rule), (9, NextSegRule::Rescue));
    sb.on_rescue_retransmit(t, s.start);
    assert_eq!(sb.high_rxt, 6 * MSS);
    assert!(
        sb.next_seg_fallback(10 * MSS).is_none(),
        "one rescue per recovery"
    );
    sb.check();
}

/// A SACK edge inside a segment splits it; no byte changes state twice or is lost.
#[test]
fn sack_edges_inside_segments_split_them() {
    let mut sb = board(4);
    assert_eq!(sb.sack(Range::new(1500, 2300)).unwrap(), 800);
    assert_eq!(sb.len(), 6);
    assert_eq!(sb.sacked_bytes(), 800);
    // Overlapping and repeated blocks count only new bytes.
    assert_eq!(sb.sack(Range::new(1000, 2500)).unwrap(), 700);
    assert_eq!(sb.sack(Range::new(1000, 2500)).unwrap(), 0);
    let acked = sb.ack_cumulative(1200);
    assert_eq!(acked.bytes, 1200);
    assert_eq!(sb.sacked_bytes(), 1300);
    sb.check();
    // A block beyond SND.NXT or below SND.UNA is rejected.
    assert!(sb.sack(Range::new(5000, 6000)).is_none());
    assert!(sb.sack(Range::new(0, 1000)).is_none());
}

/// After a timeout every un-SACKed segment is lost and the repair walks them in order.
#[test]
fn mark_all_lost_for_rto() {
    let mut sb = board(5);
    sack(&mut sb, &[1, 3]);
    sb.mark_all_lost();
    assert_eq!(lost(&sb), vec![0, 2, 4]);
    assert_eq!(sb.pipe(), 0);
    let mut order = vec![];
    while let Some(s) = sb.next_lost() {
        order.push(s.start / MSS);
        sb.on_retransmit(Instant::ZERO, s.start);
    }
    assert_eq!(order, vec![0, 2, 4]);
    assert_eq!(sb.pipe(), 3 * MSS);
    sb.check();
}

/// RFC 6937 §2 DeliveredData = Δsnd.una + ΔSACKd: octets SACKed earlier were delivered
/// then, not again when a cumulative ACK covers them — also when the ACK ends inside the
/// SACKed segment (a receiver cutting its ACKs into slices, Savage et al. 1999 §2.1).
#[test]
fn a_cumulative_ack_inside_a_sacked_segment_delivers_only_the_hole() {
    let mut sb = board(4);
    sack(&mut sb, &[1]);
    let a = sb.ack_cumulative(MSS + 400);
    assert_eq!(a.bytes, MSS + 400);
    assert_eq!(
        a.was_sacked, 400,
        "the SACKed segment's acknowledged prefix"
    );
    let b = sb.ack_cumulative(2 * MSS);
    assert_eq!((b.bytes, b.was_sacked), (600, 600));
    sb.check();
}

//! The scoreboard finds segments from remembered indices (NextSeg rule 1's cursor, the
//! time order's nodes) rather than a binary search; splits move those indices and
//! cumulative ACKs retire them. Whatever happened since, NextSeg rule 1 (RFC 6675 §4) is
//! the lowest lost segment with no retransmission outstanding, a retransmission records
//! the segment asked for, and RACK (RFC 8985 §6.2 step 5) marks every transmission it
//! walks past — as a plain scan of the segments says.

use lossrec::scoreboard::Scoreboard;
use lossrec::{Duration, Instant, Range};
use proptest::prelude::*;

const MSS: u64 = 1000;

#[derive(Clone, Debug)]
enum Op {
    /// Send this many new segments.
    Send(u8),
    /// SACK from segment `a` (past SND.UNA) for `len` segments, the edges moved by the
    /// offsets (octet tagging splits segments there).
    Sack(u8, u8, u16, u16),
    /// Cumulative ACK of this many segments past SND.UNA, plus an offset.
    Ack(u8, u16),
    /// RFC 6675 IsLost.
    UpdateLost,
    /// FACK's boundary (SND.FACK − DupThresh·SMSS).
    UpdateLostFack,
    /// RACK: everything sent at or before now is lost.
    Rack,
    /// Retransmissions of lost segments, through NextSeg rule 1.
    Retransmit(u8),
    /// A timeout's marks (RFC 6675 §5.1) or RACK's (RFC 8985 §6.3).
    Rto(bool),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (1u8..12).prop_map(Op::Send),
        4 => (0u8..40, 1u8..6, 0u16..1000, 0u16..1000).prop_map(|(a, l, x, y)| Op::Sack(a, l, x, y)),
        2 => (0u8..6, 0u16..1000).prop_map(|(k, o)| Op::Ack(k, o)),
        2 => Just(Op::UpdateLost),
        1 => Just(Op::UpdateLostFack),
        2 => Just(Op::Rack),
        4 => (1u8..8).prop_map(Op::Retransmit),
        1 => any::<bool>().prop_map(Op::Rto),
    ]
}

/// Un-SACKed segments that RFC 6675 §4 IsLost (DupThresh 3) holds for, by a scan.
fn is_lost_by_scan(sb: &Scoreboard) -> Vec<u64> {
    let (mut segs, mut bytes, mut out) = (0u64, 0u64, Vec::new());
    for s in sb.segments().rev() {
        if s.sacked {
            segs += 1;
            bytes += s.len();
        } else if segs >= 3 || bytes > 2 * MSS {
            out.push(s.start);
        }
    }
    out
}

/// NextSeg rule 1 by a scan from the head.
fn lowest_pending(sb: &Scoreboard) -> Option<u64> {
    sb.segments()
        .find(|s| s.lost && !s.retrans && !s.sacked)
        .map(|s| s.start)
}

fn run(ops: &[Op], whole_segments: bool) {
    let mut sb = Scoreboard::new();
    sb.set_time_order(true);
    sb.set_whole_segments(whole_segments);
    let mut now = Instant::ZERO;
    for op in ops {
        now += Duration::from_millis(1);
        match *op {
            Op::Send(n) => {
                for _ in 0..n {
                    let at = sb.snd_nxt();
                    sb.on_send_new(now, Range::new(at, at + MSS), false, false);
                }
            }
            Op::Sack(a, len, x, y) => {
                let start = sb.snd_una() + u64::from(a) * MSS + u64::from(x);
                let end = start + u64::from(len) * MSS + u64::from(y);
                sb.sack(Range::new(start, end));
            }
            Op::Ack(k, off) => {
                let to = (sb.snd_una() + u64::from(k) * MSS + u64::from(off)).min(sb.snd_nxt());
                sb.ack_cumulative(to);
            }
            Op::UpdateLost => {
                sb.update_lost(3, MSS, |_| {});
                for start in is_lost_by_scan(&sb) {
                    let s = sb.segments().find(|s| s.start == start).unwrap();
                    assert!(s.lost, "IsLost holds for {start} but it is not marked");
                }
            }
            Op::UpdateLostFack => {
                let limit = sb.high_sacked().saturating_sub(3 * MSS);
                sb.update_lost_fack(limit, |_| {});
                let missed = sb
                    .segments()
                    .find(|s| !s.sacked && !s.lost && s.end <= limit);
                assert_eq!(missed, None, "FACK left a segment below {limit} unmarked");
            }
            Op::Rack => {
                sb.rack_detect_lost((now, u64::MAX), Duration::ZERO, now, |_, _| {});
                assert!(
                    sb.segments().all(|s| !s.in_time_order()),
                    "RACK left a transmission sent before RACK.segment unmarked"
                );
            }
            Op::Retransmit(n) => {
                for _ in 0..n {
                    let want = lowest_pending(&sb);
                    let got = sb.next_lost();
                    assert_eq!(got.map(|s| s.start), want, "NextSeg rule 1");
                    let Some(seg) = got else { break };
                    let sent = sb
                        .on_retransmit(now, seg.start)
                        .expect("the segment is there");
                    assert_eq!(sent.range(), seg.range(), "retransmitted another segment");
                    assert!(sent.retrans && sent.xmit_count == seg.xmit_count + 1);
                }
            }
            Op::Rto(rack) => {
                if rack {
                    sb.rack_mark_on_rto(Duration::ZERO, now, |_, _| {});
                } else {
                    sb.mark_all_lost();
                }
            }
        }
        sb.check();
        assert_eq!(sb.next_lost().map(|s| s.start), lowest_pending(&sb));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn remembered_indices_find_what_a_scan_finds(
        ops in prop::collection::vec(op(), 1..80),
        whole in any::<bool>(),
    ) {
        run(&ops, whole);
    }
}

//! PSH placement against the kernel rules quoted in the module doc.

use super::sizing::{tso_segs, PacingInputs};
use super::*;
use crate::time::Duration;

const MSS: u64 = 1000;

/// A window with nothing in flight and room for everything: no sends during the write.
fn geometry(snd_nxt: u64, max_window: u64) -> WriteGeometry {
    WriteGeometry {
        snd_nxt,
        size_goal: size_goal(MSS, max_window),
        max_window,
        mss: MSS,
        cwnd: 0,
        in_flight: 0,
        tso_segs: 2,
    }
}

/// Sends `n` segments from `from` at `now`, `segs` per packet; the wire PSH of each.
fn send(p: &mut Push, linux: bool, now: u64, from: u64, n: u64, segs: u64) -> Vec<bool> {
    (0..n)
        .map(|i| {
            let s = from + i * MSS;
            p.on_send(linux, Instant::from_micros(now), (s, s + MSS), MSS, segs)
                .wire
        })
        .collect()
}

#[test]
fn size_goal_is_half_the_largest_window_in_whole_segments() {
    // tcp_bound_to_half_wnd: 40960 / 2 = 20480 → 20 segments.
    assert_eq!(size_goal(MSS, 40_960), 20_000);
    assert_eq!(size_goal(MSS, 32_896), 16_000);
    // Never below one MSS, never above the GSO limit.
    assert_eq!(size_goal(MSS, 600), MSS);
    assert_eq!(size_goal(MSS, 10_000_000), 65_000);
}

#[test]
fn multi_segment_packets_carry_psh_and_a_lone_segment_only_the_mark() {
    // prr-ss-30pkt-lost1_4: one 20000-byte write; 10 segments leave in packets of 2
    // (each PSH), later 7 in 2+2+2+1: the lone last one does not end the write.
    let mut p = Push::default();
    p.on_write(true, geometry(0, 40_960), 0, 20_000);
    let first = send(&mut p, true, 0, 0, 10, 2);
    assert_eq!(
        first,
        [false, true, false, true, false, true, false, true, false, true]
    );
    let later = send(&mut p, true, 10, 10_000, 7, 2);
    assert_eq!(later, [false, true, false, true, false, true, false]);
    // The write's last segment, alone, carries the mark.
    let last = send(&mut p, true, 20, 17_000, 3, 1);
    assert_eq!(last, [false, false, true]);
}

#[test]
fn forced_push_marks_a_full_skb_past_half_the_window() {
    // size_goal 16000, max_window / 2 = 16448: the skb ending at 32000 is the first full
    // one past pushed_seq + 16448 (tcp.c forced_push), then the write's end.
    let mut p = Push::default();
    p.on_write(true, geometry(0, 32_896), 0, 60_000);
    let marks: Vec<u64> = p
        .skbs
        .iter()
        .filter(|s| s.mark())
        .map(|s| s.end())
        .collect();
    assert_eq!(marks, [32_000, 60_000]);
    let ends: Vec<u64> = p.skbs.iter().map(|s| s.end()).collect();
    assert_eq!(ends, [16_000, 32_000, 48_000, 60_000]);
}

#[test]
fn a_packet_does_not_cross_an_skb() {
    // Skbs end at 16000 and 32000; from 15000 a 2-segment packet stops at the skb end.
    let mut p = Push::default();
    p.on_write(true, geometry(0, 32_896), 0, 32_000);
    send(&mut p, true, 0, 0, 15, 1);
    assert_eq!(send(&mut p, true, 1, 15_000, 3, 2), [false, false, true]);
}

#[test]
fn a_write_appended_to_an_unsent_skb_moves_its_mark() {
    // Two writes of 3000 before anything is sent share one skb: only the second end is
    // marked (`if (!copied) … &= ~TCPHDR_PSH`, then tcp_push).
    let mut p = Push::default();
    p.on_write(true, geometry(0, 40_960), 0, 3_000);
    p.on_write(true, geometry(0, 40_960), 3_000, 3_000);
    assert_eq!(
        p.skbs.iter().copied().collect::<Vec<_>>(),
        [Skb::new(6_000, true)]
    );
    assert_eq!(
        send(&mut p, true, 0, 0, 6, 1),
        [false, false, false, false, false, true]
    );
}

#[test]
fn rfc_flavour_pushes_every_write_end() {
    let mut p = Push::default();
    p.on_write(false, geometry(0, 40_960), 0, 3_000);
    p.on_write(false, geometry(0, 40_960), 3_000, 3_000);
    assert_eq!(
        send(&mut p, false, 0, 0, 6, 10),
        [false, false, true, false, false, true]
    );
}

#[test]
fn tso_segs_follow_the_pacing_rate() {
    // 10 · 1000 B / 100 ms · 200 % = 200 kB/s: 195 B per ms → tcp_min_tso_segs.
    let base = PacingInputs {
        mss: MSS,
        rate: 200_000,
        min_rtt: Some(Duration::from_millis(100)),
        min_tso_segs: 2,
    };
    assert_eq!(tso_segs(&base), 2);
    // 100 · 1000 B / 1 ms · 120 %: 120 MB/s → 117 kB per ms, capped by GSO.
    let fast = PacingInputs {
        rate: 120_000_000,
        min_rtt: Some(Duration::from_millis(1)),
        ..base
    };
    assert_eq!(tso_segs(&fast), 65);
}

#[test]
fn a_full_skb_sent_during_the_write_takes_more_data_and_keeps_its_mark() {
    // cubic-rto-ss-ca-cwnd-bump's rule: cwnd 2 after a timeout, a 200000-byte write at
    // 2000. The first full skb [2000, 18000) goes as one one-segment packet
    // (`tcp_push_one`, half of cwnd 2); its rest takes 1000 more bytes, is full again and
    // past half the window: marked (`forced_push`), one more segment leaves, and the rest
    // [4000, ...) takes another 1000 bytes, keeping the mark: PSH at 20000.
    let mut p = Push {
        pushed_seq: 2_000,
        ..Push::default()
    };
    let g = WriteGeometry {
        cwnd: 2,
        ..geometry(2_000, 32_896)
    };
    p.on_write(true, g, 2_000, 200_000);
    let marks: Vec<u64> = p
        .skbs
        .iter()
        .filter(|s| s.mark())
        .map(|s| s.end())
        .take(2)
        .collect();
    assert_eq!(marks, [20_000, 36_000]);
    let ends: Vec<u64> = p.skbs.iter().map(|s| s.end()).take(4).collect();
    assert_eq!(ends, [3_000, 4_000, 20_000, 36_000]);
}

#[test]
fn a_large_write_is_cut_as_it_is_sent_with_the_same_marks() {
    // 1 MB at once: at most MAX_SKBS skbs are kept; the rest is cut as sending goes, and
    // the forced pushes land where cutting it all at once would put them: every second
    // 16000-byte skb (32000 > 16448 past the last push), and the write's end.
    let mut p = Push::default();
    p.on_write(true, geometry(0, 32_896), 0, 1_000_000);
    let mut marks = Vec::new();
    for i in 0..1000 {
        assert!(p.skbs.len() <= MAX_SKBS);
        if p.wants_cut() {
            p.cut_writes(geometry(i * MSS, 32_896));
        }
        let s = i * MSS;
        if p.on_send(true, Instant::from_micros(i), (s, s + MSS), MSS, 1)
            .mark
        {
            marks.push(s + MSS);
        }
    }
    let want: Vec<u64> = (1..=31).map(|k| k * 32_000).chain([1_000_000]).collect();
    assert_eq!(marks, want);
}

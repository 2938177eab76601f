//! RFC 2883 §4 worked examples (digest §4.3) and RFC 2018 §4 block ordering, with the
//! exact ACK and SACK blocks the RFCs list. Segments are 500 bytes; "3000-3499" in the RFC
//! is the half-open range 3000..3500 here. Every ACK the receiver sends is checked, also
//! those the examples lose in the network.

use lossrec::{Instant, Range, Receiver, ReceiverConfig, Segment};

fn seg(a: u64, b: u64) -> Segment {
    Segment {
        range: Range::new(a, b),
        ..Segment::default()
    }
}
fn r(a: u64, b: u64) -> Range {
    Range::new(a, b)
}
/// An ACK-every-segment receiver that has delivered `[0, rcv_nxt)` in one segment.
fn receiver_at(rcv_nxt: u64, cfg: ReceiverConfig) -> Receiver {
    let mut rx = Receiver::new(cfg, Instant::ZERO);
    if rcv_nxt > 0 {
        rx.on_segment(Instant::ZERO, &seg(0, rcv_nxt));
        assert_eq!(
            rx.poll_ack(Instant::ZERO).map(|a| a.cumulative),
            Some(rcv_nxt)
        );
    }
    rx
}
fn rfc2883_receiver(rcv_nxt: u64) -> Receiver {
    receiver_at(
        rcv_nxt,
        ReceiverConfig {
            timestamps: false,
            ..ReceiverConfig::default()
        },
    )
}
/// Feeds one segment; returns the one ACK it produced as (cumulative, SACK blocks).
fn rx(rx: &mut Receiver, s: Segment) -> (u64, Vec<Range>) {
    let now = Instant::from_millis(1);
    rx.on_segment(now, &s);
    let ack = rx.poll_ack(now).expect("an ACK");
    assert!(rx.poll_ack(now).is_none(), "one ACK per segment");
    (ack.cumulative, ack.sack.as_slice().to_vec())
}

#[test]
fn rfc2883_ex1_duplicate_below_cumulative() {
    let mut q = rfc2883_receiver(3000);
    assert_eq!(rx(&mut q, seg(3000, 3500)), (3500, vec![]));
    assert_eq!(rx(&mut q, seg(3500, 4000)), (4000, vec![]));
    assert_eq!(rx(&mut q, seg(3000, 3500)), (4000, vec![r(3000, 3500)]));
    assert_eq!(q.stats().dsacks_out, 1);
}

#[test]
fn rfc2883_ex2_duplicate_with_sack() {
    let mut q = rfc2883_receiver(3000);
    assert_eq!(rx(&mut q, seg(3000, 3500)), (3500, vec![]));
    assert_eq!(rx(&mut q, seg(3500, 4000)), (4000, vec![]));
    // 4000-4499 dropped
    assert_eq!(rx(&mut q, seg(4500, 5000)), (4000, vec![r(4500, 5000)]));
    assert_eq!(
        rx(&mut q, seg(3000, 3500)),
        (4000, vec![r(3000, 3500), r(4500, 5000)])
    );
}

#[test]
fn rfc2883_ex3_duplicate_out_of_order_segment() {
    let mut q = rfc2883_receiver(3000);
    assert_eq!(rx(&mut q, seg(3000, 3500)), (3500, vec![]));
    assert_eq!(rx(&mut q, seg(3500, 4000)), (4000, vec![]));
    // 4000-4499 dropped
    assert_eq!(rx(&mut q, seg(4500, 5000)), (4000, vec![r(4500, 5000)]));
    assert_eq!(rx(&mut q, seg(5000, 5500)), (4000, vec![r(4500, 5500)]));
    // the network duplicates 5000-5499
    assert_eq!(
        rx(&mut q, seg(5000, 5500)),
        (4000, vec![r(5000, 5500), r(4500, 5500)])
    );
}

#[test]
fn rfc2883_ex4_reordering_and_retransmission() {
    let mut q = rfc2883_receiver(500);
    assert_eq!(rx(&mut q, seg(500, 1000)), (1000, vec![]));
    // 1000-1499 delayed, 1500-1999 dropped
    assert_eq!(rx(&mut q, seg(2000, 2500)), (1000, vec![r(2000, 2500)]));
    // the sender retransmits 1000-1999 as one segment; the delayed copy arrives first
    assert_eq!(rx(&mut q, seg(1000, 1500)), (1500, vec![r(2000, 2500)]));
    assert_eq!(rx(&mut q, seg(1000, 2000)), (2500, vec![r(1000, 1500)]));
}

#[test]
fn rfc2883_ex5_reordering_two_delayed() {
    let mut q = rfc2883_receiver(500);
    assert_eq!(rx(&mut q, seg(500, 1000)), (1000, vec![]));
    // 1000-1499 delayed, 1500-1999 dropped, 2000-2499 delayed, 2500-2999 dropped
    assert_eq!(rx(&mut q, seg(3000, 3500)), (1000, vec![r(3000, 3500)]));
    // the sender retransmits 1000-2499; the delayed originals arrive first
    assert_eq!(rx(&mut q, seg(1000, 1500)), (1500, vec![r(3000, 3500)]));
    assert_eq!(
        rx(&mut q, seg(2000, 2500)),
        (1500, vec![r(2000, 2500), r(3000, 3500)])
    );
    // two duplicate sub-ranges (1000-1499, 2000-2499): only the first is reported
    assert_eq!(
        rx(&mut q, seg(1000, 2500)),
        (2500, vec![r(1000, 1500), r(3000, 3500)])
    );
}

/// RFC 2883 §4.2.3. The delayed originals are 1500-1999 and 2500-2999 (2000-2499 was
/// dropped), so the second late arrival is 2500-2999 → SACK 2500-3000, 1500-2000,
/// 3500-4000. (digest §4.3 writes that line as "delayed 2000-2499 → SACK 2000-2500, …",
/// which contradicts its own drop list: 2000-2499 beside 1500-1999 would form 1500-2500.)
#[test]
fn rfc2883_ex6_reordering_and_lost_retransmission() {
    let mut q = rfc2883_receiver(500);
    assert_eq!(rx(&mut q, seg(500, 1000)), (1000, vec![]));
    // 1000-1499 dropped, 1500-1999 delayed, 2000-2499 dropped, 2500-2999 delayed,
    // 3000-3499 dropped
    assert_eq!(rx(&mut q, seg(3500, 4000)), (1000, vec![r(3500, 4000)]));
    // retransmitted 1000-1499 dropped; the sender retransmits 1500-2999
    assert_eq!(
        rx(&mut q, seg(1500, 2000)),
        (1000, vec![r(1500, 2000), r(3500, 4000)])
    );
    assert_eq!(
        rx(&mut q, seg(2500, 3000)),
        (1000, vec![r(2500, 3000), r(1500, 2000), r(3500, 4000)])
    );
    assert_eq!(
        rx(&mut q, seg(1500, 3000)),
        (1000, vec![r(1500, 2000), r(1500, 3000), r(3500, 4000)])
    );
}

#[test]
fn dsack_reported_only_once() {
    let mut q = rfc2883_receiver(4000);
    q.on_segment(Instant::ZERO, &seg(3000, 3500));
    let a = q.poll_ack(Instant::ZERO).unwrap();
    assert_eq!(a.dsack(), Some(r(3000, 3500)));
    // the next ACK (new data) carries no D-SACK any more
    assert_eq!(rx(&mut q, seg(4000, 4500)), (4500, vec![]));
}

#[test]
fn dsack_partial_overlap_is_byte_exact() {
    let mut q = rfc2883_receiver(4000);
    assert_eq!(rx(&mut q, seg(5000, 5500)), (4000, vec![r(5000, 5500)]));
    // 3800..4200 repeats 3800..4000 and brings 4000..4200
    assert_eq!(
        rx(&mut q, seg(3800, 4200)),
        (4200, vec![r(3800, 4000), r(5000, 5500)])
    );
    // 4900..5200: new 4900..5000, duplicate 5000..5200 inside the block 4900..5500
    assert_eq!(
        rx(&mut q, seg(4900, 5200)),
        (4200, vec![r(5000, 5200), r(4900, 5500)])
    );
}

#[test]
fn dsack_disabled_sends_plain_sack() {
    let cfg = ReceiverConfig {
        dsack: false,
        timestamps: false,
        ..ReceiverConfig::default()
    };
    let mut q = receiver_at(4000, cfg);
    assert_eq!(rx(&mut q, seg(4500, 5000)), (4000, vec![r(4500, 5000)]));
    assert_eq!(rx(&mut q, seg(3000, 3500)), (4000, vec![r(4500, 5000)]));
    assert_eq!(rx(&mut q, seg(4500, 5000)), (4000, vec![r(4500, 5000)]));
    assert_eq!(q.stats().dsacks_out, 0);
}

#[test]
fn no_sack_mode_sends_no_blocks() {
    let cfg = ReceiverConfig {
        sack: false,
        ..ReceiverConfig::default()
    };
    let mut q = receiver_at(4000, cfg);
    assert_eq!(rx(&mut q, seg(4500, 5000)), (4000, vec![]));
    assert_eq!(rx(&mut q, seg(3000, 3500)), (4000, vec![]));
    assert_eq!(rx(&mut q, seg(4000, 4500)), (5000, vec![]));
}

// ---- RFC 2018 §4 block order ----

/// Five holes, blocks arriving in scrambled order: the first block is the newest
/// segment's block, then the most recently reported blocks, newest first.
fn scrambled(cfg: ReceiverConfig) -> Vec<(u64, Vec<Range>)> {
    let mut q = receiver_at(1000, cfg);
    [3, 1, 5, 2, 4]
        .iter()
        .map(|&i| rx(&mut q, seg(1000 + i * 1000, 1500 + i * 1000)))
        .collect()
}

#[test]
fn rfc2018_order_four_blocks_without_timestamps() {
    let acks = scrambled(ReceiverConfig {
        timestamps: false,
        ..ReceiverConfig::default()
    });
    let b = |i: u64| r(1000 + i * 1000, 1500 + i * 1000);
    assert_eq!(acks[0], (1000, vec![b(3)]));
    assert_eq!(acks[1], (1000, vec![b(1), b(3)]));
    assert_eq!(acks[2], (1000, vec![b(5), b(1), b(3)]));
    assert_eq!(acks[3], (1000, vec![b(2), b(5), b(1), b(3)]));
    assert_eq!(acks[4], (1000, vec![b(4), b(2), b(5), b(1)]));
}

#[test]
fn rfc2018_order_three_blocks_with_timestamps() {
    let acks = scrambled(ReceiverConfig::default());
    let b = |i: u64| r(1000 + i * 1000, 1500 + i * 1000);
    assert_eq!(acks[2], (1000, vec![b(5), b(1), b(3)]));
    assert_eq!(acks[3], (1000, vec![b(2), b(5), b(1)]));
    assert_eq!(acks[4], (1000, vec![b(4), b(2), b(5)]));
}

#[test]
fn rfc2018_merged_block_moves_first_and_covered_blocks_leave() {
    let cfg = ReceiverConfig {
        timestamps: false,
        ..ReceiverConfig::default()
    };
    let mut q = receiver_at(1000, cfg);
    rx(&mut q, seg(2000, 2500));
    rx(&mut q, seg(4000, 4500));
    rx(&mut q, seg(3000, 3500));
    // 2500..3000 joins 2000..2500 and 3000..3500
    assert_eq!(
        rx(&mut q, seg(2500, 3000)),
        (1000, vec![r(2000, 3500), r(4000, 4500)])
    );
    // the hole at 1000 closes: the blocks that were merged in are acknowledged
    assert_eq!(rx(&mut q, seg(1000, 2000)), (3500, vec![r(4000, 4500)]));
    // an old block that fell out of the four reported returns when newer ones merge
    let mut q = receiver_at(
        0,
        ReceiverConfig {
            timestamps: false,
            ..ReceiverConfig::default()
        },
    );
    for i in 1..=6 {
        rx(&mut q, seg(i * 1000, i * 1000 + 500));
    }
    let b = |i: u64| r(i * 1000, i * 1000 + 500);
    assert_eq!(rx(&mut q, seg(0, 100)), (100, vec![b(6), b(5), b(4), b(3)]));
    assert_eq!(
        rx(&mut q, seg(5500, 6000)),
        (100, vec![r(5000, 6500), b(4), b(3), b(2)])
    );
    // a segment covering old blocks: the first duplicate is the D-SACK
    assert_eq!(
        rx(&mut q, seg(100, 3500)),
        (3500, vec![b(1), r(5000, 6500), b(4)])
    );
}

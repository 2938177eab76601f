//! When the receiver ACKs and what the ACK carries: handshake and option negotiation,
//! delayed ACK (RFC 5681 §4.2), Linux quick ACKs, immediate ACKs, timestamp echo
//! (RFC 7323 §4.3), and hostile input.

use lossrec::{Ack, Duration, Instant, Range, Receiver, ReceiverConfig, Segment, SynOptions};
use lossrec::{SackBlocks, Timestamps};

const MSS: u64 = 1448;

fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}
fn r(a: u64, b: u64) -> Range {
    Range::new(a, b)
}
fn seg(a: u64, b: u64) -> Segment {
    Segment {
        range: Range::new(a, b),
        ..Segment::default()
    }
}
/// Segment `i` of a stream of `MSS`-sized segments.
fn full(i: u64) -> Segment {
    seg(i * MSS, (i + 1) * MSS)
}
fn with_ts(mut s: Segment, val: u64) -> Segment {
    s.ts = Some(Timestamps { val, ecr: 0 });
    s
}
fn syn(sack: bool, ts: bool, ws: bool) -> Segment {
    let opts = SynOptions {
        ecn: false,
        mss: 1460,
        sack_permitted: sack,
        timestamps: ts,
        window_scale: ws.then_some(9),
    };
    Segment {
        syn: Some(opts),
        ts: ts.then_some(Timestamps { val: 77, ecr: 0 }),
        ..Segment::default()
    }
}
fn pure_ack() -> Segment {
    Segment::default()
}
fn delack(t_ms: u64, quick: u32) -> ReceiverConfig {
    ReceiverConfig {
        delayed_ack: Some(Duration::from_millis(t_ms)),
        quickack_segments: quick,
        window_model: lossrec::receiver::WindowModel::Fixed,
        ..ReceiverConfig::default()
    }
}
fn all_acks(rx: &mut Receiver, now: Instant) -> Vec<Ack> {
    std::iter::from_fn(|| rx.poll_ack(now)).collect()
}
/// Feeds a segment at `now` and returns the ACKs it released.
fn feed(rx: &mut Receiver, now: Instant, s: Segment) -> Vec<Ack> {
    rx.on_segment(now, &s);
    all_acks(rx, now)
}
fn cums(acks: &[Ack]) -> Vec<u64> {
    acks.iter().map(|a| a.cumulative).collect()
}

/// The fixed-window model (these tests predate the Linux window model, now the default;
/// `receiver_window.rs` tests that one).
fn fixed_window() -> ReceiverConfig {
    ReceiverConfig {
        window_model: lossrec::receiver::WindowModel::Fixed,
        ..ReceiverConfig::default()
    }
}

// ---- handshake ----

#[test]
fn syn_ack_agrees_options() {
    let mut rx = Receiver::new(fixed_window(), ms(0));
    let acks = feed(&mut rx, ms(1), syn(true, true, true));
    assert_eq!(acks.len(), 1);
    let sa = acks[0];
    assert_eq!(
        sa.syn,
        Some(SynOptions {
            ecn: false,
            mss: 1460,
            sack_permitted: true,
            timestamps: true,
            window_scale: Some(7)
        })
    );
    assert_eq!(sa.cumulative, 0);
    assert_eq!(sa.window, 65_535, "the SYN-ACK window is never scaled");
    assert_eq!(sa.ts, Some(Timestamps { val: 1000, ecr: 77 }));
    assert!(sa.sack.is_empty());
    // the third packet of the handshake: no ACK
    assert!(feed(&mut rx, ms(2), pure_ack()).is_empty());
    let a = feed(&mut rx, ms(3), full(0));
    assert_eq!(cums(&a), vec![MSS]);
    assert_eq!(
        a[0].window,
        65_535 << 7,
        "16 MiB clamped to what scale 7 can carry"
    );
    assert_eq!(a[0].syn, None);
    assert!(rx.sack_in_use() && rx.timestamps_in_use());
    assert_eq!(rx.stats().syn_acks_out, 1);
}

#[test]
fn options_the_peer_did_not_offer_are_off() {
    let mut rx = Receiver::new(fixed_window(), ms(0));
    let sa = feed(&mut rx, ms(1), syn(false, false, false))[0];
    assert_eq!(
        sa.syn,
        Some(SynOptions {
            ecn: false,
            mss: 1460,
            sack_permitted: false,
            timestamps: false,
            window_scale: None
        })
    );
    assert_eq!(sa.ts, None);
    feed(&mut rx, ms(2), pure_ack());
    let a = feed(&mut rx, ms(3), full(2)); // out of order, but no SACK was agreed
    assert_eq!(
        a[0],
        Ack {
            ecn: Default::default(),
            cumulative: 0,
            sack: SackBlocks::new(),
            ts: None,
            window: 65_535,
            syn: None
        }
    );
    assert_eq!(rx.window(), 65_535);
}

#[test]
fn options_the_receiver_does_not_want_are_off() {
    let cfg = ReceiverConfig {
        sack: false,
        timestamps: false,
        ..ReceiverConfig::default()
    };
    let mut rx = Receiver::new(cfg, ms(0));
    let sa = feed(&mut rx, ms(1), syn(true, true, true))[0];
    let o = sa.syn.unwrap();
    assert!(!o.sack_permitted && !o.timestamps);
    assert_eq!(o.window_scale, Some(7));
    let a = feed(&mut rx, ms(3), with_ts(full(2), 5));
    assert!(a[0].sack.is_empty() && a[0].ts.is_none());
}

#[test]
fn duplicate_syn_gets_another_syn_ack() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    let first = feed(&mut rx, ms(1), syn(true, true, true))[0];
    // the SYN-ACK was lost; the sender retransmits its SYN with a new timestamp
    let again = feed(&mut rx, ms(1001), with_ts(syn(true, true, true), 1077))[0];
    assert_eq!(again.syn, first.syn);
    assert_eq!(
        again.ts,
        Some(Timestamps {
            val: 1_001_000,
            ecr: 1077
        })
    );
    assert_eq!(rx.stats().syn_acks_out, 2);
}

#[test]
fn syn_after_the_handshake_gets_a_plain_ack() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    feed(&mut rx, ms(1), syn(true, true, true));
    feed(&mut rx, ms(2), full(0));
    let a = feed(&mut rx, ms(3), syn(false, false, false));
    assert_eq!(a.len(), 1);
    assert_eq!((a[0].cumulative, a[0].syn), (MSS, None));
    assert!(rx.sack_in_use(), "a late SYN renegotiates nothing");
}

#[test]
fn data_without_handshake_uses_config_options() {
    let mut rx = Receiver::new(fixed_window(), ms(0));
    assert!(feed(&mut rx, ms(1), pure_ack()).is_empty());
    let a = feed(&mut rx, ms(1), with_ts(full(1), 9));
    assert_eq!(a[0].sack.as_slice(), &[r(MSS, 2 * MSS)]);
    assert_eq!(a[0].ts, Some(Timestamps { val: 1000, ecr: 9 }));
    assert_eq!(a[0].window, 16 << 20);
}

// ---- delayed ACK ----

#[test]
fn delayed_ack_every_second_full_segment() {
    let mut rx = Receiver::new(delack(40, 0), ms(0));
    assert!(feed(&mut rx, ms(10), full(0)).is_empty());
    assert_eq!(rx.poll_timeout(), Some(ms(50)));
    assert_eq!(cums(&feed(&mut rx, ms(11), full(1))), vec![2 * MSS]);
    assert_eq!(rx.poll_timeout(), None);
    assert!(feed(&mut rx, ms(12), full(2)).is_empty());
    assert_eq!(cums(&feed(&mut rx, ms(13), full(3))), vec![4 * MSS]);
    assert_eq!(rx.stats().delayed_acks, 0);
}

#[test]
fn delayed_ack_timer_expiry() {
    let mut rx = Receiver::new(delack(200, 0), ms(0));
    feed(&mut rx, ms(1), full(0));
    assert_eq!(feed(&mut rx, ms(2), full(1)).len(), 1);
    let at = 2 * MSS;
    assert!(feed(&mut rx, ms(10), seg(at, at + 100)).is_empty());
    assert_eq!(rx.poll_timeout(), Some(ms(210)));
    rx.on_timeout(ms(209)); // early: nothing
    assert!(rx.poll_ack(ms(209)).is_none());
    // a second small segment neither re-arms the timer nor makes a full segment
    assert!(feed(&mut rx, ms(20), seg(at + 100, at + 200)).is_empty());
    assert_eq!(rx.poll_timeout(), Some(ms(210)));
    rx.on_timeout(ms(210));
    assert_eq!(cums(&all_acks(&mut rx, ms(210))), vec![at + 200]);
    assert_eq!(rx.poll_timeout(), None);
    assert_eq!(rx.stats().delayed_acks, 1);
    rx.on_timeout(ms(400)); // nothing owed
    assert!(rx.poll_ack(ms(400)).is_none());
}

/// Linux `__tcp_ack_snd_check`: ACK once more than one full segment (the largest seen,
/// `rcv_mss`, initially 536 bytes) is unacknowledged.
#[test]
fn full_size_follows_the_largest_segment_seen() {
    let mut rx = Receiver::new(delack(40, 0), ms(0));
    assert!(feed(&mut rx, ms(1), seg(0, 500)).is_empty());
    assert_eq!(cums(&feed(&mut rx, ms(2), seg(500, 1000))), vec![1000]); // 1000 > 536
    assert!(feed(&mut rx, ms(3), seg(1000, 1000 + MSS)).is_empty());
    assert_eq!(rx.rcv_mss(), MSS);
    assert_eq!(
        cums(&feed(&mut rx, ms(4), seg(1000 + MSS, 1500 + MSS))),
        vec![1500 + MSS]
    );
    // small segments: ACK when their sum exceeds one full segment
    let mut at = 1500 + MSS;
    for (i, acked) in [false, false, true].into_iter().enumerate() {
        let a = feed(&mut rx, ms(5 + i as u64), seg(at, at + 500));
        at += 500;
        assert_eq!(!a.is_empty(), acked, "small segment {i}");
    }
    assert_eq!(rx.poll_timeout(), None);
}

#[test]
fn quick_ack_for_the_first_segments() {
    let mut rx = Receiver::new(delack(40, 3), ms(0));
    for i in 0..3 {
        assert_eq!(
            cums(&feed(&mut rx, ms(1 + i), full(i))),
            vec![(i + 1) * MSS]
        );
    }
    assert!(feed(&mut rx, ms(5), full(3)).is_empty());
    assert_eq!(cums(&feed(&mut rx, ms(6), full(4))), vec![5 * MSS]);
    assert_eq!(rx.stats().quick_acks, 3);
    // the default is 16 quick ACKs (Linux TCP_MAX_QUICKACKS)
    let mut rx = Receiver::new(delack(40, 16), ms(0));
    let n: usize = (0..20).map(|i| feed(&mut rx, ms(1), full(i)).len()).sum();
    assert_eq!(n, 16 + 2);
}

#[test]
fn immediate_ack_on_out_of_order_and_hole_fill() {
    let mut rx = Receiver::new(delack(40, 0), ms(0));
    assert!(feed(&mut rx, ms(1), full(0)).is_empty());
    // out of order: ACK at once, one per segment (each is a duplicate ACK to the sender)
    assert_eq!(cums(&feed(&mut rx, ms(2), full(2))), vec![MSS]);
    assert_eq!(rx.poll_timeout(), None);
    assert_eq!(cums(&feed(&mut rx, ms(3), full(3))), vec![MSS]);
    assert_eq!(cums(&feed(&mut rx, ms(3), full(5))), vec![MSS]);
    // partial hole fill
    assert_eq!(cums(&feed(&mut rx, ms(4), full(1))), vec![4 * MSS]);
    // the last hole
    assert_eq!(cums(&feed(&mut rx, ms(5), full(4))), vec![6 * MSS]);
    // no hole left: delayed again
    assert!(feed(&mut rx, ms(6), full(6)).is_empty());
    assert_eq!(rx.stats().out_of_order_segments, 3);
}

#[test]
fn immediate_ack_on_duplicate_and_fin() {
    let mut rx = Receiver::new(delack(40, 2), ms(0));
    assert_eq!(feed(&mut rx, ms(1), full(0)).len(), 1); // quick
    assert_eq!(feed(&mut rx, ms(1), full(1)).len(), 1); // quick
    assert!(feed(&mut rx, ms(1), full(2)).is_empty());
    let a = feed(&mut rx, ms(2), full(0));
    assert_eq!((a[0].cumulative, a[0].dsack()), (3 * MSS, Some(r(0, MSS))));
    // a pure duplicate means the sender retransmits: quick ACKs again (Linux)
    assert_eq!(cums(&feed(&mut rx, ms(3), full(3))), vec![4 * MSS]);
    assert!(feed(&mut rx, ms(3), full(4)).is_empty());
}

/// Linux `tcp_fin` (ESTABLISHED → CLOSE_WAIT): `inet_csk_schedule_ack` and
/// `inet_csk_enter_pingpong_mode` — the FIN's ACK is delayed like data's, quick ACKs
/// are off (`tcp_in_quickack_mode` wants no pingpong), and `__tcp_ack_snd_check`'s
/// other rules still send it at once: more than one full segment unacknowledged (the
/// FIN's sequence number counted), or a hole filled.
#[test]
fn fin_ack_is_delayed_as_linux_tcp_fin() {
    for quick in [0, 16] {
        let mut rx = Receiver::new(delack(40, quick), ms(0));
        let mut last = seg(0, 100);
        last.fin = true;
        assert!(feed(&mut rx, ms(1), last).is_empty(), "quick {quick}");
        assert!(rx.fin_received());
        assert_eq!(rx.delivered(), 100);
        assert_eq!(rx.poll_timeout(), Some(ms(41)));
        rx.on_timeout(ms(41));
        // The delayed ACK acknowledges the FIN's sequence number too.
        assert_eq!(cums(&all_acks(&mut rx, ms(41))), vec![101]);
    }
    // A full segment unacknowledged before it: at once.
    let mut rx = Receiver::new(delack(40, 0), ms(0));
    assert!(feed(&mut rx, ms(1), full(0)).is_empty());
    let mut last = full(1);
    last.fin = true;
    assert_eq!(cums(&feed(&mut rx, ms(2), last)), vec![2 * MSS + 1]);
    // Filling the hole below a FIN that arrived early: at once.
    let mut rx = Receiver::new(delack(40, 0), ms(0));
    let mut last = seg(100, 200);
    last.fin = true;
    assert_eq!(cums(&feed(&mut rx, ms(1), last)), vec![0]);
    assert_eq!(cums(&feed(&mut rx, ms(2), seg(0, 100))), vec![201]);
}

#[test]
fn every_segment_acked_without_delayed_ack() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    for i in 0..5 {
        assert_eq!(feed(&mut rx, ms(1), full(i)).len(), 1);
    }
    assert_eq!(rx.poll_timeout(), None);
    assert_eq!(rx.stats().acks_out, 5);
}

#[test]
fn delayed_ack_timer_is_clamped() {
    let mut rx = Receiver::new(delack(0, 0), ms(0));
    feed(&mut rx, ms(10), full(0));
    assert_eq!(rx.poll_timeout(), Some(ms(11)));
    let mut rx = Receiver::new(delack(10_000, 0), ms(0));
    feed(&mut rx, ms(10), full(0));
    assert_eq!(rx.poll_timeout(), Some(ms(510)));
}

// ---- timestamps (RFC 7323 §4.3) ----

fn ecr(acks: &[Ack]) -> Vec<u64> {
    acks.iter().map(|a| a.ts.unwrap().ecr).collect()
}

#[test]
fn delayed_ack_echoes_the_earliest_unacknowledged_segment() {
    let mut rx = Receiver::new(delack(40, 0), ms(0));
    assert!(feed(&mut rx, ms(1), with_ts(full(0), 100)).is_empty());
    assert_eq!(ecr(&feed(&mut rx, ms(2), with_ts(full(1), 101))), vec![100]);
    assert!(feed(&mut rx, ms(3), with_ts(full(2), 102)).is_empty());
    rx.on_timeout(ms(43));
    let a = all_acks(&mut rx, ms(43));
    assert_eq!(ecr(&a), vec![102]);
    assert_eq!(a[0].ts.unwrap().val, 43_000, "the receiver's clock in µs");
}

#[test]
fn out_of_order_echoes_the_last_in_order_segment() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    assert_eq!(ecr(&feed(&mut rx, ms(1), with_ts(full(0), 100))), vec![100]);
    // segment 1 lost; 2 and 3 arrive later with newer timestamps
    assert_eq!(ecr(&feed(&mut rx, ms(2), with_ts(full(2), 102))), vec![100]);
    assert_eq!(ecr(&feed(&mut rx, ms(3), with_ts(full(3), 103))), vec![100]);
    // the retransmission fills the hole: its timestamp is echoed
    assert_eq!(ecr(&feed(&mut rx, ms(4), with_ts(full(1), 110))), vec![110]);
    // an old duplicate with an older timestamp does not move TS.Recent back
    assert_eq!(ecr(&feed(&mut rx, ms(5), with_ts(full(0), 100))), vec![110]);
}

/// RFC 7323 §5.3: a segment outside the window is rejected (R2) before its timestamp can
/// be recorded (R3); Linux drops a duplicate that ends below `rcv_wup` in `tcp_sequence`,
/// before `tcp_replace_ts_recent`, and answers it with a DSACK (`tcp_send_dupack`). One
/// that ends exactly at `rcv_wup` passes (a tail loss probe's retransmission of the last
/// segment) and its TSval is recorded. (Our receiver took every duplicate's TSval, so a
/// spurious retransmission's DSACK echoed the retransmission instead of the original.)
#[test]
fn a_duplicate_below_what_was_acknowledged_leaves_ts_recent() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    for i in 0..4 {
        feed(&mut rx, ms(1 + i), with_ts(full(i), 100 + i));
    }
    // A spurious retransmission of segment 1, long acknowledged.
    let a = feed(&mut rx, ms(10), with_ts(full(1), 120));
    assert_eq!(
        ecr(&a),
        vec![103],
        "the echo stays the last in-window segment's"
    );
    assert_eq!(a[0].dsack(), Some(full(1).range));
    // A probe resending the last segment ends where the last ACK did: recorded.
    let a = feed(&mut rx, ms(11), with_ts(full(3), 121));
    assert_eq!(ecr(&a), vec![121]);
    assert_eq!(a[0].dsack(), Some(full(3).range));
}

/// The FIN occupies a sequence number (RFC 9293 §3.4 SEG.LEN; Linux `tcp_v4_fill_cb`
/// counts it in `end_seq`), so a repeated last segment that carries the FIN ends at
/// `rcv_wup`, not below it: `tcp_sequence` accepts it and `tcp_replace_ts_recent` records
/// its TSval. A retransmission timeout's resend of a segment whose tail loss probe had
/// arrived is echoed as itself, so the sender sees no "delayed original" (issue 23:
/// Linux keeps the timeout's reduction there).
#[test]
fn a_repeated_fin_segment_ending_at_rcv_wup_is_recorded() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    feed(&mut rx, ms(1), with_ts(full(0), 100));
    let fin = |val| {
        let mut s = with_ts(full(1), val);
        s.fin = true;
        s
    };
    feed(&mut rx, ms(2), fin(101));
    all_acks(&mut rx, ms(500));
    let a = feed(&mut rx, ms(600), fin(130));
    assert_eq!(
        ecr(&a),
        vec![130],
        "the repeated FIN segment's TSval is echoed"
    );
    assert_eq!(a[0].cumulative, 2 * MSS + 1);
}

// ---- hostile input ----

#[test]
fn hostile_segments_are_dropped_and_counted() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    feed(&mut rx, ms(1), syn(true, true, true));
    feed(&mut rx, ms(1), full(0));
    let a = feed(&mut rx, ms(2), seg(u64::MAX - 1, u64::MAX));
    assert_eq!(
        cums(&a),
        vec![MSS],
        "an unacceptable segment is answered with an ACK"
    );
    assert!(a[0].sack.is_empty());
    assert_eq!(rx.stats().dropped_out_of_window, 1);
    // inverted range
    assert!(feed(&mut rx, ms(2), seg(5000, 10)).is_empty());
    assert_eq!(rx.stats().dropped_malformed, 1);
    // straddling the right edge: only the part inside the window is kept
    let edge = MSS + rx.window();
    let a = feed(&mut rx, ms(3), seg(edge - 100, edge + 1_000_000));
    assert_eq!(a[0].sack.as_slice(), &[r(edge - 100, edge)]);
    assert_eq!(rx.stats().trimmed_to_window, 1);
    // a huge duplicate below RCV.NXT is only a D-SACK
    let a = feed(&mut rx, ms(4), seg(0, MSS));
    assert_eq!(a[0].dsack(), Some(r(0, MSS)));
    assert_eq!(rx.delivered(), MSS);
}

#[test]
fn unpolled_acks_are_bounded() {
    let mut rx = Receiver::new(ReceiverConfig::default(), ms(0));
    for i in 0..3000 {
        rx.on_segment(ms(1), &seg(i, i + 1));
    }
    let n = all_acks(&mut rx, ms(1)).len();
    assert_eq!(n, lossrec::receiver::MAX_QUEUED_ACKS);
    assert_eq!(rx.stats().acks_discarded_unpolled, 3000 - n as u64);
    assert_eq!(rx.delivered(), 3000);
}

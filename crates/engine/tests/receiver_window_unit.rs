//! The Linux window model advertises whole units of its window scale: when the right edge
//! may not move left, Linux offers the current window rounded *up* to the scale's unit
//! (`tcp_select_window`, net/ipv4/tcp_output.c: `new_win = ALIGN(cur_win, 1 <<
//! tp->rx_opt.rcv_wscale)`), so the value it stores is the value the 16-bit field carries.
//! A window that is not a whole unit cannot cross a wire (or a capture) intact: the
//! sender behind a real link would see it cut down to the unit.

use lossrec::{Ack, Instant, Range, Receiver, ReceiverConfig, Segment, SynOptions, Timestamps};

const MSS: u64 = 1448;
const UNIT: u64 = 1 << 7;

fn connected() -> Receiver {
    let c = ReceiverConfig {
        mss: MSS as u16,
        ..ReceiverConfig::default()
    };
    let mut rx = Receiver::new(c, Instant::ZERO);
    let syn = Segment {
        syn: Some(SynOptions {
            ecn: false,
            mss: MSS as u16,
            sack_permitted: true,
            timestamps: true,
            window_scale: Some(7),
        }),
        ts: Some(Timestamps { val: 1, ecr: 0 }),
        ..Segment::default()
    };
    rx.on_segment(Instant::ZERO, &syn);
    while rx.poll_ack(Instant::ZERO).is_some() {}
    rx
}

fn data(rx: &mut Receiver, i: u64) -> Vec<Ack> {
    let now = Instant::from_millis(1 + i);
    let s = Segment {
        range: Range::new(i * MSS, (i + 1) * MSS),
        ts: Some(Timestamps { val: 2, ecr: 0 }),
        ..Segment::default()
    };
    rx.on_segment(now, &s);
    std::iter::from_fn(|| rx.poll_ack(now)).collect()
}

#[test]
fn every_window_is_whole_scale_units_while_holes_fill_one_by_one() {
    let mut rx = connected();
    let holes = [3u64, 5, 7, 9, 11, 13];
    let mut acks = Vec::new();
    for i in 0..60 {
        if !holes.contains(&i) {
            acks.extend(data(&mut rx, i));
        }
    }
    // The repairs arrive one at a time: RCV.NXT moves by whole segments (1448 bytes, not
    // a multiple of 128) while the out-of-order data keeps the new window below the
    // current one.
    for &i in &holes {
        acks.extend(data(&mut rx, i));
    }
    let bad: Vec<_> = acks
        .iter()
        .filter(|a| a.window % UNIT != 0)
        .map(|a| (a.cumulative, a.window))
        .collect();
    assert!(bad.is_empty(), "windows not in units of {UNIT}: {bad:?}");
}

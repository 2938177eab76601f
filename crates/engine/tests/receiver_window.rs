//! The Linux receive-window model (`receiver::window`, the default): the initial window
//! (`tcp_select_initial_window`), growth by two segments per in-order segment
//! (`tcp_grow_window`) up to the buffer's clamp, the right edge that does not move while a
//! segment is missing (`tcp_select_window`), and autotuning (`tcp_rcv_space_adjust`).
//! Values as the kernel advertised them through the real wire (MSS 1448, timestamps).

use lossrec::receiver::{WindowModel, LINUX_INITIAL_CLAMP};
use lossrec::{Ack, Instant, Range, Receiver, ReceiverConfig, Segment, SynOptions, Timestamps};

const MSS: u64 = 1448;

fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}

fn cfg() -> ReceiverConfig {
    ReceiverConfig {
        mss: MSS as u16,
        ..ReceiverConfig::default()
    }
}

fn connected(c: ReceiverConfig) -> (Receiver, Ack) {
    let mut rx = Receiver::new(c, ms(0));
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
    rx.on_segment(ms(0), &syn);
    let sa = rx.poll_ack(ms(0)).unwrap();
    (rx, sa)
}

/// Segment `i`, echoing TSval `ecr_us` of ours.
fn data(rx: &mut Receiver, now: Instant, i: u64, ecr_us: u64) -> Ack {
    let s = Segment {
        range: Range::new(i * MSS, (i + 1) * MSS),
        ts: Some(Timestamps {
            val: 2,
            ecr: ecr_us,
        }),
        ..Segment::default()
    };
    rx.on_segment(now, &s);
    let mut last = None;
    while let Some(a) = rx.poll_ack(now) {
        last = Some(a);
    }
    last.expect("an ACK per segment")
}

#[test]
fn linux_is_the_default() {
    assert_eq!(ReceiverConfig::default().window_model, WindowModel::Linux);
}

#[test]
fn initial_window_is_64k_in_whole_segments() {
    let (_, sa) = connected(cfg());
    assert_eq!(sa.window, 45 * MSS); // 65 160, as Linux's SYN-ACK at MSS 1448
}

#[test]
fn grows_two_segments_per_in_order_segment_up_to_the_clamp() {
    let (mut rx, _) = connected(cfg());
    let mut wins = Vec::new();
    for i in 0..12 {
        wins.push(data(&mut rx, ms(1), i, 0).window);
    }
    // 65 160 + 2·1448 = 68 056, rounded up to the scale unit (128): 68 096; then +2896 ...
    assert_eq!(&wins[..3], &[68_096, 71_040, 73_856]);
    assert_eq!(*wins.last().unwrap(), LINUX_INITIAL_CLAMP);
    assert!(wins.windows(2).all(|w| w[0] <= w[1]));
}

#[test]
fn right_edge_stays_while_a_segment_is_missing() {
    let (mut rx, _) = connected(cfg());
    for i in 0..5 {
        data(&mut rx, ms(1), i, 0);
    }
    let a = data(&mut rx, ms(2), 6, 0); // segment 5 is missing
    let edge = a.cumulative + a.window;
    for i in 7..40 {
        let b = data(&mut rx, ms(3), i, 0);
        assert_eq!(b.cumulative, 5 * MSS);
        assert_eq!(b.cumulative + b.window, edge, "segment {i}");
    }
    // Data beyond the edge is not accepted (trimmed or dropped).
    let beyond = edge.div_ceil(MSS) + 1;
    data(&mut rx, ms(4), beyond, 0);
    assert_eq!(rx.stats().dropped_out_of_window, 1);
    // The repair moves the edge on again.
    let c = data(&mut rx, ms(5), 5, 0);
    assert!(c.cumulative + c.window > edge);
}

#[test]
fn fixed_model_keeps_the_configured_window() {
    let c = ReceiverConfig {
        window_model: WindowModel::Fixed,
        ..cfg()
    };
    let (mut rx, sa) = connected(c);
    assert_eq!(sa.window, 65_535);
    assert_eq!(data(&mut rx, ms(1), 0, 0).window, 65_535 << 7);
}

#[test]
fn autotuning_raises_the_clamp_once_the_reader_outpaces_it() {
    let (mut rx, _) = connected(cfg());
    // A sender doubling every 10 ms RTT: the timestamps echo our clock 10 ms back.
    let mut i = 0;
    let mut t = 10;
    let mut last = 0;
    for round in 0..7 {
        for _ in 0..(10u64 << round) {
            last = data(&mut rx, ms(t), i, (t - 10) * 1000).window;
            i += 1;
        }
        t += 10;
    }
    assert!(last > 4 * LINUX_INITIAL_CLAMP, "window {last} did not grow");
}

/// `tcp_select_initial_window`: the window scale fits the largest buffer into 16 bits — 7
/// with the default buffer, 13 for a 256 MiB one (2^28 >> 12 is 65536, one too many), so that a window above 8 MiB (a
/// 10 Gb/s × 20 ms path) can be announced.
#[test]
fn window_scale_fits_the_largest_window() {
    let (_, sa) = connected(cfg());
    assert_eq!(sa.syn.unwrap().window_scale, Some(7));
    let big = ReceiverConfig {
        window: 256 << 20,
        window_model: WindowModel::Fixed,
        ..cfg()
    };
    let (mut rx, sa) = connected(big);
    assert_eq!(sa.syn.unwrap().window_scale, Some(13), "2^28 >> 13 = 32768");
    let a = data(&mut rx, ms(1), 0, 1);
    assert!(a.window > 200 << 20, "announced {}", a.window);
}

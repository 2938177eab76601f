//! Vectors computed by hand from Linux's formulas (tcp_input.c `tcp_update_pacing_rate`,
//! tcp_output.c `tcp_update_skb_after_send`, `tcp_small_queue_check`), with the numbers of
//! packetdrill's slow-start-fq-ack-per-2pkt (MSS 1460, a 100 ms handshake RTT).

use super::*;

fn rate(mss: u64, cwnd: u64, ssthresh: u64, packets_out: u64, srtt_us: u64) -> u64 {
    tcp_pacing_rate(&RateInputs {
        mss,
        cwnd,
        ssthresh,
        packets_out,
        srtt_us,
        ss_ratio: SS_RATIO,
        ca_ratio: CA_RATIO,
    })
}

const INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

#[test]
fn slow_start_rate_is_twice_cwnd_per_srtt() {
    // 1460 · 10 / 100 ms · 200 %.
    assert_eq!(rate(1460, 10, INFINITE_SSTHRESH, 0, 800_000), 292_000);
    // cwnd 12 after the first ACK, SRTT 100.625 ms (srtt_us 805000): integer division
    // of the whole product, once.
    assert_eq!(rate(1460, 12, INFINITE_SSTHRESH, 8, 805_000), 348_223);
}

#[test]
fn second_half_of_slow_start_and_avoidance_use_the_ca_ratio() {
    // cwnd < ssthresh / 2 is the first half of slow start only.
    assert_eq!(rate(1000, 14, 30, 0, 800_000), 1000 * 14 * 2 * 10);
    assert_eq!(rate(1000, 15, 30, 0, 800_000), 1000 * 15 * 12 / 10 * 10);
    assert_eq!(rate(1000, 20, 20, 0, 800_000), 240_000);
}

#[test]
fn packets_out_above_cwnd_counts() {
    // max(cwnd, packets_out): after a reduction the flight still drains at its old rate.
    assert_eq!(rate(1000, 5, 4, 9, 800_000), 1000 * 9 * 12 / 10 * 10);
}

#[test]
fn without_srtt_the_product_is_not_divided() {
    assert_eq!(
        rate(1460, 10, INFINITE_SSTHRESH, 0, 0),
        1460 * 80_000 * 200 * 10
    );
}

#[test]
fn sysctl_ratios_apply() {
    let r = tcp_pacing_rate(&RateInputs {
        mss: 1000,
        cwnd: 10,
        ssthresh: INFINITE_SSTHRESH,
        packets_out: 0,
        srtt_us: 800_000,
        ss_ratio: 300,
        ca_ratio: 100,
    });
    assert_eq!(r, 300_000);
}

fn at_us(us: u64) -> Instant {
    Instant::from_micros(us)
}

fn seg(now: Instant, start: u64, len: u64, rate: u64, segs_out: u64) -> Segment {
    Segment {
        now,
        start,
        end: start + len,
        rate,
        segs_out,
    }
}

/// The initial window leaves at once; pacing starts once 10 segments are out; a late
/// packet gets half its interval back as credit; the one after it none.
#[test]
fn departures_follow_tcp_wstamp_ns() {
    let mut e = Edt::default();
    let t0 = at_us(200_000);
    for i in 0..5 {
        // Five 2-segment packets of 1460-byte segments.
        let a = e.on_segment(&seg(t0, 2920 * i, 1460, 292_000, 2 * i + 1), false);
        let b = e.on_segment(&seg(t0, 2920 * i + 1460, 1460, 292_000, 2 * i + 2), true);
        assert_eq!((a, b), (t0, t0), "packet {i}");
    }
    // The fifth packet brought data_segs_out to 10: 2920 B at 292000 B/s = 10 ms.
    assert_eq!(e.wstamp(), at_us(210_000));
    // At 305 ms (late by 95 ms) at 348223 B/s: 8385431 ns less half of it.
    let t1 = at_us(305_000);
    let s = e.on_segment(&seg(t1, 14_600, 1460, 348_223, 11), false);
    let s2 = e.on_segment(&seg(t1, 16_060, 1460, 348_223, 12), true);
    assert_eq!((s, s2), (t1, t1));
    assert_eq!(e.wstamp(), t1 + Duration::from_nanos(8_385_431 - 4_192_715));
    // The next packet, handed out at once, leaves at that stamp with no credit.
    let next = e.wstamp();
    assert_eq!(e.stamp_for(t1, None), next);
    let d = e.on_segment(&seg(t1, 17_520, 2920, 348_223, 14), true);
    assert_eq!(d, next);
    assert_eq!(e.wstamp(), next + Duration::from_nanos(8_385_431));
}

/// Segments of one packet share its stamp and the advance covers the whole packet.
#[test]
fn a_packet_is_paced_as_one() {
    let mut e = Edt::default();
    let t = at_us(1_000_000);
    // 10 segments out already; one 3-segment packet of 1000 B at 1 MB/s: 3 ms.
    for k in 0..3 {
        let d = e.on_segment(&seg(t, 1000 * k, 1000, 1_000_000, 11 + k), k == 2);
        assert_eq!(d, t);
    }
    // Stamped at `t` from a zero clock: the credit (1 s) covers half of 3 ms.
    assert_eq!(e.wstamp(), t + Duration::from_micros(1500));
    assert!(!e.open_at(t));
}

#[test]
fn an_unlimited_rate_never_delays() {
    let mut e = Edt::default();
    let t = at_us(5);
    e.on_segment(&seg(t, 0, 1000, UNLIMITED, 50), true);
    assert_eq!(e.wstamp(), t);
}

#[test]
fn small_queues_hold_two_packets() {
    let t = truesize(2920);
    assert_eq!(t, 4200);
    // One packet in fq: 4201 ≤ 8400, another may follow; two: 8401 > 8400.
    assert!(!tsq_throttled(t, t, 300_000, false));
    assert!(tsq_throttled(2 * t, t, 300_000, false));
    // Unless at most one packet is unacknowledged.
    assert!(!tsq_throttled(2 * t, t, 300_000, true));
    // At 10 MB/s about 1 ms of data (9765 B) may wait.
    assert!(!tsq_throttled(2 * t, t, 10_000_000, false));
    assert!(tsq_throttled(3 * t, t, 10_000_000, false));
}

//! Reno with ABC (RFC 5681 §3.1, RFC 3465), exact byte counts.

use lossrec::cc::reno::{Reno, ABC_L};
use lossrec::cc::{CongestionController, ConnInfo, Controller, Window};
use lossrec::config::CongestionControl;
use lossrec::Instant;

const T: Instant = Instant::ZERO;
fn win(cwnd: u64, ssthresh: u64) -> Window {
    Window {
        cwnd,
        ssthresh,
        mss: 1000,
    }
}
fn ack(cc: &mut impl CongestionController, w: &mut Window, acked: u64) {
    cc.on_ack(T, w, acked, None);
}

#[test]
fn slow_start_grows_by_acked_up_to_l_smss() {
    assert_eq!(ABC_L, 2);
    let mut r = Reno::default();
    let mut w = win(10_000, u64::MAX);
    ack(&mut r, &mut w, 1000);
    assert_eq!(w.cwnd, 11_000);
    ack(&mut r, &mut w, 500);
    assert_eq!(w.cwnd, 11_500, "byte counting: a 500-byte ACK adds 500");
    ack(&mut r, &mut w, 3000);
    assert_eq!(w.cwnd, 13_500, "a stretch ACK adds at most L·SMSS = 2000");
    ack(&mut r, &mut w, 2000);
    assert_eq!(w.cwnd, 15_500);
}

#[test]
fn slow_start_is_not_clipped_at_ssthresh() {
    // RFC 5681 §3.1: slow start while cwnd < ssthresh; the last increase may overshoot.
    let mut r = Reno::default();
    let mut w = win(9_500, 10_000);
    ack(&mut r, &mut w, 2000);
    assert_eq!(w.cwnd, 11_500);
    // Now cwnd ≥ ssthresh: congestion avoidance.
    ack(&mut r, &mut w, 2000);
    assert_eq!((w.cwnd, r.bytes_acked()), (11_500, 2000));
}

#[test]
fn congestion_avoidance_adds_one_smss_per_cwnd_of_bytes() {
    let mut r = Reno::default();
    // cwnd == ssthresh: congestion avoidance (RFC 5681 lets either run; we pick CA).
    let mut w = win(10_000, 10_000);
    for i in 1..=9 {
        ack(&mut r, &mut w, 1000);
        assert_eq!((w.cwnd, r.bytes_acked()), (10_000, 1000 * i));
    }
    ack(&mut r, &mut w, 1000);
    assert_eq!((w.cwnd, r.bytes_acked()), (11_000, 0));
    // The next increase needs 11000 bytes; the surplus carries over.
    ack(&mut r, &mut w, 5000);
    ack(&mut r, &mut w, 7000);
    assert_eq!((w.cwnd, r.bytes_acked()), (12_000, 1000));
    // A huge stretch ACK still adds one SMSS (RFC 5681: at most SMSS per RTT).
    ack(&mut r, &mut w, 100_000);
    assert_eq!((w.cwnd, r.bytes_acked()), (13_000, 12_999));
    ack(&mut r, &mut w, 1);
    assert_eq!((w.cwnd, r.bytes_acked()), (14_000, 0));
    ack(&mut r, &mut w, 1000);
    assert_eq!((w.cwnd, r.bytes_acked()), (14_000, 1000));
}

#[test]
fn ssthresh_is_half_the_flight_size_at_least_two_smss() {
    let r = Reno::default();
    let w = win(30_000, u64::MAX);
    // RFC 5681 eq. (4): max(FlightSize / 2, 2·SMSS), from FlightSize, not cwnd.
    assert_eq!(r.ssthresh(T, &w, 20_000), 10_000);
    assert_eq!(r.ssthresh(T, &w, 20_001), 10_000);
    assert_eq!(r.ssthresh(T, &w, 3_000), 2_000);
    assert_eq!(r.ssthresh(T, &w, 0), 2_000);
}

#[test]
fn a_congestion_event_or_timeout_clears_bytes_acked() {
    let mut r = Reno::default();
    let mut w = win(10_000, 10_000);
    ack(&mut r, &mut w, 4000);
    assert_eq!(r.ssthresh(T, &w, 10_000), 5_000);
    assert_eq!(r.bytes_acked(), 4000, "asking for ssthresh changes nothing");
    r.on_congestion_event(T, &w);
    assert_eq!(r.bytes_acked(), 0);
    ack(&mut r, &mut w, 4000);
    r.on_timeout(T, &ConnInfo::new(T, w));
    assert_eq!(r.bytes_acked(), 0);
}

/// RFC 3465 §2.3: L = 1·SMSS in the slow start that follows a timeout; back to L = 2
/// once a congestion event starts a new episode.
#[test]
fn slow_start_after_a_timeout_grows_one_smss_per_ack() {
    let mut r = Reno::default();
    let mut w = win(1_000, 10_000);
    r.on_timeout(T, &ConnInfo::new(T, w));
    ack(&mut r, &mut w, 3000);
    assert_eq!(w.cwnd, 2_000);
    r.on_congestion_event(T, &w);
    ack(&mut r, &mut w, 3000);
    assert_eq!(w.cwnd, 4_000);
}

#[test]
fn enum_dispatches_to_reno() {
    let mut cc = Controller::new(CongestionControl::Reno);
    assert_eq!(cc.kind(), Some(CongestionControl::Reno));
    let mut w = win(10_000, u64::MAX);
    ack(&mut cc, &mut w, 1000);
    assert_eq!(w.cwnd, 11_000);
    assert_eq!(cc.ssthresh(T, &w, 11_000), 5_500);
}

//! RFC 6298 estimator: the digest §2.1 vectors, floor/ceiling, §5.5 backoff, §5.7.

use lossrec::config::RttEstimator;
use lossrec::rtt::{Rtt, GRANULARITY, INITIAL_RTO, SYN_TIMEOUT_RTO};
use lossrec::{Duration, Instant};

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}
fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}
fn rfc() -> Rtt {
    Rtt::new(RttEstimator::Rfc6298, INITIAL_RTO, ms(1000), ms(60_000))
}
fn sample(r: &mut Rtt, d: Duration) {
    r.on_sample(Instant::from_millis(1), d, 0, 0);
}

#[test]
fn before_any_sample_rto_is_initial() {
    let r = rfc();
    assert_eq!(r.rto(), ms(1000)); // §2.1
    assert_eq!(r.srtt(), None);
    assert_eq!(r.raw_rto(), None);
    assert!(!r.has_sample());
}

#[test]
fn digest_vector_first_and_second_sample() {
    let mut r = rfc();
    // §2.2: R = 100 ms → SRTT 100, RTTVAR 50, RTO = 100 + max(G, 200) = 300 → 1 s floor.
    sample(&mut r, ms(100));
    assert_eq!(r.srtt(), Some(ms(100)));
    assert_eq!(r.rttvar(), ms(50));
    assert_eq!(r.raw_rto(), Some(ms(300)));
    assert_eq!(r.base_rto(), ms(1000));
    assert_eq!(r.rto(), ms(1000));
    // §2.3: R' = 200 → RTTVAR = 0.75·50 + 0.25·|100 − 200| = 62.5; SRTT = 112.5;
    // raw RTO = 112.5 + 250 = 362.5 → 1 s.
    sample(&mut r, ms(200));
    assert_eq!(r.rttvar(), us(62_500));
    assert_eq!(r.srtt(), Some(us(112_500)));
    assert_eq!(r.raw_rto(), Some(us(362_500)));
    assert_eq!(r.rto(), ms(1000));
    assert_eq!(r.sample_count(), 2);
}

#[test]
fn rttvar_uses_the_old_srtt() {
    // If SRTT were updated first, |SRTT − R'| would be 87.5 ms, not 100 ms.
    let mut r = Rtt::new(RttEstimator::Rfc6298, INITIAL_RTO, ms(0), ms(60_000));
    sample(&mut r, ms(100));
    sample(&mut r, ms(200));
    assert_eq!(r.rttvar(), us(62_500));
    // Without a floor the raw value is the RTO.
    assert_eq!(r.rto(), us(362_500));
}

#[test]
fn granularity_bounds_the_variance_term() {
    // Identical samples drive RTTVAR toward 0; RTO = SRTT + G then.
    let mut r = Rtt::new(RttEstimator::Rfc6298, INITIAL_RTO, ms(0), ms(60_000));
    for _ in 0..200 {
        sample(&mut r, ms(10));
    }
    assert_eq!(r.srtt(), Some(ms(10)));
    assert!(r.rttvar() < us(250));
    assert_eq!(r.rto(), ms(10) + GRANULARITY);
}

#[test]
fn nanosecond_exact_sequence() {
    // R = 1 ms, then 3 ms: RTTVAR = (3·0.5 + 2)/4 = 0.875 ms, SRTT = (7 + 3)/8 = 1.25 ms,
    // raw = 1.25 + 3.5 = 4.75 ms.
    let mut r = Rtt::new(RttEstimator::Rfc6298, INITIAL_RTO, ms(0), ms(60_000));
    sample(&mut r, ms(1));
    sample(&mut r, ms(3));
    assert_eq!(r.rttvar(), us(875));
    assert_eq!(r.srtt(), Some(us(1250)));
    assert_eq!(r.rto(), us(4750));
    // R'' = 1.25 ms: err 0 → RTTVAR = 0.65625 ms; SRTT stays 1.25; raw = 3.875 ms.
    sample(&mut r, us(1250));
    assert_eq!(r.rttvar(), Duration::from_nanos(656_250));
    assert_eq!(r.rto(), Duration::from_nanos(3_875_000));
}

#[test]
fn maximum_caps_rto() {
    let mut r = Rtt::new(RttEstimator::Rfc6298, INITIAL_RTO, ms(1000), ms(60_000));
    sample(&mut r, ms(30_000)); // 30 + 60 = 90 s raw
    assert_eq!(r.raw_rto(), Some(ms(90_000)));
    assert_eq!(r.rto(), ms(60_000));
}

#[test]
fn backoff_doubles_and_caps() {
    let mut r = rfc();
    sample(&mut r, ms(100));
    let mut want = 1000;
    for n in 1..=10 {
        r.backoff();
        want = (want * 2).min(60_000);
        assert_eq!(r.backoff_count(), n);
        assert_eq!(r.rto(), ms(want), "after {n} backoffs");
    }
    assert_eq!(r.base_rto(), ms(1000));
    for _ in 0..100 {
        r.backoff();
    }
    assert_eq!(r.rto(), ms(60_000));
    r.reset_backoff();
    assert_eq!(r.rto(), ms(1000));
}

#[test]
fn a_sample_collapses_the_backoff() {
    let mut r = rfc();
    sample(&mut r, ms(100));
    r.backoff();
    r.backoff();
    assert_eq!(r.rto(), ms(4000));
    sample(&mut r, ms(100));
    assert_eq!(r.backoff_count(), 0);
    assert_eq!(r.rto(), ms(1000));
}

#[test]
fn syn_timeout_sets_three_seconds() {
    // §5.7: after a SYN timeout, RTO = 3 s once data flows; the next sample recomputes.
    let mut r = rfc();
    r.set_base_rto(SYN_TIMEOUT_RTO);
    assert_eq!(r.rto(), ms(3000));
    r.backoff();
    assert_eq!(r.rto(), ms(6000));
    sample(&mut r, ms(100));
    assert_eq!(r.rto(), ms(1000));
    r.set_base_rto(ms(1_000_000));
    assert_eq!(r.base_rto(), ms(60_000));
}

#[test]
fn zero_sample_counts_as_one_microsecond() {
    let mut r = Rtt::new(RttEstimator::Rfc6298, INITIAL_RTO, ms(0), ms(60_000));
    sample(&mut r, Duration::ZERO);
    assert_eq!(r.latest(), Some(us(1)));
    assert_eq!(r.srtt(), Some(us(1)));
    assert_eq!(r.rttvar(), Duration::from_nanos(500));
    assert_eq!(r.rto(), us(1) + GRANULARITY);
    assert_eq!(r.min_rtt(), Some(us(1)));
}

#[test]
fn huge_samples_saturate() {
    let mut r = rfc();
    sample(&mut r, Duration::MAX);
    sample(&mut r, Duration::ZERO);
    sample(&mut r, Duration::MAX);
    assert_eq!(r.rto(), ms(60_000));
    r.backoff();
    assert_eq!(r.rto(), ms(60_000));
}

#[test]
fn initial_rto_is_capped() {
    let r = Rtt::new(RttEstimator::Rfc6298, ms(5000), ms(200), ms(2000));
    assert_eq!(r.rto(), ms(2000));
}

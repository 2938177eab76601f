//! Linux `tcp_rtt_estimator` + `tcp_set_rto` (digest §2.2), in Linux's µs units.

use lossrec::config::RttEstimator;
use lossrec::rtt::{LinuxVars, Rtt, INITIAL_RTO};
use lossrec::{Duration, Instant};

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}
fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}
fn linux(rto_min: Duration) -> Rtt {
    Rtt::new(RttEstimator::Linux, INITIAL_RTO, rto_min, ms(120_000))
}
fn vars(r: &Rtt) -> LinuxVars {
    r.linux_vars().unwrap()
}

#[test]
fn first_sample_rto_is_r_plus_max_2r_200ms() {
    // RTO = R + max(2R, rto_min): 100 → 300 ms, 10 → 210 ms, 20 → 220 ms.
    for (r_ms, rto_ms) in [(100, 300), (10, 210), (20, 220), (150, 450), (1, 201)] {
        let mut r = linux(ms(200));
        r.on_sample(Instant::ZERO, ms(r_ms), 0, 1000);
        assert_eq!(r.rto(), ms(rto_ms), "R = {r_ms} ms");
        assert_eq!(r.srtt(), Some(ms(r_ms)));
        assert_eq!(r.rttvar(), ms(r_ms) / 2, "mdev = R/2");
        let v = vars(&r);
        assert_eq!(v.srtt_us, 8_000 * r_ms);
        assert_eq!(v.mdev_us, 2_000 * r_ms);
        assert_eq!(v.rttvar_us, (2_000 * r_ms).max(200_000));
        assert_eq!(v.mdev_max_us, v.rttvar_us);
        assert_eq!(v.rtt_seq, 1000);
    }
}

#[test]
fn no_one_second_floor() {
    let mut r = linux(ms(200));
    assert!(r.linux_vars().is_none());
    r.on_sample(Instant::ZERO, ms(100), 0, 1000);
    assert_eq!(r.raw_rto(), Some(ms(300)));
    assert_eq!(r.rto(), ms(300));
}

#[test]
fn three_sample_vector() {
    let mut r = linux(ms(200));
    r.on_sample(Instant::ZERO, ms(100), 0, 10_000);
    // 150 ms, snd_una 5000 ≤ rtt_seq 10000 (same round): err = 150000 − 100000 = 50000,
    // srtt_us = 850000; mdev += 50000 − (200000 >> 2) = 0. RTO = 106250 + 200000.
    r.on_sample(Instant::from_millis(100), ms(150), 5_000, 10_000);
    assert_eq!(
        vars(&r),
        LinuxVars {
            srtt_us: 850_000,
            mdev_us: 200_000,
            mdev_max_us: 200_000,
            rttvar_us: 200_000,
            rtt_seq: 10_000
        }
    );
    assert_eq!(r.srtt(), Some(us(106_250)));
    assert_eq!(r.rto(), us(306_250));
    // 50 ms, snd_una 12000 passes rtt_seq: err = 50000 − 106250 = −56250, srtt_us = 793750;
    // |err| − mdev = 56250 − 50000 = 6250 > 0 → gain 1/8: mdev += 781 → 200781, a new
    // mdev_max and rttvar. New round: rtt_seq = 20000, mdev_max = rto_min.
    // RTO = (793750 >> 3) + 200781 = 99218 + 200781 = 299999 µs.
    r.on_sample(Instant::from_millis(200), ms(50), 12_000, 20_000);
    assert_eq!(
        vars(&r),
        LinuxVars {
            srtt_us: 793_750,
            mdev_us: 200_781,
            mdev_max_us: 200_000,
            rttvar_us: 200_781,
            rtt_seq: 20_000
        }
    );
    assert_eq!(r.srtt(), Some(Duration::from_nanos(99_218_750)));
    assert_eq!(r.rto(), us(299_999));
}

#[test]
fn rtt_drop_uses_the_small_gain() {
    // First 100 ms (mdev_us 200000), then 10 ms: |err| = 90000 > mdev 50000, so
    // mdev += (90000 − 50000) >> 3 = 5000, not 40000 as RFC 6298's gain would give.
    let mut r = linux(ms(200));
    r.on_sample(Instant::ZERO, ms(100), 0, 1000);
    r.on_sample(Instant::ZERO, ms(10), 0, 1000);
    let v = vars(&r);
    assert_eq!(v.srtt_us, 800_000 - 90_000);
    assert_eq!(v.mdev_us, 205_000);
    assert_eq!(v.rttvar_us, 205_000);
    // Small drop (|err| ≤ mdev): the normal gain, mdev shrinks.
    let mut r = linux(ms(200));
    r.on_sample(Instant::ZERO, ms(100), 0, 1000);
    r.on_sample(Instant::ZERO, ms(80), 0, 1000);
    // err = −20000; 20000 − 50000 = −30000 → mdev = 170000.
    assert_eq!(vars(&r).mdev_us, 170_000);
}

#[test]
fn rttvar_decays_once_per_round_toward_mdev_max() {
    // rto_min 10 ms so the decay is visible; constant 100 ms samples, one per round.
    let mut r = linux(ms(10));
    r.on_sample(Instant::ZERO, ms(100), 0, 1000);
    let want = [
        // (mdev_us, rttvar_us, rto_us)
        (150_000, 200_000, 300_000), // mdev_max (200000) not below rttvar: no decay
        (112_500, 178_125, 278_125), // rttvar −= (200000 − 112500) >> 2
        (84_375, 154_688, 254_688),
        (63_282, 131_837, 231_837),
        (47_462, 110_744, 210_744),
        (35_597, 91_958, 191_958),
    ];
    for (i, &(mdev, rttvar, rto)) in want.iter().enumerate() {
        let i = i as u64 + 1;
        r.on_sample(
            Instant::from_millis(100 * i),
            ms(100),
            1000 * i + 1,
            1000 * (i + 1),
        );
        let v = vars(&r);
        assert_eq!((v.mdev_us, v.rttvar_us), (mdev, rttvar), "round {i}");
        assert_eq!(v.mdev_max_us, 10_000);
        assert_eq!(v.rtt_seq, 1000 * (i + 1));
        assert_eq!(r.rto(), us(rto));
    }
}

#[test]
fn no_decay_within_a_round() {
    let mut r = linux(ms(10));
    r.on_sample(Instant::ZERO, ms(100), 0, 1000);
    for _ in 0..20 {
        // snd_una never passes rtt_seq = 1000.
        r.on_sample(Instant::ZERO, ms(100), 1000, 5000);
    }
    assert_eq!(vars(&r).rttvar_us, 200_000);
    assert_eq!(vars(&r).rtt_seq, 1000);
}

#[test]
fn rttvar_never_below_rto_min() {
    let mut r = linux(ms(200));
    for i in 0..200u64 {
        r.on_sample(Instant::from_millis(i), ms(5), i * 10 + 1, i * 10 + 10);
        assert!(vars(&r).rttvar_us >= 200_000);
    }
    assert_eq!(r.rto(), ms(205));
}

#[test]
fn backoff_and_cap() {
    let mut r = linux(ms(200));
    r.on_sample(Instant::ZERO, ms(100), 0, 1000);
    r.backoff();
    r.backoff();
    assert_eq!(r.rto(), ms(1200));
    r.on_sample(Instant::ZERO, ms(100), 0, 1000);
    assert_eq!(r.rto(), ms(300), "a valid sample resets icsk_backoff");
    for _ in 0..20 {
        r.backoff();
    }
    assert_eq!(r.rto(), ms(120_000));
    let mut r = linux(ms(200));
    r.on_sample(Instant::ZERO, ms(100_000), 0, 1000);
    assert_eq!(r.rto(), ms(120_000), "tcp_bound_rto");
}

#[test]
fn sub_microsecond_and_extreme_samples() {
    let mut r = linux(ms(200));
    r.on_sample(Instant::ZERO, Duration::from_nanos(300), 0, 1000);
    assert_eq!(vars(&r).srtt_us, 8, "1 µs");
    r.on_sample(Instant::ZERO, Duration::MAX, 2000, 3000);
    r.on_sample(Instant::ZERO, Duration::ZERO, 4000, 5000);
    r.on_sample(Instant::MAX, Duration::MAX, u64::MAX, u64::MAX);
    assert!(r.rto() <= ms(120_000));
}

//! Invariants of the RTT estimators under arbitrary samples: no panic or overflow, the
//! RTO within its bounds, Linux's variance term never below rto_min.

use lossrec::config::RttEstimator;
use lossrec::rtt::Rtt;
use lossrec::{Duration, Instant};
use proptest::prelude::*;

fn dur() -> impl Strategy<Value = Duration> {
    prop_oneof![
        (0..10_000_000_000u64).prop_map(Duration::from_nanos),
        any::<u64>().prop_map(Duration::from_nanos),
        Just(Duration::ZERO),
        Just(Duration::MAX),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn estimators_stay_in_bounds(
        linux in any::<bool>(),
        min_ms in 0..5_000u64, extra_ms in 0..200_000u64, init_ms in 0..10_000u64,
        samples in proptest::collection::vec((dur(), 0..3u8, any::<u64>(), any::<u64>()), 0..50),
    ) {
        let kind = if linux { RttEstimator::Linux } else { RttEstimator::Rfc6298 };
        let (min, max) = (Duration::from_millis(min_ms), Duration::from_millis(min_ms + extra_ms));
        let mut r = Rtt::new(kind, Duration::from_millis(init_ms), min, max);
        let mut now = Instant::ZERO;
        for (d, backoffs, una, nxt) in samples {
            now += Duration::from_millis(7);
            r.on_sample(now, d, una, nxt);
            prop_assert_eq!(r.backoff_count(), 0);
            prop_assert!(r.rto() <= max);
            if kind == RttEstimator::Rfc6298 {
                prop_assert!(r.rto() >= min);
            } else {
                let v = r.linux_vars().unwrap();
                prop_assert!(v.rttvar_us >= min.as_micros() as u64);
                prop_assert!(v.srtt_us >= 1);
                prop_assert!(r.rto() >= min.min(max));
            }
            prop_assert!(r.min_rtt().unwrap() <= r.latest().unwrap());
            let mut last = r.rto();
            for _ in 0..backoffs {
                r.backoff();
                prop_assert!(r.rto() >= last && r.rto() <= max);
                last = r.rto();
            }
        }
    }
}

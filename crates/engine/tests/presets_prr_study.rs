//! The presets for the PRR study's arms (seed 003, RFC 6937 §5): one Linux 2.6/3.0 base
//! that differs only in the rate reduction, each with and without Early Retransmit.

use lossrec::config::{CongestionControl, EarlyRetransmit, LossDetection, Reduction, RttEstimator};
use lossrec::{Config, PRESETS};

#[test]
fn arms_differ_only_in_the_reduction() {
    let rh = Config::preset("linux-rh").unwrap();
    assert_eq!(rh.reduction, Reduction::RateHalving);
    assert_eq!(rh.loss_detection, LossDetection::Fack);
    assert!(rh.adaptive_reordering && rh.limited_transmit && !rh.rescue_retransmit);
    assert_eq!(rh.cc, CongestionControl::Cubic);
    assert_eq!(rh.rtt_estimator, RttEstimator::Linux);
    assert_eq!(rh.min_rto.as_millis(), 200);
    assert_eq!(rh.early_retransmit, EarlyRetransmit::Off);
    for (name, red) in [
        ("rfc3517", Reduction::Rfc6675),
        ("prr", Reduction::Prr6937Ssrb),
    ] {
        let c = Config::preset(name).unwrap();
        assert_eq!(c.reduction, red);
        assert_eq!(
            Config {
                preset: "linux-rh",
                reduction: Reduction::RateHalving,
                ..c
            },
            rh
        );
    }
}

/// The `-er` presets add Early Retransmit as Linux 3.6's `tcp_early_retrans=2`.
#[test]
fn er_arms() {
    for base in ["rfc3517", "linux-rh", "prr"] {
        let plain = Config::preset(base).unwrap();
        let er = Config::preset(&format!("{base}-er")).unwrap();
        assert_eq!(er.early_retransmit, EarlyRetransmit::Rfc5827);
        assert!(er.er_delayed && er.er_disable_on_reordering);
        assert_eq!(er.er_rate_cap_percent, 0);
        let back = Config {
            preset: plain.preset,
            early_retransmit: EarlyRetransmit::Off,
            er_delayed: false,
            er_disable_on_reordering: false,
            ..er
        };
        assert_eq!(back, plain);
    }
}

/// `lossrec presets` lists every axis of every preset; each round-trips through `set`.
#[test]
fn every_preset_round_trips_through_set() {
    for p in PRESETS {
        let c = p.config();
        let mut d = Config::rfc();
        for (k, v) in c.axes() {
            d.set(k, &v).unwrap();
        }
        assert_eq!(d.axes(), c.axes(), "{}", p.name);
        assert_eq!(c.axes().len(), lossrec::config::AXES.len());
    }
}

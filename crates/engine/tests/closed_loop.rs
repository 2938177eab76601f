//! The sender and receiver talking over a lossy, reordering, delaying path built in the
//! test: every byte is delivered, in order, under any loss rate below 100% on either
//! direction, and nothing panics (the debug invariants run after every handler).

use lossrec::config::{
    CongestionControl, EarlyRetransmit, LossDetection, Probe, Reduction, RtoAdaptation, RtoTimer,
    SpuriousDetection, SpuriousResponse,
};
use lossrec::{Config, Duration, Instant, ReceiverConfig};
use lossrec_testkit::pair::{transfer, RandomPath as Path};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(120))]

    #[test]
    fn every_byte_is_delivered(
        seed in any::<u64>(),
        data_loss in 0.0f64..0.6,
        ack_loss in 0.0f64..0.6,
        reorder in 0.0f64..0.3,
        segments in 1u64..80,
        sack in any::<bool>(),
        timestamps in any::<bool>(),
        handshake in any::<bool>(),
        delack in any::<bool>(),
        linux in any::<bool>(),
    ) {
        let mut cfg = if linux { Config::linux_classic() } else { Config::rfc() };
        cfg.sack = sack;
        cfg.timestamps = timestamps;
        cfg.handshake = handshake;
        let rcfg = ReceiverConfig {
            delayed_ack: delack.then(|| Duration::from_millis(40)),
            ..ReceiverConfig::default()
        };
        let bytes = segments * u64::from(cfg.mss) - 7;
        let path = Path { data_loss, ack_loss, reorder, delay: Duration::from_millis(20), ack_spike: 0.0 };
        let delivered = transfer(cfg, rcfg, bytes, &path, seed).delivered;
        prop_assert_eq!(delivered, bytes);
    }
}

type Axes = (
    Reduction,
    LossDetection,
    EarlyRetransmit,
    u16,
    CongestionControl,
    Probe,
);

fn axes() -> impl Strategy<Value = Axes> {
    (
        prop::sample::select(Reduction::NAMES.to_vec()),
        prop::sample::select(LossDetection::NAMES.to_vec()),
        prop::sample::select(EarlyRetransmit::NAMES.to_vec()),
        any::<u16>(),
        prop::sample::select(CongestionControl::NAMES.to_vec()),
        prop::sample::select(Probe::NAMES.to_vec()),
    )
        .prop_map(|(r, d, e, bits, cc, p)| {
            (
                r.parse().unwrap(),
                d.parse().unwrap(),
                e.parse().unwrap(),
                bits,
                cc.parse().unwrap(),
                p.parse().unwrap(),
            )
        })
}

/// The timeout axes: RTO timer, spurious detection, response, RTO adaptation.
type TimeoutAxes = (RtoTimer, SpuriousDetection, SpuriousResponse, RtoAdaptation);

fn timeout_axes() -> impl Strategy<Value = TimeoutAxes> {
    (
        prop::sample::select(RtoTimer::NAMES.to_vec()),
        prop::sample::select(SpuriousDetection::NAMES.to_vec()),
        prop::sample::select(SpuriousResponse::NAMES.to_vec()),
        prop::sample::select(RtoAdaptation::NAMES.to_vec()),
    )
        .prop_map(|(t, d, r, a)| {
            (
                t.parse().unwrap(),
                d.parse().unwrap(),
                r.parse().unwrap(),
                a.parse().unwrap(),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// Every probe × detection × reduction × early-retransmit × RTO timer × spurious
    /// detection × response × RTO adaptation combination (with random
    /// mitigations, adaptive reordering, rescue, congestion control, one or two draft
    /// probes, RACK's Linux bits) delivers every byte under random loss and reordering;
    /// the engine's debug invariants (cwnd ≥ 1 MSS, pipe recount, PRR's prr_out within its
    /// allowance, the time-order links, the deadline rule: exactly one deadline armed
    /// while data is outstanding, a PTO only when probing, a reorder timer only with
    /// RACK) hold throughout.
    #[test]
    fn every_axis_combination_delivers(
        seed in any::<u64>(),
        data_loss in 0.0f64..0.5,
        ack_loss in 0.0f64..0.4,
        reorder in 0.0f64..0.3,
        segments in 1u64..120,
        ack_spike in prop_oneof![Just(0.0), 0.0f64..0.1],
        (reduction, detection, er, bits, cc, probe) in axes(),
        (rto_timer, spurious, response, adaptation) in timeout_axes(),
        rrthresh in 1u32..8,
        sack in prop::bool::weighted(0.8),
        timestamps in any::<bool>(),
        delack in any::<bool>(),
    ) {
        let mut cfg = Config::rfc();
        cfg.reduction = reduction;
        cfg.loss_detection = detection;
        cfg.early_retransmit = er;
        cfg.er_delayed = bits & 1 != 0;
        cfg.er_disable_on_reordering = bits & 2 != 0;
        cfg.er_rate_cap_percent = if bits & 4 != 0 { 30 } else { 0 };
        cfg.adaptive_reordering = bits & 8 != 0;
        cfg.rescue_retransmit = bits & 16 != 0;
        cfg.limited_transmit = bits & 32 != 0;
        cfg.cc = cc;
        cfg.sack = sack;
        cfg.timestamps = timestamps;
        cfg.handshake = bits & 64 != 0;
        cfg.probe = probe;
        cfg.tlp_max_probes = if bits & 128 != 0 { 2 } else { 1 };
        cfg.rack_static_reo_wnd = bits & 256 != 0;
        cfg.rack_no_dupthresh = bits & 512 != 0;
        cfg.tlp_max_ack_delay = Duration::from_millis(if bits & 1024 != 0 { 0 } else { 200 });
        cfg.tlp_in_recovery = bits & 4096 != 0;
        cfg.rto_timer = rto_timer;
        cfg.rrthresh = rrthresh;
        cfg.spurious_detection = spurious;
        cfg.spurious_response = response;
        cfg.rto_adaptation = adaptation;
        if bits & 2048 != 0 {
            cfg.rtt_estimator = "linux".parse().unwrap();
            cfg.min_rto = Duration::from_millis(200);
        }
        let rcfg = ReceiverConfig {
            delayed_ack: delack.then(|| Duration::from_millis(40)),
            ..ReceiverConfig::default()
        };
        let bytes = segments * u64::from(cfg.mss) - 7;
        let path = Path { data_loss, ack_loss, reorder, delay: Duration::from_millis(20), ack_spike };
        let delivered = transfer(cfg, rcfg, bytes, &path, seed).delivered;
        prop_assert_eq!(delivered, bytes);
    }
}

/// Every preset delivers a lossy transfer.
#[test]
fn every_preset_delivers() {
    for p in lossrec::PRESETS {
        let path = Path {
            data_loss: 0.1,
            ack_loss: 0.05,
            reorder: 0.1,
            delay: Duration::from_millis(20),
            ack_spike: 0.02,
        };
        for seed in 0..20 {
            let delivered =
                transfer(p.config(), ReceiverConfig::default(), 50_000, &path, seed).delivered;
            assert_eq!(delivered, 50_000, "{}", p.name);
        }
    }
}

/// A clean path delivers a 10-segment flow in one round trip after the handshake.
#[test]
fn clean_path_takes_two_round_trips() {
    let path = Path {
        data_loss: 0.0,
        ack_loss: 0.0,
        reorder: 0.0,
        delay: Duration::from_millis(50),
        ack_spike: 0.0,
    };
    let o = transfer(Config::rfc(), ReceiverConfig::default(), 14_480, &path, 1);
    let (delivered, t) = (o.delivered, o.finish);
    assert_eq!(delivered, 14_480);
    // SYN/SYN-ACK (100 ms) + data and its ACK (100 ms).
    assert_eq!(t, Instant::from_millis(200));
}

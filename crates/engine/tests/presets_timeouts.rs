//! The presets for the timeout studies' arms: seed 002's Linux 3.17 baseline, RTOR and TLP
//! arms, and seed 004's Reno-SACK, NewReno-SACK and FACK, each also with Eifel.

use lossrec::config::{
    EarlyRetransmit, LossDetection, Probe, Reduction, RtoAdaptation, RtoTimer, SpuriousDetection,
    SpuriousResponse,
};
use lossrec::Config;

/// Seed 002: one Linux 3.17 base (FACK, PRR, delayed ER, F-RTO and undo); RTOR differs
/// only in the RTO timer, TLP only in `tcp_early_retrans=3`.
#[test]
fn seed002_arms() {
    let base = Config::preset("linux-3.17").unwrap();
    assert_eq!(base.loss_detection, LossDetection::Fack);
    assert_eq!(base.reduction, Reduction::Prr6937Ssrb);
    assert_eq!(base.probe, Probe::None);
    assert_eq!(
        (base.early_retransmit, base.er_delayed),
        (EarlyRetransmit::Rfc5827, true)
    );
    assert_eq!(base.spurious_detection, SpuriousDetection::Linux);
    assert_eq!(base.spurious_response, SpuriousResponse::FullUndo);
    assert_eq!(
        (base.rto_timer, base.min_rto.as_millis()),
        (RtoTimer::Rfc6298, 200)
    );
    let rtor = Config::preset("linux-3.17-rtor").unwrap();
    assert_eq!((rtor.rto_timer, rtor.rrthresh), (RtoTimer::Restart, 4));
    assert_eq!(
        Config {
            preset: "linux-3.17",
            rto_timer: RtoTimer::Rfc6298,
            ..rtor
        },
        base
    );
    let tlp = Config::preset("linux-3.17-tlp").unwrap();
    assert_eq!((tlp.probe, tlp.tlp_max_probes), (Probe::TlpDraft, 1));
    assert_eq!(
        Config {
            preset: "linux-3.17",
            probe: Probe::None,
            early_retransmit: EarlyRetransmit::Rfc5827,
            ..tlp
        },
        base
    );
}

/// Seed 004: three loss-recovery variants on the RFC base; each `-eifel` arm adds Eifel
/// detection with full undo and nothing else.
#[test]
fn seed004_arms() {
    for (name, detection) in [
        ("reno-sack", LossDetection::DupThresh3517),
        ("newreno-sack", LossDetection::DupThresh),
        ("fack", LossDetection::Fack),
    ] {
        let std = Config::preset(name).unwrap();
        assert_eq!(std.loss_detection, detection);
        assert_eq!(std.spurious_detection, SpuriousDetection::None);
        assert!(std.timestamps && std.sack);
        let eifel = Config::preset(&format!("{name}-eifel")).unwrap();
        assert_eq!(eifel.spurious_detection, SpuriousDetection::Eifel);
        assert_eq!(eifel.spurious_response, SpuriousResponse::FullUndo);
        assert_eq!(eifel.rto_adaptation, RtoAdaptation::Std);
        assert_eq!(
            Config {
                preset: std.preset,
                spurious_detection: SpuriousDetection::None,
                spurious_response: SpuriousResponse::None,
                ..eifel
            },
            std
        );
    }
    assert_eq!(Config::fack().reduction, Reduction::RateHalving);
}

/// The `linux` preset undoes as Linux does: DSACK, timestamps and F-RTO.
#[test]
fn linux_preset_undo() {
    let c = Config::linux();
    assert_eq!(c.spurious_detection, SpuriousDetection::Linux);
    assert_eq!(c.spurious_response, SpuriousResponse::FullUndo);
}

/// The `linux` preset is Linux 6.12 LTS where kernels differ in a rule the upstream
/// packetdrill suite checks: HyStart starts a round only once cwnd reaches
/// `hystart_low_window` (5.16–6.12, commit 4e1fddc98d25; 6.13 starts one at any cwnd,
/// `hystart_rounds = always`), and PRR's SafeACK bonus (`tcp_cwnd_reduction`, 5.19+).
#[test]
fn linux_preset_is_linux_6_12() {
    use lossrec::config::HyStartRounds;
    let l = Config::linux();
    assert_eq!(l.hystart_rounds, HyStartRounds::LowWindow);
    assert_eq!(l.reduction, lossrec::config::Reduction::PrrLinux);
}

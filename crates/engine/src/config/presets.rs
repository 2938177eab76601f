//! Named presets: bundles of axis values that reproduce the seeds' arms.

use super::*;

/// A named bundle of axis values.
pub struct Preset {
    /// The preset's name, as scenario files and `--preset` spell it.
    pub name: &'static str,
    /// One line saying which stack or study arm it reproduces.
    pub summary: &'static str,
    build: fn() -> Config,
}

impl Preset {
    /// A fresh [`Config`] with this preset's values.
    pub fn config(&self) -> Config {
        (self.build)()
    }
}

/// Every preset, in the order `lossrec presets` lists them.
pub const PRESETS: &[Preset] = &[
    Preset {
        name: "rfc",
        summary: "RFC 6675 SACK recovery, Reno, RFC 6298 RTO with a 1 s minimum",
        build: Config::rfc,
    },
    Preset {
        name: "linux-classic",
        summary: "dupthresh 3, CUBIC, Linux RTT estimator, 200 ms min RTO; no TLP or RACK",
        build: Config::linux_classic,
    },
    Preset {
        name: "rfc3517",
        summary: "the PRR study's RFC 3517 arm: linux-rh with RFC 3517 rate reduction \
                  (cwnd = ssthresh, send while cwnd - pipe >= 1 segment)",
        build: Config::rfc3517,
    },
    Preset {
        name: "linux-rh",
        summary: "Linux 2.6/3.0 fast recovery: rate-halving, FACK, adaptive reordering, \
                  CUBIC, Linux RTT estimator, 200 ms min RTO, no rescue retransmission",
        build: Config::linux_rh,
    },
    Preset {
        name: "prr",
        summary: "linux-rh with PRR-SSRB (RFC 6937), as Linux 3.2 shipped it",
        build: Config::prr,
    },
    Preset {
        name: "rfc3517-er",
        summary: "rfc3517 with Early Retransmit as Linux 3.6 tcp_early_retrans=2 \
                  (segment-based with SACK, delayed RTT/4, off after reordering)",
        build: Config::rfc3517_er,
    },
    Preset {
        name: "linux-rh-er",
        summary: "linux-rh with Early Retransmit as Linux 3.6 tcp_early_retrans=2",
        build: Config::linux_rh_er,
    },
    Preset {
        name: "prr-er",
        summary: "prr with Early Retransmit as Linux 3.6 tcp_early_retrans=2",
        build: Config::prr_er,
    },
    Preset {
        name: "tlp-draft",
        summary: "the TLP draft's experiment (seed 000): Linux 2013 (prr-er: FACK, PRR, \
                  CUBIC) with tcp_early_retrans=3 (delayed ER with the draft's §4.2 \
                  enhancement) and TLP draft-01, one probe, WCDelAckT 200 ms; \
                  set probe=none for the baseline arm",
        build: Config::tlp_draft,
    },
    Preset {
        name: "rack-tlp",
        summary: "RFC 8985 RACK-TLP with RFC 9937 PRR and CUBIC on the RFC 6298 RTO \
                  (1 s minimum)",
        build: Config::rack_tlp,
    },
    Preset {
        name: "linux",
        summary: "modern Linux: rack-linux, tlp-linux, prr-linux, CUBIC, Linux RTT \
                  estimator, 200 ms min RTO, adaptive reordering, no early retransmit; \
                  model the receiver with a 40 ms minimum delayed ACK (a scenario setting)",
        build: Config::linux,
    },
    Preset {
        name: "linux-3.17",
        summary: "seed 002's baseline: Linux 3.17 (FACK, adaptive reordering, PRR, CUBIC, \
                  Linux RTT estimator, 200 ms min RTO, F-RTO and DSACK/timestamp undo) \
                  with TLP off and delayed early retransmit (tcp_early_retrans=2)",
        build: Config::linux_3_17,
    },
    Preset {
        name: "linux-3.17-rtor",
        summary: "seed 002's RTOR arm: linux-3.17 with RTO Restart (RFC 7765, rrthresh 4)",
        build: Config::linux_3_17_rtor,
    },
    Preset {
        name: "linux-3.17-tlp",
        summary: "seed 002's TLP arm: linux-3.17 with tcp_early_retrans=3 (TLP with that \
                  kernel's draft-era PTO rule, delayed ER with the draft's enhancement)",
        build: Config::linux_3_17_tlp,
    },
    Preset {
        name: "linux-4.4-norack",
        summary: "Linux 4.4-4.10 with RACK off (tcp_recovery=0; seed 001 slide 6's \
                  'without RACK'): linux-3.17-tlp's FACK, PRR, TLP and delayed ER, without \
                  tcp_mark_lost_retrans (removed in 4.4)",
        build: Config::linux_4_4_norack,
    },
    Preset {
        name: "reno-sack",
        summary: "seed 004's Reno-SACK (ns-2 era): RFC 3517 SACK recovery (no rescue \
                  retransmission) that ends on the first ACK of new data as Reno's does, Reno, \
                  RFC 6298 RTO with a 1 s minimum, no spurious-timeout detection",
        build: Config::reno_sack,
    },
    Preset {
        name: "newreno-sack",
        summary: "seed 004's NewReno-SACK: RFC 6675 SACK recovery with the NewReno-like \
                  rescue retransmission, Reno, RFC 6298 RTO with a 1 s minimum",
        build: Config::newreno_sack,
    },
    Preset {
        name: "fack",
        summary: "seed 004's FACK: FACK loss detection with rate-halving, Reno, RFC 6298 RTO \
                  with a 1 s minimum",
        build: Config::fack,
    },
    Preset {
        name: "reno-sack-eifel",
        summary: "reno-sack with Eifel detection (RFC 3522) and the seed's recommended \
                  response: full undo, standard RTO",
        build: Config::reno_sack_eifel,
    },
    Preset {
        name: "newreno-sack-eifel",
        summary: "newreno-sack with Eifel detection and full undo",
        build: Config::newreno_sack_eifel,
    },
    Preset {
        name: "fack-eifel",
        summary: "fack with Eifel detection and full undo",
        build: Config::fack_eifel,
    },
    Preset {
        name: "linux-hardened",
        summary: "linux with every defence beyond it on (hardened: dsack_proof, \
                  dupack_budget, ack_division_guard, optack_defence=skip-segment); \
                  the preset to embed",
        build: Config::linux_hardened,
    },
];

impl Config {
    /// RFC 6675 + Reno + RFC 6298 with a 1 s minimum RTO.
    pub fn rfc() -> Config {
        Config {
            preset: "rfc",
            controller: None,
            flavour: Flavour::Rfc,
            loss_detection: LossDetection::DupThresh,
            dupthresh: 3,
            limited_transmit: true,
            adaptive_reordering: false,
            rescue_retransmit: true,
            probe: Probe::None,
            tlp_max_probes: 1,
            tlp_max_ack_delay: Duration::from_millis(200),
            tlp_in_recovery: false,
            rack_static_reo_wnd: false,
            rack_no_dupthresh: false,
            fack_lost_retrans: true,
            early_retransmit: EarlyRetransmit::Off,
            er_delayed: false,
            er_disable_on_reordering: false,
            er_rate_cap_percent: 0,
            reduction: Reduction::Rfc6675,
            recovery_exit: RecoveryExit::RecoveryPoint,
            rtt_estimator: RttEstimator::Rfc6298,
            rto_timer: RtoTimer::Rfc6298,
            rrthresh: 4,
            clock_granularity: Duration::from_millis(1),
            min_rto: Duration::from_secs(1),
            timer_hz: 0,
            max_rto: Duration::from_secs(60),
            initial_rto: Duration::from_secs(1),
            spurious_detection: SpuriousDetection::None,
            // The defences beyond the stacks are off in every stack's preset; `hardened`
            // turns them all on (`linux-hardened`).
            dsack_proof: false,
            spurious_response: SpuriousResponse::None,
            rto_adaptation: RtoAdaptation::Std,
            cc: CongestionControl::Reno,
            mss: 1448,
            initial_cwnd: 10,
            slow_start_after_idle: false,
            hystart: HyStart::Off,
            hystart_rounds: HyStartRounds::Always,
            min_tso_segs: 2,
            pacing: Pacing::Off,
            pacing_ss_ratio: crate::pacing::SS_RATIO,
            pacing_ca_ratio: crate::pacing::CA_RATIO,
            handshake: true,
            sack: true,
            timestamps: true,
            // ECN is optional (RFC 3168); the seed studies ran without it.
            ecn: Ecn::Off,
            optack_defence: OptAckDefence::Off,
            optack_skip_interval: 64,
            dupack_budget: false,
            ack_division_guard: false,
            hardened: false,
        }
    }

    /// Linux before TLP and RACK: dupthresh 3, CUBIC, its estimator, 200 ms min RTO.
    pub fn linux_classic() -> Config {
        Config {
            preset: "linux-classic",
            flavour: Flavour::Linux,
            // Linux never had RFC 6675's rescue retransmission (NextSeg rule 4).
            rescue_retransmit: false,
            rtt_estimator: RttEstimator::Linux,
            cc: CongestionControl::Cubic,
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(120),
            ..Config::rfc()
        }
    }

    /// Linux 2.6/3.0 fast recovery, the baseline of the PRR study (seed 003, RFC 6937 §5):
    /// rate-halving with FACK threshold recovery and adaptive reordering on top of
    /// `linux-classic`. Linux never had RFC 6675's rescue retransmission.
    pub fn linux_rh() -> Config {
        Config {
            preset: "linux-rh",
            loss_detection: LossDetection::Fack,
            adaptive_reordering: true,
            rescue_retransmit: false,
            reduction: Reduction::RateHalving,
            ..Config::linux_classic()
        }
    }

    /// The RFC 3517 arm of the PRR study: the same Linux base with RFC 3517 rate
    /// reduction. (For RFC 3517's own loss rules use `loss_detection=dupthresh-3517`.)
    pub fn rfc3517() -> Config {
        Config {
            preset: "rfc3517",
            reduction: Reduction::Rfc6675,
            ..Config::linux_rh()
        }
    }

    /// The PRR arm: the same Linux base with PRR-SSRB (RFC 6937), Linux 3.2's default.
    pub fn prr() -> Config {
        Config {
            preset: "prr",
            reduction: Reduction::Prr6937Ssrb,
            ..Config::linux_rh()
        }
    }

    /// Early Retransmit as Linux 3.6 ran it with `tcp_early_retrans=2` (the seed's ER arm
    /// with both mitigations): segment-based with SACK, delayed by RTT/4, disabled after
    /// reordering.
    fn with_er(self, preset: &'static str) -> Config {
        Config {
            preset,
            early_retransmit: EarlyRetransmit::Rfc5827,
            er_delayed: true,
            er_disable_on_reordering: true,
            ..self
        }
    }
    /// RFC 3517 recovery with RFC 5827 early retransmit (the ER study's arm).
    pub fn rfc3517_er() -> Config {
        Config::rfc3517().with_er("rfc3517-er")
    }
    /// Linux rate-halving with early retransmit (the ER study's arm).
    pub fn linux_rh_er() -> Config {
        Config::linux_rh().with_er("linux-rh-er")
    }
    /// PRR with early retransmit (the ER study's arm).
    pub fn prr_er() -> Config {
        Config::prr().with_er("prr-er")
    }

    /// The TLP draft's experiment (seed 000 §5): Linux 3.10-era fast recovery (FACK,
    /// adaptive reordering, PRR, CUBIC) with `tcp_early_retrans=3` — delayed early
    /// retransmit, including the draft's §4.2 enhancement — and TLP draft-01 with one probe.
    pub fn tlp_draft() -> Config {
        Config {
            preset: "tlp-draft",
            early_retransmit: EarlyRetransmit::ErTlp,
            probe: Probe::TlpDraft,
            ..Config::prr_er()
        }
    }

    /// RFC 8985 RACK-TLP with RFC 9937 PRR and CUBIC.
    pub fn rack_tlp() -> Config {
        Config {
            preset: "rack-tlp",
            loss_detection: LossDetection::Rack,
            probe: Probe::Tlp,
            reduction: Reduction::Prr,
            cc: CongestionControl::Cubic,
            rescue_retransmit: false,
            ..Config::rfc()
        }
    }

    /// Modern Linux, as 6.12 LTS runs it where kernels differ (HyStart's rounds): RACK and TLP as Linux runs them, its PRR, CUBIC, its RTT
    /// estimator and 200 ms minimum RTO, adaptive reordering; no early retransmit (removed
    /// in 4.11). The 40 ms minimum delayed ACK of a Linux receiver belongs to the scenario.
    pub fn linux() -> Config {
        Config {
            preset: "linux",
            loss_detection: LossDetection::RackLinux,
            probe: Probe::TlpLinux,
            reduction: Reduction::PrrLinux,
            adaptive_reordering: true,
            rescue_retransmit: false,
            spurious_detection: SpuriousDetection::Linux,
            spurious_response: SpuriousResponse::FullUndo,
            // The kernel's defaults. The seed-study presets keep these off so that
            // their reproductions stay as published.
            slow_start_after_idle: true,
            hystart: HyStart::On,
            // Linux 6.12 LTS's round rule (5.16–6.12); 6.13+ is `Always`.
            hystart_rounds: HyStartRounds::LowWindow,
            cc: CongestionControl::CubicLinux,
            // `tcp_ecn=2`: ECN when the peer asks for it.
            ecn: Ecn::Accept,
            // The kernel this project measures against (`uname -r` 6.18, CONFIG_HZ_250).
            timer_hz: 250,
            ..Config::linux_classic()
        }
    }

    /// `linux` with every defence beyond Linux on (`hardened`): what an embedder should
    /// start from. Honest peers see Linux's behaviour, but for the optimistic-ACK check's
    /// held segments (`detect::optack`).
    pub fn linux_hardened() -> Config {
        Config {
            preset: "linux-hardened",
            ..Config::linux().hardened()
        }
    }

    /// Seed 002's baseline: Linux 3.17 as the RTO Restart study ran it, with
    /// `tcp_early_retrans=2` (TLP off, delayed early retransmit). Linux 3.17 had FACK
    /// (`tcp_fack`=1, removed in 4.15) with adaptive reordering, PRR as RFC 6937 (3.2+),
    /// CUBIC, its RTT estimator with a 200 ms minimum RTO, the rewritten F-RTO
    /// (`tcp_frto`=2, 3.10+) and DSACK/timestamp undo; no RACK (4.4+). Its RTO re-arming
    /// after an early-retransmit or probe timer is anchored at the head, as here.
    pub fn linux_3_17() -> Config {
        Config {
            preset: "linux-3.17",
            spurious_detection: SpuriousDetection::Linux,
            spurious_response: SpuriousResponse::FullUndo,
            ..Config::prr_er()
        }
    }

    /// Seed 002's RTOR arm: `linux-3.17` with RTO Restart (RFC 7765, rrthresh 4).
    pub fn linux_3_17_rtor() -> Config {
        Config {
            preset: "linux-3.17-rtor",
            rto_timer: RtoTimer::Restart,
            ..Config::linux_3_17()
        }
    }

    /// Seed 002's TLP arm: `linux-3.17` with `tcp_early_retrans=3`: TLP as Linux 3.10-3.x
    /// ran it — the draft's PTO (max(2·SRTT, 10 ms), or max(2·SRTT, 1.5·SRTT + 200 ms)
    /// with one segment out; the seed's description), one probe per episode — and
    /// delayed early retransmit with the draft's §4.2 enhancement.
    pub fn linux_3_17_tlp() -> Config {
        Config {
            preset: "linux-3.17-tlp",
            early_retransmit: EarlyRetransmit::ErTlp,
            probe: Probe::TlpDraft,
            tlp_max_probes: 1,
            ..Config::linux_3_17()
        }
    }

    /// Linux 4.4-4.10 with `tcp_recovery` = 0 (seed 001 slide 6's "without RACK" arm):
    /// FACK (until 4.15), PRR, TLP and delayed early retransmit (`tcp_early_retrans` = 3
    /// until 4.11), CUBIC, F-RTO and undo — and no `tcp_mark_lost_retrans`, which 4.4
    /// removed in favour of RACK, so a lost retransmission costs an RTO.
    pub fn linux_4_4_norack() -> Config {
        Config {
            preset: "linux-4.4-norack",
            fack_lost_retrans: false,
            ..Config::linux_3_17_tlp()
        }
    }

    /// Seed 004's Reno-SACK (ns-2's Reno with SACK): RFC 3517 SACK loss recovery (IsLost
    /// with DupThresh·SMSS bytes, no rescue retransmission) that ends, as Reno's, on the
    /// first ACK of new data (RFC 5681 §3.2 step 6) — unlike NewReno-SACK, which stays
    /// until the recovery point; Reno, the RFC 6298 estimator with a 1 s minimum RTO;
    /// timestamps on so the `-eifel` arm can detect.
    pub fn reno_sack() -> Config {
        Config {
            preset: "reno-sack",
            loss_detection: LossDetection::DupThresh3517,
            rescue_retransmit: false,
            recovery_exit: RecoveryExit::FirstNewAck,
            ..Config::rfc()
        }
    }

    /// Seed 004's NewReno-SACK: RFC 6675 loss recovery, whose rescue retransmission
    /// carries NewReno's partial-ACK repair over to SACK (RFC 6675 §4 rule 4).
    pub fn newreno_sack() -> Config {
        Config {
            preset: "newreno-sack",
            ..Config::rfc()
        }
    }

    /// Seed 004's FACK (Mathis & Mahdavi, ns-2's `Fack` agent): FACK loss detection with
    /// rate-halving, Reno.
    pub fn fack() -> Config {
        Config {
            preset: "fack",
            loss_detection: LossDetection::Fack,
            reduction: Reduction::RateHalving,
            rescue_retransmit: false,
            ..Config::rfc()
        }
    }

    /// Eifel detection (RFC 3522) with seed 004's conclusion for the response: "full
    /// restore of congestion control after a spurious timeout is ok" (slide 15); the RTO
    /// adaptations trade throughput for fewer spurious timeouts and stay `std`.
    fn with_eifel(self, preset: &'static str) -> Config {
        Config {
            preset,
            spurious_detection: SpuriousDetection::Eifel,
            spurious_response: SpuriousResponse::FullUndo,
            ..self
        }
    }
    /// Reno with SACK and Eifel detection (RFC 3522) with full undo.
    pub fn reno_sack_eifel() -> Config {
        Config::reno_sack().with_eifel("reno-sack-eifel")
    }
    /// NewReno with SACK and Eifel detection (RFC 3522) with full undo.
    pub fn newreno_sack_eifel() -> Config {
        Config::newreno_sack().with_eifel("newreno-sack-eifel")
    }
    /// FACK with Eifel detection (RFC 3522) with full undo.
    pub fn fack_eifel() -> Config {
        Config::fack().with_eifel("fack-eifel")
    }

    /// The preset with this name, or an error listing the valid names.
    pub fn preset(name: &str) -> Result<Config, ConfigError> {
        PRESETS
            .iter()
            .find(|p| p.name == name)
            .map(Preset::config)
            .ok_or_else(|| ConfigError::UnknownPreset {
                name: name.into(),
                valid: PRESETS
                    .iter()
                    .map(|p| p.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}

//! Named presets: bundles of axis values that reproduce the seeds' arms.

use super::*;

/// A named bundle of axis values.
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    build: fn() -> Config,
}

impl Preset {
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
];

impl Config {
    /// RFC 6675 + Reno + RFC 6298 with a 1 s minimum RTO.
    pub fn rfc() -> Config {
        Config {
            preset: "rfc",
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
            early_retransmit: EarlyRetransmit::Off,
            er_delayed: false,
            er_disable_on_reordering: false,
            er_rate_cap_percent: 0,
            reduction: Reduction::Rfc6675,
            rtt_estimator: RttEstimator::Rfc6298,
            rto_timer: RtoTimer::Rfc6298,
            min_rto: Duration::from_secs(1),
            max_rto: Duration::from_secs(60),
            initial_rto: Duration::from_secs(1),
            spurious_detection: SpuriousDetection::None,
            spurious_response: SpuriousResponse::None,
            cc: CongestionControl::Reno,
            mss: 1448,
            initial_cwnd: 10,
            handshake: true,
            sack: true,
            timestamps: true,
        }
    }

    /// Linux before TLP and RACK: dupthresh 3, CUBIC, its estimator, 200 ms min RTO.
    pub fn linux_classic() -> Config {
        Config {
            preset: "linux-classic",
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
    pub fn rfc3517_er() -> Config {
        Config::rfc3517().with_er("rfc3517-er")
    }
    pub fn linux_rh_er() -> Config {
        Config::linux_rh().with_er("linux-rh-er")
    }
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

    /// Modern Linux (5.x/6.x): RACK and TLP as Linux runs them, its PRR, CUBIC, its RTT
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
            ..Config::linux_classic()
        }
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

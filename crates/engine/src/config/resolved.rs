//! The axes as the sender runs them: data-carrying enums resolved once from a
//! [`Config`], after the handshake has settled which options both ends
//! agreed (RFC 2018 SACK, RFC 7323 timestamps).
//!
//! `Config` is what the user set, one flat key per setting, so keys can be set in any
//! order. Here each algorithm's options live in its own variant (`Rack { reo_wnd, .. }`,
//! `Restart { rrthresh }`, `On { delayed, .. }`): an option that its algorithm does not
//! use cannot be read, and what negotiation ruled out is resolved away — RACK and TLP need
//! SACK (RFC 8985 §4; without it the sender is NewReno), Eifel needs timestamps, DSACK
//! detection needs SACK (RFC 3522 §2, RFC 3708 §2).

use core::time::Duration;

pub use crate::detect::rack::Variant as RackVariant;

pub use super::rules::FlavourRules;
pub use super::shell::ShellSettings;
use super::{Config, Flavour, RecoveryExit, RtoAdaptation, SpuriousResponse};

/// Every algorithm choice the sender matches on, with its options.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Algorithms {
    /// How losses are found before a timeout (`loss_detection`; NewReno without SACK).
    pub loss_detection: Detection,
    /// Tail loss probing (`probe`; none without SACK).
    pub probe: Probing,
    /// Early Retransmit (`early_retransmit`, RFC 5827).
    pub early_retransmit: ErMode,
    /// How the retransmission timer is re-armed (`rto_timer`).
    pub rto_timer: RtoRearm,
    /// The spurious-timeout detector that runs (`spurious_detection`, minus what the
    /// handshake ruled out).
    pub spurious_detection: SpuriousDetector,
    /// The configured spurious-timeout detector needs an option the connection did not
    /// negotiate, so it runs as `None` (counted as `TCPSpuriousDetectionUnavailable`).
    pub detection_unavailable: bool,
    /// DSACKs count toward undo only for retransmissions whose original is shown to have
    /// arrived (`dsack_proof`; `scoreboard::proof`).
    pub dsack_proof: bool,
    /// The optimistic-ACK defence (`optack_defence`; `detect::optack`).
    pub optack: OptAck,
    /// Without SACK, duplicates beyond what the peer can have sent count nothing
    /// (`dupack_budget`; `detect::ack_budget`, RFC 9937 §6's RecoverFS per round).
    pub dupack_budget: bool,
    /// Without SACK, only an answered retransmission fills the hole
    /// (`ack_division_guard`; `sender::reno`).
    pub ack_division_guard: bool,
    /// DupThresh (RFC 5681 §3.2, RFC 6675 §2), the initial reordering degree.
    pub dupthresh: u32,
    /// Linux's adaptive reordering degree (`tp->reordering`), raised from SACKs.
    pub adaptive_reordering: bool,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// RFC 6675 NextSeg rule 4, the rescue retransmission.
    pub rescue_retransmit: bool,
    /// When fast recovery ends (RFC 6582 §3.2 step 3, or RFC 5681's first new ACK).
    pub recovery_exit: RecoveryExit,
    /// What a spurious verdict restores (`rto::undo`).
    pub spurious_response: SpuriousResponse,
    /// What a spurious timeout does to the RTO (seed 004).
    pub rto_adaptation: RtoAdaptation,
    /// Behaviour only Linux has, by name (from `flavour`).
    pub rules: FlavourRules,
    /// What the connection shell reads, resolved once.
    pub shell: ShellSettings,
}

/// The optimistic-ACK defence (`optack_defence`), with its options (`detect::optack`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OptAck {
    /// No defence: every new segment is sent in order.
    Off,
    /// Savage et al. §4.3's randomly skipped segment.
    SkipSegment {
        /// Mean new segments between two held-back ones.
        interval: u32,
    },
}

/// How losses are detected before a timeout (`loss_detection`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Detection {
    /// RFC 6675 §4 IsLost (more than (DupThresh − 1)·SMSS SACKed above), or RFC 3517's
    /// rule; NewReno's partial ACKs without SACK (RFC 6582).
    DupThresh {
        /// RFC 6675's or RFC 3517's IsLost.
        rule: DupThreshRule,
    },
    /// FACK threshold recovery (TLP draft §2.2; Linux before 4.15 with `tcp_fack`).
    Fack {
        /// Lost retransmissions are found from SACKs above the SND.NXT they were sent at
        /// (Linux 2.6.25–4.3 `tcp_mark_lost_retrans`; Linux flavour only).
        lost_retrans: bool,
    },
    /// RACK (RFC 8985 §6), as the RFC writes it or as Linux runs it.
    Rack {
        /// RFC 8985 as written or Linux `tcp_rack_detect_loss`.
        variant: RackVariant,
        /// RFC 8985 §6.2 step 4: reo_wnd grows on DSACKs, or stays at its minimum
        /// (Linux `tcp_recovery` bit 0x2, `rack_static_reo_wnd`).
        reo_wnd: ReoWnd,
        /// reo_wnd is 0 before reordering was seen once DupThresh segments are SACKed
        /// or in recovery (RFC 8985 §6.2 step 4); off with Linux's `TCP_RACK_NO_DUPTHRESH`
        /// (`rack_no_dupthresh`).
        dupthresh_shortcut: bool,
    },
}

/// Which duplicate-threshold rule decides IsLost.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DupThreshRule {
    /// RFC 6675: more than (DupThresh − 1)·SMSS SACKed bytes, or DupThresh segments.
    Rfc6675,
    /// RFC 3517: DupThresh·SMSS SACKed bytes; only DupThresh duplicate ACKs start recovery.
    Rfc3517,
}

/// Whether RACK's reordering window adapts to DSACKs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReoWnd {
    /// RFC 8985 §6.2 step 4: reo_wnd_mult grows per DSACK round and persists 16 recoveries.
    Adaptive,
    /// Always min_RTT/4 (Linux `tcp_recovery` bit 0x2).
    Static,
}

/// Tail loss probing (`probe`), with the options of each kind.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Probing {
    /// No probe: a tail loss waits for the RTO.
    None,
    /// draft-dukkipati-tcpm-tcp-loss-probe-01 (seed 000).
    TlpDraft {
        /// Consecutive probes per tail (§2.1 (2c): one or two).
        max_probes: u32,
        /// WCDelAckT, added to the PTO with one segment out (§2.1).
        wc_del_ack_t: Duration,
        /// Probe in fast recovery too (seed 001 slide 18).
        in_recovery: bool,
    },
    /// RFC 8985 §7.
    Tlp {
        /// TLP.max_ack_delay, added to the PTO with one segment out (§7.2).
        max_ack_delay: Duration,
        /// Probe in fast recovery too (seed 001 slide 18; RFC 8985 §7.2 does not).
        in_recovery: bool,
    },
    /// Linux's TLP (`tcp_schedule_loss_probe`): the one-segment term is `rto_min`.
    TlpLinux {
        /// Probe in fast recovery too (seed 001 slide 18; Linux does not).
        in_recovery: bool,
    },
}

/// Early Retransmit (RFC 5827), with its mitigations when on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErMode {
    /// No early retransmit: fast retransmit needs DupThresh duplicate ACKs.
    Off,
    /// RFC 5827 §3: lower the duplicate threshold when fewer than four segments are out.
    On {
        /// Counting in segments or bytes, and the TLP draft's enhancement.
        rule: ErRule,
        /// RFC 5827 App. A.3: wait max(SRTT/4, 2 ms) before the early retransmit.
        delayed: bool,
        /// RFC 5827 App. A.1: no early retransmit once reordering was detected.
        disable_on_reordering: bool,
        /// RFC 5827 App. A.2: at most this percentage of data segments (0: no cap).
        rate_cap_percent: u32,
    },
}

/// Which ER_thresh rule an early retransmit follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErRule {
    /// RFC 5827 §3.2, segment-based.
    Segments,
    /// RFC 5827 §3.1, byte-based.
    Bytes,
    /// Segment-based plus the TLP draft §4.2 enhancement (three out, the last SACKed).
    SegmentsTlp,
}

/// How the retransmission timer is re-armed on an ACK of new data (`rto_timer`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RtoRearm {
    /// RFC 6298 §5.3.
    Rfc6298,
    /// RFC 7765 §4 RTO Restart while fewer than `rrthresh` segments are outstanding or
    /// queued.
    Restart {
        /// RFC 7765 §3 rrthresh, segments (the RFC suggests 4).
        rrthresh: u32,
    },
}

/// The spurious-timeout detector that can run on this connection (`spurious_detection`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpuriousDetector {
    /// No detection: every timeout's reduction stands.
    None,
    /// RFC 5682: basic F-RTO (§2.1) without SACK, SACK-enhanced (§3.1) with it.
    Frto {
        /// SACK was negotiated, so the SACK-enhanced algorithm (§3.1) runs.
        sack: bool,
    },
    /// RFC 3522.
    Eifel,
    /// RFC 3708 / Linux `undo_retrans`.
    Dsack,
    /// Linux's undo machinery, with or without its F-RTO (`tcp_frto`).
    Linux {
        /// Linux's F-RTO runs too (`tcp_frto`, `tcp_process_loss`).
        frto: bool,
    },
}

impl Config {
    /// The algorithms this config runs once the handshake agreed on `sack` and
    /// `timestamps` (each only if also offered).
    pub fn resolve(&self, sack: bool, timestamps: bool) -> Algorithms {
        let (spurious_detection, detection_unavailable) = self.detection(sack, timestamps);
        Algorithms {
            loss_detection: self.loss_detector(sack),
            probe: if sack { self.probe() } else { Probing::None },
            early_retransmit: self.er(),
            rto_timer: match self.rto_timer {
                super::RtoTimer::Rfc6298 => RtoRearm::Rfc6298,
                super::RtoTimer::Restart => RtoRearm::Restart {
                    rrthresh: self.rrthresh,
                },
            },
            spurious_detection,
            detection_unavailable,
            dsack_proof: self.dsack_proof || self.hardened,
            optack: match self.optack_defence {
                super::OptAckDefence::Off if !self.hardened => OptAck::Off,
                _ => OptAck::SkipSegment {
                    interval: self.optack_skip_interval,
                },
            },
            dupack_budget: self.dupack_budget || self.hardened,
            ack_division_guard: self.ack_division_guard || self.hardened,
            dupthresh: self.dupthresh,
            adaptive_reordering: self.adaptive_reordering,
            limited_transmit: self.limited_transmit,
            rescue_retransmit: self.rescue_retransmit,
            recovery_exit: self.recovery_exit,
            spurious_response: self.spurious_response,
            rto_adaptation: self.rto_adaptation,
            rules: FlavourRules::of(self.flavour, self.slow_start_after_idle, self.timer_hz),
            shell: ShellSettings::of(self),
        }
    }

    fn loss_detector(&self, sack: bool) -> Detection {
        use super::LossDetection as K;
        let rack = |variant| Detection::Rack {
            variant,
            reo_wnd: if self.rack_static_reo_wnd {
                ReoWnd::Static
            } else {
                ReoWnd::Adaptive
            },
            dupthresh_shortcut: !self.rack_no_dupthresh,
        };
        let newreno = Detection::DupThresh {
            rule: DupThreshRule::Rfc6675,
        };
        match self.loss_detection {
            K::DupThresh => newreno,
            K::DupThresh3517 => Detection::DupThresh {
                rule: DupThreshRule::Rfc3517,
            },
            K::Fack => Detection::Fack {
                lost_retrans: self.flavour == Flavour::Linux && self.fack_lost_retrans,
            },
            // RFC 8985 §4: RACK needs SACK; without it the sender is NewReno.
            K::Rack | K::RackLinux if !sack => newreno,
            K::Rack => rack(RackVariant::Rfc8985),
            K::RackLinux => rack(RackVariant::Linux),
        }
    }

    fn probe(&self) -> Probing {
        let in_recovery = self.tlp_in_recovery;
        match self.probe {
            super::Probe::None => Probing::None,
            super::Probe::TlpDraft => Probing::TlpDraft {
                max_probes: self.tlp_max_probes,
                wc_del_ack_t: self.tlp_max_ack_delay,
                in_recovery,
            },
            super::Probe::Tlp => Probing::Tlp {
                max_ack_delay: self.tlp_max_ack_delay,
                in_recovery,
            },
            super::Probe::TlpLinux => Probing::TlpLinux { in_recovery },
        }
    }

    fn er(&self) -> ErMode {
        use super::EarlyRetransmit as K;
        let rule = match self.early_retransmit {
            K::Off => return ErMode::Off,
            K::Rfc5827 => ErRule::Segments,
            K::Rfc5827Bytes => ErRule::Bytes,
            K::ErTlp => ErRule::SegmentsTlp,
        };
        ErMode::On {
            rule,
            delayed: self.er_delayed,
            disable_on_reordering: self.er_disable_on_reordering,
            rate_cap_percent: self.er_rate_cap_percent,
        }
    }

    fn detection(&self, sack: bool, timestamps: bool) -> (SpuriousDetector, bool) {
        use super::SpuriousDetection as K;
        let d = match self.spurious_detection {
            K::None => SpuriousDetector::None,
            K::Frto => SpuriousDetector::Frto { sack },
            K::Eifel if !timestamps => return (SpuriousDetector::None, true),
            K::Eifel => SpuriousDetector::Eifel,
            K::Dsack if !sack => return (SpuriousDetector::None, true),
            K::Dsack => SpuriousDetector::Dsack,
            K::Linux => SpuriousDetector::Linux { frto: true },
            K::LinuxNoFrto => SpuriousDetector::Linux { frto: false },
        };
        (d, false)
    }
}

impl Algorithms {
    /// RACK is the loss detector.
    pub fn rack(&self) -> bool {
        matches!(self.loss_detection, Detection::Rack { .. })
    }
}

impl Probing {
    /// A PTO that sends no probe re-arms the RTO one RTO from now (RFC 8985 §7.3: "the
    /// sender MUST re-arm the RTO timer … regardless of whether a loss probe was sent"),
    /// not anchored at the head's last transmission as Linux's `tcp_send_loss_probe` →
    /// `tcp_rearm_rto` does (`tcp_rto_delta_us`), which the draft's presets follow too.
    pub fn rto_from_now_after_pto(self) -> bool {
        matches!(self, Probing::Tlp { .. })
    }

    /// Probing in fast recovery is allowed (`tlp_in_recovery`).
    pub fn in_recovery(self) -> bool {
        match self {
            Probing::None => false,
            Probing::TlpDraft { in_recovery, .. }
            | Probing::Tlp { in_recovery, .. }
            | Probing::TlpLinux { in_recovery } => in_recovery,
        }
    }
}

#[cfg(test)]
mod tests;

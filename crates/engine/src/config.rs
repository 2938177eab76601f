//! `Config`: one field per setting, and named presets that bundle setting values.
//!
//! Two layers. `Config` is what the user sets: flat keys declared once by `settings!`
//! (struct, [`AXES`], `set`, `axes`), so keys can be set in any order; axis values and
//! presets have stable kebab-case names used by scenario files, `--set axis=value` and
//! `lossrec presets`. The sender runs on [`Algorithms`] ([`resolved`]): data-carrying
//! enums whose variants own their options, resolved once after the handshake.

use core::time::Duration;

/// Declares `Config` and its settings table together — every field with its key for
/// `Config::set`, scenario files and `lossrec presets`, and its valid range — so the
/// struct, [`AXES`], `set` and `axes` cannot drift apart (as `stats.rs` does for counters).
macro_rules! settings {
    ($($(#[$m:meta])* $field:ident: $ty:ty = $key:literal $(in $lo:literal..=$hi:literal)?),+ $(,)?) => {
        /// Everything that configures a sender, as the user sets it: one field per key.
        /// The sender runs on [`Algorithms`], resolved from it once the handshake has
        /// settled the options ([`Config::resolve`]).
        ///
        /// Start from a preset (a named stack, [`PRESETS`]) and change single axes by
        /// their names, as scenario files and `--set` do; bad names and values are errors
        /// that list what is valid:
        ///
        /// ```
        /// use lossrec::{Config, PRESETS};
        /// let mut c = Config::preset("linux")?;
        /// c.set("optack_defence", "skip-segment")?;
        /// assert!(c.set("loss_detection", "psychic").is_err());
        /// assert!(Config::preset("no-such-stack").is_err());
        /// assert!(PRESETS.iter().any(|p| p.name == "rfc"));
        /// # Ok::<(), lossrec::ConfigError>(())
        /// ```
        #[derive(Clone, Debug, PartialEq)]
        pub struct Config {
            /// The preset this config started from (for reports).
            pub preset: &'static str,
            /// A user's congestion controller, in place of the built-in one `cc` names
            /// (code sets it; it has no text form and is not in [`AXES`]).
            pub controller: Option<crate::cc::CustomController>,
            $($(#[$m])* pub $field: $ty),+
        }

        /// Every key accepted by [`Config::set`], in declaration order.
        pub const AXES: &[&str] = &[$($key),+];

        impl Config {
            /// Sets one axis from its text form, as `--set axis=value` and scenario files do.
            pub fn set(&mut self, axis: &str, value: &str) -> Result<(), ConfigError> {
                let v = value.trim();
                match axis {
                    $($key => self.$field = Setting::parse(axis, v, settings!(@range $($lo, $hi)?))?,)+
                    _ => {
                        return Err(ConfigError::UnknownAxis {
                            name: axis.into(),
                            valid: AXES.join(", "),
                        })
                    }
                }
                self.validate()
            }

            /// Every axis with its current value, in `AXES` order (for `lossrec presets` and
            /// reports).
            pub fn axes(&self) -> Vec<(&'static str, String)> {
                vec![$(($key, self.$field.show())),+]
            }
        }
    };
    (@range $lo:literal, $hi:literal) => { Some(($lo, $hi)) };
    (@range) => { None };
}

settings! {
    /// Which stack's rules apply where only Linux has a behaviour (resolved into named rules).
    flavour: Flavour = "flavour",
    /// Loss detection: dupthresh, FACK or RACK ([`LossDetection`]).
    loss_detection: LossDetection = "loss_detection",
    /// DupThresh of RFC 6675 / RFC 5681.
    dupthresh: u32 = "dupthresh" in 1..=1000,
    /// Send new data on the first two duplicate ACKs (RFC 3042).
    limited_transmit: bool = "limited_transmit",
    /// Linux's adaptive reordering degree (`tp->reordering`): raised from SACKs that show
    /// reordering (digest §8.4), capped at 300, used in place of `dupthresh`, reset at a
    /// timeout (digest §16). Raising it also turns FACK off for the connection.
    adaptive_reordering: bool = "adaptive_reordering",
    /// RFC 6675 NextSeg rule 4, the rescue retransmission (absent from RFC 3517 and Linux).
    rescue_retransmit: bool = "rescue_retransmit",
    /// Tail loss probing ([`Probe`]).
    probe: Probe = "probe",
    /// Consecutive probes per tail (TLP draft §2.1 (2c): one or two). Only `tlp-draft`
    /// sends more than one; RFC 8985 and Linux send one per episode.
    tlp_max_probes: u32 = "tlp_max_probes" in 1..=2,
    /// The delayed-ACK allowance added to the PTO when one segment is outstanding: the
    /// draft's WCDelAckT (§2.1, RECOMMENDED 200 ms), RFC 8985's TLP.max_ack_delay (§7.2).
    /// `tlp-linux` adds `min_rto` instead (`tcp_rto_min(sk)` in `tcp_schedule_loss_probe`).
    tlp_max_ack_delay: Duration = "tlp_max_ack_delay_ms" in 0..=10_000,
    /// Probe in fast recovery too (seed 001 slide 18's proposal, "need to update draft-02
    /// to probe in recovery"; RFC 8985 §7.2 and Linux do not): a PTO with no ACK in
    /// recovery retransmits the highest un-SACKed segment, so lost retransmissions at the
    /// tail are found without an RTO.
    tlp_in_recovery: bool = "tlp_in_recovery",
    /// RACK without DSACK-driven growth of reo_wnd (Linux `tcp_recovery` bit 0x2).
    rack_static_reo_wnd: bool = "rack_static_reo_wnd",
    /// RACK without the DupThresh shortcut that zeroes reo_wnd before reordering is seen
    /// (Linux `tcp_recovery` bit 0x4, `TCP_RACK_NO_DUPTHRESH`).
    rack_no_dupthresh: bool = "rack_no_dupthresh",
    /// FACK recovery finds lost retransmissions (Linux 2.6.25–4.3 `tcp_mark_lost_retrans`,
    /// Linux flavour only); false for Linux 4.4+, where RACK replaced it even with
    /// `tcp_recovery` = 0.
    fack_lost_retrans: bool = "fack_lost_retrans",
    /// Early retransmit (RFC 5827; [`EarlyRetransmit`]).
    early_retransmit: EarlyRetransmit = "early_retransmit",
    /// RFC 5827 App. A.3 / Linux `tcp_early_retrans=2`: wait max(SRTT/4, 2 ms) on the
    /// deadline before an early retransmit; any ACK cancels the wait.
    er_delayed: bool = "er_delayed",
    /// RFC 5827 App. A.1 / Linux 3.5: no early retransmit once reordering was detected
    /// (SACK below the forward-most SACK, a DSACK, or a timestamp proving a retransmission
    /// spurious).
    er_disable_on_reordering: bool = "er_disable_on_reordering",
    /// RFC 5827 App. A.2: early retransmits may be at most this percentage of the data
    /// segments the connection has sent (0: no cap).
    er_rate_cap_percent: u32 = "er_rate_cap_percent" in 0..=100,
    /// Rate reduction in recovery: RFC 6675, rate-halving or PRR ([`Reduction`]).
    reduction: Reduction = "reduction",
    /// How recovery ends and sets cwnd ([`RecoveryExit`]).
    recovery_exit: RecoveryExit = "recovery_exit",
    /// The RTT estimator and RTO formula ([`RttEstimator`]).
    rtt_estimator: RttEstimator = "rtt_estimator",
    /// How the RTO timer is (re)armed, e.g. RTO Restart (RFC 7765; [`RtoTimer`]).
    rto_timer: RtoTimer = "rto_timer",
    /// RFC 7765 rrthresh: RTO Restart applies while outstanding plus queued segments are
    /// fewer than this (RECOMMENDED 4).
    rrthresh: u32 = "rrthresh" in 1..=1_000_000,
    /// RFC 6298 clock granularity G (RTO = SRTT + max(G, 4·RTTVAR); RFC 4015's
    /// SRTT_prev = SRTT + 2G).
    clock_granularity: Duration = "clock_granularity_ms" in 1..=1000,
    /// The floor on RTO (RFC 6298 §2.4) or Linux's `rto_min`; milliseconds in scenario files.
    min_rto: Duration = "min_rto_ms" in 1..=600_000,
    /// The kernel's `CONFIG_HZ` (Linux flavour only): its timers count whole jiffies
    /// (`usecs_to_jiffies`, rounding up) and fire on a tick of the timer wheel's bucket
    /// (`calc_wheel_index`: 4 ms at level 0, 32 ms from 252 ms, 256 ms from 2.016 s at
    /// HZ = 250), so Linux's RTO, probe, reorder and persist timers fire up to a bucket
    /// after their nominal time. 0: deadlines to the nanosecond.
    timer_hz: u32 = "timer_hz" in 0..=10_000,
    /// The cap on RTO (RFC 6298 §2.5); milliseconds in scenario files.
    max_rto: Duration = "max_rto_ms" in 1..=3_600_000,
    /// RTO before any RTT sample (RFC 6298 §2.1), also the SYN timeout.
    initial_rto: Duration = "initial_rto_ms" in 1..=600_000,
    /// How a spurious timeout or fast retransmit is detected ([`SpuriousDetection`]).
    spurious_detection: SpuriousDetection = "spurious_detection",
    /// A DSACK proves a retransmission spurious only when the original is shown to have
    /// arrived, checked when the range is first covered: a cumulative ACK echoing an older
    /// TSval (RFC 3522 §2), or any ACK sooner than min_RTT after the retransmission (Linux
    /// `tcp_rack_advance`). A defence beyond the stacks (issue 13, DSACK spoofing), off in
    /// their presets and on with `hardened`; off keeps Linux's exact `undo_retrans`
    /// accounting (`tcp_check_dsack`, `tcp_sacktag_one`).
    dsack_proof: bool = "dsack_proof",
    /// What is done once one is detected ([`SpuriousResponse`]).
    spurious_response: SpuriousResponse = "spurious_response",
    /// Adapting the RTO after a spurious timeout (RFC 4015 §3; [`RtoAdaptation`]).
    rto_adaptation: RtoAdaptation = "rto_adaptation",
    /// The congestion controller ([`CongestionControl`]).
    cc: CongestionControl = "cc",
    /// Payload bytes of a full segment with timestamps (Linux `mss_cache` on a 1500-byte
    /// MTU: 1460 − 12 = 1448), and of every segment when the handshake is skipped. The SYN
    /// offers this plus the 12 bytes of the timestamp option (Linux `advmss`, 1460); after
    /// the handshake a segment carries min(that, the peer's MSS) less the option room in
    /// use (RFC 9293 §3.7.1, Linux `tcp_mtu_to_mss`).
    mss: u16 = "mss" in 64..=65_495,
    /// Initial window in segments (RFC 6928: 10).
    initial_cwnd: u32 = "initial_cwnd" in 1..=10_000,
    /// Linux `tcp_slow_start_after_idle` (RFC 7661 §4.2's "restart window" of RFC 5681
    /// §4.1): a write, or an ACK that changes the peer's window while data waits, after
    /// more than an RTO without sending, with nothing in flight, restarts from
    /// min(IW, cwnd) (`tcp_cwnd_restart`). Linux flavour only.
    slow_start_after_idle: bool = "slow_start_after_idle",
    /// CUBIC's HyStart (Linux flavour): where slow start ends before a loss.
    hystart: HyStart = "hystart",
    /// When HyStart's rounds start: Linux 6.13+ or Linux 5.16–6.12.
    hystart_rounds: HyStartRounds = "hystart_rounds",
    /// Linux `tcp_min_tso_segs`: the fewest segments one TSO packet may hold
    /// (`tcp_tso_autosize`); decides where PSH goes (see the sender's `push`).
    min_tso_segs: u32 = "min_tso_segs" in 1..=255,
    /// Who paces data (Linux flavour's rules, [`crate::pacing`]): nobody, the `fq` qdisc
    /// (TCP stamps departures and TCP Small Queues holds SND.NXT about two packets ahead),
    /// or TCP's internal pacing timer. BBR always paces (internally unless `fq`).
    pacing: Pacing = "pacing",
    /// Linux `tcp_pacing_ss_ratio`: the pacing rate in the first half of slow start,
    /// percent of cwnd · MSS / SRTT.
    pacing_ss_ratio: u32 = "pacing_ss_ratio" in 0..=1000,
    /// Linux `tcp_pacing_ca_ratio`: the same from then on.
    pacing_ca_ratio: u32 = "pacing_ca_ratio" in 0..=1000,
    /// Run the three-way handshake; if false the connection starts established with
    /// the options below assumed agreed.
    handshake: bool = "handshake",
    /// Offer SACK-permitted (RFC 2018).
    sack: bool = "sack",
    /// Offer timestamps (RFC 7323).
    timestamps: bool = "timestamps",
    /// ECN negotiation and response (RFC 3168; [`Ecn`]).
    ecn: Ecn = "ecn",
    /// The optimistic-ACK defence ([`OptAckDefence`]).
    optack_defence: OptAckDefence = "optack_defence",
    /// `skip-segment`: the mean number of new segments between two held-back ones (the
    /// gaps are uniform on 1 ..= 2·interval − 1).
    optack_skip_interval: u32 = "optack_skip_interval" in 4..=1_000_000,
    /// Without SACK, duplicate ACKs count only within what the peer can honestly have
    /// sent — one ACK per segment over the connection's life (`detect::ack_budget`) and,
    /// in fast recovery, DeliveredData within RecoverFS per NewReno round (RFC 9937 §6) —
    /// beyond Linux's `tcp_limit_reno_sacked` (issue 13, DupACK spoofing). A defence beyond
    /// the stacks: off in their presets, on with `hardened`.
    dupack_budget: bool = "dupack_budget",
    /// Without SACK, only an advance that acknowledges a retransmission the receiver has
    /// had time to answer fills the hole (one SMSS of DeliveredData per NewReno round,
    /// `sender::reno`), where Linux's `tcp_remove_reno_sacks` credits one packet to every
    /// ACK that acknowledges one (issue 13, ACK division in fast recovery). A defence beyond
    /// the stacks: off in their presets, on with `hardened`.
    ack_division_guard: bool = "ack_division_guard",
    /// Every defence beyond the stacks at once (`dsack_proof`, `dupack_budget`,
    /// `ack_division_guard`, `optack_defence = skip-segment`): each is on if set on or if
    /// this is. The `linux-hardened` preset is `linux` with it.
    hardened: bool = "hardened",
}

mod axes;
mod error;
mod presets;
pub mod resolved;
mod rules;
mod setting;
mod shell;
pub use axes::*;
pub use error::ConfigError;
pub use presets::{Preset, PRESETS};
pub use resolved::Algorithms;
use setting::Setting;

impl Config {
    /// Checks relations between axes.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.min_rto > self.max_rto {
            return Err(ConfigError::Invalid(format!(
                "min_rto_ms ({}) exceeds max_rto_ms ({})",
                self.min_rto.as_millis(),
                self.max_rto.as_millis()
            )));
        }
        if self.rrthresh == 0 {
            return Err(ConfigError::Invalid(
                "rrthresh must be at least 1 (RFC 7765 §4)".into(),
            ));
        }
        if self.clock_granularity.is_zero() {
            return Err(ConfigError::Invalid(
                "clock_granularity_ms must be at least 1".into(),
            ));
        }
        if !(1..=2).contains(&self.tlp_max_probes) {
            return Err(ConfigError::Invalid(format!(
                "tlp_max_probes ({}) must be 1 or 2 (TLP draft §2.1)",
                self.tlp_max_probes
            )));
        }
        Ok(())
    }
}

impl LossDetection {
    /// RACK in either form (RFC 8985 or Linux).
    pub fn is_rack(self) -> bool {
        matches!(self, LossDetection::Rack | LossDetection::RackLinux)
    }
}

impl Config {
    /// This configuration with every defence beyond the stacks on (`hardened`).
    pub fn hardened(self) -> Config {
        Config {
            hardened: true,
            ..self
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::rfc()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_exist_and_validate() {
        for p in PRESETS {
            let c = p.config();
            assert_eq!(c.preset, p.name);
            c.validate().unwrap();
        }
    }

    #[test]
    fn unknown_preset_lists_valid_ones() {
        let e = Config::preset("bogus").unwrap_err().to_string();
        assert!(
            e.contains("bogus") && e.contains("rfc") && e.contains("linux-classic"),
            "{e}"
        );
    }

    #[test]
    fn unknown_axis_value_lists_valid_ones() {
        let mut c = Config::rfc();
        let e = c.set("cc", "vegas").unwrap_err().to_string();
        assert_eq!(
            e,
            "bad value `vegas` for cc; valid: reno, cubic, cubic-linux, reno-linux, bbr"
        );
        let e = c.set("colour", "red").unwrap_err().to_string();
        assert!(
            e.starts_with("unknown axis `colour`") && e.contains("min_rto_ms"),
            "{e}"
        );
        let e = c.set("mss", "0").unwrap_err().to_string();
        assert!(e.contains("integer from 64"), "{e}");
    }

    #[test]
    fn set_round_trips_every_axis() {
        let mut c = Config::linux_classic();
        for (k, v) in Config::rfc().axes() {
            c.set(k, &v).unwrap();
        }
        assert_eq!(c.axes(), Config::rfc().axes());
    }

    #[test]
    fn min_above_max_is_rejected() {
        let mut c = Config::rfc();
        assert!(c.set("min_rto_ms", "200000").is_err());
    }
}

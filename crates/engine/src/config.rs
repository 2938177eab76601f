//! `Config`: one field per algorithm axis, and named presets that bundle axis values.
//!
//! Every axis is an enum the sender matches on. Axis values and presets have stable
//! kebab-case names used by scenario files, `--set axis=value` and `lossrec presets`.

use core::time::Duration;

/// Everything that configures a sender.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The preset this config started from (for reports).
    pub preset: &'static str,
    pub flavour: Flavour,
    pub loss_detection: LossDetection,
    /// DupThresh of RFC 6675 / RFC 5681.
    pub dupthresh: u32,
    /// Send new data on the first two duplicate ACKs (RFC 3042).
    pub limited_transmit: bool,
    /// Linux's adaptive reordering degree (`tp->reordering`): raised from SACKs that show
    /// reordering (digest §8.4), capped at 300, used in place of `dupthresh`, reset at a
    /// timeout (digest §16). Raising it also turns FACK off for the connection.
    pub adaptive_reordering: bool,
    /// RFC 6675 NextSeg rule 4, the rescue retransmission (absent from RFC 3517 and Linux).
    pub rescue_retransmit: bool,
    pub probe: Probe,
    /// Consecutive probes per tail (TLP draft §2.1 (2c): one or two). Only `tlp-draft`
    /// sends more than one; RFC 8985 and Linux send one per episode.
    pub tlp_max_probes: u32,
    /// The delayed-ACK allowance added to the PTO when one segment is outstanding: the
    /// draft's WCDelAckT (§2.1, RECOMMENDED 200 ms), RFC 8985's TLP.max_ack_delay (§7.2).
    /// `tlp-linux` adds `min_rto` instead (`tcp_rto_min(sk)` in `tcp_schedule_loss_probe`).
    pub tlp_max_ack_delay: Duration,
    /// Probe in fast recovery too (seed 001 slide 18's proposal, "need to update draft-02
    /// to probe in recovery"; RFC 8985 §7.2 and Linux do not): a PTO with no ACK in
    /// recovery retransmits the highest un-SACKed segment, so lost retransmissions at the
    /// tail are found without an RTO.
    pub tlp_in_recovery: bool,
    /// RACK without DSACK-driven growth of reo_wnd (Linux `tcp_recovery` bit 0x2).
    pub rack_static_reo_wnd: bool,
    /// RACK without the DupThresh shortcut that zeroes reo_wnd before reordering is seen
    /// (Linux `tcp_recovery` bit 0x4, `TCP_RACK_NO_DUPTHRESH`).
    pub rack_no_dupthresh: bool,
    pub early_retransmit: EarlyRetransmit,
    /// RFC 5827 App. A.3 / Linux `tcp_early_retrans=2`: wait max(SRTT/4, 2 ms) on the
    /// deadline before an early retransmit; any ACK cancels the wait.
    pub er_delayed: bool,
    /// RFC 5827 App. A.1 / Linux 3.5: no early retransmit once reordering was detected
    /// (SACK below the forward-most SACK, a DSACK, or a timestamp proving a retransmission
    /// spurious).
    pub er_disable_on_reordering: bool,
    /// RFC 5827 App. A.2: early retransmits may be at most this percentage of the data
    /// segments the connection has sent (0: no cap).
    pub er_rate_cap_percent: u32,
    pub reduction: Reduction,
    pub rtt_estimator: RttEstimator,
    pub rto_timer: RtoTimer,
    /// RFC 7765 rrthresh: RTO Restart applies while outstanding plus queued segments are
    /// fewer than this (RECOMMENDED 4).
    pub rrthresh: u32,
    /// RFC 6298 clock granularity G (RTO = SRTT + max(G, 4·RTTVAR); RFC 4015's
    /// SRTT_prev = SRTT + 2G).
    pub clock_granularity: Duration,
    pub min_rto: Duration,
    pub max_rto: Duration,
    /// RTO before any RTT sample (RFC 6298 §2.1), also the SYN timeout.
    pub initial_rto: Duration,
    pub spurious_detection: SpuriousDetection,
    pub spurious_response: SpuriousResponse,
    pub rto_adaptation: RtoAdaptation,
    pub cc: CongestionControl,
    /// Payload bytes of a full segment with timestamps (Linux `mss_cache` on a 1500-byte
    /// MTU: 1460 − 12 = 1448), and of every segment when the handshake is skipped. The SYN
    /// offers this plus the 12 bytes of the timestamp option (Linux `advmss`, 1460); after
    /// the handshake a segment carries min(that, the peer's MSS) less the option room in
    /// use (RFC 9293 §3.7.1, Linux `tcp_mtu_to_mss`).
    pub mss: u16,
    /// Initial window in segments (RFC 6928: 10).
    pub initial_cwnd: u32,
    /// Linux `tcp_slow_start_after_idle` (RFC 7661 §4.2's "restart window" of RFC 5681
    /// §4.1): a write after more than an RTO without sending, with nothing in flight,
    /// restarts from min(IW, cwnd) (`tcp_cwnd_restart`). Linux flavour only.
    pub slow_start_after_idle: bool,
    /// CUBIC's HyStart (Linux flavour): where slow start ends before a loss.
    pub hystart: HyStart,
    /// Linux `tcp_min_tso_segs`: the fewest segments one TSO packet may hold
    /// (`tcp_tso_autosize`); decides where PSH goes (see the sender's `push`).
    pub min_tso_segs: u32,
    /// Run the three-way handshake; if false the connection starts established with
    /// the options below assumed agreed.
    pub handshake: bool,
    /// Offer SACK-permitted (RFC 2018).
    pub sack: bool,
    /// Offer timestamps (RFC 7323).
    pub timestamps: bool,
}

mod axes;
mod error;
mod presets;
pub use axes::*;
pub use error::ConfigError;
pub use presets::{Preset, PRESETS};

/// Every axis key accepted by [`Config::set`].
pub const AXES: &[&str] = &[
    "flavour",
    "loss_detection",
    "dupthresh",
    "limited_transmit",
    "adaptive_reordering",
    "rescue_retransmit",
    "probe",
    "tlp_max_probes",
    "tlp_max_ack_delay_ms",
    "tlp_in_recovery",
    "rack_static_reo_wnd",
    "rack_no_dupthresh",
    "early_retransmit",
    "er_delayed",
    "er_disable_on_reordering",
    "er_rate_cap_percent",
    "reduction",
    "rtt_estimator",
    "rto_timer",
    "rrthresh",
    "clock_granularity_ms",
    "min_rto_ms",
    "max_rto_ms",
    "initial_rto_ms",
    "spurious_detection",
    "spurious_response",
    "rto_adaptation",
    "cc",
    "mss",
    "initial_cwnd",
    "slow_start_after_idle",
    "hystart",
    "min_tso_segs",
    "handshake",
    "sack",
    "timestamps",
];

impl Config {
    /// Sets one axis from its text form, as `--set axis=value` and scenario files do.
    pub fn set(&mut self, axis: &str, value: &str) -> Result<(), ConfigError> {
        let v = value.trim();
        match axis {
            "flavour" => self.flavour = v.parse()?,
            "loss_detection" => self.loss_detection = v.parse()?,
            "dupthresh" => self.dupthresh = parse_num(axis, v, 1, 1000)? as u32,
            "limited_transmit" => self.limited_transmit = parse_bool(axis, v)?,
            "adaptive_reordering" => self.adaptive_reordering = parse_bool(axis, v)?,
            "rescue_retransmit" => self.rescue_retransmit = parse_bool(axis, v)?,
            "probe" => self.probe = v.parse()?,
            "tlp_max_probes" => self.tlp_max_probes = parse_num(axis, v, 1, 2)? as u32,
            "tlp_max_ack_delay_ms" => self.tlp_max_ack_delay = ms(parse_num(axis, v, 0, 10_000)?),
            "tlp_in_recovery" => self.tlp_in_recovery = parse_bool(axis, v)?,
            "rack_static_reo_wnd" => self.rack_static_reo_wnd = parse_bool(axis, v)?,
            "rack_no_dupthresh" => self.rack_no_dupthresh = parse_bool(axis, v)?,
            "early_retransmit" => self.early_retransmit = v.parse()?,
            "er_delayed" => self.er_delayed = parse_bool(axis, v)?,
            "er_disable_on_reordering" => self.er_disable_on_reordering = parse_bool(axis, v)?,
            "er_rate_cap_percent" => self.er_rate_cap_percent = parse_num(axis, v, 0, 100)? as u32,
            "reduction" => self.reduction = v.parse()?,
            "rtt_estimator" => self.rtt_estimator = v.parse()?,
            "rto_timer" => self.rto_timer = v.parse()?,
            "rrthresh" => self.rrthresh = parse_num(axis, v, 1, 1_000_000)? as u32,
            "clock_granularity_ms" => self.clock_granularity = ms(parse_num(axis, v, 1, 1000)?),
            "min_rto_ms" => self.min_rto = ms(parse_num(axis, v, 1, 600_000)?),
            "max_rto_ms" => self.max_rto = ms(parse_num(axis, v, 1, 3_600_000)?),
            "initial_rto_ms" => self.initial_rto = ms(parse_num(axis, v, 1, 600_000)?),
            "spurious_detection" => self.spurious_detection = v.parse()?,
            "spurious_response" => self.spurious_response = v.parse()?,
            "rto_adaptation" => self.rto_adaptation = v.parse()?,
            "cc" => self.cc = v.parse()?,
            "mss" => self.mss = parse_num(axis, v, 64, 65_495)? as u16,
            "initial_cwnd" => self.initial_cwnd = parse_num(axis, v, 1, 10_000)? as u32,
            "slow_start_after_idle" => self.slow_start_after_idle = parse_bool(axis, v)?,
            "hystart" => self.hystart = v.parse()?,
            "min_tso_segs" => self.min_tso_segs = parse_num(axis, v, 1, 255)? as u32,
            "handshake" => self.handshake = parse_bool(axis, v)?,
            "sack" => self.sack = parse_bool(axis, v)?,
            "timestamps" => self.timestamps = parse_bool(axis, v)?,
            _ => {
                return Err(ConfigError::UnknownAxis {
                    name: axis.into(),
                    valid: AXES.join(", "),
                })
            }
        }
        self.validate()
    }

    /// Every axis with its current value, in `AXES` order (for `lossrec presets` and reports).
    pub fn axes(&self) -> Vec<(&'static str, String)> {
        let d = |d: Duration| d.as_millis().to_string();
        vec![
            ("flavour", self.flavour.to_string()),
            ("loss_detection", self.loss_detection.to_string()),
            ("dupthresh", self.dupthresh.to_string()),
            ("limited_transmit", self.limited_transmit.to_string()),
            ("adaptive_reordering", self.adaptive_reordering.to_string()),
            ("rescue_retransmit", self.rescue_retransmit.to_string()),
            ("probe", self.probe.to_string()),
            ("tlp_max_probes", self.tlp_max_probes.to_string()),
            ("tlp_max_ack_delay_ms", d(self.tlp_max_ack_delay)),
            ("tlp_in_recovery", self.tlp_in_recovery.to_string()),
            ("rack_static_reo_wnd", self.rack_static_reo_wnd.to_string()),
            ("rack_no_dupthresh", self.rack_no_dupthresh.to_string()),
            ("early_retransmit", self.early_retransmit.to_string()),
            ("er_delayed", self.er_delayed.to_string()),
            (
                "er_disable_on_reordering",
                self.er_disable_on_reordering.to_string(),
            ),
            ("er_rate_cap_percent", self.er_rate_cap_percent.to_string()),
            ("reduction", self.reduction.to_string()),
            ("rtt_estimator", self.rtt_estimator.to_string()),
            ("rto_timer", self.rto_timer.to_string()),
            ("rrthresh", self.rrthresh.to_string()),
            ("clock_granularity_ms", d(self.clock_granularity)),
            ("min_rto_ms", d(self.min_rto)),
            ("max_rto_ms", d(self.max_rto)),
            ("initial_rto_ms", d(self.initial_rto)),
            ("spurious_detection", self.spurious_detection.to_string()),
            ("spurious_response", self.spurious_response.to_string()),
            ("rto_adaptation", self.rto_adaptation.to_string()),
            ("cc", self.cc.to_string()),
            ("mss", self.mss.to_string()),
            ("initial_cwnd", self.initial_cwnd.to_string()),
            (
                "slow_start_after_idle",
                self.slow_start_after_idle.to_string(),
            ),
            ("hystart", self.hystart.to_string()),
            ("min_tso_segs", self.min_tso_segs.to_string()),
            ("handshake", self.handshake.to_string()),
            ("sack", self.sack.to_string()),
            ("timestamps", self.timestamps.to_string()),
        ]
    }

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

impl Default for Config {
    fn default() -> Self {
        Config::rfc()
    }
}

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn parse_num(axis: &str, v: &str, lo: u64, hi: u64) -> Result<u64, ConfigError> {
    match v.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(ConfigError::BadValue {
            axis: axis.into(),
            value: v.into(),
            valid: format!("an integer from {lo} to {hi}"),
        }),
    }
}

fn parse_bool(axis: &str, v: &str) -> Result<bool, ConfigError> {
    match v {
        "true" | "on" | "1" | "yes" => Ok(true),
        "false" | "off" | "0" | "no" => Ok(false),
        _ => Err(ConfigError::BadValue {
            axis: axis.into(),
            value: v.into(),
            valid: "true, false".into(),
        }),
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
            "bad value `vegas` for cc; valid: reno, cubic, cubic-linux, reno-linux"
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

//! `Config`: one field per algorithm axis, and named presets that bundle axis values.
//!
//! Every axis is an enum the sender matches on. Axis values and presets have stable
//! kebab-case names used by scenario files, `--set axis=value` and `lossrec presets`.

use core::fmt;
use core::str::FromStr;
use core::time::Duration;

/// Declares an axis enum with its kebab-case names.
macro_rules! axis {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name { $($(#[$vm])* $var),+ }
        impl $name {
            /// Every value's name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($s),+];
            pub fn name(self) -> &'static str { match self { $($name::$var => $s),+ } }
        }
        impl FromStr for $name {
            type Err = ConfigError;
            fn from_str(s: &str) -> Result<Self, ConfigError> {
                match s { $($s => Ok($name::$var),)+
                    _ => Err(ConfigError::BadValue { axis: stringify!($name).into(), value: s.into(),
                        valid: Self::NAMES.join(", ") }) }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.name()) }
        }
    };
}

axis!(
    /// How losses are detected before a timeout.
    LossDetection {
        /// RFC 6675 duplicate-ACK threshold (IsLost), NewReno partial ACKs without SACK.
        DupThresh = "dupthresh",
    }
);

axis!(
    /// Tail loss probing.
    Probe {
        None = "none",
    }
);

axis!(
    /// Early Retransmit (RFC 5827).
    EarlyRetransmit {
        Off = "off",
    }
);

axis!(
    /// How the sending rate is cut in fast recovery.
    Reduction {
        /// RFC 6675 §5: cwnd = ssthresh = FlightSize/2, send while cwnd − pipe ≥ SMSS.
        Rfc6675 = "rfc6675",
    }
);

axis!(
    /// The RTT estimator and RTO formula.
    RttEstimator {
        /// RFC 6298: RTO = SRTT + max(G, 4·RTTVAR), floored at min_rto.
        Rfc6298 = "rfc6298",
        /// Linux: RTO = SRTT + max(4·mdev, rto_min) family (digest §2.2).
        Linux = "linux",
    }
);

axis!(
    /// How the retransmission timer is re-armed on an ACK of new data.
    RtoTimer {
        /// RFC 6298 §5.3: restart to fire one RTO from now.
        Rfc6298 = "rfc6298",
    }
);

axis!(
    /// How a spurious timeout is detected.
    SpuriousDetection {
        None = "none",
    }
);

axis!(
    /// What the sender does once a timeout is known to be spurious.
    SpuriousResponse {
        None = "none",
    }
);

axis!(
    /// Congestion control.
    CongestionControl {
        /// RFC 5681 with appropriate byte counting (RFC 3465, L = 2).
        Reno = "reno",
        /// RFC 9438.
        Cubic = "cubic",
    }
);

/// Everything that configures a sender.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// The preset this config started from (for reports).
    pub preset: &'static str,
    pub loss_detection: LossDetection,
    /// DupThresh of RFC 6675 / RFC 5681.
    pub dupthresh: u32,
    /// Send new data on the first two duplicate ACKs (RFC 3042).
    pub limited_transmit: bool,
    pub probe: Probe,
    pub early_retransmit: EarlyRetransmit,
    pub reduction: Reduction,
    pub rtt_estimator: RttEstimator,
    pub rto_timer: RtoTimer,
    pub min_rto: Duration,
    pub max_rto: Duration,
    /// RTO before any RTT sample (RFC 6298 §2.1), also the SYN timeout.
    pub initial_rto: Duration,
    pub spurious_detection: SpuriousDetection,
    pub spurious_response: SpuriousResponse,
    pub cc: CongestionControl,
    /// Sender MSS offered on the SYN and used when the handshake is skipped.
    pub mss: u16,
    /// Initial window in segments (RFC 6928: 10).
    pub initial_cwnd: u32,
    /// Run the three-way handshake; if false the connection starts established with
    /// the options below assumed agreed.
    pub handshake: bool,
    /// Offer SACK-permitted (RFC 2018).
    pub sack: bool,
    /// Offer timestamps (RFC 7323).
    pub timestamps: bool,
}

/// Every axis key accepted by [`Config::set`].
pub const AXES: &[&str] = &[
    "loss_detection",
    "dupthresh",
    "limited_transmit",
    "probe",
    "early_retransmit",
    "reduction",
    "rtt_estimator",
    "rto_timer",
    "min_rto_ms",
    "max_rto_ms",
    "initial_rto_ms",
    "spurious_detection",
    "spurious_response",
    "cc",
    "mss",
    "initial_cwnd",
    "handshake",
    "sack",
    "timestamps",
];

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
];

impl Config {
    /// RFC 6675 + Reno + RFC 6298 with a 1 s minimum RTO.
    pub fn rfc() -> Config {
        Config {
            preset: "rfc",
            loss_detection: LossDetection::DupThresh,
            dupthresh: 3,
            limited_transmit: true,
            probe: Probe::None,
            early_retransmit: EarlyRetransmit::Off,
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

    /// Sets one axis from its text form, as `--set axis=value` and scenario files do.
    pub fn set(&mut self, axis: &str, value: &str) -> Result<(), ConfigError> {
        let v = value.trim();
        match axis {
            "loss_detection" => self.loss_detection = v.parse()?,
            "dupthresh" => self.dupthresh = parse_num(axis, v, 1, 1000)? as u32,
            "limited_transmit" => self.limited_transmit = parse_bool(axis, v)?,
            "probe" => self.probe = v.parse()?,
            "early_retransmit" => self.early_retransmit = v.parse()?,
            "reduction" => self.reduction = v.parse()?,
            "rtt_estimator" => self.rtt_estimator = v.parse()?,
            "rto_timer" => self.rto_timer = v.parse()?,
            "min_rto_ms" => self.min_rto = ms(parse_num(axis, v, 1, 600_000)?),
            "max_rto_ms" => self.max_rto = ms(parse_num(axis, v, 1, 3_600_000)?),
            "initial_rto_ms" => self.initial_rto = ms(parse_num(axis, v, 1, 600_000)?),
            "spurious_detection" => self.spurious_detection = v.parse()?,
            "spurious_response" => self.spurious_response = v.parse()?,
            "cc" => self.cc = v.parse()?,
            "mss" => self.mss = parse_num(axis, v, 64, 65_495)? as u16,
            "initial_cwnd" => self.initial_cwnd = parse_num(axis, v, 1, 10_000)? as u32,
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
            ("loss_detection", self.loss_detection.to_string()),
            ("dupthresh", self.dupthresh.to_string()),
            ("limited_transmit", self.limited_transmit.to_string()),
            ("probe", self.probe.to_string()),
            ("early_retransmit", self.early_retransmit.to_string()),
            ("reduction", self.reduction.to_string()),
            ("rtt_estimator", self.rtt_estimator.to_string()),
            ("rto_timer", self.rto_timer.to_string()),
            ("min_rto_ms", d(self.min_rto)),
            ("max_rto_ms", d(self.max_rto)),
            ("initial_rto_ms", d(self.initial_rto)),
            ("spurious_detection", self.spurious_detection.to_string()),
            ("spurious_response", self.spurious_response.to_string()),
            ("cc", self.cc.to_string()),
            ("mss", self.mss.to_string()),
            ("initial_cwnd", self.initial_cwnd.to_string()),
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
        Ok(())
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

/// A bad preset, axis or value; the message lists what is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ConfigError {
    UnknownPreset {
        name: String,
        valid: String,
    },
    UnknownAxis {
        name: String,
        valid: String,
    },
    BadValue {
        axis: String,
        value: String,
        valid: String,
    },
    Invalid(String),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::UnknownPreset { name, valid } => {
                write!(f, "unknown preset `{name}`; valid presets: {valid}")
            }
            ConfigError::UnknownAxis { name, valid } => {
                write!(f, "unknown axis `{name}`; valid axes: {valid}")
            }
            ConfigError::BadValue { axis, value, valid } => {
                write!(f, "bad value `{value}` for {}; valid: {valid}", snake(axis))
            }
            ConfigError::Invalid(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ConfigError {}

/// `LossDetection` → `loss_detection`, so enum-typed errors name the axis key.
fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    match out.as_str() {
        "rto_timer" | "loss_detection" | "early_retransmit" | "reduction" | "probe"
        | "rtt_estimator" | "spurious_detection" | "spurious_response" => out,
        "congestion_control" => "cc".into(),
        _ => out,
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
        assert_eq!(e, "bad value `vegas` for cc; valid: reno, cubic");
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

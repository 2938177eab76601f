//! Configuration errors: a bad preset, axis or value, with the valid ones listed.

use core::fmt;

/// A bad preset, axis or value; the message lists what is valid.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    /// No preset has this name.
    UnknownPreset {
        /// The name asked for.
        name: String,
        /// The preset names, comma-separated.
        valid: String,
    },
    /// No axis (setting) has this name.
    UnknownAxis {
        /// The name asked for.
        name: String,
        /// The axis names, comma-separated.
        valid: String,
    },
    /// The axis exists; the value is not one of its values or out of its range.
    BadValue {
        /// The axis.
        axis: String,
        /// The value given.
        value: String,
        /// Its valid values or range.
        valid: String,
    },
    /// The settings contradict each other (`Config::validate`); the message says how.
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
        | "rtt_estimator" | "spurious_detection" | "spurious_response" | "rto_adaptation" => out,
        "congestion_control" => "cc".into(),
        _ => out,
    }
}

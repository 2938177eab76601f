//! How one setting's value reads from and writes to its text form (`--set key=value`,
//! scenario files, `lossrec presets`): numbers within the table's range, booleans,
//! durations in milliseconds, and axis enums by their kebab-case names.

use core::time::Duration;

use super::ConfigError;

/// A value type that a `settings!` row can hold.
pub(super) trait Setting: Sized {
    /// Parses `v` for `key`; `range` is the table's inclusive bounds, if it gives any.
    fn parse(key: &str, v: &str, range: Option<(u64, u64)>) -> Result<Self, ConfigError>;
    /// The text form `parse` reads back.
    fn show(&self) -> String;
}

fn bad(key: &str, v: &str, valid: String) -> ConfigError {
    ConfigError::BadValue {
        axis: key.into(),
        value: v.into(),
        valid,
    }
}

fn number(key: &str, v: &str, range: Option<(u64, u64)>) -> Result<u64, ConfigError> {
    let (lo, hi) = range.unwrap_or((0, u64::MAX));
    match v.parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        _ => Err(bad(key, v, format!("an integer from {lo} to {hi}"))),
    }
}

impl Setting for u32 {
    fn parse(key: &str, v: &str, range: Option<(u64, u64)>) -> Result<Self, ConfigError> {
        let n = number(key, v, range)?;
        u32::try_from(n).map_err(|_| bad(key, v, format!("an integer up to {}", u32::MAX)))
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

impl Setting for u16 {
    fn parse(key: &str, v: &str, range: Option<(u64, u64)>) -> Result<Self, ConfigError> {
        let n = number(key, v, range)?;
        u16::try_from(n).map_err(|_| bad(key, v, format!("an integer up to {}", u16::MAX)))
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

/// Durations are whole milliseconds (the keys end in `_ms`).
impl Setting for Duration {
    fn parse(key: &str, v: &str, range: Option<(u64, u64)>) -> Result<Self, ConfigError> {
        number(key, v, range).map(Duration::from_millis)
    }
    fn show(&self) -> String {
        self.as_millis().to_string()
    }
}

impl Setting for bool {
    fn parse(key: &str, v: &str, _: Option<(u64, u64)>) -> Result<Self, ConfigError> {
        match v {
            "true" | "on" | "1" | "yes" => Ok(true),
            "false" | "off" | "0" | "no" => Ok(false),
            _ => Err(bad(key, v, "true, false".into())),
        }
    }
    fn show(&self) -> String {
        self.to_string()
    }
}

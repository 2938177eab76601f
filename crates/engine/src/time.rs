//! Time as the caller gives it: `Instant` is nanoseconds since the caller's epoch.
//!
//! The engine never reads a clock; every handler takes `now: Instant`. Durations are
//! `core::time::Duration`.

use core::fmt;
use core::ops::{Add, AddAssign, Sub};
pub use core::time::Duration;

/// A point in time, in nanoseconds since an epoch chosen by the caller.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Instant(u64);

impl Instant {
    /// The caller's epoch.
    pub const ZERO: Instant = Instant(0);
    /// Later than any real time; used for "never".
    pub const MAX: Instant = Instant(u64::MAX);

    /// At `ns` nanoseconds.
    pub const fn from_nanos(ns: u64) -> Self {
        Instant(ns)
    }
    /// At `us` microseconds.
    pub const fn from_micros(us: u64) -> Self {
        Instant(us.saturating_mul(1_000))
    }
    /// At `ms` milliseconds.
    pub const fn from_millis(ms: u64) -> Self {
        Instant(ms.saturating_mul(1_000_000))
    }
    /// At `s` seconds.
    pub fn from_secs_f64(s: f64) -> Self {
        Instant((s * 1e9).round().max(0.0) as u64)
    }
    /// Nanoseconds since zero.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    /// Microseconds since zero.
    pub const fn as_micros(self) -> u64 {
        self.0 / 1_000
    }
    /// Milliseconds since zero.
    pub const fn as_millis(self) -> u64 {
        self.0 / 1_000_000
    }
    /// Seconds since zero.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
    /// `self − d`, or `None` before zero.
    pub fn checked_sub(self, d: Duration) -> Option<Instant> {
        self.0.checked_sub(dur_nanos(d)).map(Instant)
    }
}

/// Nanoseconds in a duration, saturating at `u64::MAX`.
pub fn dur_nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl Add<Duration> for Instant {
    type Output = Instant;
    fn add(self, d: Duration) -> Instant {
        Instant(self.0.saturating_add(dur_nanos(d)))
    }
}
impl AddAssign<Duration> for Instant {
    fn add_assign(&mut self, d: Duration) {
        *self = *self + d;
    }
}
impl Sub<Instant> for Instant {
    type Output = Duration;
    /// Saturating: an earlier minus a later instant is zero.
    fn sub(self, rhs: Instant) -> Duration {
        self.saturating_duration_since(rhs)
    }
}
impl Sub<Duration> for Instant {
    type Output = Instant;
    fn sub(self, d: Duration) -> Instant {
        Instant(self.0.saturating_sub(dur_nanos(d)))
    }
}

/// `0:00:01.000250` — hours:minutes:seconds with microseconds.
impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = self.0 / 1_000;
        let (s, us) = (us / 1_000_000, us % 1_000_000);
        write!(
            f,
            "{}:{:02}:{:02}.{:06}",
            s / 3600,
            (s / 60) % 60,
            s % 60,
            us
        )
    }
}
impl fmt::Debug for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn display() {
        assert_eq!(
            Instant::from_micros(1_000_250).to_string(),
            "0:00:01.000250"
        );
        assert_eq!(
            Instant::from_millis(3_723_000).to_string(),
            "1:02:03.000000"
        );
    }
    #[test]
    fn arithmetic_saturates() {
        let a = Instant::from_millis(5);
        assert_eq!(a - Instant::from_millis(7), Duration::ZERO);
        assert_eq!(a + Duration::from_millis(1), Instant::from_millis(6));
        assert_eq!(Instant::MAX + Duration::from_secs(1), Instant::MAX);
    }
}

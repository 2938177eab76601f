//! A finished connection's memory for the next one (issue 29 item 3): a driver of many
//! short connections (the simulator's sequential flows) turns a finished sender into a
//! new one instead of freeing it and allocating another, so the next connection's
//! scoreboard, transmit-time order and event queue grow into buffers already there
//! rather than onto fresh heap pages. Nothing but capacity carries over: the recycled
//! sender is the one [`Sender::with_resolved`] builds, field for field.

use std::sync::Arc;

use super::Sender;
use crate::config::{Algorithms, Config, ConfigError};
use crate::time::Instant;

impl Sender {
    /// Replaces this sender by [`Sender::with_resolved`]`(config, resolved, now)`, keeping
    /// the capacity of its growable buffers (scoreboard segments, transmit-time order,
    /// pending events) and nothing else. Meant for a connection that is over; any state
    /// it still had is discarded. On a configuration error `self` is left as it was.
    ///
    /// ```
    /// use lossrec::{Config, Instant, Sender};
    /// let mut s = Sender::new(Config::default(), Instant::ZERO).unwrap();
    /// s.write(Instant::ZERO, 10_000);
    /// while s.poll_transmit(Instant::ZERO).is_some() {}
    /// let now = Instant::from_millis(5);
    /// s.recycle(Config::default(), None, now).unwrap();
    /// assert_eq!(s.snd_nxt(), 0);
    /// assert_eq!(s.stats(), Sender::new(Config::default(), now).unwrap().stats());
    /// ```
    pub fn recycle(
        &mut self,
        config: impl Into<Arc<Config>>,
        resolved: Option<&Arc<Algorithms>>,
        now: Instant,
    ) -> Result<(), ConfigError> {
        let mut fresh = Sender::with_resolved(config, resolved, now)?;
        fresh.core.sb.reuse_storage(&mut self.core.sb);
        // The new sender may already hold events (its `Established`): they stay, in order.
        let mut events = core::mem::take(&mut self.events);
        events.clear();
        events.append(&mut fresh.events);
        fresh.events = events;
        *self = fresh;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ack, Range};

    /// A sender driven through a recovery with RACK's time order in use: segments
    /// outstanding, SACK holes, events pending.
    fn used(preset: &str) -> Sender {
        let cfg = Config::preset(preset).unwrap();
        let mss = u64::from(cfg.mss);
        let mut s = Sender::new(
            Config {
                handshake: false,
                ..cfg
            },
            Instant::ZERO,
        )
        .unwrap();
        s.write(Instant::ZERO, 40 * mss);
        while s.poll_transmit(Instant::ZERO).is_some() {}
        for k in 2..8u64 {
            let now = Instant::from_millis(40 + k);
            let ack = Ack::cumulative(mss).with_sack(&[Range::new(2 * mss, (k + 1) * mss)]);
            s.on_ack(now, &ack);
            while s.poll_transmit(now).is_some() {}
        }
        s
    }

    /// Recycled, a sender is the one `with_resolved` builds, field for field (its Debug
    /// text shows every field, never a buffer's capacity), for presets with and without
    /// RACK's transmit-time order.
    #[test]
    fn recycled_is_new() {
        for preset in ["rfc", "linux", "rack-tlp"] {
            let mut s = used(preset);
            assert!(
                s.core.sb.flight_size() > 0,
                "{preset}: the used sender has data out"
            );
            let now = Instant::from_millis(500);
            let cfg = Config::preset(preset).unwrap();
            s.recycle(cfg.clone(), None, now).unwrap();
            let fresh = Sender::new(cfg, now).unwrap();
            assert_eq!(format!("{s:?}"), format!("{fresh:?}"), "{preset}");
        }
    }

    /// A configuration error leaves the sender as it was.
    #[test]
    fn error_keeps_the_sender() {
        let mut s = used("linux");
        let before = format!("{s:?}");
        let bad = Config {
            rrthresh: 0,
            ..Config::default()
        };
        assert!(s.recycle(bad, None, Instant::ZERO).is_err());
        assert_eq!(format!("{s:?}"), before);
    }
}

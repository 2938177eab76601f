//! The one loss-recovery deadline, tagged with its purpose (RFC 8985 §5.4, Linux
//! `icsk_pending`): the reorder timer, the probe timeout, delayed early retransmit, the
//! RTO and the persist timer share a single slot; arming one replaces the others.
//!
//! With a kernel tick ([`Wheel`], the Linux flavour's `timer_hz`) a deadline is where
//! Linux's timer would fire: the delay counted in whole jiffies, rounded up
//! (`usecs_to_jiffies`), and the expiry put in the timer wheel's bucket, which fires on a
//! tick strictly after it at the granularity of the wheel's level (`calc_wheel_index`).

use crate::time::{dur_nanos, Duration, Instant};

/// What the deadline is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TimerKind {
    /// Retransmission timeout (also the SYN timeout during the handshake).
    Rto,
    /// Delayed early retransmit (RFC 5827 App. A.3; Linux `ICSK_TIME_EARLY_RETRANS`):
    /// fast-retransmit when it expires; any ACK cancels it.
    EarlyRetransmit,
    /// Tail loss probe timeout, PTO (TLP draft §2.1, RFC 8985 §7.2; Linux
    /// `ICSK_TIME_LOSS_PROBE`): send a probe when it expires.
    LossProbe,
    /// RACK's reorder timer (RFC 8985 §6.2 step 5; Linux `ICSK_TIME_REO_TIMEOUT`): run
    /// RACK's loss detection again when it expires.
    ReoTimeout,
    /// The persist timer (RFC 9293 §3.8.6.1; Linux `ICSK_TIME_PROBE0`): probe a zero
    /// window when it expires. Armed only with nothing in flight.
    Persist,
}

impl TimerKind {
    /// The trace name, e.g. `rto`.
    // Read only by `introspect` users (traces, scripts) since `Sender::timer_kind` is theirs.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn name(self) -> &'static str {
        match self {
            TimerKind::Rto => "rto",
            TimerKind::EarlyRetransmit => "early_retransmit",
            TimerKind::LossProbe => "loss_probe",
            TimerKind::ReoTimeout => "reo_timeout",
            TimerKind::Persist => "persist",
        }
    }
}

/// Linux's timer clock: `jiffies` ticking at `CONFIG_HZ` from the caller's epoch, and
/// the timer wheel of `kernel/time/timer.c` (since 4.8): 64 buckets per level, level `n`
/// holding delays from `LVL_START(n)` = 63·8ⁿ⁻¹ jiffies at a granularity of 8ⁿ jiffies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Wheel {
    /// One jiffy (1 s / HZ).
    tick: Duration,
}

impl Wheel {
    /// The wheel at `hz` ticks per second; `None` for 0 (exact timers).
    pub fn from_hz(hz: u32) -> Option<Wheel> {
        (hz > 0).then(|| Wheel {
            tick: Duration::from_nanos(1_000_000_000 / u64::from(hz)),
        })
    }

    /// `usecs_to_jiffies`: whole jiffies, rounded up.
    pub fn jiffies(self, d: Duration) -> u64 {
        dur_nanos(d).div_ceil(dur_nanos(self.tick).max(1))
    }

    /// When a timer armed at `now` for `at` fires: `jiffies + usecs_to_jiffies(at − now)`
    /// (`sk_reset_timer`) placed by `calc_wheel_index`/`calc_index`, whose bucket expires
    /// at the next multiple of its level's granularity strictly after that ("the timer
    /// wheel has to guarantee that a timer does not fire early"), on a tick.
    pub fn expiry(self, now: Instant, at: Instant) -> Instant {
        let tick = dur_nanos(self.tick).max(1);
        let clk = now.as_nanos() / tick;
        let delta = self.jiffies(at.saturating_duration_since(now));
        let expires = clk.saturating_add(delta);
        // LVL_START(n) = (LVL_SIZE − 1) << ((n − 1)·LVL_CLK_SHIFT); 9 levels (HZ > 100).
        let lvl = (1..9u32).take_while(|&n| delta >= 63 << (3 * (n - 1))).count() as u32;
        let shift = 3 * lvl;
        let bucket = ((expires >> shift) + 1) << shift;
        Instant::from_nanos(bucket.saturating_mul(tick))
    }
}

/// The armed deadline, if any.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Timer {
    slot: Option<(TimerKind, Instant)>,
    /// Linux's jiffies and timer wheel, or exact deadlines.
    wheel: Option<Wheel>,
}

impl Timer {
    /// A timer whose deadlines follow `wheel` (exact when `None`).
    pub fn new(wheel: Option<Wheel>) -> Timer {
        Timer { slot: None, wheel }
    }
    /// Arms `kind` at `now` for `at` (later with a [`Wheel`]: where its bucket fires).
    pub fn arm(&mut self, kind: TimerKind, now: Instant, at: Instant) {
        let at = match self.wheel {
            Some(w) => w.expiry(now, at),
            None => at,
        };
        self.slot = Some((kind, at));
    }
    /// Puts back a deadline this timer held before (already where it fires).
    pub fn restore(&mut self, kind: TimerKind, at: Instant) {
        self.slot = Some((kind, at));
    }
    /// Disarms it.
    pub fn stop(&mut self) {
        self.slot = None;
    }
    /// When it fires, if armed.
    pub fn deadline(&self) -> Option<Instant> {
        self.slot.map(|(_, at)| at)
    }
    /// What is armed.
    pub fn kind(&self) -> Option<TimerKind> {
        self.slot.map(|(k, _)| k)
    }
    /// Something is armed.
    pub fn is_armed(&self) -> bool {
        self.slot.is_some()
    }
    /// The kind, if the deadline has passed at `now`.
    pub fn expired(&self, now: Instant) -> Option<TimerKind> {
        self.slot.filter(|&(_, at)| at <= now).map(|(k, _)| k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Instant {
        Instant::from_millis(v)
    }

    /// HZ = 250 (4 ms jiffies), `calc_wheel_index`: level 0 below 63 jiffies fires one
    /// jiffy after `jiffies + when`; level 1 (63–503 jiffies) at the next multiple of 8
    /// jiffies (32 ms) after it; level 2 (504–4031) at the next multiple of 64 (256 ms).
    #[test]
    fn linux_wheel_at_hz_250() {
        let w = Wheel::from_hz(250).expect("a tick");
        assert_eq!(w.jiffies(Duration::from_micros(4001)), 2);
        // Armed at 10 ms (jiffy 2) for 10 ms: usecs_to_jiffies = 3, expires 5, bucket 6.
        assert_eq!(w.expiry(ms(10), ms(20)), ms(24));
        // A 300 ms RTO from 0: 75 jiffies, level 1, bucket (75 >> 3) + 1 = 10 → 80.
        assert_eq!(w.expiry(ms(0), ms(300)), ms(320));
        // A backed-off 2.4 s RTO from 1 s: clk 250, 600 jiffies, level 2: expires 850,
        // bucket ((850 >> 6) + 1) << 6 = 896 → 3.584 s, 184 ms after the nominal expiry.
        assert_eq!(w.expiry(ms(1000), ms(3400)), ms(3584));
        assert_eq!(Wheel::from_hz(0), None);
    }

    #[test]
    fn exact_without_a_wheel() {
        let mut t = Timer::default();
        t.arm(TimerKind::Rto, ms(10), ms(20));
        assert_eq!(t.deadline(), Some(ms(20)));
        let mut t = Timer::new(Wheel::from_hz(250));
        t.arm(TimerKind::Rto, ms(10), ms(20));
        assert_eq!(t.deadline(), Some(ms(24)));
    }
}

//! CUBIC's hybrid slow start as Linux runs it (net/ipv4/tcp_cubic.c: `cubictcp_acked`,
//! `hystart_update`, `bictcp_hystart_reset`; Ha & Rhee, "Taming the elephants", 2011).
//!
//! Each RTT sample of an ACK (the newest segment it acknowledged, never retransmitted)
//! lowers `delay_min`; while in slow start with cwnd ≥ 16 segments (`hystart_low_window`):
//! - a round is the time until SND.UNA passes the SND.NXT of its start (Linux 6.13+: checked
//!   on every sample; Linux 5.16–6.12: only once cwnd ≥ 16, `low_window_rounds`);
//! - ACK train: ACKs at most 2 ms apart (`hystart_ack_delta_us`) that still arrive more
//!   than (delay_min + ack delay) / 2 after the round began end slow start;
//! - delay: after 8 samples in a round (`HYSTART_MIN_SAMPLES`), the round's smallest RTT
//!   above delay_min + clamp(delay_min / 8, 4 ms, 16 ms) ends slow start.
//!
//! Ending slow start sets ssthresh = cwnd (the sender applies it). Samples within 1 s of
//! the start of a congestion-avoidance epoch are ignored ("right after fast recovery").
//! The ACK-train threshold is halved only when nothing paces the flow (Linux 5.6+:
//! `sk_pacing_status == SK_PACING_NONE`, "Pacing might have delayed packets up to RTT/2
//! during slow start"); with `fq` or internal pacing it is delay_min + ack delay.

use crate::time::{Duration, Instant};

/// `hystart_low_window`, segments.
const LOW_WINDOW: u64 = 16;
/// `hystart_ack_delta_us`.
const ACK_DELTA: Duration = Duration::from_millis(2);
/// `HYSTART_MIN_SAMPLES`.
const MIN_SAMPLES: u8 = 8;
/// `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`.
const DELAY_MIN: Duration = Duration::from_millis(4);
const DELAY_MAX: Duration = Duration::from_millis(16);

/// HyStart's state (Linux keeps it in `struct bictcp`).
#[derive(Copy, Clone, Debug, Default)]
pub struct HyStart {
    ack_train: bool,
    delay: bool,
    /// Rounds start only once cwnd ≥ `hystart_low_window` (Linux 5.16–6.12).
    low_window_rounds: bool,
    found: bool,
    sample_cnt: u8,
    /// The round's smallest RTT (`curr_rtt`), µs; `u32::MAX` before its first sample.
    curr_rtt: u32,
    /// CUBIC's `delay_min`, µs (Linux keeps a `u32`); 0 before the first sample.
    delay_min: u32,
    /// When the round began and the last ACK of a train, µs (Linux's `u32` clock).
    round_start: u32,
    last_ack: u32,
    /// SND.NXT when the round began (`end_seq`), as Linux's 32-bit sequence.
    end_seq: u32,
}

/// Microseconds in a `u32`, as Linux keeps RTTs.
fn us32(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}
fn us(v: u32) -> Duration {
    Duration::from_micros(v.into())
}
/// Linux's `bictcp_clock_us`: microseconds, truncated to 32 bits.
fn clock(t: Instant) -> u32 {
    t.as_micros() as u32
}

/// One ACK's sample and the connection around it.
#[derive(Copy, Clone, Debug)]
pub struct Sample {
    /// The time of the ACK (`bictcp_clock_us`).
    pub now: Instant,
    /// The ACK's RTT sample (`sample->rtt_us`).
    pub rtt: Duration,
    /// SND.UNA after the ACK, a sequence offset: a round ends once it passes `end_seq`.
    pub snd_una: u64,
    /// SND.NXT, a sequence offset: a new round ends where this is now (`end_seq`).
    pub snd_nxt: u64,
    /// cwnd, segments (`tcp_snd_cwnd`), compared with `hystart_low_window`.
    pub cwnd_segs: u64,
    /// cwnd < ssthresh (`tcp_in_slow_start`): HyStart acts only then.
    pub in_slow_start: bool,
    /// `hystart_ack_delay`: min(1 ms, 4 GSO packets at the pacing rate).
    pub ack_delay: Duration,
    /// Something paces the flow (`sk_pacing_status` is not `SK_PACING_NONE`).
    pub paced: bool,
}

impl HyStart {
    /// HyStart with the ACK-train and/or delay detector on (Linux `hystart_detect`
    /// bits `HYSTART_ACK_TRAIN` = 1, `HYSTART_DELAY` = 2).
    pub fn new(ack_train: bool, delay: bool) -> HyStart {
        HyStart {
            ack_train,
            delay,
            ..HyStart::default()
        }
    }

    /// At least one detector is on (Linux `hystart` = 1 and `hystart_detect` ≠ 0).
    pub fn enabled(&self) -> bool {
        self.ack_train || self.delay
    }

    /// CUBIC's `delay_min`, the smallest RTT sample since the last reset.
    pub fn delay_min(&self) -> Option<Duration> {
        (self.delay_min > 0).then(|| us(self.delay_min))
    }

    /// The exit point was found (slow start ended by HyStart).
    pub fn found(&self) -> bool {
        self.found
    }

    /// Rounds start only once cwnd ≥ 16 segments, as in Linux 5.16–6.12.
    pub fn with_low_window_rounds(self, on: bool) -> HyStart {
        HyStart {
            low_window_rounds: on,
            ..self
        }
    }

    /// `bictcp_reset` on entering Loss: a fresh search; the next sample starts a round.
    pub fn reset(&mut self) {
        *self =
            HyStart::new(self.ack_train, self.delay).with_low_window_rounds(self.low_window_rounds);
    }

    /// `bictcp_hystart_reset`: a new round.
    fn new_round(&mut self, now: Instant, snd_nxt: u64) {
        self.round_start = clock(now);
        self.last_ack = clock(now);
        self.end_seq = snd_nxt as u32;
        self.curr_rtt = u32::MAX;
        self.sample_cnt = 0;
    }

    /// `cubictcp_acked` from delay_min on (the caller skips samples near an epoch's start).
    /// True when slow start ends now.
    pub fn on_sample(&mut self, s: &Sample) -> bool {
        let delay = us32(s.rtt).max(1);
        if self.delay_min == 0 || delay < self.delay_min {
            self.delay_min = delay;
        }
        let delay_min = us(self.delay_min);
        if self.found || !s.in_slow_start || !self.enabled() {
            return false;
        }
        let below_low_window = s.cwnd_segs < LOW_WINDOW;
        if below_low_window && self.low_window_rounds {
            return false;
        }
        // after(snd_una, end_seq), in 32-bit sequence space.
        if ((s.snd_una as u32).wrapping_sub(self.end_seq) as i32) > 0 {
            self.new_round(s.now, s.snd_nxt);
        }
        let now = clock(s.now);
        if below_low_window {
            return false;
        }
        if self.ack_train && us(now.wrapping_sub(self.last_ack)) <= ACK_DELTA {
            self.last_ack = now;
            // Without pacing Linux halves the threshold.
            let threshold = delay_min + s.ack_delay;
            let threshold = if s.paced { threshold } else { threshold / 2 };
            if us(now.wrapping_sub(self.round_start)) > threshold {
                self.found = true;
            }
        }
        if self.delay {
            self.curr_rtt = self.curr_rtt.min(delay);
            let curr = us(self.curr_rtt);
            if self.sample_cnt < MIN_SAMPLES {
                self.sample_cnt += 1;
            } else if curr > delay_min + (delay_min / 8).clamp(DELAY_MIN, DELAY_MAX) {
                self.found = true;
            }
        }
        self.found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> Instant {
        Instant::from_micros(ms * 1000)
    }

    fn sample(now: u64, rtt: u64, una: u64, cwnd: u64) -> Sample {
        Sample {
            now: at(now),
            rtt: Duration::from_millis(rtt),
            snd_una: una,
            snd_nxt: 30_000,
            cwnd_segs: cwnd,
            in_slow_start: true,
            ack_delay: Duration::from_millis(1),
            paced: false,
        }
    }

    /// cubic-hystart-delay-rtt-jumps-upward's rule: delay_min 200 ms; a round whose RTTs
    /// are all ≥ 240 ms ends slow start at the ninth sample, not before.
    #[test]
    fn delay_exit_after_eight_samples_above_the_threshold() {
        let mut h = HyStart::new(false, true);
        assert!(!h.on_sample(&sample(400, 200, 10_000, 10)));
        for i in 0..8 {
            let s = sample(640 + i, 240 + i, 12_000 + 2000 * i, 20 + 2 * i);
            assert!(!h.on_sample(&s), "sample {i}");
        }
        assert!(h.on_sample(&sample(648, 248, 28_000, 36)));
        assert!(h.found());
    }

    /// Linux 5.16–6.12: a round does not start below cwnd 16, so a round that began while
    /// cwnd was small goes on (and its samples count) until cwnd reaches 16 and SND.UNA
    /// passes its end; Linux 6.13+ starts one at the first ACK past the end.
    #[test]
    fn rounds_below_the_low_window() {
        let run = |low_window_rounds: bool| {
            let mut h = HyStart::new(false, true).with_low_window_rounds(low_window_rounds);
            // Init: a round that ends at SND.NXT 0; the first ACK (cwnd 10) is past it.
            h.on_sample(&Sample {
                snd_nxt: 10_000,
                ..sample(100, 100, 2_000, 10)
            });
            h.end_seq
        };
        assert_eq!(run(false), 10_000, "6.13+: a new round at cwnd 10");
        assert_eq!(run(true), 0, "5.16-6.12: none below cwnd 16");
    }

    /// RTTs within delay_min + delay_min/8 (clamped to 16 ms) never end it.
    #[test]
    fn small_delay_increase_does_not_exit() {
        let mut h = HyStart::new(true, true);
        h.on_sample(&sample(400, 200, 10_000, 10));
        for i in 0..20 {
            assert!(!h.on_sample(&sample(640 + 5 * i, 210, 12_000 + 1000 * i, 20)));
        }
    }

    /// ACKs 1 ms apart that keep coming more than (delay_min + 1 ms) / 2 after the round
    /// began: the ACK train ends slow start.
    #[test]
    fn ack_train_exit() {
        let mut h = HyStart::new(true, false);
        // The round begins at 199 ms (SND.UNA passed the last round's end).
        h.on_sample(&sample(199, 100, 1_000, 10));
        let exited = (200..280).find(|&now| h.on_sample(&sample(now, 100, 20_000 + now, 20)));
        // The threshold is (100 + 1) / 2 = 50.5 ms after the round began.
        assert_eq!(exited, Some(250));
    }

    /// With pacing the threshold is the whole delay_min + ack delay (Linux 5.6+): the
    /// same train ends slow start only 101 ms after the round began.
    #[test]
    fn ack_train_exit_when_paced() {
        let mut h = HyStart::new(true, false);
        let paced = |now: u64, una: u64| Sample {
            paced: true,
            ..sample(now, 100, una, 20)
        };
        h.on_sample(&Sample {
            cwnd_segs: 10,
            ..paced(199, 1_000)
        });
        let exited = (200..400).find(|&now| h.on_sample(&paced(now, 20_000 + now)));
        assert_eq!(exited, Some(301));
    }
}

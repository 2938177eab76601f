//! The Timestamps option of one connection (RFC 7323): the TSval clock, the one TS.Recent
//! both directions echo, and the way back from an echoed TSval to the time it was sent.
//!
//! **The clock.** TSval ticks in milliseconds by default, as Linux's `tcp_time_stamp_ms`
//! (`tcp_skb_timestamp_ts`, `tcp_clock_ms`) does, plus a per-connection offset (Linux draws
//! it at random, `secure_tcp_ts_off`; ours is given, 1 by default so that the first tick is
//! not 0: an echo of 0 means "no echo", RFC 7323 §3.2). [`TsUnit::Micros`] ticks in
//! microseconds instead (Linux's `TCP_TS` usec option, 6.7+ route feature `tcp_usec_ts`).
//!
//! **TS.Recent** (RFC 7323 §4.3, Linux `tcp_replace_ts_recent`): one value per connection,
//! taken from the SYN or SYN-ACK, then from an acceptable segment whose SEG.SEQ is not
//! after Last.ACK.sent (Linux `rcv_wup`) and whose TSval is not older than it. Every
//! segment the endpoint sends, data or ACK, echoes it: the engine's sender and receiver
//! halves each keep an echo of their own, which the endpoint does not use.
//!
//! **Echoes back into the engine.** The engine reads a TSecr as its own clock (the
//! sender's `now` in µs + 1, the receiver's `now` in µs; [`sender_ts`], [`receiver_ts`])
//! to take RTT samples and to tell a retransmission's ACK from the original's (Eifel,
//! RACK). An echo of a millisecond tick says which tick, not which microsecond: the
//! endpoint remembers when each tick was first used ([`TsState::echo`]) and hands the
//! engine that instant, so an RTT sample errs by less than one tick and on the long side,
//! as Linux's `tcp_rtt_tsopt_us` does; an echo it never sent (forged, or older than its
//! memory) gets the tick's start.

use std::collections::VecDeque;

use lossrec::Instant;

/// How many ticks' first use the endpoint remembers (a few seconds of 1 ms ticks: far more
/// than a window's worth of echoes).
const REMEMBERED_TICKS: usize = 4096;

/// The TSval clock's tick.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum TsUnit {
    /// One millisecond (Linux's default `tcp_time_stamp`).
    #[default]
    Millis,
    /// One microsecond (Linux's `tcp_usec_ts` route feature).
    Micros,
}

impl TsUnit {
    fn nanos(self) -> u64 {
        match self {
            TsUnit::Millis => 1_000_000,
            TsUnit::Micros => 1_000,
        }
    }
}

/// A TSval clock: `ticks(now) + offset (mod 2^32)`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TsClock {
    /// The tick.
    pub unit: TsUnit,
    /// Added to every TSval (Linux's per-connection `ts_offset`).
    pub offset: u32,
}

impl Default for TsClock {
    fn default() -> TsClock {
        TsClock {
            unit: TsUnit::Millis,
            offset: 1,
        }
    }
}

impl TsClock {
    /// The TSval at `now`.
    ///
    /// ```
    /// use lossrec::Instant;
    /// use lossrec_tcp::ts::{TsClock, TsUnit};
    /// let ms = TsClock::default();
    /// assert_eq!(ms.val(Instant::from_micros(41_999)), 42); // 41 ms + offset 1
    /// let us = TsClock { unit: TsUnit::Micros, offset: 0 };
    /// assert_eq!(us.val(Instant::from_micros(41_999)), 41_999);
    /// ```
    pub fn val(&self, now: Instant) -> u32 {
        ((now.as_nanos() / self.unit.nanos()) as u32).wrapping_add(self.offset)
    }

    /// The start of the tick whose TSval is `val`, taking the occurrence nearest `now`
    /// (TSvals wrap every 2^32 ticks). Never before time zero.
    pub fn tick_start(&self, val: u32, now: Instant) -> Instant {
        let now_ticks = now.as_nanos() / self.unit.nanos();
        let back = self.val(now).wrapping_sub(val);
        let ticks = if back < 1 << 31 {
            now_ticks.saturating_sub(u64::from(back))
        } else {
            now_ticks + u64::from(val.wrapping_sub(self.val(now)))
        };
        Instant::from_nanos(ticks.saturating_mul(self.unit.nanos()))
    }
}

/// The engine sender's timestamp clock at `t` (its TSval and the TSecr it reads: µs + 1,
/// `lossrec` `sender/transmit.rs` `ts_clock`).
pub fn sender_ts(t: Instant) -> u64 {
    t.as_micros() + 1
}

/// The engine receiver's timestamp clock at `t` (µs, `Receiver::poll_ack`).
pub fn receiver_ts(t: Instant) -> u64 {
    t.as_micros()
}

/// The instant an engine sender's TSval stands for ([`sender_ts`] inverted).
pub fn sender_ts_instant(v: u64) -> Instant {
    Instant::from_micros(v.saturating_sub(1))
}

/// The instant an engine receiver's TSval stands for ([`receiver_ts`] inverted).
pub fn receiver_ts_instant(v: u64) -> Instant {
    Instant::from_micros(v)
}

/// One connection's timestamps: the clock, TS.Recent, and the ticks it has sent.
#[derive(Clone, Debug, Default)]
pub struct TsState {
    clock: TsClock,
    recent: Option<u32>,
    /// `(TSval, when first sent)`, oldest first, one entry per tick used.
    sent: VecDeque<(u32, Instant)>,
}

impl TsState {
    /// A connection's timestamps on `clock`.
    pub fn new(clock: TsClock) -> TsState {
        TsState {
            clock,
            ..TsState::default()
        }
    }

    /// The clock.
    pub fn clock(&self) -> TsClock {
        self.clock
    }

    /// TS.Recent, once a segment set it.
    pub fn recent(&self) -> Option<u32> {
        self.recent
    }

    /// The option for a segment sent at `now`: TSval from the clock, TSecr = TS.Recent (0
    /// before the peer's first timestamp, as on a SYN).
    pub fn stamp(&mut self, now: Instant) -> lossrec_wire::Timestamps {
        let val = self.clock.val(now);
        if self.clock.unit == TsUnit::Millis && self.sent.back().is_none_or(|b| b.0 != val) {
            if self.sent.len() == REMEMBERED_TICKS {
                self.sent.pop_front();
            }
            self.sent.push_back((val, now));
        }
        lossrec_wire::Timestamps {
            val,
            ecr: self.recent.unwrap_or(0),
        }
    }

    /// A SYN or SYN-ACK's TSval starts TS.Recent (RFC 7323 §4.3 (1); Linux
    /// `tcp_rcv_synsent_state_process`, `tcp_openreq_init`).
    pub fn take_syn(&mut self, tsval: u32) {
        self.recent = Some(tsval);
    }

    /// An acceptable segment's TSval: taken when SEG.SEQ is not after Last.ACK.sent
    /// (`rcv_wup`) and TSval is not older than TS.Recent (RFC 7323 §4.3 (2); Linux
    /// `tcp_replace_ts_recent` with `tcp_paws_check`'s serial comparison).
    pub fn take(&mut self, tsval: u32, seq: u32, rcv_wup: u32) {
        let in_order = (seq.wrapping_sub(rcv_wup) as i32) <= 0;
        let newer = self
            .recent
            .is_none_or(|r| (tsval.wrapping_sub(r) as i32) >= 0);
        if in_order && newer {
            self.recent = Some(tsval);
        }
    }

    /// The instant an echoed TSecr stands for: when its tick was first sent (millisecond
    /// clock), the exact instant (microsecond clock), `None` for 0 (no echo). See the
    /// module doc.
    pub fn echo(&self, ecr: u32, now: Instant) -> Option<Instant> {
        if ecr == 0 {
            return None;
        }
        if self.clock.unit == TsUnit::Millis {
            if let Some(&(front, _)) = self.sent.front() {
                let key = ecr.wrapping_sub(front);
                let i = self.sent.partition_point(|e| e.0.wrapping_sub(front) < key);
                if let Some(&(v, at)) = self.sent.get(i) {
                    if v == ecr {
                        return Some(at);
                    }
                }
            }
        }
        Some(self.clock.tick_start(ecr, now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(us: u64) -> Instant {
        Instant::from_micros(us)
    }

    #[test]
    fn millisecond_clock_is_the_default_and_echoes_go_back_to_the_first_use() {
        let mut ts = TsState::default();
        assert_eq!(ts.stamp(at(5_100)).val, 6);
        assert_eq!(ts.stamp(at(5_900)).val, 6);
        assert_eq!(ts.stamp(at(7_000)).val, 8);
        assert_eq!(ts.echo(6, at(30_000)), Some(at(5_100)));
        assert_eq!(ts.echo(8, at(30_000)), Some(at(7_000)));
        // Never sent: the tick's start.
        assert_eq!(ts.echo(7, at(30_000)), Some(at(6_000)));
        assert_eq!(ts.echo(0, at(30_000)), None);
    }

    #[test]
    fn microsecond_clock_echoes_exactly_across_the_wrap() {
        let clock = TsClock {
            unit: TsUnit::Micros,
            offset: 0,
        };
        let ts = TsState::new(clock);
        let sent = at((1 << 32) + 77);
        let v = clock.val(sent);
        assert_eq!(v, 77);
        assert_eq!(ts.echo(v, at((1 << 32) + 20_077)), Some(sent));
    }

    #[test]
    fn ts_recent_follows_rfc7323_4_3() {
        let mut ts = TsState::default();
        ts.take_syn(100);
        assert_eq!(ts.stamp(at(0)).ecr, 100);
        // After Last.ACK.sent (a segment beyond a hole): not taken.
        ts.take(200, 5_000, 1_000);
        assert_eq!(ts.recent(), Some(100));
        // At Last.ACK.sent and newer: taken; older: not.
        ts.take(150, 1_000, 1_000);
        ts.take(120, 900, 1_000);
        assert_eq!(ts.recent(), Some(150));
        // Serial comparison across the wrap.
        ts.take_syn(u32::MAX - 1);
        ts.take(3, 1_000, 1_000);
        assert_eq!(ts.recent(), Some(3));
    }
}

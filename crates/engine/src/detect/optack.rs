//! The optimistic-ACK defence (`optack_defence = skip-segment`): Savage, Cardwell,
//! Wetherall, Anderson, "TCP congestion control with a misbehaving receiver" (CCR 1999)
//! §4.3, and the "randomly skipped segment" of Sherwood, Bhattacharjee, Braud,
//! "Misbehaving TCP receivers can cause Internet-wide congestion collapse" (CCS 2005) §5.
//! Linux has no defence (the ACK is only checked against SND.NXT, `tcp_ack`).
//!
//! A receiver that acknowledges data before it arrives (an optimistic ACK) makes the
//! sender's ACK clock run as if the path were shorter and lossless: Savage et al. measured
//! its sender growing many times faster than the path allows. The defence plants evidence
//! an honest receiver cannot fake: now and then (every `interval` new segments on average,
//! at positions the attacker cannot predict) one new segment `k` is held back while the
//! next one goes first (two without SACK), and `k` follows in the same burst. An honest
//! receiver gets the segments ahead before `k` and answers each at once (RFC 5681 §4.2: out-of-order
//! data is acknowledged immediately) with an ACK that shows the hole, *caused by* the
//! segments sent ahead (issue 26 item 3: a cumulative ACK that merely stops at `k` is no
//! report — an attacker stepping one segment per ACK lands on every sequence, and the
//! honest ACK of `k − 1` stops there too):
//! - with SACK, a SACK block that begins above `k` and below the end of the segments
//!   sent ahead (RFC 2018 §4: a receiver holding out-of-order data SACKs it in every ACK);
//! - without SACK, a duplicate ACK at `k` (SEG.ACK = SND.UNA = `k`): the second segment
//!   ahead makes one even when the first one's ACK was the advance to `k` (a delayed ACK
//!   of `k − 1` is sent then);
//! - and either only once it can be an answer to the segments sent ahead: at least
//!   min_RTT after they left, as Linux's `tcp_rack_advance` tells an ACK of a
//!   retransmission from one of the original (and `dsack_proof` here). An attacker's
//!   ACK sent before they reached it arrives sooner, even when its own early ACKs have
//!   shortened min_RTT to the one-way delay.
//!
//! The verdict, taken on the first ACK that covers `k`:
//! - the hole was reported: **pass**;
//! - `k` had not even been sent yet (the caller broke the burst): proof, **detected**;
//! - evidence is missing but could be innocent: **void**. Without SACK a loss below `k`
//!   hides the hole: the receiver's answers to the segments ahead are duplicates at the
//!   lower hole, which excuse the missing report ("excused": an answered duplicate below
//!   the end of the segments ahead, other than at `k`). A retransmission below `k` is no
//!   excuse by itself: a paced attacker without SACK makes duplicates at its own front,
//!   sooner than any answer, and keeps the sender in fast recovery (issue 26 item 3:
//!   `reno-sack` under 2 % loss voided every check that way);
//! - an ACK that covers `k` but not the segments sent ahead says that they were lost
//!   (`k` came first, in order). It is no excuse until they are repaired: the verdict
//!   waits for the ACK that covers them, void if one of them was resent (or, without
//!   SACK, reported missing by an answered duplicate) meanwhile, otherwise a strike — a paced attacker stepping one segment covers `k`
//!   first and the segments ahead on its next ACKs;
//! - otherwise a **strike**. [`STRIKES`] consecutive strikes are a detection: a lost ACK
//!   (or a path that swaps the segments ahead back behind `k`) can hide one honest report,
//!   so with ACK loss p an honest connection is taken for a liar with probability about
//!   p⁶ per three skips (both reports lost, three times).
//!
//! What the hold costs an honest connection: `k` arrives one place out of order (two
//! without SACK, where the second segment ahead may exceed cwnd by one segment until the
//! next ACK). One or two duplicates follow (fewer than DupThresh, and two SACKed segments
//! are not more than (DupThresh − 1)·SMSS, RFC 6675 IsLost; RFC 3042 may send new
//! segments on them); the sender stamps `k` as sent after the segments ahead (RACK sees no
//! reordering), does not count `k`'s late delivery as reordering evidence
//! ([`SkipSegment::reorder_filter`]), and gives back on the passing ACK the growth Linux
//! withholds from the duplicates ([`SkipSegment::take_credit`]; RFC 3465's per-ACK limit
//! counts them as the ACKs they would have been in order). No loss is inferred and no
//! threshold moves.
//!
//! Only one check is open at a time, so at most one segment is held per round trip; the
//! interval matters when it is longer than the window. It needs a receiver that
//! acknowledges out-of-order data at once (RFC 5681 §4.2 SHOULD; Linux, BSD and Windows do)
//! on a path that does not thin duplicate ACKs: that is why it is off by default.
//!
//! What it cannot see: a receiver that acknowledges only what arrived but claims a hole
//! as received once it has lasted (it waits out the held segment's one-burst delay) lies
//! about losses, not about arrivals; only a segment withheld for a whole round trip
//! (Savage et al.'s cumulative nonce, §4.3) would catch it, at a round trip of
//! head-of-line delay per check.
//!
//! The engine has no RNG: the positions come from a seed the caller supplies
//! (`Sender::set_seed`), mixed with a counter (SplitMix64's finaliser).
//! Memory: one held segment, one queued ahead of it and one open check, whatever the peer
//! sends.

use crate::packet::{Range, Transmit};
use crate::time::{Duration, Instant};

/// Consecutive failed checks that count as a detection.
pub const STRIKES: u8 = 3;

/// What an ACK told the defence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// No check decided on this ACK.
    Pending,
    /// The peer reported the hole.
    Pass,
    /// The evidence could be innocent; no judgement.
    Void,
    /// The peer covered the held segment without reporting the hole.
    Strike,
    /// The peer acknowledges data it did not receive.
    Detected,
}

/// The open check of one skipped segment.
#[derive(Copy, Clone, Debug)]
struct Check {
    skipped: Range,
    /// End of the segments sent ahead of it.
    ahead_end: u64,
    /// When they were sent.
    ahead_sent: Instant,
    sent: bool,
    proven: bool,
    /// A segment below the held one, or one sent ahead of it, was retransmitted since
    /// (the module doc's "excused").
    excused: bool,
    /// An ACK covered the held segment but not the segments ahead: the verdict waits for
    /// the ACK that covers them.
    awaiting_ahead: bool,
}

/// One acceptable ACK as the check reads it.
#[derive(Copy, Clone, Debug)]
pub struct AckView<'a> {
    /// Its arrival time.
    pub now: Instant,
    /// SEG.ACK (at most SND.NXT).
    pub cum: u64,
    /// SND.UNA before it: `cum == una` is a duplicate (RFC 5681 §2).
    pub una: u64,
    /// Its SACK blocks without the DSACK (empty without SACK).
    pub blocks: &'a [Range],
    /// SACK is in use on the connection.
    pub sack: bool,
    /// The connection's min_RTT before it (zero before any sample).
    pub min_rtt: Duration,
}

/// The defence's state on one connection.
#[derive(Clone, Debug)]
pub struct SkipSegment {
    seed: u64,
    interval: u64,
    draws: u64,
    /// New segments still to send before the next skip.
    countdown: u64,
    /// The segment held back while the next two go first.
    held: Option<Transmit>,
    /// The second segment sent ahead of it, when the first has gone.
    queued: Option<Transmit>,
    check: Option<Check>,
    /// The last held segment whose check was decided (its late delivery is decided on the
    /// same ACK, after the check).
    last_skipped: Option<Range>,
    /// Bytes sent ahead of the held segment whose growth the passing ACK should still
    /// credit ([`SkipSegment::take_credit`]).
    credit: u64,
    strikes: u8,
    detected: bool,
}

/// SplitMix64's output function.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl SkipSegment {
    /// Skips every `interval` segments on average (every `interval / 8` after a failed
    /// check), at positions drawn from `seed`.
    pub fn new(interval: u32, seed: u64) -> Self {
        let mut s = SkipSegment {
            seed,
            interval: u64::from(interval.max(1)),
            draws: 0,
            countdown: 0,
            held: None,
            queued: None,
            check: None,
            last_skipped: None,
            credit: 0,
            strikes: 0,
            detected: false,
        };
        s.countdown = s.draw();
        s
    }

    /// Restarts the positions from `seed` (the caller's randomness).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
        self.draws = 0;
        self.countdown = self.draw();
    }

    /// The next gap: uniform on 1 ..= 2·interval − 1 (mean `interval`). After a failed
    /// check the interval is an eighth: a peer that failed one is checked again within a
    /// few segments (the next check still waits for this one to close, so at most one per
    /// round trip), and an attacker whose run is short, or whose window leaves few chances
    /// to hold a segment, cannot outlast [`STRIKES`]; an honest peer fails one only when
    /// an ACK is lost, and pays a few more held segments then.
    fn draw(&mut self) -> u64 {
        let r = mix(self.seed ^ mix(self.draws.wrapping_add(0x9e37_79b9_7f4a_7c15)));
        self.draws += 1;
        let interval = if self.strikes > 0 {
            (self.interval / 8).max(1)
        } else {
            self.interval
        };
        1 + r % (2 * interval - 1)
    }

    /// The peer was found acknowledging data it did not receive.
    pub fn detected(&self) -> bool {
        self.detected
    }

    /// Failed checks since the last pass.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))] // used by observers
    pub fn strikes(&self) -> u8 {
        self.strikes
    }

    /// The next new segment should be held back (nothing held, no check open).
    pub fn due(&self) -> bool {
        self.countdown == 0 && self.held.is_none() && self.check.is_none() && !self.detected
    }

    /// A new segment went out in order.
    pub fn on_new_segment(&mut self) {
        self.countdown = self.countdown.saturating_sub(1);
    }

    /// `t` is held back at `now`; `second`, if any, goes after the segment sent now and
    /// before `t`; `ahead_end` ends the segments sent ahead.
    pub fn hold(&mut self, now: Instant, t: Transmit, second: Option<Transmit>, ahead_end: u64) {
        self.held = Some(t);
        self.queued = second;
        self.check = Some(Check {
            skipped: t.range,
            ahead_end,
            ahead_sent: now,
            sent: false,
            proven: false,
            excused: false,
            awaiting_ahead: false,
        });
        self.countdown = self.draw();
    }

    /// The second segment ahead goes out now, then the held one.
    pub fn release(&mut self) -> Option<Transmit> {
        if let Some(t) = self.queued.take() {
            return Some(t);
        }
        let t = self.held.take()?;
        if let Some(c) = self.check.as_mut() {
            c.sent = true;
        }
        Some(t)
    }

    /// The growth the ACK that passed a check should add to its DeliveredData: what was
    /// sent ahead and reported before the held segment arrived (a SACK, or a duplicate
    /// without SACK) delivered nothing for growth then — Linux grows only on forward
    /// progress (`tcp_may_raise_cwnd`) — and counts as delivered before now, so without it
    /// every skip would cost one segment of growth. In order, this ACK would have
    /// delivered it. At most the part of `acked` not already counted (`delivered`).
    pub fn take_credit(&mut self, acked: u64, delivered: u64) -> u64 {
        core::mem::take(&mut self.credit).min(acked.saturating_sub(delivered))
    }

    /// A retransmission of `range`: one of the segments sent ahead was lost, which excuses
    /// an ACK that covered the held segment before them.
    pub fn on_retransmit(&mut self, range: Range) {
        if let Some(c) = self.check.as_mut() {
            if range.start >= c.skipped.end && range.start < c.ahead_end {
                c.excused = true;
            }
        }
    }

    /// A retransmission timeout: what was skipped may be resent, so nothing can be judged.
    pub fn void(&mut self) {
        self.check = None;
    }

    /// Linux's reordering evidence (`tcp_check_sack_reordering`'s `low_seq`) without the
    /// held segment's own late delivery, which the sender caused.
    pub fn reorder_filter(&self, low: Option<u64>) -> Option<u64> {
        let held = self.check.map(|c| c.skipped).or(self.last_skipped);
        match (low, held) {
            (Some(l), Some(k)) if l == k.start => None,
            _ => low,
        }
    }

    /// One acceptable ACK.
    pub fn on_ack(&mut self, a: &AckView<'_>) -> Verdict {
        let Some(c) = self.check.as_mut() else {
            return Verdict::Pending;
        };
        let k = c.skipped;
        let covers = |r: Range| {
            a.cum >= r.end || a.blocks.iter().any(|b| b.start < r.end && b.end > r.start)
        };
        if !c.sent {
            if covers(k) {
                return self.detect();
            }
            return Verdict::Pending;
        }
        let answers = answers(a, c.ahead_sent);
        if answers && reports_hole(a, k, c.ahead_end) {
            c.proven = true;
        }
        // Without SACK, the answer to the segments ahead was a duplicate at another hole:
        // a loss below `k`, or of the segments ahead, hides the report.
        if answers && !a.sack && a.cum == a.una && a.cum < c.ahead_end && a.cum != k.start {
            c.excused = true;
        }
        if c.awaiting_ahead {
            if c.excused {
                self.check = None;
                return Verdict::Void;
            }
            if !covers_ahead(a, k.end, c.ahead_end) {
                return Verdict::Pending;
            }
            self.check = None;
            return self.strike();
        }
        if !covers(k) {
            return Verdict::Pending;
        }
        self.last_skipped = Some(k);
        if c.proven {
            self.strikes = 0;
            // Only an ACK over the segments ahead too, as the honest one after the report
            // is: a slice of a divided ACK ending inside them earns no credit.
            self.credit = if a.cum >= c.ahead_end {
                c.ahead_end - k.end
            } else {
                0
            };
            self.check = None;
            Verdict::Pass
        } else if c.excused {
            self.check = None;
            Verdict::Void
        } else if !covers_ahead(a, k.end, c.ahead_end) {
            // `k` arrived before the segments ahead, or so the peer says: wait for them.
            c.awaiting_ahead = true;
            Verdict::Pending
        } else {
            self.check = None;
            self.strike()
        }
    }

    fn strike(&mut self) -> Verdict {
        self.strikes += 1;
        if self.strikes >= STRIKES {
            return self.detect();
        }
        // The next check comes sooner (`draw`).
        self.countdown = self.countdown.min(self.draw());
        Verdict::Strike
    }

    fn detect(&mut self) -> Verdict {
        self.detected = true;
        self.check = None;
        self.held = None;
        self.queued = None;
        Verdict::Detected
    }

    /// The segment being checked (for events).
    pub fn skipped(&self) -> Option<Range> {
        self.check.map(|c| c.skipped)
    }
}

/// The ACK shows that all of `[from, to)` (the segments sent ahead) arrived.
fn covers_ahead(a: &AckView<'_>, from: u64, to: u64) -> bool {
    a.cum >= to || a.blocks.iter().any(|b| b.start <= from && b.end >= to)
}

/// The ACK can answer the segments sent ahead at `ahead_sent`: it arrives at least
/// min_RTT after them (as Linux's `tcp_rack_advance` tells an answer to a retransmission
/// from an ACK of the original).
fn answers(a: &AckView<'_>, ahead_sent: Instant) -> bool {
    let elapsed = a.now.saturating_duration_since(ahead_sent);
    elapsed >= a.min_rtt && elapsed > Duration::ZERO
}

/// The ACK shows the hole at `k` as an honest receiver's answer to the segments sent ahead
/// (up to `ahead_end`) does (module doc): with SACK a block above `k` within them, without
/// SACK a duplicate at `k`.
fn reports_hole(a: &AckView<'_>, k: Range, ahead_end: u64) -> bool {
    if a.sack {
        a.cum <= k.start
            && a.blocks
                .iter()
                .any(|b| b.start >= k.end && b.start < ahead_end)
    } else {
        a.cum == k.start && a.una == k.start
    }
}

#[cfg(test)]
mod tests;

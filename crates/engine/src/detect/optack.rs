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
//! next one goes first, and `k` follows it in the same burst. An honest receiver gets
//! `k + 1` before `k` and answers at once (RFC 5681 §4.2: out-of-order data is
//! acknowledged immediately) with an ACK that shows the hole: its cumulative ACK stops at
//! `k` (`cum == k.start`), or a SACK block begins above `k`. A receiver that acknowledges
//! by expectation covers `k` with no such report.
//!
//! The verdict, taken on the first ACK that covers `k`:
//! - the hole was reported: **pass**;
//! - `k` had not even been sent yet (the caller broke the burst): proof, **detected**;
//! - evidence is missing but could be innocent: **void**. Without SACK a loss below `k`
//!   hides the hole (the receiver's duplicates stop below it); that loss must be repaired
//!   before an ACK can cover `k`, so the sender is in fast recovery or loss recovery, or a
//!   retransmission is outstanding, when it arrives ("not calm"). Or the ACK does not
//!   cover `k + 1` (it was lost, so `k` came first in order). A duplicate ACK is no
//!   excuse: an attacker's stale ACKs are duplicates too;
//! - otherwise a **strike**. [`STRIKES`] consecutive strikes are a detection: a lost ACK
//!   (or a path that swaps `k + 1` back behind `k`) can hide one honest report, so with ACK
//!   loss p an honest connection is taken for a liar with probability p³ per three skips.
//!
//! What the hold costs an honest connection: `k` arrives one place out of order. One
//! duplicate follows (fewer than DupThresh; RFC 3042 may send one new segment on it); the
//! sender stamps `k` as sent after `k + 1` (RACK sees no reordering), does not count `k`'s
//! late delivery as reordering evidence ([`SkipSegment::reorder_filter`]), and gives back
//! on the passing ACK the growth Linux withholds from the duplicate
//! ([`SkipSegment::take_credit`]). No loss is inferred and no threshold moves.
//!
//! Only one check is open at a time, so at most one segment is held per round trip; the
//! interval matters when it is longer than the window. It needs a receiver that
//! acknowledges out-of-order data at once (RFC 5681 §4.2 SHOULD; Linux, BSD and Windows do)
//! on a path that does not thin duplicate ACKs: that is why it is off by default.
//!
//! The engine has no RNG: the positions come from a seed the caller supplies
//! (`Sender::set_seed`), mixed with a counter (SplitMix64's finaliser).
//! Memory: one held segment and one open check, whatever the peer sends.

use crate::packet::{Range, Transmit};

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
    /// End of the segment sent ahead of it.
    ahead_end: u64,
    sent: bool,
    proven: bool,
}

/// The defence's state on one connection.
#[derive(Clone, Debug)]
pub struct SkipSegment {
    seed: u64,
    interval: u64,
    draws: u64,
    /// New segments still to send before the next skip.
    countdown: u64,
    /// The segment held back while the next one goes first.
    held: Option<Transmit>,
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
    /// Skips every `interval` segments on average, at positions drawn from `seed`.
    pub fn new(interval: u32, seed: u64) -> Self {
        let mut s = SkipSegment {
            seed,
            interval: u64::from(interval.max(1)),
            draws: 0,
            countdown: 0,
            held: None,
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

    /// The next gap: uniform on 1 ..= 2·interval − 1 (mean `interval`).
    fn draw(&mut self) -> u64 {
        let r = mix(self.seed ^ mix(self.draws.wrapping_add(0x9e37_79b9_7f4a_7c15)));
        self.draws += 1;
        1 + r % (2 * self.interval - 1)
    }

    /// The peer was found acknowledging data it did not receive.
    pub fn detected(&self) -> bool {
        self.detected
    }

    /// Failed checks since the last pass.
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

    /// `t` is held back; `ahead_end` ends the segment sent in its place.
    pub fn hold(&mut self, t: Transmit, ahead_end: u64) {
        self.held = Some(t);
        self.check = Some(Check {
            skipped: t.range,
            ahead_end,
            sent: false,
            proven: false,
        });
        self.countdown = self.draw();
    }

    /// The held segment goes out now.
    pub fn release(&mut self) -> Option<Transmit> {
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

    /// One acceptable ACK: `cum` (at most SND.NXT), its SACK blocks without the DSACK,
    /// and whether the sender was calm before it: not in fast or loss recovery, no
    /// retransmission outstanding.
    pub fn on_ack(&mut self, cum: u64, blocks: &[Range], calm: bool) -> Verdict {
        let Some(c) = self.check.as_mut() else {
            return Verdict::Pending;
        };
        let k = c.skipped;
        let covers =
            |r: Range| cum >= r.end || blocks.iter().any(|b| b.start < r.end && b.end > r.start);
        if !c.sent {
            if covers(k) {
                return self.detect();
            }
            return Verdict::Pending;
        }
        if cum == k.start
            || blocks
                .iter()
                .any(|b| b.start >= k.end && b.start < c.ahead_end)
        {
            c.proven = true;
        }
        if !covers(k) {
            return Verdict::Pending;
        }
        let c = self.check.take().expect("checked above");
        self.last_skipped = Some(k);
        if c.proven {
            self.strikes = 0;
            self.credit = c.ahead_end.saturating_sub(k.end);
            Verdict::Pass
        } else if !calm || !covers_ahead(cum, blocks, k.end, c.ahead_end) {
            Verdict::Void
        } else {
            self.strikes += 1;
            if self.strikes >= STRIKES {
                self.detect()
            } else {
                Verdict::Strike
            }
        }
    }

    fn detect(&mut self) -> Verdict {
        self.detected = true;
        self.check = None;
        self.held = None;
        Verdict::Detected
    }

    /// The segment being checked (for events).
    pub fn skipped(&self) -> Option<Range> {
        self.check.map(|c| c.skipped)
    }
}

/// The ACK shows that part of `[from, to)` (the segments sent ahead) arrived.
fn covers_ahead(cum: u64, blocks: &[Range], from: u64, to: u64) -> bool {
    cum > from || blocks.iter().any(|b| b.start < to && b.end > from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Why;

    const MSS: u64 = 1000;

    fn seg(i: u64) -> Range {
        Range::new(i * MSS, (i + 1) * MSS)
    }

    fn tx(i: u64) -> Transmit {
        Transmit {
            range: seg(i),
            why: Why::New,
            syn: None,
            fin: false,
            psh: false,
            ts: None,
            ecn: Default::default(),
        }
    }

    /// Segment 5 held, 6 sent ahead, then 5.
    fn skipped() -> SkipSegment {
        let mut s = SkipSegment::new(64, 7);
        s.hold(tx(5), seg(6).end);
        assert_eq!(s.release().map(|t| t.range), Some(seg(5)));
        s
    }

    #[test]
    fn gaps_are_deterministic_bounded_and_average_the_interval() {
        let gaps = |seed| {
            let mut s = SkipSegment::new(16, seed);
            (0..2000).map(|_| s.draw()).collect::<Vec<_>>()
        };
        assert_eq!(gaps(1), gaps(1));
        assert_ne!(gaps(1), gaps(2));
        let g = gaps(3);
        assert!(g.iter().all(|&x| (1..=31).contains(&x)));
        let mean = g.iter().sum::<u64>() as f64 / g.len() as f64;
        assert!((14.0..18.0).contains(&mean), "{mean}");
    }

    #[test]
    fn honest_reports_pass() {
        // (ACKs before the one covering 5: cumulative, SACK blocks; the case)
        type Acks<'a> = &'a [(u64, &'a [Range])];
        let sack = [Range::new(seg(6).start, seg(7).end)];
        let cases: [(Acks, &str); 3] = [
            // The cumulative ACK stops at the hole.
            (&[(seg(5).start, &[])], "cumulative"),
            // A SACK block above the hole, cumulative ACK below it (a loss below 5).
            (&[(seg(3).start, &sack)], "sack"),
            // Both, after an ACK that said nothing about it.
            (&[(seg(4).start, &[]), (seg(5).start, &sack[..])], "both"),
        ];
        for (before, what) in cases {
            let mut s = skipped();
            for &(cum, blocks) in before {
                assert_eq!(s.on_ack(cum, blocks, true), Verdict::Pending, "{what}");
            }
            assert_eq!(s.on_ack(seg(7).end, &[], true), Verdict::Pass, "{what}");
            assert_eq!(s.strikes(), 0);
        }
    }

    #[test]
    fn covering_the_hole_unreported_strikes_then_detects() {
        let mut s = skipped();
        assert_eq!(s.on_ack(seg(8).end, &[], true), Verdict::Strike);
        for k in 1..u64::from(STRIKES) {
            assert!(!s.detected());
            s.hold(tx(20 * k), seg(20 * k + 1).end);
            s.release();
            let v = s.on_ack(seg(20 * k + 2).end, &[], true);
            let want = if k + 1 == u64::from(STRIKES) {
                Verdict::Detected
            } else {
                Verdict::Strike
            };
            assert_eq!(v, want);
        }
        assert!(s.detected() && !s.due());
    }

    #[test]
    fn growth_withheld_by_the_report_is_given_back_once() {
        let mut s = skipped();
        s.on_ack(seg(5).start, &[seg(6)], true);
        assert_eq!(s.on_ack(seg(7).end, &[], true), Verdict::Pass);
        // Two segments acknowledged, one counted as delivered: the ahead one comes back.
        assert_eq!(s.take_credit(2 * MSS, MSS), MSS);
        assert_eq!(s.take_credit(2 * MSS, MSS), 0);
        // Never more than this ACK acknowledged beyond what it delivered.
        let mut s = skipped();
        s.on_ack(seg(5).start, &[], true);
        s.on_ack(seg(7).end, &[], true);
        assert_eq!(s.take_credit(2 * MSS, 2 * MSS), 0);
    }

    #[test]
    fn a_pass_clears_the_strikes() {
        let mut s = skipped();
        assert_eq!(s.on_ack(seg(8).end, &[], true), Verdict::Strike);
        s.hold(tx(20), seg(21).end);
        s.release();
        s.on_ack(seg(20).start, &[], true);
        assert_eq!(s.on_ack(seg(22).end, &[], true), Verdict::Pass);
        assert_eq!(s.strikes(), 0);
    }

    #[test]
    fn acking_the_held_segment_before_it_was_sent_is_proof() {
        let mut s = SkipSegment::new(64, 7);
        s.hold(tx(5), seg(6).end);
        assert_eq!(s.on_ack(seg(6).end, &[], true), Verdict::Detected);
        let mut s = SkipSegment::new(64, 7);
        s.hold(tx(5), seg(6).end);
        assert_eq!(s.on_ack(seg(2).end, &[seg(5)], true), Verdict::Detected);
    }

    #[test]
    fn innocent_explanations_void_the_check() {
        // A duplicate below the hole is no excuse (an attacker's stale ACKs are ones).
        let mut s = skipped();
        s.on_ack(seg(3).start, &[], true);
        assert_eq!(s.on_ack(seg(8).end, &[], true), Verdict::Strike);
        // Recovering a loss below it (NewReno: the duplicates stopped below the hole).
        let mut s = skipped();
        assert_eq!(s.on_ack(seg(8).end, &[], false), Verdict::Void);
        // The ahead segments did not arrive: 5 came first, in order.
        let mut s = skipped();
        assert_eq!(s.on_ack(seg(5).end, &[], true), Verdict::Void);
        // A timeout.
        let mut s = skipped();
        s.void();
        assert_eq!(s.on_ack(seg(8).end, &[], true), Verdict::Pending);
        assert_eq!(s.strikes(), 0);
    }

    #[test]
    fn the_held_segments_own_reordering_is_filtered() {
        let mut s = skipped();
        assert_eq!(s.reorder_filter(Some(seg(5).start)), None);
        s.on_ack(seg(5).start, &[], true);
        assert_eq!(s.on_ack(seg(8).end, &[], true), Verdict::Pass);
        // Still filtered on the ACK that decided the check.
        assert_eq!(s.reorder_filter(Some(seg(5).start)), None);
        assert_eq!(s.reorder_filter(Some(seg(4).start)), Some(seg(4).start));
        assert_eq!(s.reorder_filter(None), None);
    }
}

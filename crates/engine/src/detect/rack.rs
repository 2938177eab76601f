//! RACK, time-based loss detection: RFC 8985 §6 (the `rack` axis value) and Linux's
//! `tcp_recovery.c` (`rack-linux`, digest §8.4).
//!
//! A segment is lost once a segment sent after it has been delivered and RACK.rtt +
//! reo_wnd has passed since it was sent. The state here is the connection's RACK.* variables
//! (RFC 8985 §5.3) and the decisions on them: which delivered segment becomes RACK.segment
//! (step 2), the reordering window (step 4) with its DSACK-driven growth and 16-recovery
//! persistence, and when a segment has timed out (step 5). The scoreboard walks the
//! transmit-time order and applies the marks ([`crate::scoreboard::Scoreboard::rack_detect_lost`]).

use crate::time::{Duration, Instant};

/// RFC 8985 §6.2 step 4 / Linux `TCP_RACK_RECOVERY_THRESH`: recoveries a grown reo_wnd
/// persists without a further DSACK.
pub const RECOVERY_THRESH: u32 = 16;
/// Linux `reo_wnd_steps` is a u8.
pub const LINUX_MAX_STEPS: u32 = 255;
/// Linux's timer slack `TCP_TIMEOUT_MIN_US` (2 ms, added before the conversion to
/// jiffies since 6.7: `usecs_to_jiffies(timeout + TCP_TIMEOUT_MIN_US)` in
/// `tcp_rack_mark_lost` and `tcp_schedule_loss_probe`; the jiffies and the timer wheel are
/// the `timer_hz` setting's, `crate::timer::Wheel`).
pub const LINUX_TIMEOUT_MIN: Duration = Duration::from_millis(2);

/// RFC 8985 §6.2 step 2 `RACK_sent_after(t1, seq1, t2, seq2)`: (t1, seq1) was sent after
/// (t2, seq2); equal transmit times are ordered by end sequence.
pub fn sent_after(t1: Instant, seq1: u64, t2: Instant, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

/// Which RACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 8985 as written.
    Rfc8985,
    /// Linux's `tcp_recovery.c` (digest §8.4).
    Linux,
}

/// What the reordering window depends on, as the ACK being processed finds the connection.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct ReoInputs {
    /// In fast recovery or RTO recovery (Linux: `ca_state >= TCP_CA_Recovery`).
    pub in_recovery: bool,
    /// RACK.segs_sacked / Linux `sacked_out`, segments.
    pub segs_sacked: u64,
    /// DupThresh (RFC 8985) or Linux's adaptive `tp->reordering`.
    pub dupthresh: u32,
    /// RACK.min_RTT (RFC 8985 §6.2 step 4), if sampled.
    pub min_rtt: Option<Duration>,
    /// SRTT, the reordering window's cap (RFC 8985 §6.2 step 4), if sampled.
    pub srtt: Option<Duration>,
}

/// RACK's per-connection state (RFC 8985 §5.3 names).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rack {
    variant: Variant,
    /// RACK.xmit_ts of RACK.segment, the most recently sent segment that has been
    /// delivered, with its transmission's order (`SentSeg::xmit_order`), which breaks
    /// ties at one instant as RACK.end_seq does for one TSO burst; `None` before the first.
    segment: Option<(Instant, u64)>,
    /// RACK.rtt: the RTT of RACK.segment's delivery.
    rtt: Duration,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    /// RACK.reo_wnd_mult (Linux `reo_wnd_steps`).
    reo_wnd_mult: u32,
    /// RACK.reo_wnd_persist.
    reo_wnd_persist: u32,
    /// RACK.dsack_round: SND.NXT when reo_wnd_mult last grew, until SND.UNA passes it.
    dsack_round: Option<u64>,
    /// Linux: when reo_wnd_steps last grew (a delivered-count round, approximated by
    /// transmit time: the ACK must deliver something sent after it).
    last_growth: Option<Instant>,
    /// RACK.reo_wnd as last computed.
    reo_wnd: Duration,
    /// DSACK adaptation off (Linux `tcp_recovery` bit 0x2).
    static_reo_wnd: bool,
    /// No DupThresh shortcut (Linux `tcp_recovery` bit 0x4).
    no_dupthresh: bool,
    /// The ACK being processed started a DSACK round (RFC 8985 step 4's first branch, so
    /// its "else" — the count-down on leaving recovery — does not run for it).
    round_started: bool,
}

impl Rack {
    /// RACK with its options: no DSACK-driven growth of reo_wnd (`static_reo_wnd`, Linux
    /// `tcp_recovery` bit 0x2), no DupThresh shortcut (`no_dupthresh`, bit 0x4).
    pub fn with_options(variant: Variant, static_reo_wnd: bool, no_dupthresh: bool) -> Rack {
        Rack {
            static_reo_wnd,
            no_dupthresh,
            ..Rack::new(variant)
        }
    }
    /// Which RACK this is.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// RACK.xmit_ts of RACK.segment and its transmission's order.
    pub fn segment(&self) -> Option<(Instant, u64)> {
        self.segment
    }
    /// RACK.rtt.
    pub fn rtt(&self) -> Duration {
        self.rtt
    }
    /// RACK.reordering_seen.
    pub fn reordering_seen(&self) -> bool {
        self.reordering_seen
    }
    /// RACK.reo_wnd_mult.
    pub fn reo_wnd_mult(&self) -> u32 {
        self.reo_wnd_mult
    }
    /// RACK.reo_wnd_persist.
    pub fn reo_wnd_persist(&self) -> u32 {
        self.reo_wnd_persist
    }
    /// RACK.dsack_round.
    pub fn dsack_round(&self) -> Option<u64> {
        self.dsack_round
    }
    /// RACK.reo_wnd as last computed.
    pub fn reo_wnd(&self) -> Duration {
        self.reo_wnd
    }
    /// RFC 8985 §6.2 step 3: reordering was observed (a never-retransmitted segment
    /// delivered below RACK.fack).
    pub fn note_reordering(&mut self) {
        self.reordering_seen = true;
    }

    /// RACK before any delivery, with the variant's defaults (reo_wnd_mult 1).
    pub fn new(variant: Variant) -> Rack {
        Rack {
            variant,
            segment: None,
            rtt: Duration::ZERO,
            reordering_seen: false,
            reo_wnd_mult: 1,
            reo_wnd_persist: match variant {
                Variant::Rfc8985 => RECOVERY_THRESH,
                Variant::Linux => 0,
            },
            dsack_round: None,
            last_growth: None,
            reo_wnd: Duration::ZERO,
            static_reo_wnd: false,
            no_dupthresh: false,
            round_started: false,
        }
    }

    /// RFC 8985 §6.2 step 2 (RACK_update) with the newest *valid* segment this ACK
    /// delivered (the scoreboard applies the retransmission filter): RACK.rtt becomes its
    /// RTT and, if it was sent after RACK.segment, it becomes RACK.segment. Returns whether
    /// RACK.segment advanced (Linux `rack.advanced`).
    pub fn update(
        &mut self,
        newest: Option<(Instant, u64)>,
        rtt_from: Option<Instant>,
        now: Instant,
    ) -> bool {
        let Some((t, end)) = newest else {
            return false;
        };
        // RFC 8985: the RTT of RACK.segment; Linux: of the last segment it processed.
        self.rtt = now.saturating_duration_since(match self.variant {
            Variant::Rfc8985 => t,
            Variant::Linux => rtt_from.unwrap_or(t),
        });
        let advanced = self
            .segment
            .is_none_or(|(rt, re)| sent_after(t, end, rt, re));
        if advanced {
            self.segment = Some((t, end));
        }
        // Linux sets `rack.advanced` on every valid sample, whether or not RACK.segment
        // moved (`tcp_rack_advance`).
        advanced || self.variant == Variant::Linux
    }

    /// The DSACK part of RFC 8985 §6.2 step 4, run on every ACK: a DSACK grows
    /// reo_wnd_mult once per round trip (RACK.dsack_round) and resets the persistence.
    /// Linux (digest §8.4): only after reordering was seen, not for a TLP's DSACK, once
    /// per round measured by delivery (`newest` = the most recently sent segment this ACK
    /// delivered), capped at 255 steps; with the persistence used up the window falls back
    /// to one step.
    pub fn on_ack_dsack(
        &mut self,
        dsack: bool,
        tlp_dsack: bool,
        snd_una: u64,
        snd_nxt: u64,
        newest: Option<Instant>,
        now: Instant,
    ) {
        self.round_started = false;
        if self.static_reo_wnd {
            return;
        }
        match self.variant {
            Variant::Rfc8985 => {
                if self.dsack_round.is_some_and(|r| snd_una >= r) {
                    self.dsack_round = None;
                }
                if self.dsack_round.is_none() && dsack {
                    self.dsack_round = Some(snd_nxt);
                    self.reo_wnd_mult = self.reo_wnd_mult.saturating_add(1);
                    self.reo_wnd_persist = RECOVERY_THRESH;
                    self.round_started = true;
                }
            }
            Variant::Linux => {
                let seen = dsack && self.reordering_seen && !tlp_dsack;
                let round_passed = self
                    .last_growth
                    .is_none_or(|g| newest.is_some_and(|t| t >= g));
                if seen && round_passed {
                    self.reo_wnd_mult = (self.reo_wnd_mult + 1).min(LINUX_MAX_STEPS);
                    self.last_growth = Some(now);
                    self.reo_wnd_persist = RECOVERY_THRESH;
                } else if self.reo_wnd_persist == 0 {
                    self.reo_wnd_mult = 1;
                }
            }
        }
    }

    /// Fast or RTO recovery ended: RFC 8985 §6.2 step 4 counts down the persistence and
    /// resets the multiplier when it runs out; Linux (`tcp_try_undo_recovery`) counts down
    /// and resets on a later ACK.
    pub fn on_recovery_end(&mut self) {
        if self.static_reo_wnd || self.round_started {
            return;
        }
        self.reo_wnd_persist = self.reo_wnd_persist.saturating_sub(1);
        if self.variant == Variant::Rfc8985 && self.reo_wnd_persist == 0 {
            self.reo_wnd_mult = 1;
        }
    }

    /// A reduction was undone because DSACKs showed every retransmission spurious: Linux
    /// `tcp_try_undo_dsack` extends the persistence by one recovery (at most 16). Linux
    /// counts the persistence down only when a recovery ends without undo.
    pub fn on_dsack_undo(&mut self) {
        if self.static_reo_wnd {
            return;
        }
        self.reo_wnd_persist = (self.reo_wnd_persist + 1).min(RECOVERY_THRESH);
    }

    /// RFC 8985 §6.2 step 4 `RACK_update_reo_wnd` (the return value) / Linux
    /// `tcp_rack_reo_wnd`: 0 without observed reordering while recovering or once DupThresh
    /// segments are SACKed; else min(reo_wnd_mult · min_RTT / 4, SRTT). Stored in `reo_wnd`.
    pub fn compute_reo_wnd(&mut self, r: &ReoInputs) -> Duration {
        let zero = !self.reordering_seen
            && (r.in_recovery || (!self.no_dupthresh && r.segs_sacked >= u64::from(r.dupthresh)));
        self.reo_wnd = if zero {
            Duration::ZERO
        } else {
            let mult = if self.static_reo_wnd {
                1
            } else {
                self.reo_wnd_mult
            };
            let w = r.min_rtt.unwrap_or(Duration::ZERO) / 4 * mult;
            match r.srtt {
                Some(srtt) => w.min(srtt),
                None => w,
            }
        };
        self.reo_wnd
    }

    /// RACK.rtt + RACK.reo_wnd: how long after its transmission a segment sent before
    /// RACK.segment is lost (RFC 8985 §6.2 step 5 `remaining` ≤ 0).
    pub fn lost_after(&self) -> Duration {
        self.rtt + self.reo_wnd
    }

    /// The reorder timer's delay for the longest `wait`: as is for RFC 8985; Linux adds
    /// `TCP_TIMEOUT_MIN` and caps it at the RTO (`inet_csk_reset_xmit_timer(…, icsk_rto)`).
    pub fn reo_timer(&self, wait: Duration, rto: Duration) -> Duration {
        match self.variant {
            Variant::Rfc8985 => wait,
            Variant::Linux => (wait + LINUX_TIMEOUT_MIN).min(rto),
        }
    }

    /// How long after `xmit_ts` the RTO may mark a segment lost (RFC 8985 §6.3 uses
    /// RACK.rtt + RACK.reo_wnd; Linux `tcp_rack_skb_timeout(tp, skb, 0)` RACK.rtt alone).
    pub fn rto_lost_after(&self) -> Duration {
        match self.variant {
            Variant::Rfc8985 => self.lost_after(),
            Variant::Linux => self.rtt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }
    fn at(v: u64) -> Instant {
        Instant::from_millis(v)
    }
    fn inputs(in_recovery: bool, segs_sacked: u64) -> ReoInputs {
        ReoInputs {
            in_recovery,
            segs_sacked,
            dupthresh: 3,
            min_rtt: Some(ms(100)),
            srtt: Some(ms(120)),
        }
    }

    #[test]
    fn sent_after_breaks_ties_by_end_seq() {
        assert!(sent_after(at(2), 0, at(1), 9));
        assert!(!sent_after(at(1), 9, at(2), 0));
        assert!(sent_after(at(1), 2000, at(1), 1000));
        assert!(!sent_after(at(1), 1000, at(1), 1000));
    }

    /// RFC 8985 §6.2 step 4: zero without reordering in recovery or with DupThresh SACKed
    /// segments; min_RTT/4 otherwise; (N+1)·min_RTT/4 after N DSACK rounds, capped at SRTT.
    #[test]
    fn reo_wnd_rules() {
        let mut r = Rack::new(Variant::Rfc8985);
        assert_eq!(r.compute_reo_wnd(&inputs(true, 0)), ms(0));
        assert_eq!(r.compute_reo_wnd(&inputs(false, 3)), ms(0));
        assert_eq!(r.compute_reo_wnd(&inputs(false, 2)), ms(25));
        r.reordering_seen = true;
        assert_eq!(r.compute_reo_wnd(&inputs(true, 5)), ms(25));
        // Three DSACK rounds: mult 4 → 100 ms; a fifth round would exceed SRTT (120).
        for round in 0..3u64 {
            r.on_ack_dsack(true, false, round * 10, round * 10 + 10, None, at(round));
            r.on_ack_dsack(
                true,
                false,
                round * 10 + 5,
                round * 10 + 10,
                None,
                at(round),
            );
        }
        assert_eq!(r.reo_wnd_mult, 4, "one growth per round");
        assert_eq!(r.compute_reo_wnd(&inputs(false, 0)), ms(100));
        r.reo_wnd_mult = 6;
        assert_eq!(
            r.compute_reo_wnd(&inputs(false, 0)),
            ms(120),
            "capped at SRTT"
        );
    }

    /// RFC 8985: the grown window persists for 16 recoveries without a DSACK.
    #[test]
    fn persistence_16_recoveries() {
        let mut r = Rack::new(Variant::Rfc8985);
        r.on_ack_dsack(true, false, 0, 10, None, at(0));
        assert_eq!((r.reo_wnd_mult, r.reo_wnd_persist), (2, 16));
        // Each recovery ends on a later ACK without a DSACK (step 4 runs on it first).
        let end_on_ack = |r: &mut Rack| {
            r.on_ack_dsack(false, false, 20, 30, None, at(1));
            r.on_recovery_end();
        };
        for _ in 0..15 {
            end_on_ack(&mut r);
        }
        assert_eq!(r.reo_wnd_mult, 2);
        end_on_ack(&mut r);
        assert_eq!((r.reo_wnd_mult, r.reo_wnd_persist), (1, 0));
    }

    /// Linux: DSACKs count only after reordering was seen and not for a TLP; once per
    /// round of deliveries; the multiplier falls back on the first ACK after the
    /// persistence ran out.
    #[test]
    fn linux_dsack_growth() {
        let mut r = Rack::new(Variant::Linux);
        r.on_ack_dsack(true, false, 0, 10, Some(at(1)), at(2));
        assert_eq!(r.reo_wnd_mult, 1, "no reordering seen yet");
        r.reordering_seen = true;
        r.on_ack_dsack(true, true, 0, 10, Some(at(1)), at(2));
        assert_eq!(r.reo_wnd_mult, 1, "a TLP's DSACK");
        r.on_ack_dsack(true, false, 0, 10, Some(at(1)), at(2));
        assert_eq!(r.reo_wnd_mult, 2);
        r.on_ack_dsack(true, false, 0, 10, Some(at(1)), at(3));
        assert_eq!(
            r.reo_wnd_mult, 2,
            "same round: nothing sent since the growth delivered"
        );
        r.on_ack_dsack(true, false, 0, 10, Some(at(2)), at(4));
        assert_eq!(r.reo_wnd_mult, 3);
        for _ in 0..16 {
            r.on_recovery_end();
        }
        assert_eq!(r.reo_wnd_mult, 3, "reset waits for the next ACK");
        r.on_ack_dsack(false, false, 0, 10, None, at(5));
        assert_eq!(r.reo_wnd_mult, 1);
    }

    #[test]
    fn linux_timer_slack_and_cap() {
        let r = Rack::new(Variant::Linux);
        assert_eq!(r.reo_timer(ms(25), ms(300)), ms(27));
        assert_eq!(r.reo_timer(ms(400), ms(300)), ms(300));
        assert_eq!(Rack::new(Variant::Rfc8985).reo_timer(ms(25), ms(1)), ms(25));
    }
}

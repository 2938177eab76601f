//! F-RTO, RFC 5682: after a retransmission timeout, decide from the next two ACKs whether
//! the timeout was spurious — basic F-RTO (§2.1, any connection), SACK-enhanced F-RTO
//! (§3.1, with SACK), and Linux's reading of it (`tcp_process_loss`, digest §13.3).
//!
//! Step 1 (the timeout): retransmit the first unacknowledged segment; F-RTO starts unless
//! a previous loss recovery is still in progress. Step 2 (the ACK of the retransmission):
//! if it acknowledges everything, or (basic) is a duplicate ACK, recovery is conventional;
//! otherwise send up to two new segments (none available: conventional). Step 3 (the
//! next ACK): it acknowledges data that was never retransmitted — the originals arrived,
//! the timeout was spurious; a duplicate ACK (SACK: one that only reports the new
//! segments) means they were lost — conventional recovery with cwnd ≤ 3·SMSS.
//!
//! Linux (`tcp_frto` = 2): any ACK that (S)ACKs never-retransmitted data sent before the
//! timeout proves it spurious (`FLAG_ORIG_SACK_ACKED`), in any step; once new data went out
//! after the timeout, a SACK or a duplicate ACK means the loss was real; step 2b sends new
//! data only as cwnd allows; no cwnd caps. An ACK whose only news is a DSACK is not a
//! duplicate ACK (Linux since 2022; here for every variant: a DSACK says an original
//! arrived).

/// Which F-RTO.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 5682 §2.1.
    Basic,
    /// RFC 5682 §3.1.
    Sack,
    /// Linux `tcp_process_loss`.
    Linux,
}

/// Where the algorithm is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not running (no timeout, or conventional recovery).
    Idle,
    /// Step 2: waiting for the ACK of the timeout's retransmission.
    AwaitFirst,
    /// Step 3: new segments were sent; waiting for the next ACK.
    AwaitSecond,
}

/// One ACK as F-RTO sees it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckView {
    /// SND.UNA advanced.
    pub advanced: bool,
    /// SND.UNA after the ACK.
    pub cumulative: u64,
    /// A duplicate ACK (no advance, no window update, not a DSACK-only ACK).
    pub dupack: bool,
    /// Never-retransmitted data at or below `recover` was newly acknowledged or SACKed
    /// (Linux `FLAG_ORIG_SACK_ACKED`).
    pub orig_acked: bool,
    /// Data was newly SACKed (Linux `FLAG_DATA_SACKED`).
    pub newly_sacked: bool,
    /// Data ending beyond `recover` (RecoveryPoint) was newly acknowledged or SACKed.
    pub beyond_recover: bool,
    /// SND.NXT (highest sequence sent + 1) as the ACK arrives.
    pub snd_nxt: u64,
    /// Previously unsent data can go now (receive window; Linux: and cwnd).
    pub can_send_new: bool,
}

/// What F-RTO decided on an ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Nothing (still waiting, or the ACK is neither new nor duplicate).
    Wait,
    /// Step 2b: send up to two new segments (Linux: new data as cwnd allows).
    SendNew,
    /// Step 3b: the timeout was spurious (SpuriousRecovery = SPUR_TO).
    Spurious,
    /// Conventional RTO recovery from now on; cwnd is set to this many segments, the
    /// "no more than" of RFC 5682 steps 2a and 3a, which is what conventional slow start
    /// would have reached by then.
    Genuine {
        /// The cwnd limit, segments, if any.
        cwnd_cap: Option<u64>,
    },
}

/// RFC 5682 state (`recover` / RecoveryPoint; Linux `high_seq` and `tp->frto`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Frto {
    /// Which F-RTO.
    pub variant: Variant,
    /// Where in RFC 5682's steps it is.
    pub phase: Phase,
    /// RFC 5682 `recover` (§2) / RecoveryPoint (§3): the highest sequence sent when the
    /// retransmission was acknowledged (Linux `high_seq`).
    pub recover: u64,
    /// End of the data the timeout retransmitted.
    pub rexmit_end: u64,
    /// Without SACK, an ACK answered the timeout's retransmission (set by the sender
    /// under `ack_division_guard`): no later ACK of originals proves the timeout spurious.
    pub retrans_answered: bool,
}

impl Frto {
    /// F-RTO of `variant`, idle until a timeout.
    pub fn new(variant: Variant) -> Frto {
        Frto {
            variant,
            phase: Phase::Idle,
            recover: 0,
            rexmit_end: 0,
            retrans_answered: false,
        }
    }

    /// Step 1: may F-RTO run for this timeout? RFC 5682: not while a previous loss
    /// recovery is in progress (fast recovery, or conventional RTO recovery), but again if
    /// the timer expires while F-RTO still waits for its first ACK. Linux `tcp_enter_loss`:
    /// when the timeout starts a new recovery (`in_recovery` false) or repeats for the
    /// same data (`repeated`: SND.UNA has not moved since the last timeout).
    pub fn may_start(&self, in_recovery: bool, repeated: bool) -> bool {
        match self.variant {
            Variant::Linux => !in_recovery || repeated,
            Variant::Basic | Variant::Sack => !in_recovery || self.phase == Phase::AwaitFirst,
        }
    }

    /// Step 1: the timeout fired; `start` from [`Frto::may_start`]. `snd_nxt` is SND.NXT,
    /// `rexmit_end` the end of the head segment it retransmits.
    pub fn on_rto(&mut self, start: bool, snd_nxt: u64, rexmit_end: u64) {
        self.phase = if start {
            Phase::AwaitFirst
        } else {
            Phase::Idle
        };
        self.recover = snd_nxt;
        self.rexmit_end = rexmit_end;
        self.retrans_answered = false;
    }

    /// F-RTO is deciding (steps 2-3).
    pub fn in_progress(&self) -> bool {
        self.phase != Phase::Idle
    }

    /// Stop (a verdict was reached elsewhere, or recovery ended).
    pub fn stop(&mut self) {
        self.phase = Phase::Idle;
    }

    /// Steps 2 and 3 on one ACK.
    pub fn on_ack(&mut self, a: &AckView) -> Decision {
        let d = match self.variant {
            Variant::Basic => self.basic(a),
            Variant::Sack => self.sack(a),
            Variant::Linux => self.linux(a),
        };
        match d {
            Decision::SendNew => self.phase = Phase::AwaitSecond,
            Decision::Spurious | Decision::Genuine { .. } => self.phase = Phase::Idle,
            Decision::Wait => {}
        }
        d
    }

    fn basic(&mut self, a: &AckView) -> Decision {
        match self.phase {
            Phase::Idle => Decision::Wait,
            Phase::AwaitFirst => {
                if !a.advanced && !a.dupack {
                    return Decision::Wait;
                }
                self.recover = a.snd_nxt;
                // 2a: a duplicate ACK, an ACK of everything up to recover, or one that
                // does not cover the retransmission.
                if a.dupack || a.cumulative >= self.recover || a.cumulative < self.rexmit_end {
                    Decision::Genuine { cwnd_cap: None }
                } else if a.can_send_new {
                    Decision::SendNew // 2b
                } else {
                    Decision::Genuine { cwnd_cap: None }
                }
            }
            Phase::AwaitSecond => {
                if a.dupack {
                    Decision::Genuine { cwnd_cap: Some(3) } // 3a
                } else if a.advanced {
                    Decision::Spurious // 3b
                } else {
                    Decision::Wait
                }
            }
        }
    }

    fn sack(&mut self, a: &AckView) -> Decision {
        match self.phase {
            Phase::Idle => Decision::Wait,
            Phase::AwaitFirst => {
                // Duplicate ACKs before the retransmission's ACK only update the
                // scoreboard.
                if a.cumulative < self.rexmit_end {
                    return Decision::Wait;
                }
                self.recover = a.snd_nxt; // RecoveryPoint
                if a.cumulative >= self.recover {
                    Decision::Genuine { cwnd_cap: Some(2) } // 2a
                } else if a.can_send_new {
                    Decision::SendNew // 2b
                } else {
                    Decision::Genuine { cwnd_cap: None }
                }
            }
            Phase::AwaitSecond => {
                // 3a, tested first as written: the ACK covers beyond RecoveryPoint, or is
                // a duplicate ACK that SACKs nothing new below it.
                if a.beyond_recover || (a.dupack && !a.orig_acked) {
                    Decision::Genuine { cwnd_cap: Some(3) }
                } else if a.orig_acked {
                    Decision::Spurious // 3b: previously unacknowledged data below it
                } else if a.advanced {
                    Decision::Genuine { cwnd_cap: Some(3) }
                } else {
                    Decision::Wait
                }
            }
        }
    }

    fn linux(&mut self, a: &AckView) -> Decision {
        if self.phase == Phase::Idle {
            return Decision::Wait;
        }
        if a.orig_acked {
            return Decision::Spurious; // step 3b, `tcp_try_undo_loss(sk, true)`
        }
        if a.snd_nxt > self.recover {
            // New data went out after the timeout: a SACK or a duplicate ACK says the
            // loss was real (step 3a).
            if a.newly_sacked || a.dupack {
                return Decision::Genuine { cwnd_cap: None };
            }
            Decision::Wait
        } else if a.advanced && a.cumulative < self.recover {
            self.recover = a.snd_nxt; // high_seq = snd_nxt
            if a.can_send_new {
                Decision::SendNew // REXMIT_NEW
            } else {
                Decision::Genuine { cwnd_cap: None }
            }
        } else {
            Decision::Wait
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn started(v: Variant) -> Frto {
        let mut f = Frto::new(v);
        // Ten segments out [0, 10000); the timeout retransmits [0, 1000).
        f.on_rto(true, 10 * MSS, MSS);
        f
    }
    fn ack(cum: u64, advanced: bool) -> AckView {
        AckView {
            advanced,
            cumulative: cum,
            dupack: !advanced,
            snd_nxt: 10 * MSS,
            can_send_new: true,
            ..AckView::default()
        }
    }

    /// RFC 5682 §2.1, spurious: the ACK of the retransmission advances below recover, two
    /// new segments go, the next ACK advances again.
    #[test]
    fn basic_spurious() {
        let mut f = started(Variant::Basic);
        assert_eq!(f.on_ack(&ack(2 * MSS, true)), Decision::SendNew);
        assert_eq!(f.recover, 10 * MSS);
        let mut a = ack(3 * MSS, true);
        a.snd_nxt = 12 * MSS;
        assert_eq!(f.on_ack(&a), Decision::Spurious);
        assert!(!f.in_progress());
    }

    /// RFC 5682 §2.1, genuine: after the new segments a duplicate ACK (3a), or the first
    /// ACK is a duplicate (2a), or it acknowledges everything (2a), or no new data (2b).
    #[test]
    fn basic_genuine() {
        let mut f = started(Variant::Basic);
        f.on_ack(&ack(MSS, true));
        let mut d = ack(MSS, false);
        d.snd_nxt = 12 * MSS;
        assert_eq!(f.on_ack(&d), Decision::Genuine { cwnd_cap: Some(3) });
        let mut f = started(Variant::Basic);
        assert_eq!(
            f.on_ack(&ack(0, false)),
            Decision::Genuine { cwnd_cap: None }
        );
        let mut f = started(Variant::Basic);
        assert_eq!(
            f.on_ack(&ack(10 * MSS, true)),
            Decision::Genuine { cwnd_cap: None }
        );
        let mut f = started(Variant::Basic);
        let mut n = ack(MSS, true);
        n.can_send_new = false;
        assert_eq!(f.on_ack(&n), Decision::Genuine { cwnd_cap: None });
        // An ACK that is neither new nor duplicate (a window update) is ignored.
        let mut f = started(Variant::Basic);
        let w = AckView {
            snd_nxt: 10 * MSS,
            ..AckView::default()
        };
        assert_eq!(f.on_ack(&w), Decision::Wait);
        assert_eq!(f.phase, Phase::AwaitFirst);
    }

    /// RFC 5682 §3.1: duplicate ACKs before the retransmission's ACK wait; step 3 decides
    /// on never-retransmitted data below RecoveryPoint.
    #[test]
    fn sack_enhanced() {
        let mut f = started(Variant::Sack);
        let mut dup = ack(0, false);
        dup.newly_sacked = true;
        assert_eq!(f.on_ack(&dup), Decision::Wait);
        assert_eq!(f.on_ack(&ack(MSS, true)), Decision::SendNew);
        // A SACK of only the new segments: the originals were lost.
        let mut s = ack(MSS, false);
        s.snd_nxt = 12 * MSS;
        s.newly_sacked = true;
        let mut g = f;
        assert_eq!(g.on_ack(&s), Decision::Genuine { cwnd_cap: Some(3) });
        // A SACK of an original below RecoveryPoint: spurious.
        s.orig_acked = true;
        assert_eq!(f.on_ack(&s), Decision::Spurious);
        // 2a: the retransmission's ACK covers RecoveryPoint.
        let mut f = started(Variant::Sack);
        assert_eq!(
            f.on_ack(&ack(10 * MSS, true)),
            Decision::Genuine { cwnd_cap: Some(2) }
        );
    }

    /// Linux: original data (S)ACKed at any step is spurious; after new data, a SACK or a
    /// duplicate ACK is genuine; a DSACK-only ACK changes nothing.
    #[test]
    fn linux() {
        let mut f = started(Variant::Linux);
        let mut o = ack(3 * MSS, true);
        o.orig_acked = true;
        assert_eq!(
            f.clone_on(&o),
            Decision::Spurious,
            "first ACK acks originals"
        );
        assert_eq!(f.on_ack(&ack(2 * MSS, true)), Decision::SendNew);
        assert_eq!(f.recover, 10 * MSS);
        let mut dsack_only = ack(2 * MSS, false);
        dsack_only.dupack = false;
        dsack_only.snd_nxt = 12 * MSS;
        assert_eq!(f.on_ack(&dsack_only), Decision::Wait);
        let mut orig = ack(4 * MSS, true);
        orig.snd_nxt = 12 * MSS;
        orig.orig_acked = true;
        assert_eq!(f.on_ack(&orig), Decision::Spurious);
        let mut f = started(Variant::Linux);
        f.on_ack(&ack(2 * MSS, true));
        let mut sacked = ack(2 * MSS, false);
        sacked.snd_nxt = 12 * MSS;
        sacked.newly_sacked = true;
        assert_eq!(f.on_ack(&sacked), Decision::Genuine { cwnd_cap: None });
    }

    #[test]
    fn step1_rules() {
        let f = Frto::new(Variant::Sack);
        assert!(f.may_start(false, false));
        assert!(
            !f.may_start(true, true),
            "conventional recovery in progress"
        );
        assert!(
            started(Variant::Basic).may_start(true, false),
            "re-expiry during step 2"
        );
        let l = Frto::new(Variant::Linux);
        assert!(l.may_start(true, true) && !l.may_start(true, false));
    }

    impl Frto {
        fn clone_on(&self, a: &AckView) -> Decision {
            let mut c = *self;
            c.on_ack(a)
        }
    }
}

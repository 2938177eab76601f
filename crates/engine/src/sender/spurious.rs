//! Spurious timeouts and fast retransmits on the sender (decisions in [`crate::rto`]):
//! taking the congestion snapshot when a reduction starts, collecting the evidence
//! (retransmissions, DSACKs, timestamp echoes), running the configured detector — F-RTO
//! (RFC 5682), Eifel (RFC 3522), DSACK counting, or Linux's undo points
//! (`tcp_fastretrans_alert`, `tcp_process_loss`; digest §13.3, §15, §16) — and applying a
//! verdict: the response (seed 004, RFC 4015), the loss marks cleared so that nothing
//! delivered is resent, the recovery state left, the RTO adapted.

use super::pending::Pending;
use super::{RecoveryState, Sender};
use crate::cc::CongestionController;
use crate::config::resolved::SpuriousDetector;
use crate::event::SpuriousSignal;
use crate::packet::{Ack, Range, Transmit, Why};
use crate::rto::eifel::{self, AcceptableAck, Prev};
use crate::rto::frto::{self, Variant};
use crate::rto::undo::Snapshot;
use crate::scoreboard::proof::Cover;
use crate::scoreboard::{Delivered, RackFilter};
use crate::time::{Duration, Instant};

/// Seed 004 "Min++": the minimum RTO grows by this per spurious timeout.
pub const MIN_RTO_STEP: Duration = Duration::from_secs(1);

/// The parts of one ACK the detectors look at.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct SpurAck {
    /// SND.UNA advanced.
    pub advanced: bool,
    /// Bytes it acknowledged cumulatively.
    pub acked: u64,
    /// Without SACK: it acknowledged a retransmission sent at least min_RTT before.
    pub answers_retrans: bool,
    /// It carried a believable DSACK.
    pub dsack: bool,
    /// A DSACK arrived before this ACK.
    pub dsack_before: bool,
    /// A duplicate ACK as F-RTO counts them.
    pub dupack: bool,
    pub newly_sacked: bool,
    /// Its timestamp echo (sender's TS clock), when timestamps are in use.
    pub ts_ecr: Option<u64>,
    /// The segments it delivered (F-RTO's "original data acknowledged").
    pub delivered: Delivered,
    /// ECN-Echo with ECN in use: congestion is proven, an undo restores nothing.
    pub ece: bool,
}

/// Which Linux undo counter a verdict goes to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Counter {
    Full,
    Partial,
    Dsack,
    Loss,
}

/// A spurious verdict.
#[derive(Copy, Clone, Debug)]
pub(super) struct Verdict {
    pub timeout: bool,
    pub late: bool,
    pub by: SpuriousSignal,
    /// Clear the loss marks (Linux: Loss state and partial undo; RFC detectors always).
    pub unmark: bool,
    pub counter: Counter,
}

impl Sender {
    /// The detector in use: the configured one, or `none` when it needs an option the
    /// connection did not negotiate (Eifel: timestamps; DSACK: SACK).
    pub fn spurious_detection(&self) -> SpuriousDetector {
        self.alg.spurious_detection
    }

    introspect_getter! {
        /// The congestion snapshot of the current (or last) reduction, if it may still be
        /// undone (Linux `undo_marker` ≠ 0).
        fn undo_snapshot(&self) -> Option<&Snapshot> {
            self.core.evidence.undo.snapshot.as_deref()
        }
    }
    /// Linux `undo_retrans`: retransmissions of the episode not yet DSACKed (−1: none).
    pub fn undo_retrans(&self) -> i64 {
        self.core.evidence.undo.retrans
    }
    introspect_getter! {
        /// F-RTO's state (RFC 5682 §2.1 `recover`, the step reached).
        fn frto(&self) -> &frto::Frto {
            &self.core.evidence.frto
        }
    }

    /// Counts a detector that cannot run on this connection (once, when established).
    pub(super) fn note_detection_available(&mut self) {
        if self.alg.detection_unavailable {
            self.stats.spurious_detection_unavailable += 1;
        }
    }

    fn frto_variant(&self) -> Option<Variant> {
        match self.spurious_detection() {
            SpuriousDetector::Frto { sack: true } => Some(Variant::Sack),
            SpuriousDetector::Frto { sack: false } => Some(Variant::Basic),
            SpuriousDetector::Linux { frto: true } => Some(Variant::Linux),
            _ => None,
        }
    }

    /// A reduction starts (before cwnd and ssthresh change): save them (Linux
    /// `tcp_init_undo` + `prior_cwnd`/`prior_ssthresh`; RFC 4015 step 0 for a timeout).
    pub(super) fn undo_begin(&mut self, timeout: bool) {
        let s = Snapshot {
            cwnd: self.cwnd,
            cc: self.cc.checkpoint(),
            ssthresh: self.ssthresh,
            una: self.core.sb.snd_una(),
            high: self.core.sb.snd_nxt(),
            timeout,
            eifel: timeout.then(|| self.eifel_prev()),
            backoff: 0,
            restorable: self.state() != RecoveryState::Cwr,
        };
        let mut retrans_out = self.core.sb.retrans_bytes().div_ceil(self.mss);
        // Linux `tcp_init_undo` (6.10 on): a probe retransmission still in flight may be
        // DSACKed later too; called before the episode clears `tlp_high_seq`.
        if self.alg.rules.probe_in_flight_counts_at_undo_start
            && self.core.tlp.end_seq.is_some()
            && self.core.tlp.is_retrans
        {
            retrans_out += 1;
        }
        self.core.evidence.undo.start(s, retrans_out);
    }

    fn eifel_prev(&self) -> Prev {
        Prev::new(
            self.core.sb.flight_size(),
            self.ssthresh,
            self.core.rtt.srtt(),
            self.core.rtt.rttvar(),
            self.core.rtt.granularity(),
        )
    }

    /// A timeout joins an episode already in progress (fast recovery, or a repeated
    /// timeout): the snapshot stays (it is the state before the first reduction).
    pub(super) fn undo_join_timeout(&mut self) {
        let prev = self.eifel_prev();
        if let Some(s) = &mut self.core.evidence.undo.snapshot {
            s.timeout = true;
            s.eifel.get_or_insert(prev);
        }
    }

    /// The timeout's part: remember its backoff, and start F-RTO (step 1) if it may run.
    /// `in_recovery`: a fast or RTO recovery was in progress; `repeated`: SND.UNA did not
    /// move since the previous timeout.
    pub(super) fn spurious_on_rto(&mut self, in_recovery: bool, repeated: bool) {
        if let Some(s) = &mut self.core.evidence.undo.snapshot {
            s.backoff = self.core.rtt.backoff_count();
        }
        let Some(variant) = self.frto_variant() else {
            self.core.evidence.frto.stop();
            return;
        };
        self.core.evidence.frto.variant = variant;
        let start = self.core.evidence.frto.may_start(in_recovery, repeated);
        let head_end = self
            .core
            .sb
            .head()
            .map_or(self.core.sb.snd_una(), |h| h.end);
        self.core
            .evidence
            .frto
            .on_rto(start, self.core.sb.snd_nxt(), head_end);
    }

    /// A transmission's part: retransmissions feed `undo_retrans` and RetransmitTS
    /// (Linux's probe is not counted, digest §15).
    pub(super) fn spurious_on_transmit(&mut self, now: Instant, t: &Transmit) {
        if !t.why.is_retransmission() {
            return;
        }
        // Linux's probe (`tcp_send_loss_probe` → `__tcp_retransmit_skb`) is neither in
        // undo_retrans nor retrans_stamp.
        let linux_probe = matches!(t.why, Why::Probe(_)) && self.alg.rules.probe_outside_undo;
        let segs = t.range.len().div_ceil(self.mss);
        self.core.evidence.undo.on_retransmit(
            now,
            super::transmit::ts_clock(now),
            segs,
            !linux_probe,
        );
    }

    /// A believable DSACK `d` (before the cumulative part of its ACK is applied).
    /// `probe`: it reports the tail loss probe, which Linux does not count among the
    /// episode's retransmissions (`tcp_send_loss_probe`), so it cannot prove one of them
    /// spurious either. With `dsack_proof` only retransmissions whose original was shown
    /// to arrive count (`scoreboard::proof`); `ack` is that evidence for what it covers
    /// for the first time.
    pub(super) fn spurious_on_dsack(&mut self, now: Instant, d: Range, probe: bool, ack: &Ack) {
        self.core.evidence.dsack_seen = true;
        let Some(s) = self.core.evidence.undo.snapshot.as_deref().copied() else {
            return;
        };
        if probe && self.alg.rules.probe_outside_undo {
            return;
        }
        let cover = self.alg.dsack_proof.then(|| Cover {
            filter: RackFilter {
                now,
                min_rtt: self.core.rtt.min_rtt(),
                ts_ecr: self.ts_ecr(ack),
            },
            cumulative: ack.cumulative,
        });
        let cover = cover.as_ref();
        let in_queue = self
            .core
            .sb
            .retransmitted_segs_in(d, s.una, self.mss, cover);
        let mut dup_segs = d.len().div_ceil(self.mss).max(1);
        if cover.is_some() {
            dup_segs = dup_segs.min(self.core.sb.proven_acked_segs_in(d, self.mss));
        }
        let retransmissions = self.core.sb.retransmissions_in(d, cover);
        self.core.evidence.undo.on_dsack(
            (d.start, d.end),
            self.core.sb.snd_una(),
            in_queue,
            dup_segs,
            retransmissions,
        );
    }

    /// The detectors on one ACK, before the recovery state machine. Returns whether a
    /// reduction was undone (the state is then Open or Disorder).
    pub(super) fn spurious_on_ack(&mut self, now: Instant, a: &SpurAck) -> bool {
        // F-RTO's new data is for the ACK that released it only (Linux: instead of
        // retransmissions on that ACK).
        if self.pending.frto_new().is_some() {
            self.pending = Pending::Nothing;
        }
        let v = match self.spurious_detection() {
            SpuriousDetector::None => None,
            SpuriousDetector::Frto { .. } => self.frto_on_ack(now, a),
            SpuriousDetector::Eifel => self.eifel_on_ack(now, a),
            SpuriousDetector::Dsack => self.core.evidence.undo.all_dsacked().then_some(Verdict {
                timeout: self.state() == RecoveryState::Loss
                    || self
                        .core
                        .evidence
                        .undo
                        .snapshot
                        .as_ref()
                        .is_some_and(|s| s.timeout),
                late: true,
                by: SpuriousSignal::Dsack,
                unmark: true,
                counter: Counter::Dsack,
            }),
            SpuriousDetector::Linux { .. } => self.linux_on_ack(now, a),
        };
        match v {
            Some(v) => {
                if a.ece {
                    self.ecn_forbid_restore();
                }
                self.apply_verdict(now, v, a.acked, a.ece);
                true
            }
            None => false,
        }
    }

    /// RFC 3522 §3.2: the first acceptable ACK after the episode's first retransmission.
    fn eifel_on_ack(&mut self, now: Instant, a: &SpurAck) -> Option<Verdict> {
        let rts = self.core.evidence.undo.retrans_ts?;
        if self.core.evidence.undo.eifel_done
            || !a.advanced
            || self.core.evidence.undo.snapshot.is_none()
        {
            return None;
        }
        if !matches!(self.state(), RecoveryState::Recovery | RecoveryState::Loss) {
            return None;
        }
        self.core.evidence.undo.eifel_done = true;
        let acc = AcceptableAck {
            ts_ecr: a.ts_ecr,
            dsack: a.dsack,
            dsack_seen_before: a.dsack_before,
            acks_all: self.core.sb.snd_una() == self.core.sb.snd_nxt(),
        };
        let timeout = self.state() == RecoveryState::Loss;
        if eifel::detect(rts, &acc) {
            Some(Verdict {
                timeout,
                late: false,
                by: SpuriousSignal::Timestamp,
                unmark: true,
                counter: if timeout {
                    Counter::Loss
                } else {
                    Counter::Partial
                },
            })
        } else {
            if timeout {
                self.genuine_rto(now, SpuriousSignal::Timestamp, None);
            }
            None
        }
    }

    /// Linux's undo points for one ACK (`tcp_fastretrans_alert`, digest §15): in
    /// Recovery the recovery end (`tcp_try_undo_recovery`), a partial ACK proven delayed
    /// by its timestamp with nothing retransmitted outstanding (`tcp_try_undo_partial`),
    /// every retransmission DSACKed (`tcp_try_undo_dsack`); in Loss an advance with
    /// `tcp_may_undo` (`tcp_try_undo_loss`), then F-RTO; in Open or Disorder a DSACK that
    /// completes the count.
    fn linux_on_ack(&mut self, now: Instant, a: &SpurAck) -> Option<Verdict> {
        let una = self.core.sb.snd_una();
        let v = |by, counter, timeout, unmark| Verdict {
            timeout,
            late: by == SpuriousSignal::Dsack,
            by,
            unmark,
            counter,
        };
        let by_evidence = |s: &Self| {
            if s.core.evidence.undo.retrans == 0 {
                SpuriousSignal::Dsack
            } else {
                SpuriousSignal::Timestamp
            }
        };
        match self.state() {
            RecoveryState::Recovery => {
                if self.core.ca.recovery_point() <= Some(una) {
                    return self
                        .core
                        .evidence
                        .undo
                        .may_undo(a.ts_ecr)
                        .then(|| v(by_evidence(self), Counter::Full, false, false));
                }
                if a.advanced
                    && self.core.evidence.undo.snapshot.is_some()
                    && self.core.evidence.undo.packet_delayed(a.ts_ecr)
                    && self.core.sb.retrans_bytes() == 0
                {
                    return Some(v(SpuriousSignal::Timestamp, Counter::Partial, false, true));
                }
                self.core
                    .evidence
                    .undo
                    .all_dsacked()
                    .then(|| v(SpuriousSignal::Dsack, Counter::Dsack, false, false))
            }
            RecoveryState::Loss => {
                if a.advanced && self.core.evidence.undo.may_undo(a.ts_ecr) {
                    return Some(v(by_evidence(self), Counter::Loss, true, true));
                }
                if self.spurious_detection() == (SpuriousDetector::Linux { frto: true }) {
                    return self.frto_on_ack(now, a);
                }
                None
            }
            // A late DSACK undo after the recovery ended; a timeout's counts as spurious.
            _ => {
                let timeout = self
                    .core
                    .evidence
                    .undo
                    .snapshot
                    .as_ref()
                    .is_some_and(|s| s.timeout);
                (a.dsack && self.core.evidence.undo.all_dsacked())
                    .then(|| v(SpuriousSignal::Dsack, Counter::Dsack, timeout, false))
            }
        }
    }

    /// A timeout's recovery ended without a spurious verdict.
    pub(super) fn genuine_loss_end(&mut self) {
        self.core.evidence.frto.stop();
        self.core.rtt.reset_adaptation();
    }
}

//! Spurious timeouts and fast retransmits on the sender (decisions in [`crate::rto`]):
//! taking the congestion snapshot when a reduction starts, collecting the evidence
//! (retransmissions, DSACKs, timestamp echoes), running the configured detector — F-RTO
//! (RFC 5682), Eifel (RFC 3522), DSACK counting, or Linux's undo points
//! (`tcp_fastretrans_alert`, `tcp_process_loss`; digest §13.3, §15, §16) — and applying a
//! verdict: the response (seed 004, RFC 4015), the loss marks cleared so that nothing
//! delivered is resent, the recovery state left, the RTO adapted.

use super::pending::{FrtoNew, Pending};
use super::{RecoveryState, Sender};
use crate::config::resolved::SpuriousDetection;
use crate::config::Flavour;
use crate::event::{EventKind, SpuriousSignal};
use crate::packet::{Ack, Range, Transmit, Why};
use crate::rto::eifel::{self, AcceptableAck, Prev};
use crate::rto::frto::{self, Decision, Variant};
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
    pub fn spurious_detection(&self) -> SpuriousDetection {
        self.alg.spurious_detection
    }

    /// The congestion snapshot of the current (or last) reduction, if it may still be
    /// undone (Linux `undo_marker` ≠ 0).
    pub fn undo_snapshot(&self) -> Option<&Snapshot> {
        self.undo.snapshot.as_deref()
    }
    /// Linux `undo_retrans`: retransmissions of the episode not yet DSACKed (−1: none).
    pub fn undo_retrans(&self) -> i64 {
        self.undo.retrans
    }
    /// F-RTO's state.
    pub fn frto(&self) -> &frto::Frto {
        &self.frto
    }

    /// Counts a detector that cannot run on this connection (once, when established).
    pub(super) fn note_detection_available(&mut self) {
        if self.alg.detection_unavailable {
            self.stats.spurious_detection_unavailable += 1;
        }
    }

    fn frto_variant(&self) -> Option<Variant> {
        match self.spurious_detection() {
            SpuriousDetection::Frto { sack: true } => Some(Variant::Sack),
            SpuriousDetection::Frto { sack: false } => Some(Variant::Basic),
            SpuriousDetection::Linux { frto: true } => Some(Variant::Linux),
            _ => None,
        }
    }

    /// A reduction starts (before cwnd and ssthresh change): save them (Linux
    /// `tcp_init_undo` + `prior_cwnd`/`prior_ssthresh`; RFC 4015 step 0 for a timeout).
    pub(super) fn undo_begin(&mut self, timeout: bool) {
        let s = Snapshot {
            cwnd: self.cwnd,
            cc: self.cc,
            ssthresh: self.ssthresh,
            una: self.sb.snd_una(),
            high: self.sb.snd_nxt(),
            timeout,
            eifel: timeout.then(|| self.eifel_prev()),
            backoff: 0,
            restorable: self.state() != RecoveryState::Cwr,
        };
        let retrans_out = self.sb.retrans_bytes().div_ceil(self.mss);
        self.undo.start(s, retrans_out);
    }

    fn eifel_prev(&self) -> Prev {
        Prev::new(
            self.sb.flight_size(),
            self.ssthresh,
            self.rtt.srtt(),
            self.rtt.rttvar(),
            self.rtt.granularity(),
        )
    }

    /// A timeout joins an episode already in progress (fast recovery, or a repeated
    /// timeout): the snapshot stays (it is the state before the first reduction).
    pub(super) fn undo_join_timeout(&mut self) {
        let prev = self.eifel_prev();
        if let Some(s) = &mut self.undo.snapshot {
            s.timeout = true;
            s.eifel.get_or_insert(prev);
        }
    }

    /// The timeout's part: remember its backoff, and start F-RTO (step 1) if it may run.
    /// `in_recovery`: a fast or RTO recovery was in progress; `repeated`: SND.UNA did not
    /// move since the previous timeout.
    pub(super) fn spurious_on_rto(&mut self, in_recovery: bool, repeated: bool) {
        if let Some(s) = &mut self.undo.snapshot {
            s.backoff = self.rtt.backoff_count();
        }
        let Some(variant) = self.frto_variant() else {
            self.frto.stop();
            return;
        };
        self.frto.variant = variant;
        let start = self.frto.may_start(in_recovery, repeated);
        let head_end = self.sb.head().map_or(self.sb.snd_una(), |h| h.end);
        self.frto.on_rto(start, self.sb.snd_nxt(), head_end);
    }

    /// A transmission's part: retransmissions feed `undo_retrans` and RetransmitTS
    /// (Linux's probe is not counted, digest §15).
    pub(super) fn spurious_on_transmit(&mut self, now: Instant, t: &Transmit) {
        if !t.why.is_retransmission() {
            return;
        }
        // Linux's probe (`tcp_send_loss_probe` → `__tcp_retransmit_skb`) is neither in
        // undo_retrans nor retrans_stamp.
        let linux_probe = matches!(t.why, Why::Probe(_)) && self.cfg.flavour == Flavour::Linux;
        let segs = t.range.len().div_ceil(self.mss);
        self.undo
            .on_retransmit(now, super::transmit::ts_clock(now), segs, !linux_probe);
    }

    /// A believable DSACK `d` (before the cumulative part of its ACK is applied).
    /// `probe`: it reports the tail loss probe, which Linux does not count among the
    /// episode's retransmissions (`tcp_send_loss_probe`), so it cannot prove one of them
    /// spurious either. With `dsack_proof` only retransmissions whose original was shown
    /// to arrive count (`scoreboard::proof`); `ack` is that evidence for what it covers
    /// for the first time.
    pub(super) fn spurious_on_dsack(&mut self, now: Instant, d: Range, probe: bool, ack: &Ack) {
        self.dsack_seen = true;
        let Some(s) = self.undo.snapshot.as_deref().copied() else {
            return;
        };
        if probe && self.cfg.flavour == Flavour::Linux {
            return;
        }
        let cover = self.alg.dsack_proof.then(|| Cover {
            filter: RackFilter {
                now,
                min_rtt: self.rtt.min_rtt(),
                ts_ecr: self.ts_ecr(ack),
            },
            cumulative: ack.cumulative,
        });
        let cover = cover.as_ref();
        let in_queue = self.sb.retransmitted_segs_in(d, s.una, self.mss, cover);
        let mut dup_segs = d.len().div_ceil(self.mss).max(1);
        if cover.is_some() {
            dup_segs = dup_segs.min(self.sb.proven_acked_segs_in(d, self.mss));
        }
        let retransmissions = self.sb.retransmissions_in(d, cover);
        self.undo.on_dsack(
            (d.start, d.end),
            self.sb.snd_una(),
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
            SpuriousDetection::None => None,
            SpuriousDetection::Frto { .. } => self.frto_on_ack(now, a),
            SpuriousDetection::Eifel => self.eifel_on_ack(now, a),
            SpuriousDetection::Dsack => self.undo.all_dsacked().then_some(Verdict {
                timeout: self.state() == RecoveryState::Loss
                    || self.undo.snapshot.as_ref().is_some_and(|s| s.timeout),
                late: true,
                by: SpuriousSignal::Dsack,
                unmark: true,
                counter: Counter::Dsack,
            }),
            SpuriousDetection::Linux { .. } => self.linux_on_ack(now, a),
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
        let rts = self.undo.retrans_ts?;
        if self.undo.eifel_done || !a.advanced || self.undo.snapshot.is_none() {
            return None;
        }
        if !matches!(self.state(), RecoveryState::Recovery | RecoveryState::Loss) {
            return None;
        }
        self.undo.eifel_done = true;
        let acc = AcceptableAck {
            ts_ecr: a.ts_ecr,
            dsack: a.dsack,
            dsack_seen_before: a.dsack_before,
            acks_all: self.sb.snd_una() == self.sb.snd_nxt(),
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

    /// RFC 5682 (and Linux's F-RTO) on one ACK in RTO recovery.
    fn frto_on_ack(&mut self, now: Instant, a: &SpurAck) -> Option<Verdict> {
        if self.state() != RecoveryState::Loss || !self.frto.in_progress() {
            return None;
        }
        let delivered = a.delivered;
        // Without SACK, Linux cannot tell an original's arrival from its retransmission's
        // once a retransmitted segment is among those acknowledged (`tcp_clean_rtx_queue`:
        // `FLAG_RETRANS_DATA_ACKED` clears `FLAG_ORIG_SACK_ACKED` for Reno).
        let ambiguous = self.alg.rules.reno_retrans_ack_not_original
            && !self.sack_ok
            && delivered.retrans_cum_acked;
        // `ack_division_guard` (beyond Linux): once an ACK answered the timeout's
        // retransmission, the originals it did not cover were lost or already reported
        // (the receiver's one answer covers all it holds); a divided answer's later
        // slices acknowledge them only as pieces of that answer, never as proof that the
        // timeout was spurious (Linux undoes on the second slice, `tcp_process_loss`).
        if self.alg.ack_division_guard && a.answers_retrans {
            self.frto.retrans_answered = true;
        }
        let ambiguous = ambiguous || self.frto.retrans_answered;
        let orig_acked = !ambiguous
            && delivered
                .orig_min_end
                .is_some_and(|e| e <= self.frto.recover);
        let beyond_recover = delivered.max_end.is_some_and(|e| e > self.frto.recover);
        let view = frto::AckView {
            advanced: a.advanced,
            cumulative: self.sb.snd_una(),
            dupack: a.dupack,
            orig_acked,
            newly_sacked: a.newly_sacked,
            beyond_recover,
            snd_nxt: self.sb.snd_nxt(),
            can_send_new: self.can_send_new_segment(),
        };
        match self.frto.on_ack(&view) {
            Decision::Wait => None,
            Decision::SendNew => {
                if self.frto.variant == Variant::Linux {
                    // high_seq = snd_nxt; new data as cwnd allows on this ACK.
                    self.extend_loss(self.frto.recover);
                    self.pending = Pending::FrtoNew(FrtoNew::CwndAllows);
                } else {
                    self.pending = Pending::FrtoNew(FrtoNew::Segments(2));
                }
                None
            }
            Decision::Spurious => Some(Verdict {
                timeout: true,
                late: false,
                by: SpuriousSignal::Frto,
                unmark: true,
                counter: Counter::Loss,
            }),
            Decision::Genuine { cwnd_cap } => {
                self.genuine_rto(now, SpuriousSignal::Frto, cwnd_cap);
                None
            }
        }
    }

    /// Linux's undo points for one ACK (`tcp_fastretrans_alert`, digest §15): in
    /// Recovery the recovery end (`tcp_try_undo_recovery`), a partial ACK proven delayed
    /// by its timestamp with nothing retransmitted outstanding (`tcp_try_undo_partial`),
    /// every retransmission DSACKed (`tcp_try_undo_dsack`); in Loss an advance with
    /// `tcp_may_undo` (`tcp_try_undo_loss`), then F-RTO; in Open or Disorder a DSACK that
    /// completes the count.
    fn linux_on_ack(&mut self, now: Instant, a: &SpurAck) -> Option<Verdict> {
        let una = self.sb.snd_una();
        let v = |by, counter, timeout, unmark| Verdict {
            timeout,
            late: by == SpuriousSignal::Dsack,
            by,
            unmark,
            counter,
        };
        let by_evidence = |s: &Self| {
            if s.undo.retrans == 0 {
                SpuriousSignal::Dsack
            } else {
                SpuriousSignal::Timestamp
            }
        };
        match self.state() {
            RecoveryState::Recovery => {
                if self.ca.recovery_point() <= Some(una) {
                    return self
                        .undo
                        .may_undo(a.ts_ecr)
                        .then(|| v(by_evidence(self), Counter::Full, false, false));
                }
                if a.advanced
                    && self.undo.snapshot.is_some()
                    && self.undo.packet_delayed(a.ts_ecr)
                    && self.sb.retrans_bytes() == 0
                {
                    return Some(v(SpuriousSignal::Timestamp, Counter::Partial, false, true));
                }
                self.undo
                    .all_dsacked()
                    .then(|| v(SpuriousSignal::Dsack, Counter::Dsack, false, false))
            }
            RecoveryState::Loss => {
                if a.advanced && self.undo.may_undo(a.ts_ecr) {
                    return Some(v(by_evidence(self), Counter::Loss, true, true));
                }
                if self.spurious_detection() == (SpuriousDetection::Linux { frto: true }) {
                    return self.frto_on_ack(now, a);
                }
                None
            }
            // A late DSACK undo after the recovery ended; a timeout's counts as spurious.
            _ => {
                let timeout = self.undo.snapshot.as_ref().is_some_and(|s| s.timeout);
                (a.dsack && self.undo.all_dsacked())
                    .then(|| v(SpuriousSignal::Dsack, Counter::Dsack, timeout, false))
            }
        }
    }

    /// F-RTO or Eifel found the timeout genuine: conventional RTO recovery goes on (with
    /// F-RTO's cwnd cap), and the RTO adaptations end (seed 004: "reset to the standard
    /// timer upon a genuine timeout").
    fn genuine_rto(&mut self, now: Instant, by: SpuriousSignal, cwnd_cap: Option<u64>) {
        self.frto.stop();
        self.drop_frto_new();
        self.stats.genuine_rtos += 1;
        // RFC 5682 3a (2a): "no more than 3·MSS" (2·MSS) — as much as conventional
        // recovery would have reached by now, two (one) round trips after the timeout.
        if let Some(cap) = cwnd_cap {
            let cap = (cap * self.mss).max(self.mss);
            self.cwnd = cap;
            self.cwnd_ceiling = Some(cap); // "no more than": not grown by this ACK either
        }
        self.rtt.reset_adaptation();
        self.emit(now, EventKind::GenuineRto { by });
    }

    pub(super) fn drop_frto_new(&mut self) {
        if self.pending.frto_new().is_some() {
            self.pending = Pending::Nothing;
        }
    }

    /// A timeout's recovery ended without a spurious verdict.
    pub(super) fn genuine_loss_end(&mut self) {
        self.frto.stop();
        self.rtt.reset_adaptation();
    }

    /// Linux's F-RTO step 2b when cwnd leaves no room for new data after all
    /// (`tcp_xmit_recovery`: nothing new sent → `frto = 0`).
    pub(super) fn frto_check_room(&mut self, now: Instant) {
        if self.pending.frto_new().is_none() || self.frto.variant != Variant::Linux {
            return;
        }
        let room = self.cwnd.saturating_sub(self.sb.pipe());
        if room
            < self
                .mss
                .min(self.app_written.saturating_sub(self.sb.snd_nxt()))
        {
            self.genuine_rto(now, SpuriousSignal::Frto, None);
        }
    }

    /// What F-RTO lets the RTO recovery send now, if it is deciding: `Some(t)` a new
    /// segment of step 2b, `Some(None)` nothing (retransmissions wait for the verdict),
    /// `None` F-RTO does not interfere.
    pub(super) fn frto_transmit(&mut self, now: Instant) -> Option<Option<Transmit>> {
        let rfc = self.frto.variant != Variant::Linux;
        let holding = self.frto.in_progress() && rfc;
        let Some(left) = self.pending.frto_new() else {
            return holding.then_some(None);
        };
        let room = if rfc {
            u64::MAX // RFC 5682 2b: two new segments whatever cwnd says
        } else {
            self.cwnd.saturating_sub(self.sb.pipe())
        };
        match self.new_data(now, room, Why::New) {
            Some(t) => {
                self.pending = match left {
                    FrtoNew::Segments(n) if n > 1 => Pending::FrtoNew(FrtoNew::Segments(n - 1)),
                    FrtoNew::Segments(_) => Pending::Nothing,
                    FrtoNew::CwndAllows => Pending::FrtoNew(left),
                };
                Some(Some(t))
            }
            // Linux `tcp_xmit_recovery`: once new data went out on this ACK, no
            // retransmission follows it.
            None if !rfc && self.sb.snd_nxt() > self.frto.recover => Some(None),
            None => {
                self.drop_frto_new();
                holding.then_some(None)
            }
        }
    }
}

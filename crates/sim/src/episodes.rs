//! Recovery episodes of each connection — fast recovery (`kind` "fast") and RTO recovery
//! (`kind` "rto", issue 28: a timeout's loss recovery is an episode too) — for the per-recovery statistics of the PRR
//! paper (seed 003 §5: recovery time, cwnd after recovery, slow start after recovery,
//! timeouts in recovery, lost retransmissions, data sent in recovery).
//! The simulator knows which packets the path dropped, so lost retransmissions are counted
//! exactly rather than inferred as a sender would (`TCPLostRetransmit`).
//!
//! Built from the engine's events (`enter_recovery`, `exit_recovery`, `rto`, `exit_loss`,
//! `undo`) as the simulator drains them, plus the window the sender had as each input
//! arrived; nothing is computed per ACK beyond two getter calls.

use lossrec::event::EventKind;
use lossrec::{Event, RecoveryState, Sender};
use serde::Serialize;

/// One recovery episode (an entry of the `--json` object's `recoveries`). Windows are
/// in segments (bytes / MSS, rounded down).
///
/// A fast-recovery episode (`kind` "fast") runs from `enter_recovery` to its end; an RTO
/// episode (`kind` "rto") from the first timeout of a loss recovery (Linux `tcp_enter_loss`
/// from a state other than Loss) to `exit_loss`, counting the further timeouts of the same
/// loss recovery as `backoffs`. A fast episode a timeout interrupts keeps its own row
/// (`ended_by` "rto") and the timeout starts an RTO row beside it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Recovery {
    /// `fast` (fast recovery) or `rto` (a timeout's loss recovery).
    pub kind: &'static str,
    /// The connection (flow index).
    pub flow: u64,
    /// The flow result the episode started in: the connection's, or the response's for
    /// request-response (the `id` of `flows[]`).
    pub id: u64,
    pub start_ms: f64,
    /// When the connection left recovery: the ACK of the recovery point, an undo, or —
    /// after a timeout in recovery — the end of the timeout's loss recovery. None if the
    /// run ended first.
    pub end_ms: Option<f64>,
    /// Fast episodes: `ack` (recovery completed), `rto` (a timeout interrupted it), `undo`,
    /// or `open` (the run ended during the episode). RTO episodes: `ack` (a new ACK reached
    /// the recovery point), `undo` (found spurious and the reduction undone, RFC 4015 /
    /// Linux `tcp_try_undo_loss`), `spurious` (found spurious, the reduction kept), or
    /// `open`.
    pub ended_by: &'static str,
    /// When the timeout that interrupted fast recovery fired (fast episodes only).
    pub rto_ms: Option<f64>,
    /// RTO episodes: the timeouts after the first before the episode ended (exponential
    /// backoff, Linux `icsk_backoff`); 0 for fast episodes.
    pub backoffs: u64,
    /// cwnd before the reduction.
    pub prior_cwnd: u64,
    /// ssthresh set on entry (the target of the reduction; for RTO episodes the first
    /// timeout's).
    pub ssthresh: u64,
    /// RFC 6675 pipe as recovery started (after the triggering ACK).
    pub pipe_at_entry: u64,
    /// cwnd and pipe as the ACK that completed recovery arrived, before processing it:
    /// where the reduction left the window (PRR's cwnd − ssthresh of the paper's Table 4).
    pub cwnd_at_end: Option<u64>,
    pub pipe_at_end: Option<u64>,
    /// cwnd once the episode ended (`ack`, `undo`, or `rto` after its loss recovery).
    pub cwnd_after: Option<u64>,
    /// ssthresh once the episode ended.
    pub ssthresh_after: Option<u64>,
    /// Data segments sent in the episode (fast: until it ended or a timeout interrupted
    /// it), and how many of them were retransmissions.
    pub sent: u64,
    pub retransmits: u64,
    /// Of those retransmissions, how many the path dropped (the simulator's ground truth,
    /// not a sender's inference).
    pub lost_retransmits: u64,
}

impl Recovery {
    /// Did the connection leave recovery below ssthresh, i.e. in slow start?
    pub fn slow_start_after(&self) -> Option<bool> {
        match (self.cwnd_after, self.ssthresh_after) {
            (Some(c), Some(s)) => Some(c < s),
            _ => None,
        }
    }
}

/// An episode in progress.
#[derive(Debug)]
struct Open {
    rec: Recovery,
    /// Still in fast recovery (not yet interrupted by a timeout); always false for RTO
    /// episodes.
    fast: bool,
    /// RTO episodes: a spurious-timeout verdict, and whether it undid the reduction.
    spurious: bool,
    undone: bool,
}

/// The episode state of one connection.
#[derive(Debug, Default)]
pub struct Tracker {
    /// Boxed: most connections are outside recovery most of the time, and a live flow's
    /// own footprint is what a run with many flows pays for each.
    open: Option<Box<Open>>,
    /// The RTO episode in progress (boxed for the same reason).
    rto: Option<Box<Open>>,
    /// cwnd and pipe before the sender processed its current input, bytes.
    pre_cwnd: u64,
    pre_pipe: u64,
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

fn segs(bytes: u64, mss: u64) -> u64 {
    if bytes >= u64::MAX / 2 {
        return bytes; // "infinite" ssthresh stays recognisable
    }
    bytes / mss.max(1)
}

impl Tracker {
    /// Call before giving the sender an input (an ACK or a timeout).
    pub fn before_input(&mut self, s: &Sender) {
        self.pre_cwnd = s.cwnd();
        self.pre_pipe = s.pipe();
    }

    /// One engine event of this connection; finished episodes go to `out`.
    pub fn on_event(
        &mut self,
        flow: u64,
        id: u64,
        ev: &Event,
        s: &Sender,
        out: &mut Vec<Recovery>,
    ) {
        let mss = s.mss();
        let t = ms(ev.at.as_nanos());
        match ev.kind {
            EventKind::EnterRecovery { ssthresh, pipe, .. } => {
                if let Some(o) = self.open.take() {
                    // A new episode while one was open (after a timeout's loss recovery
                    // never completed): the old one ends here.
                    self.finish(*o, None, "rto", s, out);
                }
                if let Some(o) = self.rto.take() {
                    // Not expected (fast recovery starts from Open or Disorder, after
                    // `exit_loss`); should it happen, the RTO episode ends here.
                    self.finish_rto(*o, Some(t), s, out);
                }
                let rec = self.new_episode(
                    "fast",
                    flow,
                    id,
                    t,
                    segs(ssthresh, mss),
                    segs(pipe, mss),
                    mss,
                );
                self.open = Some(Box::new(Open {
                    rec,
                    fast: true,
                    spurious: false,
                    undone: false,
                }));
            }
            EventKind::ExitRecovery { .. } => {
                if let Some(mut o) = self.open.take() {
                    o.rec.cwnd_at_end = Some(segs(self.pre_cwnd, mss));
                    o.rec.pipe_at_end = Some(segs(self.pre_pipe, mss));
                    self.finish(*o, Some(t), "ack", s, out);
                }
            }
            EventKind::Rto { ssthresh, .. } => {
                if let Some(o) = self.open.as_mut() {
                    if o.fast {
                        o.fast = false;
                        o.rec.rto_ms = Some(t);
                    }
                }
                match self.rto.as_mut() {
                    // A further timeout of the same loss recovery (Linux `tcp_enter_loss`
                    // in Loss: backoff).
                    Some(o) => o.rec.backoffs += 1,
                    None => {
                        let rec = self.new_episode(
                            "rto",
                            flow,
                            id,
                            t,
                            segs(ssthresh, mss),
                            segs(self.pre_pipe, mss),
                            mss,
                        );
                        self.rto = Some(Box::new(Open {
                            rec,
                            fast: false,
                            spurious: false,
                            undone: false,
                        }));
                    }
                }
            }
            EventKind::Spurious { timeout: true, .. } => {
                if let Some(o) = self.rto.as_mut() {
                    o.spurious = true;
                }
            }
            EventKind::ExitLoss { .. } => {
                if let Some(o) = self.open.take() {
                    self.finish(*o, Some(t), "rto", s, out);
                }
                if let Some(o) = self.rto.take() {
                    self.finish_rto(*o, Some(t), s, out);
                }
            }
            EventKind::Undo { .. } => {
                if let Some(o) = self.open.take() {
                    let how = if o.fast { "undo" } else { "rto" };
                    self.finish(*o, Some(t), how, s, out);
                }
                // The RTO episode ends at the `exit_loss` that follows.
                if let Some(o) = self.rto.as_mut() {
                    o.undone = true;
                }
            }
            _ => {}
        }
    }

    /// A data segment went out; `lost` if the path dropped it.
    pub fn on_send(&mut self, retransmission: bool, lost: bool) {
        let fast = self.open.as_mut().filter(|o| o.fast);
        for o in fast.into_iter().chain(self.rto.as_mut()) {
            o.rec.sent += 1;
            o.rec.retransmits += u64::from(retransmission);
            o.rec.lost_retransmits += u64::from(retransmission && lost);
        }
    }

    /// In fast recovery (an episode is open and no timeout interrupted it).
    pub fn in_fast_recovery(&self) -> bool {
        self.open.as_ref().is_some_and(|o| o.fast)
    }

    /// The run ended (or the connection was torn down): an open episode is reported as such.
    pub fn close(&mut self, s: &Sender, out: &mut Vec<Recovery>) {
        if let Some(o) = self.open.take() {
            self.finish(*o, None, "open", s, out);
        }
        if let Some(o) = self.rto.take() {
            self.finish_rto(*o, None, s, out);
        }
    }

    /// A new episode's row, windows from the state before the current input.
    #[allow(clippy::too_many_arguments)]
    fn new_episode(
        &self,
        kind: &'static str,
        flow: u64,
        id: u64,
        t: f64,
        ssthresh: u64,
        pipe: u64,
        mss: u64,
    ) -> Recovery {
        Recovery {
            kind,
            flow,
            id,
            start_ms: t,
            ended_by: "open",
            prior_cwnd: segs(self.pre_cwnd, mss),
            ssthresh,
            pipe_at_entry: pipe,
            ..Recovery::default()
        }
    }

    /// An RTO episode ends (`end` None: the run ended first): how is decided by the
    /// spurious verdict seen, if any (RFC 5682 F-RTO, RFC 4015 response).
    fn finish_rto(&self, o: Open, end: Option<f64>, s: &Sender, out: &mut Vec<Recovery>) {
        let how = match (o.spurious, o.undone) {
            (_, true) => "undo",
            (true, false) => "spurious",
            (false, false) => "ack",
        };
        self.finish(o, end, how, s, out);
    }

    fn finish(
        &self,
        mut o: Open,
        end: Option<f64>,
        how: &'static str,
        s: &Sender,
        out: &mut Vec<Recovery>,
    ) {
        let mss = s.mss();
        o.rec.end_ms = end;
        o.rec.ended_by = if end.is_none() && how != "rto" {
            "open"
        } else {
            how
        };
        if end.is_some() {
            o.rec.cwnd_after = Some(segs(s.cwnd(), mss));
            o.rec.ssthresh_after = Some(segs(s.ssthresh(), mss));
        }
        out.push(o.rec);
    }
}

/// What the simulator counts per connection besides the sender's own counters: timeouts
/// by the state the connection was in when they fired (the paper's Table 1: timeouts in
/// Open, Disorder, Recovery, and in Loss, i.e. exponential backoff), and retransmissions
/// the path dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub open: u64,
    pub disorder: u64,
    pub recovery: u64,
    pub loss: u64,
    pub lost_retransmits: u64,
    /// Of those, retransmissions sent in fast recovery.
    pub lost_fast_retransmits: u64,
    /// First transmissions of a message's last four segments the path dropped.
    pub tail_drops: u64,
}

impl Counters {
    /// Counts a timeout if `on_timeout` fired one (the deadline may also have been an
    /// early-retransmit timer).
    /// `before` and `after` are the sender's `timeouts` counter around `on_timeout`.
    pub fn count(&mut self, state: RecoveryState, before: u64, after: u64) {
        let n = after.saturating_sub(before);
        match state {
            RecoveryState::Open | RecoveryState::Cwr => self.open += n,
            RecoveryState::Disorder => self.disorder += n,
            RecoveryState::Recovery => self.recovery += n,
            RecoveryState::Loss => self.loss += n,
        }
    }

    /// Counts since `earlier`.
    pub fn since(&self, earlier: &Counters) -> Counters {
        Counters {
            open: self.open - earlier.open,
            disorder: self.disorder - earlier.disorder,
            recovery: self.recovery - earlier.recovery,
            loss: self.loss - earlier.loss,
            lost_retransmits: self.lost_retransmits - earlier.lost_retransmits,
            lost_fast_retransmits: self.lost_fast_retransmits - earlier.lost_fast_retransmits,
            tail_drops: self.tail_drops - earlier.tail_drops,
        }
    }
}

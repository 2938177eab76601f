//! One window of captured transmissions (between two engine inputs), the rows it yields
//! and the connection's running summary. See the parent module for the matching rules.

use std::collections::BTreeMap;

use lossrec::timer::TimerKind;
use lossrec::{EventKind, Instant, ProbeKind, RecoveryState, Sender, Stats, Why};

use crate::conn::Transmission;

/// What the comparison found for one transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// The engine made the same decision in the same window.
    Matched,
    /// The engine sent it, but only after a later input.
    Late,
    /// The captured sender sent it; the engine would not have.
    CaptureOnly,
    /// The engine would have sent it; the captured sender did not.
    EngineOnly,
}

impl Verdict {
    /// Name in rows and tables.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Matched => "matched",
            Verdict::Late => "late",
            Verdict::CaptureOnly => "capture_only",
            Verdict::EngineOnly => "engine_only",
        }
    }
}

/// The engine's state where a decision was compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineState {
    /// cwnd, bytes.
    pub cwnd: u64,
    /// ssthresh, bytes.
    pub ssthresh: u64,
    /// pipe (RFC 6675), bytes.
    pub pipe: u64,
    /// Recovery state name.
    pub state: &'static str,
    /// RACK.reo_wnd, µs.
    pub reo_wnd_us: u64,
    /// SRTT, µs (0 before a sample).
    pub srtt_us: u64,
    /// The armed timer's name, or "".
    pub timer: &'static str,
    /// µs until it fires (0 if none).
    pub timer_in_us: u64,
}

impl EngineState {
    /// The engine's state at `now`.
    pub fn of(s: &Sender, now: Instant) -> EngineState {
        EngineState {
            cwnd: s.cwnd(),
            ssthresh: s.ssthresh(),
            pipe: s.pipe(),
            state: s.state().name(),
            reo_wnd_us: s.rack().reo_wnd().as_micros() as u64,
            srtt_us: s.rtt().srtt().map_or(0, |d| d.as_micros() as u64),
            timer: s.timer_kind().map_or("", |k| k.name()),
            timer_in_us: s
                .poll_timeout()
                .map_or(0, |d| d.saturating_duration_since(now).as_micros() as u64),
        }
    }
}

/// One labelled transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Capture time (or the engine's time for `engine_only`), ns since the Unix epoch.
    pub ts_ns: u64,
    /// Captured packet index in the connection (`u64::MAX` for `engine_only`).
    pub packet: u64,
    /// Piece inside a super-packet.
    pub part: u32,
    /// Capture stream offsets.
    pub start: u64,
    /// End offset (exclusive).
    pub end: u64,
    /// The comparison's result.
    pub verdict: Verdict,
    /// The engine's cause (`new`, `fast_retransmit`, `rack`, `rack_reo_timer`,
    /// `probe_new`, `rto`, `loss_retransmit`, `frto_new` …), "" for `capture_only`.
    pub cause: &'static str,
    /// RTO backoff count of an `rto`/`loss_retransmit`.
    pub backoff: u32,
    /// Engine state, on divergences.
    pub state: Option<EngineState>,
}

/// The connection's running counts.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Transmissions by cause (matched and late ones: the engine's reason).
    pub by_cause: BTreeMap<&'static str, u64>,
    /// Rows by verdict.
    pub verdicts: BTreeMap<&'static str, u64>,
    /// Engine inputs fed (ACKs, timer firings).
    pub inputs: u64,
    /// Handshake and window-probe transmissions (not compared).
    pub control: u64,
    /// Engine events by name (`undo`, `spurious`, `dsack`, `enter_recovery`, `rto` …).
    pub events: BTreeMap<&'static str, u64>,
    /// Spurious verdicts by signal (`dsack`, `timestamp`, `frto`).
    pub spurious_by: BTreeMap<&'static str, u64>,
    /// Bytes the ACKs proved sent that the capture missed.
    pub capture_drop_bytes: u64,
    /// The capture began after the handshake.
    pub mid_connection: bool,
    /// The first divergence: (capture time, packet index or u64::MAX).
    pub first_divergence: Option<(u64, u64)>,
    /// What could not be known or done.
    pub notes: Vec<String>,
    /// The engine's MIB counters at the end.
    pub engine_stats: Option<Stats>,
}

impl Summary {
    /// Decisions compared: every row.
    pub fn decisions(&self) -> u64 {
        self.verdicts.values().sum()
    }
    /// Rows the engine matched in the same window.
    pub fn matched(&self) -> u64 {
        self.verdicts.get("matched").copied().unwrap_or(0)
    }
}

/// A captured piece waiting for the engine.
#[derive(Clone, Copy, Debug)]
struct Piece {
    t: Transmission,
    matched: bool,
    /// Windows it has been carried over.
    age: u32,
    /// The engine's state when the window that captured it closed without it.
    state: Option<EngineState>,
}

/// How many windows an unmatched captured piece waits for a late engine decision.
const CARRY_WINDOWS: u32 = 64;

/// The current window and what is carried over.
#[derive(Debug, Default)]
pub(super) struct Window {
    pieces: Vec<Piece>,
    carried: Vec<Piece>,
    pub(super) summary: Summary,
    last_ns: u64,
    /// An RTO fired and its head retransmission is not out yet; its backoff.
    rto_head: Option<u32>,
    backoff: u32,
}

impl Window {
    pub(super) fn captured(&mut self, t: Transmission) {
        self.last_ns = self.last_ns.max(t.ts_ns);
        self.pieces.push(Piece {
            t,
            matched: false,
            age: 0,
            state: None,
        });
    }

    pub(super) fn last_ns(&self) -> u64 {
        self.last_ns
    }

    pub(super) fn first_ns(&self) -> Option<u64> {
        self.pieces.first().map(|p| p.t.ts_ns)
    }

    pub(super) fn on_event(&mut self, e: &EventKind) {
        *self.summary.events.entry(e.name()).or_default() += 1;
        match *e {
            EventKind::Rto { backoff, .. } => {
                self.rto_head = Some(backoff);
                self.backoff = backoff;
            }
            EventKind::Spurious { by, .. } => {
                *self.summary.spurious_by.entry(by.name()).or_default() += 1;
            }
            _ => {}
        }
    }

    /// The finer cause of an engine transmission.
    pub(super) fn cause(
        &mut self,
        why: Why,
        st: RecoveryState,
        timer: Option<TimerKind>,
    ) -> &'static str {
        match why {
            Why::RtoRetransmit if self.rto_head.take().is_some() => "rto",
            Why::RtoRetransmit => "loss_retransmit",
            Why::RackRetransmit if timer == Some(TimerKind::ReoTimeout) => "rack_reo_timer",
            Why::New if st == RecoveryState::Loss => "frto_new",
            Why::Probe(ProbeKind::New) => "probe_new",
            w => w.name(),
        }
    }

    fn emit(&mut self, row: Row, out: &mut impl FnMut(Row)) {
        *self.summary.verdicts.entry(row.verdict.name()).or_default() += 1;
        if matches!(row.verdict, Verdict::Matched | Verdict::Late) {
            *self.summary.by_cause.entry(row.cause).or_default() += 1;
        }
        if row.verdict != Verdict::Matched
            && self
                .summary
                .first_divergence
                .is_none_or(|(t, _)| row.ts_ns < t)
        {
            self.summary.first_divergence = Some((row.ts_ns, row.packet));
        }
        out(row);
    }

    /// Matches the engine's `[start, end)` (capture offsets), piece by piece of `mss`,
    /// against the window, then against carried pieces. False if nothing matched.
    /// The start offsets and captured TSvals of the matched pieces are appended to
    /// `tsvals`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn take(
        &mut self,
        start: u64,
        end: u64,
        fin: bool,
        mss: u64,
        cause: &'static str,
        state: &EngineState,
        tsvals: &mut Vec<(u64, u32)>,
        out: &mut impl FnMut(Row),
    ) -> bool {
        let backoff = if matches!(cause, "rto" | "loss_retransmit") {
            self.backoff
        } else {
            0
        };
        let mut any = false;
        let mut a = start;
        loop {
            let b = (a + mss).min(end);
            let bare_fin = a == b;
            let hit = |p: &Piece| {
                !p.matched && p.t.start == a && p.t.end == b && (!bare_fin || p.t.fin == fin)
            };
            if let Some(p) = self.pieces.iter_mut().find(|p| hit(p)) {
                p.matched = true;
                let t = p.t;
                any = true;
                tsvals.extend(t.tsval.map(|v| (t.start, v)));
                self.emit(row(&t, Verdict::Matched, cause, backoff, None), out);
            } else if let Some(i) = self.carried.iter().position(hit) {
                let p = self.carried.remove(i);
                any = true;
                tsvals.extend(p.t.tsval.map(|v| (p.t.start, v)));
                self.emit(row(&p.t, Verdict::Late, cause, backoff, Some(*state)), out);
            }
            if b >= end {
                break;
            }
            a = b;
        }
        any
    }

    pub(super) fn engine_only(
        &mut self,
        ts_ns: u64,
        start: u64,
        end: u64,
        cause: &'static str,
        state: EngineState,
        out: &mut impl FnMut(Row),
    ) {
        let r = Row {
            ts_ns,
            packet: u64::MAX,
            part: 0,
            start,
            end,
            verdict: Verdict::EngineOnly,
            cause,
            backoff: 0,
            state: Some(state),
        };
        self.emit(r, out);
    }

    /// The window ends: unmatched pieces wait (carried) for a late engine decision;
    /// carried ones that waited too long, or that `snd_una` passed, are capture_only.
    pub(super) fn close(
        &mut self,
        state: Option<EngineState>,
        snd_una: u64,
        out: &mut impl FnMut(Row),
    ) {
        let mut carried = std::mem::take(&mut self.carried);
        for p in self.pieces.drain(..).filter(|p| !p.matched) {
            carried.push(Piece { age: 0, state, ..p });
        }
        let mut keep = Vec::with_capacity(carried.len());
        for mut p in carried {
            p.age += 1;
            if p.age > CARRY_WINDOWS || p.t.end <= snd_una && p.t.start < p.t.end {
                self.emit(row(&p.t, Verdict::CaptureOnly, "", 0, p.state), out);
            } else {
                keep.push(p);
            }
        }
        self.carried = keep;
    }

    pub(super) fn flush_carried(&mut self, out: &mut impl FnMut(Row)) {
        for p in std::mem::take(&mut self.carried) {
            self.emit(row(&p.t, Verdict::CaptureOnly, "", 0, p.state), out);
        }
    }
}

fn row(
    t: &Transmission,
    verdict: Verdict,
    cause: &'static str,
    backoff: u32,
    state: Option<EngineState>,
) -> Row {
    Row {
        ts_ns: t.ts_ns,
        packet: t.packet,
        part: t.part,
        start: t.start,
        end: t.end,
        verdict,
        cause,
        backoff,
        state,
    }
}

//! Shadow mode: the engine, with a chosen preset, run against a captured connection's ACKs
//! at their capture times, each captured data transmission labelled with the engine's
//! reason for it — or the divergence stated where the preset would not have sent it.
//!
//! # How inputs and outputs line up
//!
//! The driver contract (DESIGN.md): one input at a time — an ACK at its arrival, a timer
//! at its deadline — and `poll_transmit` drained after each, as Linux runs `tcp_ack` then
//! `tcp_data_snd_check`. A capture at the sender shows the same thing: after each ACK, the
//! transmissions it released, until the next ACK. So the capture is cut into **windows**:
//! the data captured between one input and the next. After feeding an input, each
//! transmission the engine polls is looked up among the window's unmatched pieces
//! (split by MSS on both sides):
//!
//! - found: **matched**, labelled with the engine's [`lossrec::Why`] (and the finer cause:
//!   `rack_reo_timer` when RACK's reorder timer marked it, `rto` for the timeout's head
//!   retransmission with its backoff, `loss_retransmit` for the repair after it,
//!   `frto_new` for F-RTO's new data in the Loss state);
//! - not found: **engine_only** — the preset would have sent it, the captured sender did
//!   not. The engine takes it back ([`lossrec::Sender::transmit_failed`], as after a local
//!   send failure, which stops sending until the next input) so it stays in step with
//!   what was really sent;
//! - a window's pieces the engine did not send are **capture_only**: the captured sender
//!   sent them and the preset would not have (yet). They are kept for a while: when the
//!   engine sends one later it is labelled **late** with the engine's reason.
//!
//! Timers: before the next input, every engine deadline earlier than it fires
//! (`on_timeout(deadline)`), and what it sends is matched against the same window.
//! Every divergence carries the engine's state there ([`EngineState`]).
//!
//! Application data: with [`App::AsSeen`] the engine is given the bytes each window
//! shows for the first time before it is polled (the application wrote them no later
//! than the capture shows them); with [`App::Bulk`] everything is written at the start,
//! as a bulk transfer (and the simulator's flows) does.
//!
//! What shadow mode cannot know is said in [`Summary`]: a capture not taken at the data
//! sender, a mid-connection start (the engine starts from its initial window), capture
//! drops.

mod app;
pub mod mapping;
mod window;

use lossrec::{Config, Instant, Sender, Why};

use crate::conn::{Record, SynInfo, Transmission};
use mapping::Mapping;
pub use window::{EngineState, Row, Summary, Verdict};

/// When the application's data is taken as available.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum App {
    /// Each byte when the capture first shows it sent.
    AsSeen,
    /// All `end` bytes at the start (and the FIN if `fin`).
    Bulk {
        /// Bytes in the stream (engine offsets).
        end: u64,
        /// The sender closed after them.
        fin: bool,
    },
}

/// Most engine inputs (timer firings) handled inside one window before it is closed:
/// a guard against a timer that re-arms at the same instant.
const MAX_TIMERS_PER_WINDOW: usize = 64;

/// The shadow driver of one connection.
pub struct Shadow {
    cfg: Config,
    app: App,
    sender: Option<Sender>,
    map: Option<Mapping>,
    syn: Option<SynInfo>,
    win: window::Window,
    /// The window's inputs are fed; its captured pieces are being collected.
    next_input: Option<Record>,
    /// What the application has written and closed (the `--app` model).
    data: app::AppData,
    /// Engine offsets start at this capture offset.
    base: u64,
    /// Records waiting for the lookahead ([`App::AsSeen`]).
    ahead: std::collections::VecDeque<Record>,
    syn_ns: Option<u64>,
    /// Added to every ACK's capture time: how long after the capture point an ACK
    /// reaches the sender (0 for a capture at the sender).
    ack_shift_ns: u64,
    /// Capture time of the newest record pushed.
    newest_ns: u64,
}

impl std::fmt::Debug for Shadow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shadow").finish_non_exhaustive()
    }
}

impl Shadow {
    /// A driver for `preset` (its config), reading records of one connection whose engine
    /// offset 0 is capture offset `base`.
    pub fn new(cfg: Config, app: App, base: u64) -> Shadow {
        Shadow {
            cfg,
            app,
            sender: None,
            map: None,
            syn: None,
            win: window::Window::default(),
            next_input: None,
            data: app::AppData::new(app),
            base,
            ahead: std::collections::VecDeque::new(),
            syn_ns: None,
            ack_shift_ns: 0,
            newest_ns: 0,
        }
    }

    /// ACKs reach the sender `ns` after the capture shows them (a capture taken on the
    /// path: the emulator's, a middlebox's). Applies to ACKs not yet processed.
    pub fn set_ack_shift(&mut self, ns: u64) {
        let add = ns.saturating_sub(self.ack_shift_ns);
        self.ack_shift_ns = ns;
        for r in self.ahead.iter_mut() {
            shift(r, add);
        }
        self.ahead.make_contiguous().sort_by_key(ts_of);
        if ns >= 1_000_000 {
            self.win.summary.notes.push(format!(
                "the capture was taken on the path: ACKs are fed {:.1} ms after their capture \
                 time (the handshake's third packet followed the SYN-ACK by that much)",
                ns as f64 / 1e6
            ));
        }
    }

    /// The summary so far.
    pub fn summary(&self) -> &Summary {
        &self.win.summary
    }

    /// Feeds one record; finished rows go to `out`. Records are processed once the
    /// capture has been read `lookahead` past them: with [`App::AsSeen`] the application
    /// is taken to have written, at any moment, what the capture shows sent within the
    /// next two handshake round trips (a sender that is cwnd-limited in the capture
    /// stays so in the engine; one that went idle, idles).
    pub fn push(&mut self, mut r: Record, out: &mut impl FnMut(Row)) {
        let ts = ts_of(&r);
        self.newest_ns = self.newest_ns.max(ts);
        shift(&mut r, self.ack_shift_ns);
        match r {
            Record::Data(t) => self.data.note(&t),
            Record::Syn(s) => self.syn_ns = self.syn_ns.or(Some(s.ts_ns)),
            Record::SynAck(s) => {
                if let Some(a) = self.syn_ns {
                    self.data.lookahead_ns = (2 * s.ts_ns.saturating_sub(a)).max(10_000_000);
                }
            }
            _ => {}
        }
        // In time order: a shifted ACK goes after the data captured before it arrived.
        let at = ts_of(&r);
        let pos = self
            .ahead
            .iter()
            .rposition(|q| ts_of(q) <= at)
            .map_or(0, |i| i + 1);
        self.ahead.insert(pos, r);
        let ahead = if self.app == App::AsSeen {
            self.data.lookahead_ns
        } else {
            0
        };
        let wait = ahead.saturating_add(self.ack_shift_ns);
        while let Some(front) = self.ahead.front() {
            if ts_of(front).saturating_add(wait) > self.newest_ns {
                break;
            }
            let front = self.ahead.pop_front().expect("front exists");
            self.process(front, out);
        }
    }

    fn process(&mut self, r: Record, out: &mut impl FnMut(Row)) {
        match r {
            Record::Syn(s) => self.on_syn(s, out),
            Record::Data(t) => {
                if self.sender.is_none() {
                    self.start_mid(t.ts_ns);
                }
                if let (Some(m), Some(v)) = (self.map.as_mut(), t.tsval) {
                    m.note_tsval(v, t.ts_ns);
                }
                self.app_write_event(&t, out);
                self.win.captured(t);
            }
            Record::SynAck(_) | Record::Ack(_) => {
                if self.sender.is_none() {
                    self.start_mid(ts_of(&r));
                }
                self.close_window(ts_of(&r), out);
                self.feed(r);
            }
            Record::CaptureDrop { end, start, .. } => {
                self.win.summary.capture_drop_bytes += end - start;
            }
        }
    }

    /// New data after the engine ran out of it: the application wrote at this moment
    /// (after an idle period, a new response). The window closes here and the write is
    /// the next input.
    fn app_write_event(&mut self, t: &Transmission, out: &mut impl FnMut(Row)) {
        if self.app != App::AsSeen {
            return;
        }
        // First what the application had written by the current input (the lookahead
        // from its time): data released by that input is not a new write.
        if let Some(r) = &self.next_input {
            let now = map_instant(self.map.as_ref(), ts_of(r));
            self.write_app(now);
        }
        let (Some(snd), Some(map)) = (self.sender.as_ref(), self.map.as_ref()) else {
            return;
        };
        if !self.data.is_new_write(t, snd, map) {
            return;
        }
        self.close_window(t.ts_ns, out);
        self.next_input = Some(Record::Data(*t));
        self.win.summary.inputs += 1;
        let now = map_instant(self.map.as_ref(), t.ts_ns);
        self.data.close_until(t.ts_ns + 1);
        self.write_app(now);
    }

    /// Ends the stream: the last window closes at the last capture time.
    pub fn finish(&mut self, out: &mut impl FnMut(Row)) {
        while let Some(r) = self.ahead.pop_front() {
            self.process(r, out);
        }
        let t = self.win.last_ns().saturating_add(1);
        self.close_window(t, out);
        self.win.flush_carried(out);
        if let Some(s) = &self.sender {
            self.win.summary.engine_stats = Some(s.stats().clone());
        }
    }

    fn on_syn(&mut self, s: SynInfo, out: &mut impl FnMut(Row)) {
        if self.sender.is_some() {
            return; // a retransmitted SYN: the engine's own timer decides its copy
        }
        self.syn = Some(s);
        let mut cfg = self.cfg.clone();
        cfg.handshake = true;
        cfg.sack = s.sack_permitted;
        cfg.timestamps = s.tsval.is_some();
        if let Some(m) = s.mss {
            // Config::mss is the payload with timestamps; the SYN offers it + 12.
            cfg.mss = m.saturating_sub(12).max(64);
        }
        let map = Mapping::new(self.base, s.ts_ns);
        let now = map.instant(s.ts_ns);
        match Sender::new(cfg, now) {
            Ok(mut snd) => {
                snd.allow_transmit_failures();
                self.sender = Some(snd);
            }
            Err(e) => self
                .win
                .summary
                .notes
                .push(format!("engine refused the SYN's options: {e}")),
        }
        if let Some(v) = s.tsval {
            let mut map = map;
            map.note_tsval(v, s.ts_ns);
            self.map = Some(map);
        } else {
            self.map = Some(map);
        }
        self.write_app(now);
        self.drain(now, None, out);
    }

    /// A capture without the handshake: the engine starts established, with its
    /// preset's initial window, at the first record.
    fn start_mid(&mut self, ts_ns: u64) {
        let mut cfg = self.cfg.clone();
        cfg.handshake = false;
        let map = Mapping::new(self.base, ts_ns);
        if let Ok(mut s) = Sender::new(cfg, map.instant(ts_ns)) {
            s.allow_transmit_failures();
            self.sender = Some(s);
        }
        self.map = Some(map);
        self.win.summary.mid_connection = true;
        self.win.summary.notes.push(
            "the capture starts mid-connection: the handshake's options, the window scale, \
             the engine's cwnd, ssthresh and RTT history before it are unknown; the engine \
             starts from its initial window"
                .into(),
        );
    }

    /// Feeds one input to the engine.
    fn feed(&mut self, r: Record) {
        // What the application had written by the ACK's arrival is there before the ACK
        // is processed: F-RTO decides inside its ACK handling whether new data can go
        // out (RFC 5682 §2.1 step 2b; Linux tcp_process_loss checks tcp_send_head), as
        // the probe does on its timer.
        if let Some(map) = self.map.as_ref() {
            let now = map.instant(ts_of(&r));
            self.write_app(now);
        }
        let (Some(snd), Some(map)) = (self.sender.as_mut(), self.map.as_mut()) else {
            return;
        };
        let now = map.instant(ts_of(&r));
        match r {
            Record::SynAck(s) => snd.on_ack(now, &map.syn_ack(&s, u64::from(u16::MAX))),
            Record::Ack(a) => snd.on_ack(now, &map.ack(&a)),
            _ => {}
        }
        self.win.summary.inputs += 1;
        self.next_input = Some(r);
    }

    fn write_app(&mut self, now: Instant) {
        if let (Some(snd), Some(map)) = (self.sender.as_mut(), self.map.as_ref()) {
            self.data.write(snd, now, map);
        }
    }

    /// The window of the input fed last is complete (the next input is at `next_ns`):
    /// poll the engine, fire its timers before `next_ns`, label the window's pieces.
    fn close_window(&mut self, next_ns: u64, out: &mut impl FnMut(Row)) {
        let Some(map) = self.map.as_ref() else { return };
        let now = match &self.next_input {
            Some(r) => map.instant(ts_of(r)),
            None => map.instant(self.win.first_ns().unwrap_or(next_ns)),
        };
        let next = map.instant(next_ns);
        let base = map.base;
        self.data.close_until(next_ns);
        self.write_app(now);
        self.drain(now, None, out);
        for _ in 0..MAX_TIMERS_PER_WINDOW {
            let Some(snd) = self.sender.as_mut() else {
                break;
            };
            match snd.poll_timeout() {
                Some(d) if d < next => {
                    let kind = snd.timer_kind();
                    // What the application had written by the deadline is there before
                    // the timer's handler runs: a probe sends new data when it has some
                    // (RFC 8985 §7.3; Linux tcp_send_loss_probe checks tcp_send_head).
                    self.write_app(d);
                    let Some(snd) = self.sender.as_mut() else {
                        break;
                    };
                    snd.on_timeout(d);
                    self.win.summary.inputs += 1;
                    self.drain(d, kind, out);
                }
                _ => break,
            }
        }
        let state = self.sender.as_ref().map(|s| EngineState::of(s, now));
        let cum = self.sender.as_ref().map_or(0, |s| s.snd_una());
        self.win.close(state, cum + base, out);
    }

    /// Polls the engine until it has nothing more to send now, matching each
    /// transmission against the window. `timer` is the timer that just fired.
    fn drain(
        &mut self,
        now: Instant,
        timer: Option<lossrec::timer::TimerKind>,
        out: &mut impl FnMut(Row),
    ) {
        let (Some(snd), Some(map)) = (self.sender.as_mut(), self.map.as_mut()) else {
            return;
        };
        let mss = snd.mss().max(1);
        let mut tsvals = Vec::new();
        for _ in 0..100_000 {
            while let Some(ev) = snd.poll_event() {
                self.win.on_event(&ev.kind);
            }
            let Some(t) = snd.poll_transmit(now) else {
                break;
            };
            if matches!(
                t.why,
                Why::Syn | Why::SynAck | Why::HandshakeAck | Why::WindowProbe
            ) {
                self.win.summary.control += 1;
                continue;
            }
            let state = EngineState::of(snd, now);
            let cause = self.win.cause(t.why, snd.state(), timer);
            let start = map.capture_offset(t.range.start);
            let end = map.capture_offset(t.range.end);
            tsvals.clear();
            let found = self
                .win
                .take(start, end, t.fin, mss, cause, &state, &mut tsvals, out);
            if let Some(ts) = t.ts {
                for &(start, v) in &tsvals {
                    map.match_piece(start, v, ts.val);
                }
            }
            if !found {
                // The captured sender did not send it: take it back, sending stops.
                let _ = snd.transmit_failed(now, &t);
                self.win
                    .engine_only(now.as_nanos() + map.epoch_ns, start, end, cause, state, out);
                break;
            }
        }
        while let Some(ev) = snd.poll_event() {
            self.win.on_event(&ev.kind);
        }
    }
}

/// Moves an ACK (or SYN-ACK) `ns` later.
fn shift(r: &mut Record, ns: u64) {
    match r {
        Record::Ack(a) => a.ts_ns += ns,
        Record::SynAck(s) => s.ts_ns += ns,
        _ => {}
    }
}

fn map_instant(m: Option<&Mapping>, ts_ns: u64) -> Instant {
    m.map_or(Instant::ZERO, |m| m.instant(ts_ns))
}

fn ts_of(r: &Record) -> u64 {
    match r {
        Record::Syn(s) | Record::SynAck(s) => s.ts_ns,
        Record::Data(Transmission { ts_ns, .. }) => *ts_ns,
        Record::Ack(a) => a.ts_ns,
        Record::CaptureDrop { ts_ns, .. } => *ts_ns,
    }
}

//! The application-data model of shadow mode (`--app`): what the captured sender's
//! application had written, and whether it had closed, at each engine input.
//!
//! - [`App::Bulk`]: everything at the start.
//! - [`App::AsSeen`]: at an input, every byte the capture shows sent within `lookahead`
//!   (two handshake round trips) after it — a sender that is cwnd-limited in the capture
//!   has data waiting in the engine too, and one that went idle idles. The close is never
//!   looked ahead: the FIN is taken as written in the window that shows it, as an
//!   application closes after its last write.

use std::collections::VecDeque;

use lossrec::{Instant, Sender};

use super::mapping::Mapping;
use super::App;
use crate::conn::Transmission;

/// Lookahead without a handshake to measure the round trip from.
const DEFAULT_LOOKAHEAD_NS: u64 = 200_000_000;

/// See the module doc.
#[derive(Debug)]
pub(super) struct AppData {
    app: App,
    /// Engine bytes written so far.
    written: u64,
    closed: bool,
    /// Highest data end (capture offset) seen so far, lookahead included.
    seen_end: u64,
    /// Where the data end advanced: (capture time, end), not yet made available.
    ends: VecDeque<(u64, u64)>,
    /// Data end made available so far.
    avail_end: u64,
    /// Capture time of the first FIN.
    fin_ns: Option<u64>,
    /// A FIN captured before this time is closed.
    fin_until_ns: u64,
    /// How far ahead of an input the capture counts as written, ns.
    pub(super) lookahead_ns: u64,
}

impl AppData {
    pub(super) fn new(app: App) -> AppData {
        AppData {
            app,
            written: 0,
            closed: false,
            seen_end: 0,
            ends: VecDeque::new(),
            avail_end: 0,
            fin_ns: None,
            fin_until_ns: 0,
            lookahead_ns: DEFAULT_LOOKAHEAD_NS,
        }
    }

    /// A captured transmission, as soon as it is read (before the lookahead).
    pub(super) fn note(&mut self, t: &Transmission) {
        if t.end > self.seen_end {
            self.seen_end = t.end;
            self.ends.push_back((t.ts_ns, t.end));
        }
        if t.fin {
            self.fin_ns = self.fin_ns.or(Some(t.ts_ns));
        }
    }

    /// A FIN captured before `ns` is written.
    pub(super) fn close_until(&mut self, ns: u64) {
        self.fin_until_ns = self.fin_until_ns.max(ns);
    }

    /// `t` is new data (or the FIN) while the engine has sent all it was given: the
    /// application wrote at `t`'s time.
    pub(super) fn is_new_write(&self, t: &Transmission, snd: &Sender, map: &Mapping) -> bool {
        let idle = snd.snd_nxt() >= self.written;
        let new_data = map.offset(t.end) > self.written;
        let close = t.fin && !self.closed;
        idle && (new_data || close)
    }

    /// Gives the engine what the application had written (and closed) by `now`.
    pub(super) fn write(&mut self, snd: &mut Sender, now: Instant, map: &Mapping) {
        let (want, fin) = match self.app {
            App::Bulk { end, fin } => (end, fin),
            App::AsSeen => {
                let horizon = (map.epoch_ns + now.as_nanos()).saturating_add(self.lookahead_ns);
                while let Some(&(ts, end)) = self.ends.front() {
                    if ts > horizon {
                        break;
                    }
                    self.avail_end = self.avail_end.max(end);
                    self.ends.pop_front();
                }
                let closed = self.fin_ns.is_some_and(|f| f < self.fin_until_ns);
                (map.offset(self.avail_end), closed)
            }
        };
        if want > self.written {
            snd.write(now, want - self.written);
            self.written = want;
        }
        if fin && !self.closed {
            snd.close(now);
            self.closed = true;
        }
    }
}

//! Captured records ↔ the engine's inputs and outputs: the one place where explain maps
//! segments onto the engine (the `tcp` branch's adapter crate will take this over).
//!
//! - **Offsets.** The engine's offset 0 is the capture's offset `base` (0 with the
//!   handshake captured, [`crate::conn::MID_BASE`] mid-connection).
//! - **Time.** The engine's `Instant` is the capture time less `epoch_ns`, the first
//!   packet's time rounded down to a whole second: whole-second offsets keep any
//!   millisecond-granular rule (Linux jiffies) where the captured stack had it.
//! - **Timestamps.** The engine's TSval is its own clock (`now` in µs + 1), not the
//!   captured sender's. An ACK's TSecr echoes a captured TSval; it is given to the engine
//!   as the engine's TSval of the first captured transmission that carried it (RFC 7323
//!   §4.3 uses TSecr only to time that transmission), or dropped when the capture never
//!   showed it. The receiver's TSval passes unchanged. A millisecond tick is shared by
//!   every transmission within it, but the receiver echoes one segment's TSval: TS.Recent
//!   comes from a segment that starts at or below Last.ACK.sent (RFC 7323 §4.3; Linux
//!   `tcp_replace_ts_recent`), i.e. the segment starting at the previous ACK. When that
//!   segment carried the echoed tick, its own engine TSval is the echo (an RTT sample as
//!   exact as the engine's own clock), else the tick's.

use std::collections::{BTreeMap, HashMap, VecDeque};

use lossrec::{Ack, EcnMarks, Instant, IpEcn, Range, SackBlocks, SynOptions, Timestamps};

use crate::conn::{AckRecord, SynInfo, Transmission};

/// How many captured TSvals are remembered for TSecr (several RTTs of transmissions).
const TS_MEMORY: usize = 1 << 16;

/// The mapping state of one connection.
#[derive(Debug)]
pub struct Mapping {
    /// Capture offset of the engine's offset 0.
    pub base: u64,
    /// Capture time (ns since the Unix epoch) of the engine's `Instant::ZERO`.
    pub epoch_ns: u64,
    tsvals: HashMap<u32, u64>,
    order: VecDeque<u32>,
    /// The last TSval noted: a burst shares one, so most packets skip the map.
    last: Option<u32>,
    /// Capture start offset → (captured TSval, engine TSval) of its latest matched
    /// transmission, for the echo of the segment at the previous ACK: only segments at
    /// or above the cumulative ACK (the next lookup's key is never below it), at most
    /// `TS_MEMORY` of them (the lowest go first).
    by_start: BTreeMap<u64, (u32, u64)>,
    /// The previous ACK's cumulative (capture offset): the receiver's Last.ACK.sent.
    last_cum: Option<u64>,
}

impl Mapping {
    /// A mapping whose clock starts at the whole second before `first_ns`.
    pub fn new(base: u64, first_ns: u64) -> Mapping {
        Mapping {
            base,
            epoch_ns: first_ns - first_ns % 1_000_000_000,
            tsvals: HashMap::new(),
            order: VecDeque::new(),
            last: None,
            by_start: BTreeMap::new(),
            last_cum: None,
        }
    }

    /// The engine's time of a capture time.
    pub fn instant(&self, ts_ns: u64) -> Instant {
        Instant::from_nanos(ts_ns.saturating_sub(self.epoch_ns))
    }

    /// The engine offset of a capture offset (saturating at 0 below `base`).
    pub fn offset(&self, capture: u64) -> u64 {
        capture.saturating_sub(self.base)
    }

    /// The capture offset of an engine offset.
    pub fn capture_offset(&self, engine: u64) -> u64 {
        engine + self.base
    }

    /// Records a captured transmission's TSval with the engine's clock at that time.
    pub fn note_tsval(&mut self, tsval: u32, ts_ns: u64) {
        if self.last == Some(tsval) || self.tsvals.contains_key(&tsval) {
            return;
        }
        self.last = Some(tsval);
        if self.order.len() == TS_MEMORY {
            if let Some(old) = self.order.pop_front() {
                self.tsvals.remove(&old);
            }
        }
        // The engine stamps `now.as_micros() + 1` (sender::transmit).
        self.tsvals
            .insert(tsval, self.instant(ts_ns).as_micros() + 1);
        self.order.push_back(tsval);
    }

    /// The engine stamped `engine_val` on the transmission the capture shows with
    /// `tsval`: an exact mapping, replacing the one derived from the capture time.
    pub fn match_tsval(&mut self, tsval: u32, engine_val: u64) {
        if !self.tsvals.contains_key(&tsval) {
            self.note_tsval(tsval, 0);
        }
        self.tsvals.insert(tsval, engine_val);
    }

    /// The captured transmission starting at `start` (capture offset) with `tsval` is
    /// the engine's transmission stamped `engine_val`.
    pub fn match_piece(&mut self, start: u64, tsval: u32, engine_val: u64) {
        self.match_tsval(tsval, engine_val);
        if self.last_cum.is_some_and(|c| start < c) {
            return;
        }
        self.by_start.insert(start, (tsval, engine_val));
        if self.by_start.len() > TS_MEMORY {
            self.by_start.pop_first();
        }
    }

    /// The engine's TSecr for a captured echo `ecr` on an ACK (see the module doc).
    fn echo(&self, ecr: u32) -> Option<u64> {
        let at_last_ack = self
            .last_cum
            .and_then(|c| self.by_start.get(&c))
            .filter(|&&(tick, _)| tick == ecr);
        match at_last_ack {
            Some(&(_, val)) => Some(val),
            None => self.tsvals.get(&ecr).copied(),
        }
    }

    /// The engine's SYN options of a captured SYN or SYN-ACK.
    pub fn syn_options(s: &SynInfo) -> SynOptions {
        SynOptions {
            mss: s.mss.unwrap_or(536),
            sack_permitted: s.sack_permitted,
            timestamps: s.tsval.is_some(),
            window_scale: s.wscale,
            ecn: s.ece,
        }
    }

    /// The engine's ACK for a captured SYN-ACK (an active open's peer answer).
    pub fn syn_ack(&self, s: &SynInfo, window: u64) -> Ack {
        Ack {
            cumulative: 0,
            window,
            syn: Some(Self::syn_options(s)),
            ts: s.tsval.map(|v| Timestamps {
                val: u64::from(v),
                ecr: 0,
            }),
            ecn: EcnMarks {
                ip: IpEcn::NotEct,
                ece: s.ece,
                cwr: s.cwr,
            },
            ..Ack::default()
        }
    }

    /// The engine's ACK for a captured one (in capture order: it becomes the receiver's
    /// Last.ACK.sent for the next one).
    pub fn ack(&mut self, a: &AckRecord) -> Ack {
        let mut sack = SackBlocks::new();
        for &(s, e) in a.sack_blocks() {
            sack.push(Range::new(self.offset(s), self.offset(e)));
        }
        let ts = a.ts.and_then(|(val, ecr)| {
            let ecr = self.echo(ecr)?;
            Some(Timestamps {
                val: u64::from(val),
                ecr,
            })
        });
        let cum = self.last_cum.map_or(a.cumulative, |c| c.max(a.cumulative));
        // Segments below the cumulative ACK are never looked up again: drop them from the
        // low end (no new tree per ACK, as `split_off` would build).
        while self
            .by_start
            .first_key_value()
            .is_some_and(|(&s, _)| s < cum)
        {
            self.by_start.pop_first();
        }
        self.last_cum = Some(cum);
        Ack {
            cumulative: self.offset(a.cumulative),
            sack,
            ts,
            window: a.window.min(u64::from(u32::MAX) << 14),
            syn: None,
            ecn: EcnMarks {
                ip: IpEcn::NotEct,
                ece: a.ece,
                cwr: false,
            },
        }
    }

    /// The engine range of a captured transmission.
    pub fn range(&self, t: &Transmission) -> Range {
        Range::new(self.offset(t.start), self.offset(t.end))
    }
}

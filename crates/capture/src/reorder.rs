//! Reordering the capture proves, and packets the evidence reads two ways (issue 24
//! item 2). Shadow mode labels each transmission with the preset's decision; this module
//! states what the ACK stream itself proves about the path, whatever the preset.
//!
//! - **Reordering from SACK** (Linux `tcp_sacktag_one`: "new sack for not retransmitted
//!   frame, which was in hole. It is reordering"; `tcp_check_sack_reordering`): a
//!   segment sent once, SACKed or cumulatively ACKed (`tcp_clean_rtx_queue`) while data
//!   above it was already SACKed, arrived after that data. The displacement is
//!   `FACK − start` (FACK: the highest SACKed byte before the ACK), and the degree in
//!   segments is `⌈displacement / MSS⌉`, as Linux sets `tp->reordering` from it. The
//!   largest degree seen is what the capture proves.
//! - **Two readings of a DSACK** (RFC 2883 §4; RFC 3708): a DSACK of a retransmitted
//!   range says the receiver got it twice. Either the original was reordered or delayed
//!   and the retransmission was spurious (Linux undoes on it), or the original's ACK was
//!   lost, or the path duplicated the packet; the capture cannot tell which, so both
//!   readings are listed with the retransmission's packet ([`Ambiguous`]).
//!
//! A capture that misses packets (capture drops, a mid-path tap) can hide a
//! retransmission: a "never retransmitted" segment is one the capture shows sent once.
//! Memory: one entry per segment in flight, plus a bounded memory of acknowledged
//! retransmissions for late DSACKs.

use std::collections::{BTreeMap, VecDeque};

use crate::conn::{AckRecord, Transmission};

/// How many acknowledged retransmissions are remembered for a DSACK that comes later.
const RETX_MEMORY: usize = 4096;
/// How many ambiguous packets are listed (the rest are counted).
const AMBIGUOUS_LISTED: usize = 256;

/// A packet the evidence reads two ways.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ambiguous {
    /// Capture time of the evidence (the ACK), ns.
    pub ts_ns: u64,
    /// The packet concerned (the retransmission).
    pub packet: u64,
    /// Its range, capture offsets.
    pub start: u64,
    /// End (exclusive).
    pub end: u64,
    /// The evidence: `dsack`.
    pub what: &'static str,
    /// The readings it allows, the one Linux acts on first.
    pub readings: Vec<&'static str>,
}

/// What the capture proves about reordering (see the module doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Evidence {
    /// The largest reordering degree proven, segments (0: none proven).
    pub degree: u64,
    /// ACKs that proved reordering.
    pub events: u64,
    /// DSACKs received.
    pub dsacks: u64,
    /// Packets with two readings (the first [`AMBIGUOUS_LISTED`]).
    pub ambiguous: Vec<Ambiguous>,
    /// All packets with two readings, listed or not.
    pub ambiguous_total: u64,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    end: u64,
    retransmitted: bool,
    sacked: bool,
    /// The latest captured transmission of it.
    packet: u64,
}

/// The reordering inference of one connection, fed its records in capture order.
#[derive(Debug)]
pub struct Reorder {
    mss: u64,
    /// Segments not cumulatively acknowledged, by start.
    segs: BTreeMap<u64, Seg>,
    /// Acknowledged retransmissions: (start, end, packet), oldest first.
    retx_done: VecDeque<(u64, u64, u64)>,
    cum: u64,
    fack: u64,
    evidence: Evidence,
}

impl Reorder {
    /// A connection whose segments are `mss` bytes.
    pub fn new(mss: u64) -> Reorder {
        Reorder {
            mss: mss.max(1),
            segs: BTreeMap::new(),
            retx_done: VecDeque::new(),
            cum: 0,
            fack: 0,
            evidence: Evidence::default(),
        }
    }

    /// What the records so far prove.
    pub fn evidence(&self) -> &Evidence {
        &self.evidence
    }

    /// A captured data piece.
    pub fn on_data(&mut self, t: &Transmission) {
        if t.end <= t.start {
            return;
        }
        if t.end <= self.cum {
            // Already acknowledged: a retransmission a DSACK may name later.
            self.remember_retx(t.start, t.end, t.packet);
            return;
        }
        let first = self
            .segs
            .range(..=t.start)
            .next_back()
            .filter(|(_, s)| s.end > t.start)
            .map_or(t.start, |(&k, _)| k);
        let mut seen = false;
        for (_, s) in self.segs.range_mut(first..t.end) {
            s.retransmitted = true;
            s.packet = t.packet;
            seen = true;
        }
        if !seen {
            let s = Seg {
                end: t.end,
                retransmitted: false,
                sacked: false,
                packet: t.packet,
            };
            self.segs.insert(t.start, s);
        }
    }

    /// An ACK the data sender received.
    pub fn on_ack(&mut self, a: &AckRecord) {
        let blocks = a.sack_blocks();
        let dsack = blocks.first().copied().filter(|&(s, e)| {
            e <= a.cumulative || blocks.get(1).is_some_and(|&(s2, e2)| s >= s2 && e <= e2)
        });
        if let Some((s, e)) = dsack {
            self.on_dsack(a, s, e);
        }
        let prior_fack = self.fack;
        let mut low = u64::MAX;
        for &(s, e) in &blocks[usize::from(dsack.is_some())..] {
            for (&k, seg) in self.segs.range_mut(s..e) {
                if seg.end <= e && !seg.sacked {
                    seg.sacked = true;
                    if !seg.retransmitted && k < prior_fack {
                        low = low.min(k);
                    }
                }
            }
            self.fack = self.fack.max(e);
        }
        while let Some((&k, &seg)) = self.segs.first_key_value() {
            if seg.end > a.cumulative {
                break;
            }
            self.segs.remove(&k);
            if seg.retransmitted {
                self.remember_retx(k, seg.end, seg.packet);
            } else if !seg.sacked && k < prior_fack {
                low = low.min(k);
            }
        }
        self.cum = self.cum.max(a.cumulative);
        self.fack = self.fack.max(self.cum);
        if low != u64::MAX {
            // tcp_check_sack_reordering: reordering = ⌈(fack − low_seq) / mss⌉.
            let degree = (prior_fack - low).div_ceil(self.mss);
            self.evidence.degree = self.evidence.degree.max(degree);
            self.evidence.events += 1;
        }
    }

    fn on_dsack(&mut self, a: &AckRecord, s: u64, e: u64) {
        self.evidence.dsacks += 1;
        let in_flight = self
            .segs
            .range(..e)
            .rev()
            .take_while(|(_, g)| g.end > s)
            .find(|(_, g)| g.retransmitted)
            .map(|(&k, g)| (k, g.end, g.packet));
        let done = || {
            self.retx_done
                .iter()
                .rev()
                .find(|&&(k, end, _)| k < e && end > s)
                .copied()
        };
        let Some((start, end, packet)) = in_flight.or_else(done) else {
            return;
        };
        self.evidence.ambiguous_total += 1;
        if self.evidence.ambiguous.len() < AMBIGUOUS_LISTED {
            self.evidence.ambiguous.push(Ambiguous {
                ts_ns: a.ts_ns,
                packet,
                start,
                end,
                what: "dsack",
                readings: vec![
                    "spurious retransmission: the original was reordered or delayed",
                    "needed by the sender's view: the original's ACK was lost, or the path \
                     duplicated a copy",
                ],
            });
        }
    }

    fn remember_retx(&mut self, start: u64, end: u64, packet: u64) {
        if self.retx_done.len() == RETX_MEMORY {
            self.retx_done.pop_front();
        }
        self.retx_done.push_back((start, end, packet));
    }
}

//! The SACK part of the scoreboard (RFC 2018, RFC 6675 §5 "Update()"): marking blocks
//! SACKed — skipping what the previous ACK already reported, as Linux's SACK cache does —
//! splitting a segment when a block edge falls inside it, and finding a block's first
//! segment from a hint rather than a binary search over the window.

use super::{Scoreboard, CACHE, NIL};
use crate::packet::Range;

impl Scoreboard {
    /// Marks `block` SACKed; returns the newly SACKed byte count. Parts outside
    /// [SND.UNA, SND.NXT) are ignored; `None` when nothing of the block is valid.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn sack(&mut self, block: Range) -> Option<u64> {
        let tagged = self.tag_block(block)?;
        Some(self.sack_tagged(tagged))
    }

    /// What of `block` may be tagged SACKed (see [`Scoreboard::tag_range`]): `None` when
    /// nothing of it is inside [SND.UNA, SND.NXT), `Some(None)` when it covers no whole
    /// segment that must be tagged whole.
    pub(super) fn tag_block(&self, block: Range) -> Option<Option<Range>> {
        let b = block.intersect(&Range::new(self.snd_una, self.snd_nxt))?;
        Some(self.tag_range(b))
    }

    /// Marks an already tagged range, skipping what the previous ACK reported (Linux's
    /// SACK cache): a growing first block is processed only at its new edge, repeated
    /// blocks not at all.
    pub(super) fn sack_tagged(&mut self, b: Option<Range>) -> u64 {
        let Some(b) = b else { return 0 };
        if self.sack_memo.sack_cache.iter().any(|c| c.covers(&b)) {
            return 0;
        }
        let mut pieces = [Range::default(); CACHE + 1];
        let n = uncached(b, &self.sack_memo.sack_cache, &mut pieces);
        let mut newly = 0;
        for p in &pieces[..n] {
            newly += self.mark_sacked(*p);
        }
        newly
    }

    /// Remembers the blocks of the ACK just processed (see [`Scoreboard::sack`]): as the
    /// peer sent them and as they were tagged.
    pub(super) fn store_sack_cache(&mut self, blocks: &[Range], tagged: &[Option<Range>]) {
        self.sack_memo.sack_cache = [Range::default(); CACHE];
        self.sack_memo.sack_cache_raw = [Range::default(); CACHE];
        for (c, (b, t)) in blocks.iter().zip(tagged).take(CACHE).enumerate() {
            self.sack_memo.sack_cache[c] = t.unwrap_or_default();
            self.sack_memo.sack_cache_raw[c] = *b;
        }
    }

    /// The part of `b` that may be tagged SACKed. With whole-segment tagging (Linux
    /// `tcp_match_skb_to_sack`: a segment of one MSS is SACKed only when a block covers
    /// all of it) `b` shrinks to the segments it covers entirely; `None` if none. RFC 6675
    /// counts octets, so otherwise every octet of `b` is tagged (edges split segments).
    /// A block that grew from one the previous ACK carried keeps that one's tagged start,
    /// and its end is found from the SACK hint, so the common ACK costs no binary search.
    fn tag_range(&self, b: Range) -> Option<Range> {
        if !self.whole_segments {
            return Some(b);
        }
        // A block the previous ACK carried unchanged (most of them): its tagging stands.
        if let Some(k) = (0..CACHE).find(|&k| self.sack_memo.sack_cache_raw[k] == b) {
            let t = self.sack_memo.sack_cache[k];
            return (!t.is_empty()).then_some(t);
        }
        let cached = (0..CACHE).find(|&k| {
            self.sack_memo.sack_cache_raw[k].start == b.start
                && !self.sack_memo.sack_cache[k].is_empty()
        });
        let start = match cached {
            Some(k) => self.sack_memo.sack_cache[k].start,
            None => {
                let i = self.index_after(b.start, self.sack_memo.sack_hint);
                match self.segs.get(i) {
                    Some(s) if s.start < b.start => s.end,
                    Some(s) => s.start,
                    None => return None,
                }
            }
        };
        let j = self.index_after(b.end, self.sack_memo.sack_hint);
        let end = match self.segs.get(j) {
            Some(s) if s.start < b.end && s.end > b.end => s.start,
            _ => b.end,
        };
        (start < end).then(|| Range::new(start, end))
    }

    fn mark_sacked(&mut self, p: Range) -> u64 {
        let mut i = self.index_after(p.start, self.sack_memo.sack_hint);
        if i >= self.segs.len() {
            return 0;
        }
        if self.segs[i].start < p.start {
            self.split(i, p.start);
            i += 1;
        }
        let mut newly = 0;
        while i < self.segs.len() && self.segs[i].start < p.end {
            if self.segs[i].end > p.end {
                self.split(i, p.end);
            }
            let s = self.segs[i];
            if !s.sacked {
                let len = s.len();
                newly += len;
                self.count.sacked_bytes += len;
                self.count.sacked_segs += 1;
                if s.lost {
                    self.count.lost_bytes -= len;
                    if !s.retrans {
                        self.count.lost_pending_bytes -= len;
                    }
                }
                if s.retrans {
                    self.count.retrans_bytes -= len;
                }
                if s.end <= self.bound.lost_upto {
                    self.bound.sacked_below_bytes += len;
                    self.bound.sacked_below_segs += 1;
                }
                self.unlink(i);
                let proven = self.rack_filter.proves_original(&s, true);
                let m = &mut self.segs[i];
                m.orig_proven = proven;
                m.sacked = true;
                m.lost = false;
                m.retrans = false;
                self.high_sacked = self.high_sacked.max(s.end);
                self.note_delivered(&s, true, true);
            }
            i += 1;
        }
        self.sack_memo.sack_hint = self.popped + i as u64;
        newly
    }

    /// Splits segment `i` at `at` (strictly inside it); both halves keep its marks.
    fn split(&mut self, i: usize, at: u64) {
        let s = self.segs[i];
        debug_assert!(s.start < at && at < s.end);
        let mut right = s;
        right.start = at;
        self.segs[i].end = at;
        self.segs[i].fin = false;
        self.segs[i].psh = false;
        self.segs[i].packet_end = false;
        self.segs.insert(i + 1, right);
        if s.ts_node != NIL {
            self.tsorted.add_ref(s.ts_node);
        }
        self.splits += 1;
        if s.sacked {
            self.count.sacked_segs += 1;
            if s.end <= self.bound.lost_upto {
                self.bound.sacked_below_segs += 1;
            }
        }
    }

    /// The first segment ending after `seq` (`partition_point(|s| s.end <= seq)`), tried
    /// at the hint `hint` (see `sack_hint`) and the next one before a binary search.
    pub(super) fn index_after(&self, seq: u64, hint: u64) -> usize {
        let len = self.segs.len();
        let is_it = |i: usize| {
            i <= len
                && (i == 0 || self.segs[i - 1].end <= seq)
                && (i == len || self.segs[i].end > seq)
        };
        if let Some(i) = hint.checked_sub(self.popped) {
            let i = i as usize;
            if is_it(i) {
                return i;
            }
            if is_it(i + 1) {
                return i + 1;
            }
        }
        self.segs.partition_point(|s| s.end <= seq)
    }
}

/// The parts of `b` outside every cached block, into `out`; returns how many. A cached
/// block strictly inside a piece splits it in two; `out` has room for every split
/// (each of the `CACHE` blocks adds at most one piece).
fn uncached(b: Range, cache: &[Range; CACHE], out: &mut [Range; CACHE + 1]) -> usize {
    out[0] = b;
    let mut n = 1;
    for c in cache {
        if c.is_empty() {
            continue;
        }
        let mut i = 0;
        while i < n {
            let p = out[i];
            if !p.overlaps(c) {
                i += 1;
                continue;
            }
            let left = p.start < c.start;
            let right = c.end < p.end;
            match (left, right) {
                (false, false) => {
                    // Covered: drop it (the last piece takes its place).
                    n -= 1;
                    out[i] = out[n];
                }
                (true, false) => {
                    out[i].end = c.start;
                    i += 1;
                }
                (false, true) => {
                    out[i].start = c.end;
                    i += 1;
                }
                (true, true) => {
                    out[i].end = c.start;
                    out[n] = Range::new(c.end, p.end);
                    n += 1;
                    i += 1;
                }
            }
        }
    }
    n
}

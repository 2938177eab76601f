//! Remembered places in the scoreboard: where NextSeg rule 1 (RFC 6675 §4) and rule 3
//! last stopped, where the IsLost walk stopped, and (in each time-order node) where a
//! transmission's first segment was. At 100,000 segments in flight a binary search over
//! the window costs more than the rest of an ACK's bookkeeping on the segment it finds
//! (`lossrec bench --only per_ack`), so a lookup tries the remembered index first.
//!
//! A hint is `popped + index` modulo 2³² (so it fits in padding and survives segments
//! leaving the front); `index_after` checks it, and its neighbour — a SACK edge that split
//! a segment below moves it by one — before falling back to the binary search. A stale
//! hint costs only the search it was meant to save; the answer never depends on it.

use super::Scoreboard;

impl Scoreboard {
    /// Segment `i`, starting at `start`, awaits retransmission again: NextSeg rule 1 must
    /// look there (RACK marks in time order, not sequence order).
    pub(super) fn rule1_back_to(&mut self, i: usize, start: u64) {
        if start < self.cursor.rule1_from {
            self.cursor.rule1_from = start;
            self.cursor.rule1_hint = self.hint_for(i);
        }
    }

    /// `rule1_hint` as `popped + index` (see `index_after`): a stale one (the segment
    /// was acknowledged, or a split moved it) only costs the binary search it saves.
    pub(super) fn rule1_index_hint(&self) -> u64 {
        if self.cursor.rule1_from <= self.snd_una {
            return self.popped; // the head (a new episode, or a cumulative ACK passed it)
        }
        self.unhint(self.cursor.rule1_hint)
    }

    /// Segment `i` as a 32-bit hint (`popped + i`, mod 2³²).
    pub(super) fn hint_for(&self, i: usize) -> u32 {
        (self.popped + i as u64) as u32
    }

    /// A 32-bit hint as `popped + index` again (one from before the last 2³² segments
    /// were acknowledged names no segment; `index_after` checks it either way).
    pub(super) fn unhint(&self, hint: u32) -> u64 {
        self.popped + u64::from(hint.wrapping_sub(self.popped as u32))
    }

    /// The first segment starting at or above `lost_upto` (`partition_point(|s| s.start <
    /// lost_upto)`), from where the last walk stopped: IsLost runs on every ACK, and a
    /// binary search over 100,000 segments was its main cost.
    pub(super) fn lost_upto_index(&self) -> usize {
        let hint = if self.bound.lost_upto <= self.snd_una {
            self.popped
        } else {
            self.unhint(self.bound.lost_hint)
        };
        let i = self.index_after(self.bound.lost_upto, hint);
        // The first segment ending above the boundary, unless it straddles it.
        i + usize::from(
            self.segs
                .get(i)
                .is_some_and(|s| s.start < self.bound.lost_upto),
        )
    }

    /// The segment starting at `start`. Tried first where NextSeg's rules 1 and 3 last
    /// stopped: a retransmission is of the segment they just chose.
    pub(super) fn index_of(&self, start: u64) -> Option<usize> {
        let at = |hint: u64| {
            let i = usize::try_from(hint.checked_sub(self.popped)?).ok()?;
            self.segs
                .get(i)
                .is_some_and(|s| s.start == start)
                .then_some(i)
        };
        let i = at(self.rule1_index_hint())
            .or_else(|| at(self.unhint(self.cursor.rule3_hint)))
            .unwrap_or_else(|| self.segs.partition_point(|s| s.end <= start));
        (i < self.segs.len() && self.segs[i].start == start).then_some(i)
    }
}

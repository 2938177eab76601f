//! Receive-side reassembly: RCV.NXT, the out-of-order blocks above it, and the order in
//! which those blocks were last reported, which RFC 2018 §4 uses to order SACK blocks.
//!
//! Blocks are byte-exact half-open ranges kept in a `BTreeMap` keyed by start; they are
//! disjoint, never adjacent and all start above `rcv_nxt`. Every block carries a recency
//! stamp; a second map from stamp to start gives "most recently reported first" in
//! O(log n) without scanning.

use std::collections::BTreeMap;

use crate::packet::{Range, SackBlocks};

#[derive(Copy, Clone, Debug)]
struct Block {
    end: u64,
    stamp: u64,
}

/// What one arriving range did to the receive state.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Arrival {
    /// Bytes not held before.
    pub new_bytes: u64,
    /// Bytes held before (below RCV.NXT or inside an out-of-order block).
    pub dup_bytes: u64,
    /// The lowest contiguous duplicate sub-range: what RFC 2883 §4 reports as a D-SACK.
    pub first_dup: Option<Range>,
    /// The out-of-order block that now holds the range, if any of it lies above RCV.NXT.
    pub block: Option<Range>,
}

/// The range would open a new out-of-order block beyond the block limit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct TooManyBlocks;

#[derive(Clone, Debug)]
pub(crate) struct Reassembly {
    /// RCV.NXT as a stream offset.
    rcv_nxt: u64,
    /// start → block, all above `rcv_nxt`.
    blocks: BTreeMap<u64, Block>,
    /// stamp → block start; the largest stamp is the most recently received block.
    recency: BTreeMap<u64, u64>,
    next_stamp: u64,
    /// Bytes held in `blocks` (their lengths summed), kept as blocks come and go: the Linux
    /// window model reads it on every ACK (`tcp_space` counts the out-of-order queue), and
    /// a sum over the blocks would cost the number of holes per ACK.
    ooo_bytes: u64,
    /// Bound on out-of-order blocks, so hostile 1-byte-with-gaps input cannot grow memory
    /// beyond it (the window already bounds the bytes).
    max_blocks: usize,
}

impl Reassembly {
    pub fn new(max_blocks: usize) -> Self {
        Reassembly {
            rcv_nxt: 0,
            blocks: BTreeMap::new(),
            recency: BTreeMap::new(),
            next_stamp: 0,
            ooo_bytes: 0,
            max_blocks: max_blocks.max(1),
        }
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }

    /// One past the highest byte held (RCV.NXT, or the top out-of-order block's end).
    pub fn highest(&self) -> u64 {
        self.blocks
            .last_key_value()
            .map_or(self.rcv_nxt, |(_, b)| b.end.max(self.rcv_nxt))
    }

    /// True while some data above RCV.NXT is held (there is a hole).
    pub fn has_out_of_order(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// Bytes held above RCV.NXT: the sum of the out-of-order blocks' lengths, in O(1).
    pub fn ooo_bytes(&self) -> u64 {
        self.ooo_bytes
    }

    /// Out-of-order blocks in sequence order.
    pub fn blocks(&self) -> impl Iterator<Item = Range> + '_ {
        self.blocks.iter().map(|(&s, b)| Range::new(s, b.end))
    }

    /// Takes in the bytes of `r` (non-empty; the caller has already applied the window).
    pub fn insert(&mut self, r: Range) -> Result<Arrival, TooManyBlocks> {
        let mut out = Arrival::default();
        if r.is_empty() {
            return Ok(out);
        }
        // Part below RCV.NXT: a duplicate, and the lowest one there can be.
        if r.start < self.rcv_nxt {
            let below = Range::new(r.start, r.end.min(self.rcv_nxt));
            out.dup_bytes = below.len();
            out.first_dup = Some(below);
        }
        let a = r.start.max(self.rcv_nxt);
        let b = r.end;
        if a >= b {
            return Ok(out);
        }
        // Is some block overlapping or adjacent to [a, b)? If not, this opens a new block.
        let touches = self
            .blocks
            .range(..=b)
            .next_back()
            .is_some_and(|(_, blk)| blk.end >= a);
        if !touches && a > self.rcv_nxt && self.blocks.len() >= self.max_blocks {
            return Err(TooManyBlocks);
        }
        // Absorb every block overlapping or adjacent to [a, b), highest first.
        let (mut lo, mut hi) = (a, b);
        let mut dup_above = 0u64;
        let mut lowest_overlap: Option<Range> = None;
        while let Some((&s, &blk)) = self.blocks.range(..=b).next_back() {
            if blk.end < a {
                break;
            }
            self.blocks.remove(&s);
            self.recency.remove(&blk.stamp);
            self.ooo_bytes -= blk.end - s;
            if let Some(ov) = Range::new(s, blk.end).intersect(&Range::new(a, b)) {
                dup_above += ov.len();
                lowest_overlap = Some(ov); // visited in descending order: the last is lowest
            }
            lo = lo.min(s);
            hi = hi.max(blk.end);
        }
        out.dup_bytes += dup_above;
        out.new_bytes = (b - a) - dup_above;
        if out.first_dup.is_none() {
            out.first_dup = lowest_overlap;
        }
        if lo <= self.rcv_nxt {
            // In order: RCV.NXT moves over it. Blocks are never adjacent to [a, b) after the
            // absorb above, so nothing further becomes contiguous.
            self.rcv_nxt = hi;
        } else {
            let stamp = self.next_stamp;
            self.next_stamp += 1;
            self.blocks.insert(lo, Block { end: hi, stamp });
            self.recency.insert(stamp, lo);
            self.ooo_bytes += hi - lo;
            out.block = Some(Range::new(lo, hi));
        }
        Ok(out)
    }

    /// The out-of-order block that covers `r`, if any.
    pub fn containing(&self, r: Range) -> Option<Range> {
        let (&s, blk) = self.blocks.range(..=r.start).next_back()?;
        let b = Range::new(s, blk.end);
        b.covers(&r).then_some(b)
    }

    /// Appends blocks most recently received first (RFC 2018 §4), skipping any already in
    /// `out`, until `out` holds `max` blocks.
    pub fn fill_sack(&self, out: &mut SackBlocks, max: usize) {
        for &start in self.recency.values().rev() {
            if out.len() >= max {
                break;
            }
            let Some(blk) = self.blocks.get(&start) else {
                continue;
            };
            let b = Range::new(start, blk.end);
            if !out.iter().any(|x| *x == b) {
                out.push(b);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn r(a: u64, b: u64) -> Range {
        Range::new(a, b)
    }
    fn sack(q: &Reassembly) -> Vec<Range> {
        let mut s = SackBlocks::new();
        q.fill_sack(&mut s, 4);
        s.as_slice().to_vec()
    }

    #[test]
    fn in_order_advances() {
        let mut q = Reassembly::new(16);
        let a = q.insert(r(0, 100)).unwrap();
        assert_eq!(
            (a.new_bytes, a.dup_bytes, a.first_dup, a.block),
            (100, 0, None, None)
        );
        assert_eq!(q.rcv_nxt(), 100);
    }

    #[test]
    fn hole_fill_merges_and_advances() {
        let mut q = Reassembly::new(16);
        q.insert(r(0, 10)).unwrap();
        assert_eq!(q.insert(r(20, 30)).unwrap().block, Some(r(20, 30)));
        assert_eq!(q.insert(r(40, 50)).unwrap().block, Some(r(40, 50)));
        assert_eq!(sack(&q), vec![r(40, 50), r(20, 30)]);
        // Fills [30, 40): joins both blocks into one, newest first.
        let a = q.insert(r(30, 40)).unwrap();
        assert_eq!(a.block, Some(r(20, 50)));
        assert_eq!(sack(&q), vec![r(20, 50)]);
        let a = q.insert(r(5, 25)).unwrap();
        assert_eq!(
            (a.new_bytes, a.dup_bytes, a.first_dup),
            (10, 10, Some(r(5, 10)))
        );
        assert_eq!(q.rcv_nxt(), 50);
        assert!(!q.has_out_of_order());
    }

    #[test]
    fn partial_overlaps_are_byte_exact() {
        let mut q = Reassembly::new(16);
        q.insert(r(100, 200)).unwrap();
        q.insert(r(300, 400)).unwrap();
        let a = q.insert(r(150, 350)).unwrap();
        assert_eq!((a.new_bytes, a.dup_bytes), (100, 100));
        assert_eq!(a.first_dup, Some(r(150, 200)));
        assert_eq!(a.block, Some(r(100, 400)));
        assert_eq!(q.blocks().collect::<Vec<_>>(), vec![r(100, 400)]);
    }

    proptest::proptest! {
        /// Whatever arrives in whatever order, the kept count of out-of-order bytes is
        /// what summing the blocks gives (what the Linux window model summed per ACK).
        #[test]
        fn ooo_bytes_is_the_sum_of_the_blocks(
            ranges in proptest::collection::vec((0u64..400, 1u64..40), 1..60)
        ) {
            let mut q = Reassembly::new(8);
            for (start, len) in ranges {
                let _ = q.insert(r(start, start + len));
                let sum: u64 = q.blocks().map(|b| b.len()).sum();
                proptest::prop_assert_eq!(q.ooo_bytes(), sum);
            }
        }
    }

    #[test]
    fn block_limit_refuses_new_blocks_only() {
        let mut q = Reassembly::new(2);
        q.insert(r(10, 20)).unwrap();
        q.insert(r(30, 40)).unwrap();
        assert_eq!(q.insert(r(50, 60)), Err(TooManyBlocks));
        assert!(q.insert(r(40, 45)).is_ok()); // extends a block
        assert!(q.insert(r(0, 10)).is_ok()); // in order
        assert_eq!(q.rcv_nxt(), 20);
    }
}

//! The transmit-time order RACK walks (RFC 8985 §6.2 step 5; Linux's `tsorted_sent_queue`):
//! an intrusive doubly linked list of (re)transmissions, oldest first, kept in a slab so that
//! removing one anywhere is O(1) and steady state allocates nothing.
//!
//! A node stands for one transmission of a sequence range. It lives as long as some part of
//! that range is still outstanding *with that transmission* — not SACKed, not acknowledged,
//! not already marked lost while awaiting a retransmission (RACK skips those: their
//! `xmit_ts` is "infinite"), and not retransmitted since (which links a new node at the
//! tail). A SACK edge that splits a segment leaves both halves on the same node, so a node
//! counts the segments that reference it (`live`) and is unlinked when that reaches 0.
//! Transmissions are appended in time order, so the list stays sorted by `xmit_ts` and an
//! ACK's loss detection stops at the first node not sent before RACK.segment: its cost is
//! the number of nodes it marks lost, never the window: the nodes it leaves waiting are
//! not walked one by one (their deadlines are sorted too, so the last of them gives the
//! longest wait), but found by a cursor that stays on the last node sent before
//! RACK.segment from one ACK to the next (`TimeOrder::last_before`).

use crate::time::Instant;

/// "No node" in a link.
pub(crate) const NIL: u32 = u32::MAX;

/// One transmission in the time order.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TsNode {
    /// When it left (RACK `Segment.xmit_ts`).
    pub xmit_ts: Instant,
    /// Its place among all transmissions (`SentSeg::xmit_order`).
    pub order: u64,
    /// The range it carried (RACK `Segment.end_seq` is `end`).
    pub start: u64,
    /// End stream offset of the segment.
    pub end: u64,
    /// Scoreboard segments still outstanding with this transmission.
    pub(crate) live: u32,
    prev: u32,
    next: u32,
    /// Where the scoreboard had its first segment when it was linked (`popped + index`,
    /// mod 2³²; in the struct's padding): marking it lost needs no binary search.
    pub(crate) seg_hint: u32,
}

/// The list. Node ids are slab indices, stable while the node is linked.
#[derive(Clone, Debug)]
pub struct TimeOrder {
    nodes: Vec<TsNode>,
    /// Free slab slots, reused most recently freed first.
    free: Vec<u32>,
    head: u32,
    tail: u32,
    len: usize,
    /// Every linked node was sent after the one before it by (`xmit_ts`, `order`), so a
    /// test "sent before X" holds on a prefix of the list. False once a node is linked
    /// out of that order (`Scoreboard::set_time_order` links by sequence); true again
    /// when the list empties.
    sorted: bool,
    /// [`TimeOrder::last_before`]'s answer last time, kept linked: unlinking it moves it
    /// to the node before (NIL: none).
    cursor: u32,
}

impl Default for TimeOrder {
    fn default() -> Self {
        TimeOrder::new()
    }
}

impl TimeOrder {
    /// An empty order.
    pub fn new() -> Self {
        TimeOrder {
            nodes: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            len: 0,
            sorted: true,
            cursor: NIL,
        }
    }

    /// Linked transmissions.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn len(&self) -> usize {
        self.len
    }
    /// No segment in it.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends a transmission with one live segment; returns its id.
    #[cfg(test)]
    fn push_back(&mut self, xmit_ts: Instant, order: u64, start: u64, end: u64) -> u32 {
        self.push_back_hinted(xmit_ts, order, (start, end), NIL)
    }

    /// Appends a transmission of `start..end` with one live segment, which the scoreboard
    /// keeps at `seg_hint`; returns its id.
    pub(crate) fn push_back_hinted(
        &mut self,
        xmit_ts: Instant,
        order: u64,
        (start, end): (u64, u64),
        seg_hint: u32,
    ) -> u32 {
        // Keep the order sorted even if a caller's clock stepped back.
        let xmit_ts = match self.tail {
            NIL => xmit_ts,
            t => {
                let last = &self.nodes[t as usize];
                let ts = xmit_ts.max(last.xmit_ts);
                self.sorted &= ts > last.xmit_ts || order > last.order;
                ts
            }
        };
        let node = TsNode {
            xmit_ts,
            order,
            start,
            end,
            live: 1,
            prev: self.tail,
            next: NIL,
            seg_hint,
        };
        let id = match self.free.pop() {
            Some(id) => {
                self.nodes[id as usize] = node;
                id
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        if self.tail == NIL {
            self.head = id;
        } else {
            self.nodes[self.tail as usize].next = id;
        }
        self.tail = id;
        self.len += 1;
        id
    }

    /// One more segment references node `id` (a split).
    pub(crate) fn add_ref(&mut self, id: u32) {
        self.nodes[id as usize].live += 1;
    }

    /// One segment stops referencing node `id`; the node is unlinked when none does.
    pub(crate) fn release(&mut self, id: u32) {
        let n = &mut self.nodes[id as usize];
        debug_assert!(n.live > 0, "release of a dead time-order node");
        n.live -= 1;
        if n.live == 0 {
            self.unlink(id);
        }
    }

    fn unlink(&mut self, id: u32) {
        let TsNode { prev, next, .. } = self.nodes[id as usize];
        if prev == NIL {
            self.head = next;
        } else {
            self.nodes[prev as usize].next = next;
        }
        if next == NIL {
            self.tail = prev;
        } else {
            self.nodes[next as usize].prev = prev;
        }
        if self.cursor == id {
            self.cursor = prev;
        }
        self.free.push(id);
        self.len -= 1;
        if self.len == 0 {
            self.sorted = true;
        }
    }

    /// The last node of the run that starts at `from` (linked) and on which `before`
    /// holds, when the list is sorted (by `xmit_ts`, then `order`) and `before` is a test "sent
    /// before X" (true on a prefix of the list) holding at `from`; `None` otherwise, and
    /// the caller walks. Amortised O(1) while X only moves later (RACK.segment does,
    /// RFC 8985 §6.2 step 2): the walk resumes from last time's answer.
    pub(crate) fn last_before(
        &mut self,
        from: u32,
        before: impl Fn(&TsNode) -> bool,
    ) -> Option<(u32, TsNode)> {
        if !self.sorted {
            return None;
        }
        debug_assert!(before(&self.nodes[from as usize]));
        let mut at = match self.cursor {
            NIL => from,
            c => c,
        };
        // Back to the prefix (X moved earlier, or the cursor is past it).
        while at != from && !before(&self.nodes[at as usize]) {
            at = self.nodes[at as usize].prev;
        }
        if at == NIL {
            at = from;
        }
        loop {
            let next = self.nodes[at as usize].next;
            if next == NIL || !before(&self.nodes[next as usize]) {
                break;
            }
            at = next;
        }
        self.cursor = at;
        Some((at, self.nodes[at as usize]))
    }

    /// The oldest linked transmission.
    pub fn first(&self) -> Option<(u32, TsNode)> {
        (self.head != NIL).then(|| (self.head, self.nodes[self.head as usize]))
    }

    /// The transmission after `id` in time order.
    pub fn next(&self, id: u32) -> Option<(u32, TsNode)> {
        let n = self.nodes[id as usize].next;
        (n != NIL).then(|| (n, self.nodes[n as usize]))
    }

    /// The node with id `id`.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn get(&self, id: u32) -> &TsNode {
        &self.nodes[id as usize]
    }

    /// Takes `old`'s slab and free list, emptied, in place of this order's, which must be
    /// empty and have allocated no node yet (a new scoreboard's): node ids are then handed
    /// out from 0 as they would be here, and only capacity moves.
    pub(crate) fn reuse_storage(&mut self, old: &mut TimeOrder) {
        debug_assert!(self.nodes.is_empty() && self.free.is_empty() && self.len == 0);
        let (mut nodes, mut free) = (
            core::mem::take(&mut old.nodes),
            core::mem::take(&mut old.free),
        );
        nodes.clear();
        free.clear();
        (self.nodes, self.free) = (nodes, free);
    }

    /// Forgets every transmission (a timeout that marks everything lost).
    pub(crate) fn clear(&mut self) {
        self.nodes.clear();
        self.free.clear();
        self.head = NIL;
        self.tail = NIL;
        self.len = 0;
        self.sorted = true;
        self.cursor = NIL;
    }

    /// Debug check: `refs` are the node ids the scoreboard's segments hold; every linked
    /// node is referenced exactly `live` times, and nothing else is referenced.
    pub(crate) fn check_refs(&self, refs: impl Iterator<Item = u32>) {
        let mut count = vec![0u32; self.nodes.len()];
        for id in refs {
            assert!(
                (id as usize) < self.nodes.len(),
                "segment holds a bad node id"
            );
            count[id as usize] += 1;
        }
        let mut linked = 0;
        let mut last = Instant::ZERO;
        for (id, n) in self.iter() {
            assert_eq!(count[id as usize], n.live, "time-order refcount drifted");
            assert!(n.live > 0, "dead node still linked");
            assert!(n.xmit_ts >= last, "time order not sorted");
            last = n.xmit_ts;
            count[id as usize] = 0;
            linked += 1;
        }
        assert_eq!(linked, self.len, "time-order length drifted");
        assert!(
            count.iter().all(|&c| c == 0),
            "segment references an unlinked node"
        );
    }

    /// The linked nodes oldest first (for checks and tests).
    pub fn iter(&self) -> impl Iterator<Item = (u32, &TsNode)> + '_ {
        let mut at = self.head;
        core::iter::from_fn(move || {
            if at == NIL {
                return None;
            }
            let id = at;
            let n = &self.nodes[id as usize];
            at = n.next;
            Some((id, n))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    #[test]
    fn unlink_anywhere_and_reuse_slots() {
        let mut o = TimeOrder::new();
        let a = o.push_back(t(1), 1, 0, 10);
        let b = o.push_back(t(2), 2, 10, 20);
        let c = o.push_back(t(3), 3, 20, 30);
        o.release(b);
        let order: Vec<u64> = o.iter().map(|(_, n)| n.start).collect();
        assert_eq!(order, [0, 20]);
        o.add_ref(a);
        o.release(a);
        assert_eq!(o.len(), 2, "a still has one reference");
        o.release(a);
        assert_eq!(o.first().unwrap().0, c);
        let d = o.push_back(t(4), 4, 30, 40);
        assert!(d == a || d == b, "a freed slot is reused");
        o.release(c);
        o.release(d);
        assert!(o.is_empty() && o.first().is_none());
    }

    /// The node a linear walk from the head finds: the last of the prefix sent before
    /// (`ts`, `order`), if that prefix reaches past `from`.
    fn walked(o: &TimeOrder, ts: Instant, order: u64) -> Option<u32> {
        let before = |n: &TsNode| crate::detect::rack::sent_after(ts, order, n.xmit_ts, n.order);
        o.iter()
            .take_while(|(_, n)| before(n))
            .map(|(id, _)| id)
            .last()
    }

    proptest::proptest! {
        /// Whatever is linked and released in between, and whether X moves later or
        /// earlier, the cursor answers what walking the whole prefix answers (what
        /// `rack_detect_lost` walked before); out of order it declines.
        #[test]
        fn last_before_is_the_walk(ops in proptest::collection::vec((0u8..4, 0u64..1_000), 1..200)) {
            let mut o = TimeOrder::new();
            let (mut clock, mut order, mut x) = (0u64, 0u64, (t(0), 0u64));
            for (op, v) in ops {
                match op {
                    0 => {
                        clock += v % 3; // equal send times are ordered by `order`
                        order += 1;
                        o.push_back(t(clock), order, order * 10, order * 10 + 10);
                    }
                    1 => {
                        let ids: Vec<u32> = o.iter().map(|(id, _)| id).collect();
                        if !ids.is_empty() {
                            o.release(ids[v as usize % ids.len()]);
                        }
                    }
                    2 => x = (t(v % (clock + 2)), v % (order + 2)),
                    _ => x = (t(clock + 1), order + 1),
                }
                let Some(last) = walked(&o, x.0, x.1) else { continue };
                let (head, _) = o.first().expect("a prefix means a head");
                let got = o.last_before(head, |n| {
                    crate::detect::rack::sent_after(x.0, x.1, n.xmit_ts, n.order)
                });
                proptest::prop_assert_eq!(got.map(|(id, _)| id), Some(last));
            }
        }
    }

    /// A node linked before the tail's (ts, order) (as `set_time_order` links by
    /// sequence) leaves the list unsorted: the cursor declines until the list empties.
    #[test]
    fn out_of_order_link_declines_until_empty() {
        let mut o = TimeOrder::new();
        let a = o.push_back(t(1), 5, 0, 10);
        let b = o.push_back(t(1), 3, 10, 20);
        assert_eq!(o.last_before(a, |_| true), None);
        o.release(a);
        o.release(b);
        let c = o.push_back(t(2), 1, 20, 30);
        assert_eq!(o.last_before(c, |_| true).map(|(id, _)| id), Some(c));
    }
}

//! The event queue: a binary heap ordered by `(time, insertion counter)`.
//!
//! There is no fixed tick: the simulator jumps from one event to the next. Ties in time are
//! broken by insertion order, so two runs of the same scenario pop events in the same order.
//! Events are small `Copy` values; packets live in a [`Slab`] and events carry its index.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// What happens at an event's time. Flow ids and slab slots are `u32` to keep entries small.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ev {
    /// A flow (connection) starts: create its sender and receiver.
    FlowStart(u32),
    /// A request reaches the server of a request-response connection: write the next response.
    Request(u32),
    /// A data-direction segment (in the segment slab) reaches the receiver.
    DataArrive { flow: u32, slot: u32 },
    /// An ACK (in the ACK slab) reaches the sender.
    AckArrive { flow: u32, slot: u32 },
    /// The sender's deadline may have passed (checked against `poll_timeout` when popped).
    SenderTimer(u32),
    /// The receiver's delayed-ACK deadline may have passed.
    ReceiverTimer(u32),
    /// Background source `src` starts (CBR) or a burst of it arrives (bursts).
    BgArrival(u32),
    /// Background source `src` sends its next packet; `left` packets remain in its burst
    /// (`u32::MAX`: a CBR stream, endless).
    BgPacket { src: u32, left: u32 },
}

#[derive(Copy, Clone, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest event first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// Pending events, earliest first; ties in insertion order.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    counter: u64,
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }
    /// Schedules `ev` at `time` (nanoseconds).
    pub fn push(&mut self, time: u64, ev: Ev) {
        self.heap.push(Entry {
            time,
            seq: self.counter,
            ev,
        });
        self.counter += 1;
    }
    /// The earliest event, removed.
    pub fn pop(&mut self) -> Option<(u64, Ev)> {
        self.heap.pop().map(|e| (e.time, e.ev))
    }
    /// The earliest event's time.
    pub fn peek_time(&self) -> Option<u64> {
        self.heap.peek().map(|e| e.time)
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// A slab: values stored by index with a free list, so steady state allocates nothing.
#[derive(Debug)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy + Default> Slab<T> {
    pub fn new() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
    pub fn insert(&mut self, v: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = v;
                i
            }
            None => {
                self.items.push(v);
                (self.items.len() - 1) as u32
            }
        }
    }
    /// Takes the value out and frees its slot.
    pub fn take(&mut self, i: u32) -> T {
        self.free.push(i);
        self.items[i as usize]
    }
    /// Slots in use.
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

impl<T: Copy + Default> Default for Slab<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_by_time_then_insertion_order() {
        let mut q = EventQueue::new();
        q.push(20, Ev::FlowStart(0));
        q.push(10, Ev::FlowStart(1));
        q.push(20, Ev::FlowStart(2));
        q.push(10, Ev::FlowStart(3));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (10, Ev::FlowStart(1)),
                (10, Ev::FlowStart(3)),
                (20, Ev::FlowStart(0)),
                (20, Ev::FlowStart(2))
            ]
        );
        assert!(q.is_empty());
    }

    #[test]
    fn slab_reuses_slots() {
        let mut s: Slab<u64> = Slab::new();
        let a = s.insert(5);
        let b = s.insert(6);
        assert_eq!(s.take(a), 5);
        let c = s.insert(7);
        assert_eq!(c, a);
        assert_eq!(s.take(b), 6);
        assert_eq!(s.take(c), 7);
        assert_eq!(s.live(), 0);
    }

    #[test]
    fn events_are_small() {
        assert!(std::mem::size_of::<Ev>() <= 12);
    }
}

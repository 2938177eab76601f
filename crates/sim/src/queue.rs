//! The event queue: events ordered by `(time, insertion counter)`.
//!
//! There is no fixed tick: the simulator jumps from one event to the next. Ties in time are
//! broken by insertion order, so two runs of the same scenario pop events in the same order.
//! Events are small `Copy` values; packets live in a [`Slab`] and events carry its index.
//!
//! Most events are packet arrivals, and a link delivers in the order it sends: a FIFO queue
//! plus a constant delay gives non-decreasing arrival times. Such events go to a *lane*, a
//! plain FIFO ([`EventQueue::push_lane`]), instead of the binary heap; `pop` takes the
//! earliest of the heap's top and the lanes' fronts. The heap then holds only timers,
//! starts and the packets a reordering model delays — about one entry per flow instead of
//! one per packet in flight (70,000 on a 10 Gb/s, 40 ms path), so a pop no longer walks a
//! heap of megabytes. Every entry keeps its insertion counter and a lane accepts an event
//! only if it is not earlier than the lane's last one, so the pop order is exactly the
//! single heap's (what was pushed out of order goes to the heap).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

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

/// FIFO lanes of an [`EventQueue`].
pub const LANES: usize = 2;

/// Pending events, earliest first; ties in insertion order.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    /// Events in non-decreasing time (and so `(time, insertion)`) order, per lane.
    lanes: [VecDeque<Entry>; LANES],
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
    /// Schedules `ev` at `time` on FIFO lane `lane` (`< LANES`): for events that usually
    /// come in time order. One earlier than the lane's last event goes to the heap.
    pub fn push_lane(&mut self, lane: usize, time: u64, ev: Ev) {
        let e = Entry {
            time,
            seq: self.counter,
            ev,
        };
        self.counter += 1;
        let l = &mut self.lanes[lane];
        match l.back() {
            Some(b) if b.time > time => self.heap.push(e),
            _ => l.push_back(e),
        }
    }
    /// Where the earliest event is: `LANES` for the heap, else a lane.
    fn earliest(&self) -> Option<(usize, u64)> {
        // `Entry`'s order is reversed (for the max-heap): greater = earlier.
        let mut best: Option<(usize, &Entry)> = self.heap.peek().map(|e| (LANES, e));
        for (i, l) in self.lanes.iter().enumerate() {
            if let Some(f) = l.front() {
                if best.is_none_or(|(_, b)| f > b) {
                    best = Some((i, f));
                }
            }
        }
        best.map(|(i, e)| (i, e.time))
    }
    /// The earliest event, removed.
    pub fn pop(&mut self) -> Option<(u64, Ev)> {
        let (at, _) = self.earliest()?;
        let e = if at == LANES {
            self.heap.pop()
        } else {
            self.lanes[at].pop_front()
        };
        e.map(|e| (e.time, e.ev))
    }
    /// The earliest event's time.
    pub fn peek_time(&self) -> Option<u64> {
        self.earliest().map(|(_, t)| t)
    }
    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }
    /// Events in the heap (not in a lane).
    pub fn heap_len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

    /// Lanes change where events wait, never the order they pop in: a random mix of heap
    /// and lane pushes (some lane pushes out of order) pops exactly as one heap would.
    #[test]
    fn lanes_pop_in_heap_order() {
        let mut rng = crate::rng::Stream::new(3, 0);
        let (mut q, mut reference) = (EventQueue::new(), EventQueue::new());
        let mut popped = (vec![], vec![]);
        let mut now = 0u64;
        for i in 0..20_000u32 {
            let lane = (rng.unit() * 3.0) as usize;
            // Mostly increasing times with ties and some steps back.
            let t = now + (rng.unit() * 8.0) as u64;
            let t = if rng.unit() < 0.1 {
                t.saturating_sub(10)
            } else {
                t
            };
            if lane == LANES {
                q.push(t, Ev::FlowStart(i));
            } else {
                q.push_lane(lane, t, Ev::FlowStart(i));
            }
            reference.push(t, Ev::FlowStart(i));
            if rng.unit() < 0.4 {
                let (a, b) = (q.pop(), reference.pop());
                now = a.map_or(now, |(t, _)| t);
                popped.0.push(a);
                popped.1.push(b);
            }
        }
        assert!(q.heap_len() < q.len(), "lanes took most events");
        popped.0.extend(std::iter::from_fn(|| q.pop()).map(Some));
        popped
            .1
            .extend(std::iter::from_fn(|| reference.pop()).map(Some));
        assert_eq!(popped.0, popped.1);
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

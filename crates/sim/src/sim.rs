//! The simulation loop: pops events in `(time, insertion)` order and feeds them to the
//! engine's endpoints, links and loss models.
//!
//! Timers are lazy: each endpoint remembers the earliest timer event it has in the queue and
//! pushes a new one only when its deadline moves earlier. A popped timer event merely checks
//! `poll_timeout()`: if the deadline has come it calls `on_timeout`, otherwise it re-arms at
//! the current deadline. A deadline that moves later (the RTO restarting on every ACK)
//! therefore costs nothing until the old event pops.
//!
//! Capture points: the trace and the pcap see data when the sender emits it (before the path
//! can lose it) and ACKs when they reach the sender.

use crate::episodes::Recovery;
use crate::flow::Flow;
use crate::jitter::Jitter;
use crate::link::Link;
use crate::loss::LossModel;
use crate::pcap::Capture;
use crate::queue::{Ev, EventQueue, Popped};
use crate::reorder::Reorder;
use crate::rng::{component, Stream};
use crate::trace::Trace;
use crate::workload::{Arrival, Workload};
use crate::{FlowResult, RunOptions, RunOutput, Scenario, ScenarioError};
use lossrec::{Ack, Instant, Segment};

mod apps;
mod background;
mod capture;
mod path;

/// Most segments one `poll_transmit` loop may return: a guard against an engine that never
/// says `None` (legitimate bursts are bounded by the receive window, far below this).
const MAX_BURST: usize = 1 << 20;

/// How far down a lane [`Sim::prefetch`] looks, and from how many open flows on.
const PREFETCH_AHEAD: usize = 8;
const PREFETCH_MIN_OPEN: u64 = 256;

/// Finished flows kept for reuse at most (`Sim::spare`): a sequential workload needs
/// one; Poisson arrivals a few, as flows overlap.
const SPARE_FLOWS: usize = 16;

/// A hint to load the cache line at `p` (a no-op off x86-64; never faults).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache; it never dereferences or faults, whatever
    // the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

pub struct Sim<'a> {
    sc: &'a Scenario,
    /// The sender's config, shared by every flow (one copy however many are open): the
    /// scenario's, resolved when it was parsed.
    sender_cfg: std::sync::Arc<lossrec::Config>,
    /// Its resolved algorithms, shared the same way (`Sender::with_resolved`).
    sender_alg: std::sync::Arc<lossrec::config::resolved::Algorithms>,
    seed: u64,
    now: u64,
    queue: EventQueue,
    fwd: Link,
    rev: Link,
    data_loss: LossModel,
    ack_loss: LossModel,
    data_reorder: Option<Reorder>,
    ack_reorder: Option<Reorder>,
    /// Per-packet delay variation of each direction (see [`crate::jitter`]).
    data_jitter: Option<Jitter>,
    ack_jitter: Option<Jitter>,
    workload_rng: Stream,
    /// One slot per connection: the live flow, or None before it starts and after it ends.
    /// The measured connections come first; background `tcp` connections are appended as
    /// they start (slots are never reused: a late packet must not reach a newer flow).
    flows: Vec<Option<Box<Flow>>>,
    /// Finished flows kept for the next ones to start in (`Sender::recycle`,
    /// `Flow::renew`): a new connection reuses their allocations instead of fresh heap
    /// (issue 29). Only kept where later flows start (sequential or Poisson arrivals).
    /// Boxed: the box itself is what is reused, moved back into `flows` as it is.
    #[allow(clippy::vec_box)]
    spare: Vec<Box<Flow>>,
    trace: Option<Trace>,
    pcap: Option<Capture>,
    pcap_rx: Option<Capture>,
    /// Per-connection results (flows, bulk, writes) or per-response results
    /// (request-response: connection-major).
    results: Vec<Option<FlowResult>>,
    recoveries: Vec<Recovery>,
    mss: u64,
    finished: u64,
    events: u64,
    data_packets: u64,
    error: Option<ScenarioError>,
    /// Background sources' random streams and counters (see [`crate::background`]).
    bg: background::Sources,
    /// Flows open now, and at most at once.
    open: u64,
    peak_open: u64,
}

impl<'a> Sim<'a> {
    pub fn new(sc: &'a Scenario, opts: &RunOptions) -> Sim<'a> {
        let seed = opts.seed.unwrap_or(sc.seed);
        let n = sc.workload.connections() as usize;
        let results = vec![None; sc.workload.results() as usize];
        Sim {
            sc,
            sender_cfg: sc.sender.clone(),
            sender_alg: sc.sender_alg.clone(),
            seed,
            now: 0,
            queue: EventQueue::new(),
            fwd: Link::new(sc.forward),
            rev: Link::new(sc.reverse),
            data_loss: LossModel::new(sc.loss.clone(), Stream::new(seed, component::DATA_LOSS)),
            ack_loss: LossModel::new(sc.ack_loss.clone(), Stream::new(seed, component::ACK_LOSS)),
            data_reorder: sc
                .reorder
                .clone()
                .map(|r| Reorder::new(r, Stream::new(seed, component::DATA_REORDER))),
            ack_reorder: sc
                .ack_reorder
                .clone()
                .map(|r| Reorder::new(r, Stream::new(seed, component::ACK_REORDER))),
            data_jitter: sc
                .jitter
                .map(|j| Jitter::new(j, Stream::new(seed, component::DATA_JITTER))),
            ack_jitter: sc
                .ack_jitter
                .map(|j| Jitter::new(j, Stream::new(seed, component::ACK_JITTER))),
            workload_rng: Stream::new(seed, component::WORKLOAD),
            flows: std::iter::repeat_with(|| None).take(n).collect(),
            spare: Vec::new(),
            trace: opts.trace.then(Trace::default),
            pcap: opts.pcap.then(|| Capture::new(seed)),
            pcap_rx: None,
            results,
            recoveries: Vec::new(),
            mss: u64::from(sc.sender.mss),
            finished: 0,
            events: 0,
            data_packets: 0,
            error: None,
            bg: background::Sources::new(&sc.background, seed, n as u32),
            open: 0,
            peak_open: 0,
        }
    }

    /// Runs to the end and collects the output.
    pub fn run(mut self) -> Result<RunOutput, ScenarioError> {
        let n = self.flows.len() as u32;
        let start = self.sc.start_ns;
        match self.sc.workload.arrival() {
            Arrival::Concurrent => (0..n).for_each(|i| self.queue.push(start, Ev::FlowStart(i))),
            _ => self.queue.push(start, Ev::FlowStart(0)),
        }
        self.start_background();
        let (limit, bulk) = match self.sc.workload {
            Workload::Bulk { duration_ns, .. } => (
                start.saturating_add(duration_ns).min(self.sc.max_time_ns),
                true,
            ),
            _ => (self.sc.max_time_ns, false),
        };
        let mut time_limit_hit = false;
        while let Some((t, ev)) = self.queue.pop() {
            if t > limit {
                time_limit_hit = !bulk;
                self.now = limit;
                break;
            }
            self.now = t;
            self.events += 1;
            self.prefetch();
            self.dispatch(&ev);
            if let Some(e) = self.error.take() {
                return Err(e);
            }
            if self.finished == u64::from(n) {
                break;
            }
        }
        if bulk {
            self.now = self.now.max(limit);
        }
        Ok(self.output(time_limit_hit))
    }

    /// One event. Packets are lent, not moved: an `Ack` is 136 bytes, and each move
    /// between the queue and the engine was a copy on the stack per event.
    fn dispatch(&mut self, p: &Popped) {
        let ev = match p {
            Popped::Data { flow, seg } => return self.data_arrive(*flow, seg),
            Popped::Ack { flow, ack } => return self.ack_arrive(*flow, ack),
            Popped::Ev(ev) => *ev,
        };
        match ev {
            Ev::FlowStart(i) => self.start_flow(i),
            Ev::Request(i) => self.request(i),
            Ev::SenderTimer(i) => self.sender_timer(i),
            Ev::ReceiverTimer(i) => self.receiver_timer(i),
            Ev::BgArrival(k) => self.bg_arrival(k),
            Ev::BgPacket { src, left } => self.bg_packet(src, left),
            // The queue hands packets over as `Popped::Data` / `Popped::Ack`.
            Ev::DataArrive { .. } | Ev::AckArrive { .. } => {}
        }
    }

    /// With many flows open their state no longer fits the CPU's caches, and each packet
    /// finds its flow's sender or receiver in main memory. The lanes say which flows the
    /// next packets are for: ask the CPU to start loading the state of the flow
    /// [`PREFETCH_AHEAD`] packets down each lane now, so that it has arrived when its packet
    /// is processed. (Measured: +10 % events/s at 10,000 flows; not done for a few flows,
    /// whose state stays cached.)
    fn prefetch(&self) {
        if self.open < PREFETCH_MIN_OPEN {
            return;
        }
        let (d, a) = self.queue.upcoming(PREFETCH_AHEAD);
        for i in [d, a].into_iter().flatten() {
            if let Some(f) = self.flows[i as usize].as_deref() {
                let p = (f as *const Flow).cast::<u8>();
                for off in (0..std::mem::size_of::<Flow>()).step_by(64) {
                    prefetch(p.wrapping_add(off));
                }
            }
        }
    }

    /// Whether flow `i` is one of the measured connections (not background).
    #[inline]
    fn measured(&self, i: u32) -> bool {
        i < self.bg.first
    }

    fn now(&self) -> Instant {
        Instant::from_nanos(self.now)
    }

    fn data_arrive(&mut self, i: u32, seg: &Segment) {
        let now = self.now();
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        if i < self.bg.first {
            if let Some(t) = self.trace.as_mut() {
                t.recv(self.now, i, seg);
            }
            if let Some(p) = self.pcap_rx.as_mut() {
                p.data(self.now, i, seg); // disjoint from `f`: a field, not a method
            }
        }
        f.receiver.on_segment(now, seg);
        if f.completed_ns.is_none() && f.receiver.delivered() >= f.message.end {
            f.completed_ns = Some(self.now);
            if f.requests_left > 0 {
                if let Workload::RequestResponse { think_ns, .. } = self.sc.workload {
                    let at = self
                        .now
                        .saturating_add(think_ns)
                        .saturating_add(self.rev.spec.delay_ns);
                    self.queue.push(at, Ev::Request(i));
                }
            }
        }
        self.after_receiver(i);
    }

    fn ack_arrive(&mut self, i: u32, ack: &Ack) {
        let now = self.now();
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        let measured = i < self.bg.first;
        if let Some(p) = self.pcap.as_mut().filter(|_| measured) {
            p.ack(self.now, i, ack);
        }
        f.episodes.before_input(&f.sender);
        f.sender.on_ack(now, ack);
        if let Some(t) = self.trace.as_mut().filter(|_| measured) {
            // After processing, so that the line carries the window the ACK left.
            t.ack(self.now, i, ack, Some(&f.sender));
        }
        self.after_sender(i);
    }

    fn sender_timer(&mut self, i: u32) {
        let now = self.now();
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        if f.snd_timer == Some(self.now) {
            f.snd_timer = None;
        }
        match f.sender.poll_timeout() {
            Some(d) if d <= now => {
                let (state, before) = (f.sender.state(), f.sender.stats().timeouts);
                f.episodes.before_input(&f.sender);
                f.sender.on_timeout(now);
                f.counters.count(state, before, f.sender.stats().timeouts);
                self.after_sender(i);
            }
            _ => self.arm_sender(i),
        }
    }

    fn receiver_timer(&mut self, i: u32) {
        let now = self.now();
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        if f.rcv_timer == Some(self.now) {
            f.rcv_timer = None;
        }
        match f.receiver.poll_timeout() {
            Some(d) if d <= now => {
                f.receiver.on_timeout(now);
                self.after_receiver(i);
            }
            _ => self.arm_receiver(i),
        }
    }

    /// After any sender input: send what it wants to, record its events, re-arm its timer,
    /// and see whether the flow is finished.
    fn after_sender(&mut self, i: u32) {
        let now = self.now();
        // Events are drained after the input and after each transmission, so the trace shows
        // a decision before the segments it caused.
        self.drain_events(i);
        for _ in 0..MAX_BURST {
            let Some(f) = self.flows[i as usize].as_deref_mut() else {
                return;
            };
            match f.sender.poll_transmit(now) {
                Some(tx) => {
                    self.drain_events(i);
                    self.send_data(i, tx);
                }
                None => break,
            }
        }
        self.drain_events(i);
        let Some(f) = self.flows[i as usize].as_deref() else {
            return;
        };
        let finished = f.sender.is_finished();
        self.arm_sender(i);
        if finished && !matches!(self.sc.workload, Workload::Bulk { .. }) {
            self.finish(i);
        }
    }

    /// Moves the sender's pending events into the trace (dropping them when not tracing)
    /// and the recovery-episode tracker.
    fn drain_events(&mut self, i: u32) {
        if !self.measured(i) {
            // A background connection's decisions are not traced or counted as episodes.
            if let Some(f) = self.flows[i as usize].as_deref_mut() {
                while f.sender.poll_event().is_some() {}
            }
            return;
        }
        let id = self.slot(i) as u64;
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        while let Some(ev) = f.sender.poll_event() {
            if let Some(t) = self.trace.as_mut() {
                t.event(i, &ev);
            }
            f.episodes
                .on_event(u64::from(i), id, &ev, &f.sender, &mut self.recoveries);
        }
    }

    /// After any receiver input: send its ACKs and re-arm its timer.
    fn after_receiver(&mut self, i: u32) {
        let now = self.now();
        for _ in 0..MAX_BURST {
            let Some(f) = self.flows[i as usize].as_deref_mut() else {
                return;
            };
            match f.receiver.poll_ack(now) {
                Some(ack) => self.send_ack(i, ack),
                None => break,
            }
        }
        self.arm_receiver(i);
    }

    fn arm_sender(&mut self, i: u32) {
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        if let Some(d) = f.sender.poll_timeout() {
            let at = d.as_nanos().max(self.now);
            if f.snd_timer.is_none_or(|p| at < p) {
                f.snd_timer = Some(at);
                self.queue.push(at, Ev::SenderTimer(i));
            }
        }
    }

    fn arm_receiver(&mut self, i: u32) {
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        if let Some(d) = f.receiver.poll_timeout() {
            let at = d.as_nanos().max(self.now);
            if f.rcv_timer.is_none_or(|p| at < p) {
                f.rcv_timer = Some(at);
                self.queue.push(at, Ev::ReceiverTimer(i));
            }
        }
    }

    /// The sender has every byte acknowledged: record results, free the flow, and start
    /// the next sequential flow.
    fn finish(&mut self, i: u32) {
        if let Some(k) = self.bg.source(i) {
            return self.bg_finish(i, k, true);
        }
        let slot = self.slot(i);
        let Some(mut f) = self.flows[i as usize].take() else {
            return;
        };
        self.finished += 1;
        self.open -= 1;
        self.results[slot] = Some(f.result(slot as u64));
        f.episodes.close(&f.sender, &mut self.recoveries);
        if self.sc.workload.arrival() != Arrival::Concurrent && self.spare.len() < SPARE_FLOWS {
            self.spare.push(f);
        }
        let next_sequential = !matches!(self.sc.workload, Workload::Bulk { .. })
            && self.sc.workload.arrival() == Arrival::Sequential;
        if next_sequential && u64::from(i) + 1 < self.sc.workload.connections() {
            self.queue.push(self.now, Ev::FlowStart(i + 1));
        }
    }

    fn output(mut self, time_limit_hit: bool) -> RunOutput {
        let preset = self.sc.sender.preset.to_string();
        // Flows still live at the end report what they have; flows never started report zeros.
        for i in 0..self.flows.len() {
            if let Some(k) = self.bg.source(i as u32) {
                self.bg_finish(i as u32, k, false);
                continue;
            }
            let slot = self.slot(i as u32);
            let Some(f) = self.flows[i].as_deref_mut() else {
                continue;
            };
            self.results[slot] = Some(f.result(slot as u64));
            f.episodes.close(&f.sender, &mut self.recoveries);
        }
        // Free the live flows before the results are collected.
        let connections = u64::from(self.bg.first);
        self.flows = Vec::new();
        let unfinished = match self.sc.workload {
            Workload::Bulk { .. } => 0,
            _ => connections - self.finished,
        };
        let flows = self
            .results
            .into_iter()
            .enumerate()
            .map(|(id, r)| r.unwrap_or_else(|| FlowResult::not_started(id as u64, &preset)))
            .collect();
        let (trace, pcap, outputs) = crate::outputs::finish(self.trace, self.pcap, self.pcap_rx);
        RunOutput {
            seed: self.seed,
            flows,
            events: self.events,
            data_packets: self.data_packets,
            recoveries: self.recoveries,
            trace,
            pcap,
            outputs,
            sim_time_s: self.now as f64 / 1e9,
            unfinished_flows: unfinished,
            time_limit_hit,
            background: self.bg.stats,
            peak_open_flows: self.peak_open,
        }
    }
}

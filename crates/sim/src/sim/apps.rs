//! The applications: starting connections and writing what the workload says when it
//! says so (flows, responses, timed writes).

use super::Sim;
use crate::flow::Flow;
use crate::queue::Ev;
use crate::workload::{poisson_gap, response_stream, Arrival, SizeDist, Workload};
use crate::ScenarioError;
use lossrec::{Range, Receiver, Sender};

impl Sim<'_> {
    /// A connection starts: create its endpoints and write what its application has at once.
    pub(super) fn start_flow(&mut self, i: u32) {
        let now = self.now();
        let Some(mut f) = self.new_flow(now) else {
            return;
        };
        f.sender
            .set_seed(crate::rng::sender_seed(self.seed, u64::from(i)));
        let mut sizes = None;
        let mut next_write = 0;
        let (bytes, requests_left, more_writes) = match &self.sc.workload {
            Workload::RequestResponse {
                requests,
                response,
                dist,
                max_bytes,
                ..
            } => {
                let mut rng = response_stream(self.seed, u64::from(i));
                let mean = response.bytes(self.mss);
                let b = if *dist == SizeDist::Fixed {
                    mean
                } else {
                    dist.draw(mean, *max_bytes, &mut rng)
                };
                sizes = Some(rng);
                (b, requests - 1, None)
            }
            Workload::Writes { writes, .. } => {
                let now0 = writes.iter().take_while(|(t, _)| *t == 0).count();
                let total: u64 = writes.iter().map(|(_, b)| b).sum();
                next_write = now0;
                (total, 0, writes.get(now0).map(|(t, _)| *t))
            }
            w => (w.first_write(self.mss), 0, None),
        };
        let first = self.sc.workload.first_write(self.mss);
        f.message = Range::new(0, bytes);
        f.sizes = sizes;
        f.next_write = next_write;
        f.requests_left = requests_left;
        match self.sc.workload {
            // The first chunk of a `writes` connection; the message is all of them.
            Workload::Writes { .. } => f.sender.write(now, first),
            _ => f.sender.write(now, bytes),
        }
        match more_writes {
            Some(t) => self.queue.push(self.now.saturating_add(t), Ev::Request(i)),
            None => {
                if requests_left == 0 && !matches!(self.sc.workload, Workload::Bulk { .. }) {
                    f.sender.close(now);
                }
            }
        }
        self.flows[i as usize] = Some(f);
        self.open += 1;
        self.peak_open = self.peak_open.max(self.open);
        self.after_sender(i);
        if let Arrival::Poisson { rate_per_s } = self.sc.workload.arrival() {
            if u64::from(i) + 1 < self.sc.workload.connections() {
                let gap = poisson_gap(&mut self.workload_rng, rate_per_s);
                self.queue
                    .push(self.now.saturating_add(gap), Ev::FlowStart(i + 1));
            }
        }
    }

    /// A new connection's flow at `now` (its message still empty): a finished flow's
    /// allocation recycled if one is kept, else a new one. `None` after recording the
    /// error, if the sender's configuration is refused.
    fn new_flow(&mut self, now: lossrec::Instant) -> Option<Box<Flow>> {
        let (cfg, alg) = (self.sender_cfg.clone(), Some(&self.sender_alg));
        let made = match self.spare.pop() {
            Some(mut f) => f.sender.recycle(cfg, alg, now).map(|()| {
                f.receiver.recycle(self.sc.receiver.clone(), now);
                f.renew(self.now, Range::new(0, 0));
                f
            }),
            None => Sender::with_resolved(cfg, alg, now).map(|s| {
                let r = Receiver::new(self.sc.receiver.clone(), now);
                Box::new(Flow::new(s, r, self.now, Range::new(0, 0)))
            }),
        };
        match made {
            Ok(f) => Some(f),
            Err(e) => {
                self.error = Some(ScenarioError {
                    origin: self.sc.origin.clone(),
                    line: None,
                    column: None,
                    field: Some("sender".into()),
                    message: e.to_string(),
                });
                None
            }
        }
    }

    /// The result slot of connection `i`'s current message.
    pub(super) fn slot(&self, i: u32) -> usize {
        match self.sc.workload {
            Workload::RequestResponse { requests, .. } => {
                // A finished connection's slot is its last response's.
                let left = self.flows[i as usize]
                    .as_ref()
                    .map_or(0, |f| f.requests_left);
                (u64::from(i) * requests + (requests - left - 1)) as usize
            }
            _ => i as usize,
        }
    }

    /// A `writes` connection's application writes its next chunk(s).
    fn app_write(&mut self, i: u32) {
        let now = self.now();
        let Workload::Writes { writes, .. } = &self.sc.workload else {
            return;
        };
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        let due = self.now.saturating_sub(f.start_ns);
        while let Some(&(_, b)) = writes.get(f.next_write).filter(|(t, _)| *t <= due) {
            f.sender.write(now, b);
            f.next_write += 1;
        }
        match writes.get(f.next_write) {
            Some(&(t, _)) => self
                .queue
                .push(f.start_ns.saturating_add(t), Ev::Request(i)),
            None => f.sender.close(now),
        }
        self.after_sender(i);
    }

    /// A request reached the server: finalise the previous response, write the next.
    /// (For a `writes` workload: the application's next write is due.)
    pub(super) fn request(&mut self, i: u32) {
        let now = self.now();
        let (dist, max_bytes) = match self.sc.workload {
            Workload::RequestResponse {
                dist, max_bytes, ..
            } => (dist, max_bytes),
            Workload::Writes { .. } => return self.app_write(i),
            _ => return,
        };
        let mean = self.sc.workload.first_write(self.mss);
        let slot = self.slot(i);
        let Some(f) = self.flows[i as usize].as_deref_mut() else {
            return;
        };
        let bytes = match f.sizes.as_mut() {
            Some(rng) if dist != SizeDist::Fixed => dist.draw(mean, max_bytes, rng),
            _ => mean,
        };
        self.results[slot] = Some(f.result(slot as u64));
        let start = f.message_start.get_or_insert_with(Box::default);
        start.stats = f.sender.stats().clone();
        start.counters = f.counters;
        f.message = Range::new(f.message.end, f.message.end + bytes);
        f.message_ns = self.now;
        f.completed_ns = None;
        f.requests_left -= 1;
        f.sender.write(now, bytes);
        if f.requests_left == 0 {
            f.sender.close(now);
        }
        self.after_sender(i);
    }
}

//! A flow: one live connection's sender and receiver, and what the simulator tracks about
//! it (packet indices for the loss models, pending timer events, the message in flight).
//!
//! The simulator keeps a flow in one allocation from its start to its end
//! (`Vec<Option<Box<Flow>>>`, one slot per connection): a connection that has not started
//! or has finished costs a null pointer, and everything of a finished one — endpoints,
//! scoreboard, counters — is freed as its result is recorded. Response-only state
//! (request-response counters) is boxed so that other workloads do not carry it.

use crate::episodes::{Counters, Tracker};
use crate::loss::TxCounts;
use crate::rng::Stream;
use crate::FlowResult;
use lossrec::{Range, Receiver, Sender, Stats};

/// Where the current response started (request-response): the counters then.
#[derive(Clone, Debug, Default)]
pub struct MessageStart {
    pub stats: Stats,
    pub counters: Counters,
}

/// One live connection.
#[derive(Debug)]
pub struct Flow {
    pub sender: Sender,
    pub receiver: Receiver,
    /// When the connection started (its first SYN, or first data without a handshake).
    pub start_ns: u64,
    /// The message being delivered: the whole flow, or the current response.
    pub message: Range,
    /// When the current message was written (FCT origin).
    pub message_ns: u64,
    /// Counters when the current message was written (request-response deltas).
    pub message_start: Option<Box<MessageStart>>,
    /// Timeouts by the state they fired in, retransmissions the path dropped.
    pub counters: Counters,
    /// The fast-recovery episode in progress.
    pub episodes: Tracker,
    /// Response sizes (request-response with a size distribution).
    pub sizes: Option<Stream>,
    /// `writes` workload: the index of the next write.
    pub next_write: usize,
    /// When the current message's last byte reached the receiver.
    pub completed_ns: Option<u64>,
    /// Responses still to be written after the current one.
    pub requests_left: u64,
    /// Data transmissions so far (the index the next one gets in the loss models).
    pub data_idx: u64,
    /// ACKs sent so far, SYN-ACK excluded.
    pub ack_idx: u64,
    pub tx_counts: TxCounts,
    /// Earliest pending sender / receiver timer event, if one is known to be in the queue.
    pub snd_timer: Option<u64>,
    pub rcv_timer: Option<u64>,
}

impl Flow {
    /// A connection starting at `now_ns` with its endpoints, delivering `message`.
    pub fn new(sender: Sender, receiver: Receiver, now_ns: u64, message: Range) -> Flow {
        Flow {
            sender,
            receiver,
            start_ns: now_ns,
            message,
            message_ns: now_ns,
            message_start: None,
            counters: Counters::default(),
            episodes: Tracker::default(),
            sizes: None,
            next_write: 0,
            completed_ns: None,
            requests_left: 0,
            data_idx: 0,
            ack_idx: 0,
            tx_counts: TxCounts::default(),
            snd_timer: None,
            rcv_timer: None,
        }
    }

    /// This flow's allocation made a new connection's (the simulator keeps finished
    /// flows to reuse their memory, issue 29): the simulator's own state as
    /// [`Flow::new`] sets it, keeping only the capacity of `tx_counts`. The caller has
    /// already recycled the endpoints (`Sender::recycle`, `Receiver::recycle`). Every
    /// field is named, so a new one cannot be forgotten here.
    pub fn renew(&mut self, now_ns: u64, message: Range) {
        let Flow {
            sender: _,
            receiver: _,
            start_ns,
            message: msg,
            message_ns,
            message_start,
            counters,
            episodes,
            sizes,
            next_write,
            completed_ns,
            requests_left,
            data_idx,
            ack_idx,
            tx_counts,
            snd_timer,
            rcv_timer,
        } = self;
        *start_ns = now_ns;
        *msg = message;
        *message_ns = now_ns;
        *message_start = None;
        *counters = Counters::default();
        *episodes = Tracker::default();
        *sizes = None;
        *next_write = 0;
        *completed_ns = None;
        *requests_left = 0;
        *data_idx = 0;
        *ack_idx = 0;
        tx_counts.clear();
        *snd_timer = None;
        *rcv_timer = None;
    }

    /// Results of the current message: counters since it was written (all of them for a
    /// flow), FCT if its last byte arrived.
    pub fn result(&self, id: u64) -> FlowResult {
        let start = self.message_start.as_deref();
        let zero = Counters::default();
        let c = self.counters.since(start.map_or(&zero, |m| &m.counters));
        let s = self.sender.stats();
        let zero = Stats::default();
        let b = start.map_or(&zero, |m| &m.stats);
        let d = |f: fn(&Stats) -> u64| f(s).saturating_sub(f(b));
        let mss = self.sender.mss().max(1);
        let delivered = self.receiver.delivered();
        FlowResult {
            id,
            preset: self.sender.config().preset.to_string(),
            bytes: delivered.clamp(self.message.start, self.message.end) - self.message.start,
            fct_ms: self
                .completed_ns
                .map(|c| c.saturating_sub(self.message_ns) as f64 / 1e6),
            data_packets_sent: d(|s| s.data_segs_out),
            retransmits: d(|s| s.retrans_segs),
            fast_recoveries: d(|s| s.sack_recovery + s.reno_recovery),
            rtos: d(|s| s.timeouts),
            spurious_rtos: d(|s| s.spurious_rtos),
            tlp_probes: d(|s| s.loss_probes),
            undos: d(|s| s.undos),
            final_cwnd: self.sender.cwnd() / mss,
            fast_retransmits: d(|s| s.fast_retrans),
            lost_retransmits: c.lost_retransmits,
            lost_fast_retransmits: c.lost_fast_retransmits,
            slow_start_retransmits: d(|s| s.slow_start_retrans),
            rtos_in_open: c.open,
            rtos_in_disorder: c.disorder,
            rtos_in_recovery: c.recovery,
            rtos_in_loss: c.loss,
            dsacks: d(|s| s.dsack_recv),
            early_retransmits: d(|s| s.early_retrans),
            spurious_early_retransmits: d(|s| s.early_retrans_spurious),
            tail_drops: c.tail_drops,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Flow;
    use lossrec::{Config, Instant, Range, Receiver, ReceiverConfig, Segment, Sender};

    fn endpoints(now: Instant) -> (Sender, Receiver) {
        let s = Sender::new(Config::default(), now).expect("default config");
        (s, Receiver::new(ReceiverConfig::default(), now))
    }

    /// A used flow, renewed with recycled endpoints, is a new one field for field.
    #[test]
    fn renewed_is_new() {
        let (s, r) = endpoints(Instant::ZERO);
        let mut f = Flow::new(s, r, 0, Range::new(0, 10_000));
        f.sender.write(Instant::ZERO, 10_000);
        while f.sender.poll_transmit(Instant::ZERO).is_some() {}
        let seg = Segment {
            range: Range::new(1448, 2896),
            ..Segment::default()
        };
        f.receiver.on_segment(Instant::ZERO, &seg);
        (f.data_idx, f.ack_idx, f.requests_left, f.next_write) = (7, 3, 2, 1);
        (f.completed_ns, f.snd_timer, f.rcv_timer) = (Some(9), Some(8), Some(7));
        f.message_start = Some(Box::default());
        f.counters.tail_drops = 4;
        let now = Instant::from_millis(3);
        f.sender.recycle(Config::default(), None, now).unwrap();
        f.receiver.recycle(ReceiverConfig::default(), now);
        f.renew(now.as_nanos(), Range::new(0, 500));
        let (s, r) = endpoints(now);
        let fresh = Flow::new(s, r, now.as_nanos(), Range::new(0, 500));
        assert_eq!(format!("{f:?}"), format!("{fresh:?}"));
    }

    /// What the simulator keeps per open flow besides the engine's endpoints stays within
    /// five cache lines (issue 16: a flow's memory beyond its scoreboard is under 4 KB,
    /// and the endpoints take 2.4 KB of it).
    #[test]
    fn simulator_state_per_flow_is_small() {
        use std::mem::size_of;
        let own = size_of::<super::Flow>()
            - size_of::<lossrec::Sender>()
            - size_of::<lossrec::Receiver>();
        assert!(own <= 320, "{own} bytes");
    }
}

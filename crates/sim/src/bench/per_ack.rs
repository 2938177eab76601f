//! The engine micro-benchmark (`cargo bench -p lossrec-sim -- per_ack`, `lossrec bench`):
//! the cost of one ACK with `in_flight` segments outstanding, 1 % random data loss and
//! SACK. See [`per_ack_workload`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use lossrec::{Ack, Config, Duration, Instant, Receiver, ReceiverConfig, Segment, Sender};

use crate::rng::{component, Stream};

/// Segment size of the workload.
pub const MSS: u64 = 1448;
/// Base round-trip time of the path.
pub const RTT: Duration = Duration::from_millis(20);
/// Data loss probability.
pub const LOSS: f64 = 0.01;

/// A recorded ACK stream and the sender it was recorded against: replaying the stream
/// into a fresh [`PerAckWorkload::sender`] reproduces the recording exactly (the engine
/// is deterministic), so only the sender's own work is timed.
#[derive(Clone, Debug)]
pub struct PerAckWorkload {
    pub in_flight: usize,
    pub seed: u64,
    pub config: Config,
    /// Bytes the application writes up front (the first window), and just before the
    /// first ACK (more than the run can send).
    pub first_write: u64,
    pub bytes: u64,
    /// The ACKs with their arrival times, as the receiver sent them.
    pub acks: Vec<(Instant, Ack)>,
    /// Mean segments outstanding (scoreboard length) over the ACKs of the recording.
    pub mean_outstanding: f64,
    /// Data segments the recording sent, and retransmissions among them.
    pub segments_sent: u64,
    pub retransmissions: u64,
    /// Timeouts during the recording (RTOs; probes and reorder timers not counted).
    pub timeouts: u64,
}

/// The sender: RFC 8985 RACK-TLP with RFC 9937 PRR and CUBIC (`rack-tlp`), SACK, no
/// handshake (window scaling would cap the window at 8 MB) or timestamps, a congestion
/// window too large to matter (4·10⁹ segments), so the receive window — `in_flight`
/// segments — is what keeps that many outstanding.
pub fn config() -> Config {
    let mut c = Config::rack_tlp();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.initial_cwnd = u32::MAX;
    c
}

impl PerAckWorkload {
    /// A sender with the first window written and sent (set-up, not timed).
    pub fn sender(&self) -> Sender {
        let mut s = Sender::new(self.config.clone(), Instant::ZERO).expect("valid config");
        s.write(Instant::ZERO, self.first_write);
        while s.poll_transmit(Instant::ZERO).is_some() {}
        s
    }

    /// Feeds every recorded ACK (and any deadline due before it) to `s` and sends what
    /// it allows after each; returns the ACKs processed. This is the timed part.
    pub fn replay(&self, s: &mut Sender) -> u64 {
        if let Some((at, _)) = self.acks.first() {
            s.write(*at, self.bytes);
        }
        for (at, ack) in &self.acks {
            while let Some(t) = s.poll_timeout() {
                if t > *at {
                    break;
                }
                s.on_timeout(t);
                while s.poll_transmit(t).is_some() {}
            }
            s.on_ack(*at, ack);
            while s.poll_transmit(*at).is_some() {}
        }
        self.acks.len() as u64
    }
}

enum Pkt {
    Data(Segment),
    Ack(Ack),
}

/// A packet in flight, ordered by arrival time, then by sending order.
struct InFlight {
    at: Instant,
    order: u64,
    pkt: Pkt,
}
impl PartialEq for InFlight {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.order) == (o.at, o.order)
    }
}
impl Eq for InFlight {}
impl PartialOrd for InFlight {
    fn partial_cmp(&self, o: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for InFlight {
    fn cmp(&self, o: &Self) -> core::cmp::Ordering {
        (self.at, self.order).cmp(&(o.at, o.order))
    }
}

/// Records the workload: a path with RTT 20 ms whose bottleneck carries `in_flight`
/// segments per RTT, 1 % of data segments lost at random (seeded), a receiver that ACKs
/// every segment with SACK (and DSACK), and a receive window of `in_flight` segments.
/// The recording covers about 10 round trips (at most 400,000 ACKs — 4 round trips at
/// 100,000 segments — and at least 2,000): with
/// 1 % loss every round trip has a recovery, and CUBIC's 0.7 per recovery must leave
/// cwnd above the window for "`in_flight` outstanding" to hold; `mean_outstanding`
/// reports what it really was.
pub fn per_ack_workload(in_flight: usize, seed: u64) -> PerAckWorkload {
    per_ack_workload_with(config(), in_flight, seed)
}

/// [`per_ack_workload`] for a family of [`super::app_limited::FAMILIES`] (`rack-tlp` is
/// [`per_ack_workload`]'s own): its preset with the same MSS, no handshake or timestamps
/// and an initial window too large to matter.
pub fn per_ack_family_workload(family: &str, in_flight: usize, seed: u64) -> PerAckWorkload {
    per_ack_workload_with(super::app_limited::config(family), in_flight, seed)
}

fn per_ack_workload_with(cfg: Config, in_flight: usize, seed: u64) -> PerAckWorkload {
    let n = in_flight.max(1) as u64;
    let target = (10 * n).clamp(2_000, 400_000) as usize;
    let mut s = Sender::new(cfg.clone(), Instant::ZERO).expect("valid config");
    // The first window only: without a handshake the sender learns the receive window
    // from the first ACK, just before which the rest is written.
    let first_write = n * MSS;
    let bytes = (target as u64 * 2 + n) * MSS;
    s.write(Instant::ZERO, first_write);
    let rcfg = ReceiverConfig {
        delayed_ack: None,
        timestamps: false,
        mss: MSS as u16,
        window: n * MSS,
        window_model: lossrec::receiver::WindowModel::Fixed,
        ..ReceiverConfig::default()
    };
    let mut r = Receiver::new(rcfg, Instant::ZERO);
    let mut loss = Stream::new(seed, component::DATA_LOSS);
    let one_way = RTT / 2;
    let per_segment = RTT / n as u32;
    let mut link_free = Instant::ZERO;
    let mut q: BinaryHeap<Reverse<InFlight>> = BinaryHeap::new();
    let mut order = 0u64;
    let mut push = |q: &mut BinaryHeap<Reverse<InFlight>>, at, pkt| {
        q.push(Reverse(InFlight { at, order, pkt }));
        order += 1;
    };
    let mut acks = Vec::with_capacity(target);
    let (mut outstanding, mut now) = (0u64, Instant::ZERO);
    while acks.len() < target {
        while let Some(t) = s.poll_transmit(now) {
            let depart = now.max(link_free) + per_segment;
            link_free = depart;
            if !loss.chance(LOSS) {
                push(&mut q, depart + one_way, Pkt::Data(t.segment()));
            }
        }
        while let Some(a) = r.poll_ack(now) {
            push(&mut q, now + one_way, Pkt::Ack(a));
        }
        let next_pkt = q.peek().map(|Reverse(p)| p.at);
        let next = match (next_pkt, s.poll_timeout()) {
            (Some(p), Some(t)) => p.min(t),
            (p, t) => p.or(t).expect("something is pending"),
        };
        now = now.max(next);
        if next_pkt == Some(next) {
            let Reverse(p) = q.pop().expect("peeked");
            match p.pkt {
                Pkt::Data(seg) => r.on_segment(now, &seg),
                Pkt::Ack(a) => {
                    if acks.is_empty() {
                        s.write(now, bytes);
                    }
                    s.on_ack(now, &a);
                    outstanding += s.scoreboard().len() as u64;
                    acks.push((now, a));
                }
            }
        } else {
            s.on_timeout(now);
        }
    }
    // What the last ACK released (the replay sends it too).
    while s.poll_transmit(now).is_some() {}
    let st = s.stats();
    PerAckWorkload {
        in_flight,
        seed,
        config: cfg,
        first_write,
        bytes,
        mean_outstanding: outstanding as f64 / acks.len() as f64,
        segments_sent: st.data_segs_out,
        retransmissions: st.retrans_segs,
        timeouts: st.timeouts,
        acks,
    }
}

//! A sender and a receiver joined by a seeded random path: data and ACK loss, reordering,
//! ACK delay spikes. For property tests (every byte delivered, invariants hold, no undo
//! without evidence). Time is virtual; one [`Stream`] per run.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use lossrec::stats::Stats;
use lossrec::{
    Ack, Config, Duration, Event, Instant, Range, Receiver, ReceiverConfig, Segment, Sender, Why,
};

use crate::rng::Stream;

/// What happens on the path, per packet.
#[derive(Copy, Clone, Debug)]
pub struct RandomPath {
    pub data_loss: f64,
    pub ack_loss: f64,
    /// Chance that a data segment is delayed three one-way delays (reordering).
    pub reorder: f64,
    /// One-way delay, both directions.
    pub delay: Duration,
    /// Chance that an ACK is held 1.5 s (a delay spike: spurious timeouts).
    pub ack_spike: f64,
}

impl RandomPath {
    /// Loss on data only, `delay` each way: no reordering, no delay variation.
    pub fn lossy(data_loss: f64, delay: Duration) -> RandomPath {
        RandomPath {
            data_loss,
            ack_loss: 0.0,
            reorder: 0.0,
            delay,
            ack_spike: 0.0,
        }
    }
}

/// How a transfer ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Bytes the receiver delivered in order.
    pub delivered: u64,
    /// When the sender saw every byte acknowledged.
    pub finish: Instant,
    /// The sender's counters at the end.
    pub stats: Stats,
    /// Every decision the sender took, in order.
    pub events: Vec<Event>,
    /// Every data transmission: when, what, why, and whether the path dropped it.
    pub sent: Vec<(Instant, Range, Why, bool)>,
    /// Every ACK the sender received, with its arrival time.
    pub acks: Vec<(Instant, Ack)>,
}

enum Pkt {
    Data(Segment),
    Ack(Ack),
}

/// Virtual time after which a transfer is declared stuck.
const LIMIT_S: f64 = 200_000.0;

/// Runs one transfer of `bytes` (written and closed at 0). Panics if it does not finish,
/// if a "retransmission" carries data never sent, or if new data is not sent in order.
pub fn transfer(
    cfg: Config,
    rcfg: ReceiverConfig,
    bytes: u64,
    path: &RandomPath,
    seed: u64,
) -> Outcome {
    let mut rng = Stream::new(seed, 0);
    let mut s = Sender::new(cfg, Instant::ZERO).expect("valid config");
    let mut r = Receiver::new(rcfg, Instant::ZERO);
    s.write(Instant::ZERO, bytes);
    s.close(Instant::ZERO);
    let mut q: BinaryHeap<Reverse<(Instant, u64, usize)>> = BinaryHeap::new();
    let mut pkts: Vec<Option<Pkt>> = Vec::new();
    let mut now = Instant::ZERO;
    let limit = Instant::from_secs_f64(LIMIT_S);
    let mut sent_high = 0u64;
    let mut events = Vec::new();
    let mut log = Vec::new();
    let mut acks = Vec::new();
    loop {
        events.extend(std::iter::from_fn(|| s.poll_event()));
        while let Some(t) = s.poll_transmit(now) {
            if t.why.is_retransmission() {
                assert!(t.range.end <= sent_high, "retransmitted unsent data {t:?}");
            } else if !t.range.is_empty() {
                assert_eq!(t.range.start, sent_high, "{t:?}");
                sent_high = t.range.end;
            }
            let delivered = !rng.chance(path.data_loss) || t.syn.is_some() && rng.chance(0.5);
            if !t.range.is_empty() {
                log.push((now, t.range, t.why, !delivered));
            }
            if delivered {
                let extra = if rng.chance(path.reorder) {
                    path.delay * 3
                } else {
                    Duration::ZERO
                };
                pkts.push(Some(Pkt::Data(t.segment())));
                q.push(Reverse((
                    now + path.delay + extra,
                    pkts.len() as u64,
                    pkts.len() - 1,
                )));
            }
        }
        while let Some(a) = r.poll_ack(now) {
            if !rng.chance(path.ack_loss) {
                let spike = if rng.chance(path.ack_spike) {
                    Duration::from_millis(1500)
                } else {
                    Duration::ZERO
                };
                pkts.push(Some(Pkt::Ack(a)));
                q.push(Reverse((
                    now + path.delay + spike,
                    pkts.len() as u64,
                    pkts.len() - 1,
                )));
            }
        }
        if s.is_finished() {
            return Outcome {
                delivered: r.delivered(),
                finish: now,
                stats: s.stats().clone(),
                events,
                sent: log,
                acks,
            };
        }
        let next_pkt = q.peek().map(|Reverse((t, _, _))| *t);
        let next = [next_pkt, s.poll_timeout(), r.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
            .expect("something must be pending");
        assert!(
            next <= limit,
            "transfer did not finish: delivered {} una={} nxt={} state={:?} cwnd={}",
            r.delivered(),
            s.snd_una(),
            s.snd_nxt(),
            s.state(),
            s.cwnd()
        );
        now = now.max(next);
        if next_pkt == Some(next) {
            let Reverse((_, _, i)) = q.pop().expect("peeked");
            match pkts[i].take().expect("each packet is delivered once") {
                Pkt::Data(seg) => r.on_segment(now, &seg),
                Pkt::Ack(a) => {
                    s.on_ack(now, &a);
                    acks.push((now, a));
                }
            }
        } else if s.poll_timeout() == Some(next) {
            s.on_timeout(now);
        } else {
            r.on_timeout(now);
        }
    }
}

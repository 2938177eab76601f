//! A scripted path for the worked examples: one [`Sender`] and one [`Receiver`] joined by
//! a fixed one-way delay, with exact drops (the n-th transmission of the segment starting
//! at an offset), exact extra delays (reordering), and an ACK-path hold (a delay spike that
//! releases the held ACKs in a burst). Deterministic: no randomness, time is virtual.
//! [`run`] returns everything that happened, for tables, timelines and time-sequence plots.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use lossrec::config::Config;
use lossrec::event::Event;
use lossrec::packet::{Ack, Range, Segment, Why};
use lossrec::receiver::{Receiver, ReceiverConfig, WindowModel};
use lossrec::time::{Duration, Instant};
use lossrec::Sender;

/// The n-th transmission (1 = the original) of the segment that starts at `start`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Nth {
    pub start: u64,
    pub nth: u32,
}

/// What happens on the path.
#[derive(Clone, Debug)]
pub struct Path {
    pub config: Config,
    pub receiver: ReceiverConfig,
    /// One-way delay, both directions.
    pub one_way: Duration,
    /// Application writes (time, bytes); the sender closes after the last one if `close`.
    pub writes: Vec<(Instant, u64)>,
    pub close: bool,
    /// Data transmissions the path drops.
    pub drops: Vec<Nth>,
    /// Data transmissions delayed by an extra amount (reordering).
    pub delays: Vec<(Nth, Duration)>,
    /// ACKs the receiver sends in `[from, to)` are held and delivered from `to` + one-way
    /// delay on, `spacing` apart (a delay spike on the ACK path).
    pub ack_hold: Option<(Instant, Instant, Duration)>,
    /// Stop at this time even if the transfer is not finished.
    pub until: Instant,
}

impl Path {
    /// A path with `one_way` delay and nothing else, for `config`.
    pub fn new(config: Config, one_way: Duration) -> Path {
        Path {
            config,
            // The worked examples assume a receiver that never limits the sender (the RFCs'
            // and seeds' idealised path), not Linux's autotuned window.
            receiver: ReceiverConfig {
                window_model: WindowModel::Fixed,
                ..ReceiverConfig::default()
            },
            one_way,
            writes: vec![],
            close: true,
            drops: vec![],
            delays: vec![],
            ack_hold: None,
            until: Instant::from_millis(120_000),
        }
    }

    /// The worked examples' path: `config` with `mss`-byte segments (sender and
    /// receiver), `segments` of them written at time 0, `one_way` delay.
    pub fn with_segments(mut config: Config, one_way: Duration, mss: u64, segments: u64) -> Path {
        config.mss = mss as u16;
        let mut p = Path::new(config, one_way);
        p.receiver.mss = mss as u16;
        p.writes = vec![(Instant::ZERO, segments * mss)];
        p
    }

    /// Drops the `nth` transmission of segment `seg` (1-based, `mss`-byte segments).
    pub fn drop_segment(&mut self, seg: u64, nth: u32, mss: u64) {
        self.drops.push(Nth {
            start: (seg - 1) * mss,
            nth,
        });
    }
}

/// One data transmission.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    pub at: Instant,
    pub range: Range,
    pub why: Why,
    /// Which transmission of its first byte this was (1 = original).
    pub nth: u32,
    pub dropped: bool,
    /// Position in the run's order of things (ACKs, events, transmissions).
    pub order: u64,
}

/// Everything that happened.
#[derive(Clone, Debug)]
pub struct Trace {
    /// Data segments the sender emitted (handshake packets excluded).
    pub sent: Vec<Sent>,
    /// ACKs as the sender received them (handshake excluded).
    pub acks: Vec<(Instant, Ack)>,
    pub events: Vec<Event>,
    /// Positions of `acks` and `events` in the run's order of things.
    pub ack_order: Vec<u64>,
    pub event_order: Vec<u64>,
    pub sender: Sender,
    pub receiver: Receiver,
    /// When every byte was acknowledged (`None` if `until` came first).
    pub finished: Option<Instant>,
}

impl Trace {
    /// Data segments sent for this reason.
    pub fn count(&self, why: impl Fn(Why) -> bool) -> usize {
        self.sent.iter().filter(|s| why(s.why)).count()
    }
    /// Retransmissions sent (probes that retransmit included).
    pub fn retransmissions(&self) -> usize {
        self.count(Why::is_retransmission)
    }

    /// Everything in time order, one line each, segments numbered from 1 as the seeds do
    /// (`mss` bytes per segment): "0.300 > 10 probe_retransmit", "0.400 < ack 5 sack 10",
    /// "0.400 enter_recovery …".
    pub fn timeline(&self, mss: u64) -> String {
        let segs = |r: Range| {
            let (a, b) = (r.start / mss + 1, r.end.div_ceil(mss));
            if a == b {
                a.to_string()
            } else {
                format!("{a}-{b}")
            }
        };
        let mut lines: Vec<(Instant, u64, String)> = vec![];
        for s in &self.sent {
            let lost = if s.dropped { " (lost)" } else { "" };
            lines.push((
                s.at,
                s.order,
                format!("> {} {}{lost}", segs(s.range), s.why.name()),
            ));
        }
        for ((at, a), o) in self.acks.iter().zip(&self.ack_order) {
            let mut l = format!("< ack {}", a.cumulative / mss);
            for b in a.sack.iter() {
                l += &format!(" sack {}", segs(*b));
            }
            lines.push((*at, *o, l));
        }
        for (e, o) in self.events.iter().zip(&self.event_order) {
            let mut l = e.kind.name().to_string();
            e.kind.for_each_field(|k, v| l += &format!(" {k}={v}"));
            lines.push((e.at, *o, l));
        }
        lines.sort_by_key(|l| (l.0, l.1));
        let mut out = String::new();
        for (at, _, l) in lines {
            out += &format!("{:>9.3} {l}\n", at.as_secs_f64());
        }
        out
    }
}

enum Pkt {
    Data(Segment),
    Ack(Ack),
}

/// Runs the path until everything written is acknowledged (or `until`).
pub fn run(p: &Path) -> Trace {
    let mut s = Sender::new(p.config.clone(), Instant::ZERO).expect("valid config");
    let mut r = Receiver::new(p.receiver.clone(), Instant::ZERO);
    let mut q: BinaryHeap<Reverse<(Instant, u64, usize)>> = BinaryHeap::new();
    let mut pkts: Vec<Option<Pkt>> = vec![];
    let mut seq = 0u64;
    let mut writes = p.writes.clone();
    writes.sort_by_key(|w| w.0);
    let mut next_write = 0;
    let mut trace = Trace {
        sent: vec![],
        acks: vec![],
        events: vec![],
        ack_order: vec![],
        event_order: vec![],
        sender: s.clone(),
        receiver: r.clone(),
        finished: None,
    };
    let mut xmits: Vec<(u64, u32)> = vec![]; // (start, transmissions so far)
    let mut held_release = Instant::ZERO;
    let mut now = Instant::ZERO;
    let mut order = 0u64;
    let total: u64 = writes.iter().map(|w| w.1).sum();
    let drain_events = |s: &mut Sender, trace: &mut Trace, order: &mut u64| {
        while let Some(e) = s.poll_event() {
            trace.events.push(e);
            trace.event_order.push(*order);
            *order += 1;
        }
    };
    loop {
        while next_write < writes.len() && writes[next_write].0 <= now && s.is_established() {
            s.write(now, writes[next_write].1);
            next_write += 1;
            if next_write == writes.len() && p.close {
                s.close(now);
            }
        }
        while let Some(t) = s.poll_transmit(now) {
            let seg = t.segment();
            let mut arrive = Some(now + p.one_way);
            if !t.range.is_empty() {
                let nth = match xmits.iter_mut().find(|x| x.0 == t.range.start) {
                    Some(x) => {
                        x.1 += 1;
                        x.1
                    }
                    None => {
                        xmits.push((t.range.start, 1));
                        1
                    }
                };
                let id = Nth {
                    start: t.range.start,
                    nth,
                };
                let dropped = p.drops.contains(&id);
                if dropped {
                    arrive = None;
                } else if let Some((_, extra)) = p.delays.iter().find(|d| d.0 == id) {
                    arrive = arrive.map(|a| a + *extra);
                }
                trace.sent.push(Sent {
                    at: now,
                    range: t.range,
                    why: t.why,
                    nth,
                    dropped,
                    order,
                });
                order += 1;
            }
            drain_events(&mut s, &mut trace, &mut order);
            if let Some(at) = arrive {
                pkts.push(Some(Pkt::Data(seg)));
                q.push(Reverse((at, seq, pkts.len() - 1)));
                seq += 1;
            }
        }
        while let Some(a) = r.poll_ack(now) {
            let mut at = now + p.one_way;
            if let Some((from, to, spacing)) = p.ack_hold {
                if now >= from && now < to {
                    held_release = held_release.max(to + p.one_way);
                    at = held_release;
                    held_release += spacing;
                }
            }
            pkts.push(Some(Pkt::Ack(a)));
            q.push(Reverse((at, seq, pkts.len() - 1)));
            seq += 1;
        }
        drain_events(&mut s, &mut trace, &mut order);
        if next_write == writes.len() && s.is_established() && s.snd_una() >= total {
            trace.finished.get_or_insert(now);
            if q.is_empty() {
                break;
            }
        }
        let next_pkt = q.peek().map(|Reverse((t, _, _))| *t);
        let next_write_at = writes
            .get(next_write)
            .filter(|_| s.is_established())
            .map(|w| w.0.max(now));
        let next = [next_pkt, s.poll_timeout(), r.poll_timeout(), next_write_at]
            .into_iter()
            .flatten()
            .min();
        let Some(next) = next else { break };
        if next > p.until {
            break;
        }
        now = now.max(next);
        if next_pkt == Some(next) {
            let Reverse((_, _, i)) = q.pop().expect("peeked");
            match pkts[i].take().expect("queued once") {
                Pkt::Data(seg) => r.on_segment(now, &seg),
                Pkt::Ack(a) => {
                    if a.syn.is_none() && s.is_established() {
                        trace.acks.push((now, a));
                        trace.ack_order.push(order);
                        order += 1;
                    }
                    s.on_ack(now, &a);
                    drain_events(&mut s, &mut trace, &mut order);
                }
            }
        } else if s.poll_timeout() == Some(next) {
            s.on_timeout(now);
            drain_events(&mut s, &mut trace, &mut order);
        } else if r.poll_timeout() == Some(next) {
            r.on_timeout(now);
        }
    }
    trace.sender = s;
    trace.receiver = r;
    trace
}

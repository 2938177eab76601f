//! The loop one attack run turns: an engine sender and receiver on a path with a fixed
//! delay, the attacker rewriting the receiver's ACKs, in event order.

#[allow(clippy::wildcard_imports)]
use super::*;

impl Loop {
    /// The loop for one run: `cfg` with SACK on or off, `bytes` to send.
    pub(super) fn for_run(cfg: &Config, sack: bool, phase: Phase, bytes: u64) -> Loop {
        let mut cfg = cfg.clone();
        cfg.mss = MSS as u16;
        cfg.handshake = false;
        cfg.sack = sack;
        let rcfg = ReceiverConfig {
            sack,
            dsack: sack,
            timestamps: cfg.timestamps,
            mss: MSS as u16,
            window: 64 << 20,
            window_model: lossrec::receiver::WindowModel::Fixed,
            ..ReceiverConfig::default()
        };
        Loop::new(cfg, rcfg, phase, bytes)
    }
}

enum Pkt {
    Data(Segment),
    Ack(Ack),
}

/// The closed loop: sender, path, honest receiver, attacker.
pub(super) struct Loop {
    pub(super) s: Sender,
    pub(super) r: Receiver,
    phase: Phase,
    pub(super) path: Path,
    q: BinaryHeap<Reverse<(Instant, u64)>>,
    pkts: Vec<Option<Pkt>>,
    now: Instant,
    /// Departure times of packets still in the bottleneck queue.
    queue: VecDeque<Instant>,
    link_free: Instant,
    /// Transmissions per segment start, for the loss decision.
    tx_count: std::collections::BTreeMap<u64, u32>,
    /// The attacker's memory: the last cumulative ACK it sent, the highest byte seen, the
    /// latest hole-filling segment and how often it was reported.
    last_cum: u64,
    high_seen: u64,
    fake_dsack: Option<(Range, u32)>,
    /// ∫ cwnd dt (byte·ns) since it was last zeroed.
    pub(super) cwnd_area: u128,
}

impl Loop {
    fn new(cfg: Config, rcfg: ReceiverConfig, phase: Phase, bytes: u64) -> Loop {
        let mut s = Sender::new(cfg, Instant::ZERO).expect("preset is valid");
        s.set_seed(SEED);
        s.write(Instant::ZERO, bytes);
        Loop {
            s,
            r: Receiver::new(rcfg, Instant::ZERO),
            phase,
            path: Path::BASE,
            q: BinaryHeap::new(),
            pkts: Vec::new(),
            now: Instant::ZERO,
            queue: VecDeque::new(),
            link_free: Instant::ZERO,
            tx_count: Default::default(),
            last_cum: 0,
            high_seen: 0,
            fake_dsack: None,
            cwnd_area: 0,
        }
    }

    fn push(&mut self, at: Instant, p: Pkt) {
        self.pkts.push(Some(p));
        let id = self.pkts.len() as u64 - 1;
        self.q.push(Reverse((at, id)));
    }

    pub(super) fn run_until(&mut self, end: Instant, attack: Attack) {
        loop {
            self.send_data();
            self.send_acks(attack);
            let next_pkt = self.q.peek().map(|Reverse((t, _))| *t);
            let Some(next) = [next_pkt, self.s.poll_timeout(), self.r.poll_timeout()]
                .into_iter()
                .flatten()
                .min()
            else {
                return; // nothing pending: the sender stopped (e.g. it stopped trusting)
            };
            let until = next.min(end).max(self.now);
            self.cwnd_area += u128::from(self.s.cwnd()) * (until - self.now).as_nanos();
            if next > end {
                self.now = end;
                return;
            }
            self.now = self.now.max(next);
            if next_pkt == Some(next) {
                let Reverse((_, id)) = self.q.pop().expect("peeked");
                match self.pkts[id as usize].take().expect("delivered once") {
                    Pkt::Data(seg) => {
                        self.r.on_segment(self.now, &seg);
                        self.observe(&seg, attack);
                    }
                    Pkt::Ack(a) => self.s.on_ack(self.now, &a),
                }
            } else if self.s.poll_timeout() == Some(next) {
                self.s.on_timeout(self.now);
            } else {
                self.r.on_timeout(self.now);
            }
        }
    }

    /// The sender's segments onto the path: loss, then the bottleneck, then the delay.
    fn send_data(&mut self) {
        let now = self.now;
        while let Some(t) = self.s.poll_transmit(now) {
            let seg = t.segment();
            if self.lost(&seg) {
                continue;
            }
            let mut at = now;
            if self.phase == Phase::Bottleneck {
                while self.queue.front().is_some_and(|&d| d <= now) {
                    self.queue.pop_front();
                }
                if self.queue.len() >= 50 {
                    continue; // drop-tail
                }
                // 10 Mb/s: 800 ns per byte (40 bytes of headers).
                let tx = Duration::from_nanos((seg.range.len() + 40) * 800);
                at = self.link_free.max(now) + tx;
                self.link_free = at;
                self.queue.push_back(at);
            }
            self.push(at + self.path.rtt / 2, Pkt::Data(seg));
        }
    }

    /// The loss decision: the congestion-avoidance phase loses the 30th segment's first
    /// transmission; the lossy phase 2 % of transmissions, by (sequence, count).
    fn lost(&mut self, seg: &Segment) -> bool {
        if seg.range.is_empty() {
            return false;
        }
        let n = self.tx_count.entry(seg.range.start).or_insert(0);
        *n += 1;
        match self.phase {
            Phase::CongestionAvoidance => seg.range.start == 30 * MSS && *n == 1,
            Phase::Lossy => {
                let key = seg.range.start ^ (u64::from(*n) << 48) ^ (self.path.loss_seed << 56);
                mix64(key).is_multiple_of(50)
            }
            _ => false,
        }
    }

    /// What the attacker learns from a data segment it received.
    fn observe(&mut self, seg: &Segment, attack: Attack) {
        if attack == Attack::DsackSpoofing
            && !seg.range.is_empty()
            && seg.range.end <= self.high_seen
        {
            // Fills a hole: most likely a retransmission. Claim the original arrived too.
            self.fake_dsack = Some((seg.range, 0));
        }
        self.high_seen = self.high_seen.max(seg.range.end);
    }

    /// The honest receiver's ACKs, rewritten by the attacker, onto the path.
    fn send_acks(&mut self, attack: Attack) {
        let at = self.now + self.path.rtt / 2;
        while let Some(a) = self.r.poll_ack(self.now) {
            for ack in self.rewrite(a, attack) {
                self.push(at, Pkt::Ack(ack));
            }
        }
    }

    fn rewrite(&mut self, a: Ack, attack: Attack) -> Vec<Ack> {
        let prev = self.last_cum;
        self.last_cum = self.last_cum.max(a.cumulative);
        match attack {
            Attack::Honest => vec![a],
            Attack::DupAckSpoofing => vec![a; FANOUT as usize],
            Attack::AckDivision if a.cumulative > prev => {
                let span = a.cumulative - prev;
                let pieces = FANOUT.min(span);
                (1..=pieces)
                    .map(|k| Ack {
                        cumulative: prev + span * k / pieces,
                        ..a
                    })
                    .collect()
            }
            Attack::AckDivision => vec![a],
            Attack::DsackSpoofing => {
                let Some((d, n)) = self.fake_dsack.as_mut() else {
                    return vec![a];
                };
                *n += 1;
                if *n > FANOUT as u32 {
                    self.fake_dsack = None;
                    return vec![a];
                }
                let mut blocks = vec![*d];
                blocks.extend(a.sack_blocks().iter().copied());
                vec![a.with_sack(&blocks)]
            }
            Attack::OptimisticAck => {
                let cum = self.s.snd_nxt().max(a.cumulative);
                self.last_cum = cum;
                vec![Ack {
                    cumulative: cum,
                    sack: Default::default(),
                    ..a
                }]
            }
            Attack::Paced(step) => {
                let paced = prev + u64::from(step) * MSS;
                let cum = self.s.snd_nxt().min(paced).max(a.cumulative).max(prev);
                self.last_cum = cum;
                vec![Ack {
                    cumulative: cum,
                    sack: Default::default(),
                    ..a
                }]
            }
            Attack::Hiding if a.cumulative < self.high_seen => {
                let cum = self.high_seen.max(prev);
                self.last_cum = cum;
                vec![Ack {
                    cumulative: cum,
                    sack: Default::default(),
                    ..a
                }]
            }
            Attack::Hiding => vec![a],
        }
    }
}

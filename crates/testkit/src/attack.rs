//! Misbehaving receivers in a closed loop (Savage, Cardwell, Wetherall, Anderson, "TCP
//! congestion control with a misbehaving receiver", CCR 1999; Sherwood, Bhattacharjee,
//! Braud, "Misbehaving TCP receivers can cause Internet-wide congestion collapse", CCS
//! 2005). Each attacker wraps the honest [`Receiver`]: the segments reach it unchanged and
//! the attacker rewrites the ACKs it produces.
//!
//! - ACK division: an ACK that advances SND.UNA by N bytes becomes `n` ACKs each covering
//!   a slice (a sender that grows per ACK instead of per byte opens up `n` times faster;
//!   RFC 3465 byte counting is the defence).
//! - DupACK spoofing: every ACK is sent `n` times (RFC 5681 §3.2 window inflation without a
//!   bound, Linux `tcp_limit_reno_sacked` and RFC 9937 §7 are the defences).
//! - DSACK spoofing: a segment that fills a hole (a retransmission) is reported as a
//!   duplicate on this and the next ACKs, claiming the original arrived (undo without
//!   evidence; Linux's `undo_retrans` accounting is the defence).
//! - Optimistic ACK: every ACK acknowledges all the sender has sent so far (an oracle
//!   attacker, the strongest form), data still queued or lost included.
//! - Paced optimistic ACK (issue 26 item 3): every ACK runs `step` segments past the
//!   attacker's previous one (never behind the honest ACK, never past SND.NXT), without
//!   SACK: a one-segment step lands on every sequence, so it lands on the held segment's
//!   start as an honest report of the hole would.
//! - Hiding: the honest ACKs pass unchanged except those that show a hole (a cumulative
//!   ACK below data already received): those are hidden and replaced by an ACK of all the
//!   data received, the hole included (losses are never reported).
//!
//! The path: one-way delay each way, an optional drop-tail bottleneck on the data path, and
//! an optional random data loss decided by (sequence, transmission count) so that the
//! honest and the attacked run lose the same segments.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use lossrec::{Ack, Config, Duration, Instant, Range, Receiver, ReceiverConfig, Segment, Sender};

use crate::rng::mix64;

pub mod defence;
mod table;

pub use table::{table, Defences, Row};

/// How the receiver misbehaves.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Attack {
    Honest,
    AckDivision,
    DupAckSpoofing,
    DsackSpoofing,
    OptimisticAck,
    /// Optimistic ACKs paced at this many segments past the attacker's previous ACK.
    Paced(u8),
    /// Honest ACKs, except that every one showing a hole is replaced by an ACK over it.
    Hiding,
}

impl Attack {
    pub const ALL: [Attack; 4] = [
        Attack::AckDivision,
        Attack::DupAckSpoofing,
        Attack::DsackSpoofing,
        Attack::OptimisticAck,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Attack::Honest => "honest",
            Attack::AckDivision => "ack_division",
            Attack::DupAckSpoofing => "dupack_spoofing",
            Attack::DsackSpoofing => "dsack_spoofing",
            Attack::OptimisticAck => "optimistic_ack",
            Attack::Paced(1) => "paced_1mss",
            Attack::Paced(2) => "paced_2mss",
            Attack::Paced(3) => "paced_3mss",
            Attack::Paced(_) => "paced",
            Attack::Hiding => "hiding",
        }
    }

    /// The attacks that acknowledge data not received, which the optimistic-ACK defence
    /// must stop (issue 26 item 3): the oracle, paced at each step size, and hiding.
    pub const OPTIMISTIC: [Attack; 5] = [
        Attack::OptimisticAck,
        Attack::Paced(1),
        Attack::Paced(2),
        Attack::Paced(3),
        Attack::Hiding,
    ];
}

/// Pieces per divided ACK and copies per spoofed ACK (the 10).
const FANOUT: u64 = 10;

/// The phase of the connection the attack runs in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// From the first segment, 6 RTTs, no loss.
    SlowStart,
    /// One early loss sets ssthresh; the attack starts 10 RTTs later, for 20 RTTs.
    CongestionAvoidance,
    /// 2 % random data loss, 20 RTTs from the start.
    Lossy,
    /// A 10 Mb/s drop-tail bottleneck with a 50-packet queue, 20 RTTs from the start.
    Bottleneck,
}

impl Phase {
    pub const ALL: [Phase; 4] = [
        Phase::SlowStart,
        Phase::CongestionAvoidance,
        Phase::Lossy,
        Phase::Bottleneck,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Phase::SlowStart => "slow_start",
            Phase::CongestionAvoidance => "congestion_avoidance",
            Phase::Lossy => "lossy",
            Phase::Bottleneck => "bottleneck",
        }
    }
    /// (attack start, measured RTTs).
    fn window(self) -> (u32, u64) {
        match self {
            Phase::SlowStart => (0, 6),
            Phase::CongestionAvoidance => (10, 20),
            Phase::Lossy | Phase::Bottleneck => (0, 20),
        }
    }
}

/// The presets the tables run: every one but `linux-hardened`, whose rows are `linux`'s
/// with [`Defences::Hardened`] (every table applies its defences to each preset).
pub fn presets() -> Vec<&'static lossrec::config::Preset> {
    lossrec::PRESETS
        .iter()
        .filter(|p| p.name != "linux-hardened")
        .collect()
}

/// Round-trip propagation delay of the base path.
pub const RTT: Duration = Duration::from_millis(100);

/// One path of the table: its round-trip propagation delay, and the seed of its random
/// loss (the lossy phase).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub rtt: Duration,
    pub loss_seed: u64,
}

impl Path {
    /// The path of [`run`]: [`RTT`], loss seed 0.
    pub const BASE: Path = Path {
        rtt: RTT,
        loss_seed: 0,
    };
}

/// The paths a table row sums over: RTTs 90–110 ms, each with its own loss pattern. One
/// path is a single deterministic trajectory, and a drop-tail queue or a timeout makes it
/// chaotic: a change anywhere moves which run of a pair happens to take an RTO or leave
/// slow start a few segments later, and a row swings by tens of per cent either way. A
/// systematic gain shows on every path; the sum is what an attacker can count on.
pub const PATHS: [Path; 5] = [
    Path::BASE,
    Path {
        rtt: Duration::from_millis(90),
        loss_seed: 1,
    },
    Path {
        rtt: Duration::from_millis(95),
        loss_seed: 2,
    },
    Path {
        rtt: Duration::from_millis(105),
        loss_seed: 3,
    },
    Path {
        rtt: Duration::from_millis(110),
        loss_seed: 4,
    },
];
/// Segment size used throughout.
pub const MSS: u64 = 1000;

/// What one run measured over the attack's window.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Measured {
    /// New bytes the sender sent (SND.NXT's advance).
    pub sent: u64,
    /// Bytes the receiver delivered in order.
    pub delivered: u64,
    /// RTTs measured.
    pub rtts: u64,
    /// The sender stopped: its optimistic-ACK defence found the peer lying.
    pub stopped: bool,
    /// Segments the defence held back, and checks the peer failed (`OptAckSkips`,
    /// `OptAckStrikes`), over the whole run.
    pub skips: u64,
    pub strikes: u64,
    /// The sender's cwnd at the end of the window (bytes; summed over paths in a row).
    pub cwnd: u64,
    /// The sender's cwnd averaged over the window's time (bytes; summed over paths in a
    /// row): what the attacker held, where [`Measured::cwnd`] is one instant of a
    /// sawtooth (a recovery just before the end halves it).
    pub cwnd_mean: u64,
}

impl std::ops::Add for Measured {
    type Output = Measured;
    /// Two runs together (a row over several paths).
    fn add(self, o: Measured) -> Measured {
        Measured {
            sent: self.sent + o.sent,
            delivered: self.delivered + o.delivered,
            rtts: self.rtts + o.rtts,
            stopped: self.stopped || o.stopped,
            skips: self.skips + o.skips,
            strikes: self.strikes + o.strikes,
            cwnd: self.cwnd + o.cwnd,
            cwnd_mean: self.cwnd_mean + o.cwnd_mean,
        }
    }
}

/// One run on the base path: `preset`'s configuration with SACK on or off, the receiver
/// misbehaving as `attack` during `phase`'s window.
pub fn run(cfg: &Config, sack: bool, phase: Phase, attack: Attack) -> Measured {
    run_on(cfg, sack, phase, attack, Path::BASE)
}

/// [`run`] on `path`.
pub fn run_on(cfg: &Config, sack: bool, phase: Phase, attack: Attack, path: Path) -> Measured {
    let mut sim = Loop::for_run(cfg, sack, phase, 1 << 40);
    sim.path = path;
    let (start_rtts, rtts) = phase.window();
    let t0 = Instant::ZERO + path.rtt * start_rtts;
    let t1 = t0 + path.rtt * rtts as u32;
    sim.run_until(t0, Attack::Honest);
    let (sent0, delivered0) = (sim.s.snd_nxt(), sim.r.delivered());
    sim.cwnd_area = 0;
    sim.run_until(t1, attack);
    let window = (t1 - t0).as_nanos().max(1);

    Measured {
        sent: sim.s.snd_nxt() - sent0,
        delivered: sim.r.delivered() - delivered0,
        rtts,
        stopped: sim.s.optack_detected(),
        skips: sim.s.stats().optack_skips,
        strikes: sim.s.stats().optack_strikes,
        cwnd: sim.s.cwnd(),
        cwnd_mean: u64::try_from(sim.cwnd_area / window).unwrap_or(u64::MAX),
    }
}

/// The seed the harness gives every sender (`Sender::set_seed`): fixed, so the table is
/// the same on every run.
pub const SEED: u64 = 0x0a77_ac4e_5eed;

/// How long an honest receiver takes to receive `bytes` in `phase`'s path, if it does
/// within 60 s.
pub fn completion(cfg: &Config, sack: bool, phase: Phase, bytes: u64) -> Option<Duration> {
    completion_seeded(cfg, sack, phase, bytes, SEED)
}

/// [`completion`] with the sender's own randomness seeded by `seed` (`Sender::set_seed`:
/// where the optimistic-ACK defence holds segments back).
pub fn completion_seeded(
    cfg: &Config,
    sack: bool,
    phase: Phase,
    bytes: u64,
    seed: u64,
) -> Option<Duration> {
    let mut sim = Loop::for_run(cfg, sack, phase, bytes);
    sim.s.set_seed(seed);
    let step = RTT / 20;
    let mut t = Instant::ZERO;
    while t < Instant::ZERO + Duration::from_secs(60) {
        t += step;
        sim.run_until(t, Attack::Honest);
        if sim.r.delivered() >= bytes {
            return Some(t - Instant::ZERO);
        }
    }
    None
}

impl Loop {
    /// The loop for one run: `cfg` with SACK on or off, `bytes` to send.
    fn for_run(cfg: &Config, sack: bool, phase: Phase, bytes: u64) -> Loop {
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
struct Loop {
    s: Sender,
    r: Receiver,
    phase: Phase,
    path: Path,
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
    cwnd_area: u128,
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

    fn run_until(&mut self, end: Instant, attack: Attack) {
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

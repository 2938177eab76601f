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
mod event_loop;
mod table;

use event_loop::Loop;
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

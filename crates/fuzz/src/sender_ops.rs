//! The sender driven by an arbitrary sequence of operations (op-sequence fuzzing, the shape
//! of s2n-quic's): application writes and close, time passing, timeouts, segments lost or
//! delivered to an honest [`Receiver`] whose ACKs come back (possibly duplicated), and
//! forged ACKs from a hostile peer (issue 13). Any preset, with any axis changed.
//!
//! The engine checks DESIGN.md's invariants itself after every handler (debug assertions,
//! `sender/invariants.rs`); this harness adds what only a caller sees: `poll_transmit`
//! terminates, transmissions lie inside what was written and above SND.UNA, SND.UNA never
//! moves back, a timer never re-arms at or before the instant it fired, and a connection
//! with unsent data, an open window and nothing in flight has a deadline (no deadlock).

use std::collections::VecDeque;

use arbitrary::{Arbitrary, Unstructured};
use lossrec::{
    Ack, Config, ConfigError, Instant, Range, Receiver, ReceiverConfig, SynOptions, Timestamps,
    Transmit,
};

use crate::sender_check::{Checked, Seen};

/// Application bytes written at most (keeps one input under a few milliseconds).
const MAX_WRITTEN: u64 = 1 << 20;
/// Segments in the network at most; older ones are lost.
const MAX_FLIGHT: usize = 1024;
/// Operations run at most per input.
const MAX_OPS: usize = 4096;

/// One input: the configuration and the operations.
#[derive(Arbitrary, Debug)]
pub struct Input {
    /// Index into [`FUZZ_PRESETS`].
    pub preset: u8,
    /// Axis changes: (index into [`FUZZ_AXES`], value selector).
    pub sets: Vec<(u8, u16)>,
    pub receiver: ReceiverTweaks,
    pub ops: Vec<Op>,
}

/// The honest receiver's settings.
#[derive(Arbitrary, Debug)]
pub struct ReceiverTweaks {
    pub delayed_ack_ms: Option<u16>,
    pub sack: bool,
    pub dsack: bool,
    pub timestamps: bool,
    pub mss: u16,
    pub window: u32,
}

/// One step.
#[derive(Arbitrary, Debug)]
pub enum Op {
    /// The application writes this many bytes.
    Write(u16),
    /// The application closes.
    Close,
    /// Time passes (in units of 100 µs).
    Advance(u16),
    /// Time jumps to the sender's deadline, which fires.
    Timeout,
    /// Segment `i` (modulo) of those in the network reaches the honest receiver.
    Deliver(u8),
    /// Every segment in the network reaches the receiver, in order.
    DeliverAll,
    /// Segment `i` of those in the network is lost.
    Lose(u8),
    /// The receiver's next ACK reaches the sender, `1 + n % 16` times (n > 0: spoofed duplicates).
    Reflect(u8),
    /// The receiver's next ACK is lost.
    LoseAck,
    /// A forged ACK from a hostile peer.
    Forge(Forged),
}

/// A forged ACK: fields relative to the sender's state, so inputs reach deep states.
#[derive(Arbitrary, Debug)]
pub struct Forged {
    pub cumulative: Seq,
    pub sack: Vec<(Seq, Seq)>,
    pub window: Window,
    pub ts: Option<(u32, Echo)>,
    pub syn: Option<ArbSyn>,
}

/// A sequence number (stream offset).
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Seq {
    /// SND.UNA plus this many segments.
    Una(i8),
    /// SND.NXT plus this many segments.
    Nxt(i8),
    /// SND.UNA plus this many bytes.
    UnaBytes(i16),
    /// Anything.
    Raw(u64),
}

/// An advertised window.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Window {
    Large,
    Zero,
    Segments(u8),
    Raw(u64),
}

/// A timestamp echo.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Echo {
    /// Now, less this many microseconds.
    Ago(u32),
    Raw(u64),
}

/// SYN options on a forged SYN-ACK.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct ArbSyn {
    pub mss: u16,
    pub sack_permitted: bool,
    pub timestamps: bool,
    pub window_scale: Option<u8>,
}

/// The fuzz target: bytes → [`Input`] → [`run_input`].
pub fn run(data: &[u8]) {
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        run_input(&input);
    }
}

/// The presets and axes by the index an input names them with, so that a committed seed
/// keeps its configuration when the engine gains one: the engine's lists follow its tables,
/// where an insertion shifts every later index (a `% len` choice moved them all). New names
/// go at the end; indices past the end pick the first preset, or change no axis, so an
/// appended name takes over only inputs that changed nothing. The tests below keep both
/// lists complete.
pub const FUZZ_PRESETS: &[&str] = &[
    "rfc",
    "linux-classic",
    "rfc3517",
    "linux-rh",
    "prr",
    "rfc3517-er",
    "linux-rh-er",
    "prr-er",
    "tlp-draft",
    "rack-tlp",
    "linux",
    "linux-3.17",
    "linux-3.17-rtor",
    "linux-3.17-tlp",
    "linux-4.4-norack",
    "reno-sack",
    "newreno-sack",
    "fack",
    "reno-sack-eifel",
    "newreno-sack-eifel",
    "fack-eifel",
    "linux-hardened",
];
pub const FUZZ_AXES: &[&str] = &[
    "flavour",
    "loss_detection",
    "dupthresh",
    "limited_transmit",
    "adaptive_reordering",
    "rescue_retransmit",
    "probe",
    "tlp_max_probes",
    "tlp_max_ack_delay_ms",
    "tlp_in_recovery",
    "rack_static_reo_wnd",
    "rack_no_dupthresh",
    "fack_lost_retrans",
    "early_retransmit",
    "er_delayed",
    "er_disable_on_reordering",
    "er_rate_cap_percent",
    "reduction",
    "recovery_exit",
    "rtt_estimator",
    "rto_timer",
    "rrthresh",
    "clock_granularity_ms",
    "min_rto_ms",
    "max_rto_ms",
    "initial_rto_ms",
    "spurious_detection",
    "dsack_proof",
    "spurious_response",
    "rto_adaptation",
    "cc",
    "mss",
    "initial_cwnd",
    "slow_start_after_idle",
    "hystart",
    "hystart_rounds",
    "min_tso_segs",
    "pacing",
    "pacing_ss_ratio",
    "pacing_ca_ratio",
    "handshake",
    "sack",
    "timestamps",
    "ecn",
    "optack_defence",
    "optack_skip_interval",
    "dupack_budget",
    "ack_division_guard",
    "hardened",
    "timer_hz",
];
/// Index slots (beyond the lists: room to append). A seed whose index lay past the end
/// decoded to `rfc`; appending a name gives that index to the new preset, so a regression
/// seed there must be moved to a slot still past the end (`regression_seeds.rs` notices).
const PRESET_SLOTS: usize = 64;
const AXIS_SLOTS: usize = 128;

/// The configuration an input selects; `None` when an axis change is refused.
pub fn config(input: &Input) -> Option<Config> {
    let preset = FUZZ_PRESETS
        .get(usize::from(input.preset) % PRESET_SLOTS)
        .unwrap_or(&FUZZ_PRESETS[0]);
    let mut cfg = Config::preset(preset).ok()?;
    for &(axis, pick) in input.sets.iter().take(8) {
        let Some(&axis) = FUZZ_AXES.get(usize::from(axis) % AXIS_SLOTS) else {
            continue;
        };
        let value = value_for(&mut cfg.clone(), axis, pick)?;
        cfg.set(axis, &value).ok()?;
    }
    Some(cfg)
}

/// A valid value for `axis`, chosen by `pick` from the list the engine's own error gives.
fn value_for(cfg: &mut Config, axis: &str, pick: u16) -> Option<String> {
    let Err(ConfigError::BadValue { valid, .. }) = cfg.set(axis, "\u{1}") else {
        return None;
    };
    if let Some(range) = valid.strip_prefix("an integer from ") {
        let (lo, hi) = range.split_once(" to ")?;
        let (lo, hi): (u64, u64) = (lo.parse().ok()?, hi.parse().ok()?);
        // Small values are the interesting ones (dupthresh, probes, MSS near its floor).
        return Some((lo + u64::from(pick) % (hi - lo + 1).min(4096)).to_string());
    }
    let names: Vec<&str> = valid.split(", ").collect();
    Some(names[usize::from(pick) % names.len()].to_string())
}

impl ReceiverTweaks {
    /// The receiver's config (the rest as by default).
    pub fn config(&self) -> ReceiverConfig {
        ReceiverConfig {
            delayed_ack: self
                .delayed_ack_ms
                .map(|ms| lossrec::Duration::from_millis(u64::from(ms))),
            sack: self.sack,
            dsack: self.dsack,
            timestamps: self.timestamps,
            mss: self.mss,
            window: u64::from(self.window),
            ..ReceiverConfig::default()
        }
    }
}

/// Runs one input; panics when an invariant breaks.
pub fn run_input(input: &Input) {
    observe(input);
}

/// Runs one input and returns what it went through and the sender's counters (`None` when
/// the input's configuration is refused); panics when an invariant breaks.
pub fn observe(input: &Input) -> Option<(Seen, lossrec::Stats)> {
    let cfg = config(input)?;
    let mut now = Instant::from_millis(1);
    let mut s = Checked::new(cfg, now)?;
    let mut rx = Receiver::new(input.receiver.config(), now);
    let mut net: VecDeque<Transmit> = VecDeque::new();
    let mut acks: VecDeque<Ack> = VecDeque::new();
    s.drain(now, &mut net);
    for op in input.ops.iter().take(MAX_OPS) {
        match op {
            Op::Write(n) => {
                if s.sender.bytes_written() + u64::from(*n) <= MAX_WRITTEN {
                    s.sender.write(now, u64::from(*n));
                }
            }
            Op::Close => s.sender.close(now),
            Op::Advance(n) => {
                now += lossrec::Duration::from_micros(u64::from(*n) * 100);
                if rx.poll_timeout().is_some_and(|t| t <= now) {
                    rx.on_timeout(now);
                }
            }
            Op::Timeout => {
                if let Some(t) = s.sender.poll_timeout() {
                    now = now.max(t);
                    s.timeout(now, &mut net);
                }
            }
            Op::Deliver(i) => {
                if !net.is_empty() {
                    let tx = net.remove(usize::from(*i) % net.len()).unwrap();
                    rx.on_segment(now, &tx.segment());
                }
            }
            Op::DeliverAll => {
                for tx in net.drain(..) {
                    rx.on_segment(now, &tx.segment());
                }
            }
            Op::Lose(i) => {
                if !net.is_empty() {
                    net.remove(usize::from(*i) % net.len());
                }
            }
            Op::Reflect(n) => {
                if let Some(a) = acks.pop_front() {
                    for _ in 0..=(n % 16) {
                        s.ack(now, &a);
                    }
                }
            }
            Op::LoseAck => {
                acks.pop_front();
            }
            Op::Forge(f) => {
                let a = forge(&s, now, f);
                s.seen.zero_window_syn_ack |= a.syn.is_some() && a.window == 0;
                s.ack(now, &a);
            }
        }
        while let Some(a) = rx.poll_ack(now) {
            acks.push_back(a);
        }
        s.drain(now, &mut net);
        while net.len() > MAX_FLIGHT {
            net.pop_front();
        }
        acks.truncate(MAX_FLIGHT);
    }
    let stats = s.sender.stats().clone();
    Some((s.seen, stats))
}

fn forge(s: &Checked, now: Instant, f: &Forged) -> Ack {
    let mss = s.sender.mss();
    let seq = |q: Seq| -> u64 {
        let step = |base: u64, k: i64, unit: u64| {
            let d = k.unsigned_abs().saturating_mul(unit);
            if k < 0 {
                base.saturating_sub(d)
            } else {
                base.saturating_add(d)
            }
        };
        match q {
            Seq::Una(k) => step(s.sender.snd_una(), i64::from(k), mss),
            Seq::Nxt(k) => step(s.sender.snd_nxt(), i64::from(k), mss),
            Seq::UnaBytes(k) => step(s.sender.snd_una(), i64::from(k), 1),
            Seq::Raw(v) => v,
        }
    };
    let sack: Vec<Range> = f
        .sack
        .iter()
        .take(4)
        .map(|&(a, b)| Range::new(seq(a), seq(b)))
        .collect();
    Ack {
        ecn: Default::default(),
        cumulative: seq(f.cumulative),
        sack: lossrec::SackBlocks::from_slice(&sack),
        ts: f.ts.map(|(val, echo)| Timestamps {
            val: u64::from(val),
            ecr: match echo {
                Echo::Ago(us) => now.as_micros().saturating_sub(u64::from(us)),
                Echo::Raw(v) => v,
            },
        }),
        window: match f.window {
            Window::Large => u64::from(u32::MAX),
            Window::Zero => 0,
            Window::Segments(n) => u64::from(n) * mss,
            Window::Raw(v) => v,
        },
        syn: f.syn.map(|o| SynOptions {
            ecn: false,
            mss: o.mss,
            sack_permitted: o.sack_permitted,
            timestamps: o.timestamps,
            window_scale: o.window_scale,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset and axis has its index, once (append a new one at the end).
    #[test]
    fn every_preset_and_axis_has_a_fuzz_index() {
        fn sorted(mut v: Vec<&str>) -> Vec<&str> {
            v.sort_unstable();
            v
        }
        let engine = lossrec::PRESETS.iter().map(|p| p.name).collect();
        assert_eq!(sorted(FUZZ_PRESETS.to_vec()), sorted(engine));
        let axes = lossrec::config::AXES.to_vec();
        assert_eq!(sorted(FUZZ_AXES.to_vec()), sorted(axes));
        assert!(FUZZ_PRESETS.len() <= PRESET_SLOTS && FUZZ_AXES.len() <= AXIS_SLOTS);
    }
}

//! A [`Sender`] wrapped with the invariants only its caller can see (the engine checks its
//! internal ones itself, `sender/invariants.rs`).

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};

use lossrec::{Ack, Config, Instant, Sender, Transmit, Why};

/// More transmissions than this from one round of `poll_transmit` is a hang: a megabyte
/// written at the smallest MSS (48 bytes, Linux `tcp_min_snd_mss`) is ~22,000 segments.
const MAX_TRANSMITS_PER_DRAIN: usize = 200_000;

/// Print every input and the sender's state after it (the `replay` example sets it).
pub static TRACE: AtomicBool = AtomicBool::new(false);

/// What a run went through, so that a regression seed's test can assert that the seed
/// still reaches what it was committed for (`tests/regression_seeds.rs`): an input whose
/// configuration or path changed passes without testing anything.
#[derive(Debug, Default)]
pub struct Seen {
    /// Recovery states the sender was in after some input (`Open`, `Recovery`, …).
    pub states: BTreeSet<String>,
    /// Why each transmission was sent (`New`, `RtoRetransmit`, …), once per kind.
    pub whys: BTreeSet<String>,
    /// A zero-window probe carrying no data was sent.
    pub empty_window_probe: bool,
    /// Why segments were sent one past the data, after the FIN (a bare FIN, a later ACK).
    pub past_the_data: BTreeSet<String>,
    /// A deadline fired again at once: the handler left it at or before the instant.
    pub deadline_refired: bool,
    /// The kinds of deadline that fired (`Rto`, `EarlyRetransmit`, …).
    pub timers: BTreeSet<String>,
    /// A forged SYN-ACK advertised a zero window.
    pub zero_window_syn_ack: bool,
}

/// The sender and what the harness remembers about it.
pub struct Checked {
    pub sender: Sender,
    /// SND.UNA after the previous input.
    una: u64,
    /// What the run went through.
    pub seen: Seen,
}

impl Checked {
    pub fn new(cfg: Config, now: Instant) -> Option<Checked> {
        let sender = Sender::new(cfg, now).ok()?;
        Some(Checked {
            una: sender.snd_una(),
            sender,
            seen: Seen::default(),
        })
    }

    pub fn ack(&mut self, now: Instant, a: &Ack) {
        self.sender.on_ack(now, a);
        self.trace(now, &format!("{a:?}"));
        self.check_una();
    }

    /// The deadline fired at `now` (on time or late). A deadline the handler leaves at or
    /// before `now` (a restored one that passed meanwhile) fires again at once, after what
    /// the sender sends; a few rounds must bring it past `now`, or a driver would spin.
    pub fn timeout(&mut self, now: Instant, net: &mut VecDeque<Transmit>) {
        for round in 0..8 {
            self.seen.deadline_refired |= round > 0;
            if let Some(kind) = self.sender.timer_kind() {
                self.seen.timers.insert(format!("{kind:?}"));
            }
            self.trace(now, &format!("timeout ({:?})", self.sender.timer_kind()));
            self.sender.on_timeout(now);
            self.check_una();
            self.drain(now, net);
            match self.sender.poll_timeout() {
                Some(t) if t <= now => continue,
                _ => return,
            }
        }
        panic!(
            "the {:?} timer keeps re-arming at or before {now} (for {:?}): a driver would spin",
            self.sender.timer_kind(),
            self.sender.poll_timeout()
        );
    }

    fn trace(&self, now: Instant, what: &str) {
        if TRACE.load(Ordering::Relaxed) {
            let s = &self.sender;
            println!(
                "{now} {what}: una {} nxt {} cwnd {} state {:?} timer {:?} at {:?}",
                s.snd_una(),
                s.snd_nxt(),
                s.cwnd(),
                s.state(),
                s.timer_kind(),
                s.poll_timeout()
            );
        }
    }

    fn check_una(&mut self) {
        let una = self.sender.snd_una();
        assert!(una >= self.una, "SND.UNA moved back: {} -> {una}", self.una);
        self.una = una;
    }

    /// Every transmission the sender wants now, appended to `net`; then the liveness check.
    pub fn drain(&mut self, now: Instant, net: &mut VecDeque<Transmit>) {
        let mut n = 0;
        while let Some(tx) = self.sender.poll_transmit(now) {
            n += 1;
            assert!(
                n <= MAX_TRANSMITS_PER_DRAIN,
                "poll_transmit did not stop ({n} segments; last {tx:?})"
            );
            self.check_transmit(&tx);
            self.see(&tx);
            self.trace(now, &format!("sent {:?} {:?}", tx.range, tx.why));
            net.push_back(tx);
        }
        while self.sender.poll_event().is_some() {}
        self.seen
            .states
            .insert(format!("{:?}", self.sender.state()));
        self.check_live();
    }

    fn see(&mut self, tx: &Transmit) {
        let s = &self.sender;
        self.seen.whys.insert(format!("{:?}", tx.why));
        self.seen.empty_window_probe |= tx.why == Why::WindowProbe && tx.range.is_empty();
        if tx.range.end > s.bytes_written() {
            self.seen.past_the_data.insert(format!("{:?}", tx.why));
        }
    }

    fn check_transmit(&self, tx: &Transmit) {
        let s = &self.sender;
        // After the FIN, segments sit one past the data: a bare FIN is [end, end + 1)
        // (Linux `tcp_send_fin`), a pure ACK starts at end + 1.
        let limit = s.bytes_written() + u64::from(s.fin_sent());
        assert!(
            tx.range.end <= limit,
            "{tx:?} beyond the {} bytes written",
            s.bytes_written()
        );
        assert!(tx.range.start <= tx.range.end, "inverted range in {tx:?}");
        // A zero-window probe carries no data (`tcp_xmit_probe_skb`: SND.UNA − 1, empty).
        let control =
            tx.syn.is_some() || tx.fin || matches!(tx.why, Why::HandshakeAck | Why::WindowProbe);
        assert!(control || !tx.range.is_empty(), "empty data segment {tx:?}");
        assert!(
            tx.range.is_empty() || tx.range.start >= s.snd_una(),
            "{tx:?} resends data below SND.UNA {}",
            s.snd_una()
        );
        assert!(
            tx.range.len() <= s.mss(),
            "{tx:?} larger than the MSS {}",
            s.mss()
        );
    }

    /// Unsent data and nothing in flight: the sender must send or have a deadline — the
    /// persist timer when the peer's window is closed (RFC 9293 §3.8.6.1) — or the
    /// connection is stuck for good.
    fn check_live(&self) {
        let s = &self.sender;
        if s.is_established() && s.snd_nxt() < s.bytes_written() && s.flight_size() == 0 {
            assert!(
                s.poll_timeout().is_some(),
                "deadlock: {} bytes unsent, window {}, nothing in flight, no deadline",
                s.bytes_written() - s.snd_nxt(),
                s.peer_window()
            );
        }
    }
}

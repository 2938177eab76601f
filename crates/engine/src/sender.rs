//! The sender: sequences the algorithm modules on every input. It is a connection shell
//! (handshake, application data, FIN, PSH/TSO sizing, the peer window and persist, the
//! pacing queue, ECN, transmit failure, the optimistic-ACK defence) around a loss-recovery
//! core (`recovery_core`: the scoreboard, the recovery state machine, the detectors, probes,
//! reducer, RTO machinery, RTT estimator and the one deadline), and has no algorithm of its
//! own — loss detection is in `detect`, rate reduction in `reduce`, estimation in `rtt`,
//! growth in `cc`, the marks in `scoreboard`.
//!
//! Recovery states follow Linux's `tcp_ca_state` (Open, Disorder, CWR, Recovery, Loss); the
//! classic rules are RFC 6675 §5 (SACK), RFC 6582 (NewReno without SACK), RFC 5681 §3 and
//! RFC 6298 §5 (timer).
//!
//! Submodules split the sender along what it does: `handshake` (set-up), `ack` (one ACK:
//! cumulative and SACK parts, DeliveredData, reordering and spurious-retransmission
//! evidence), `recovery` (loss marking, the recovery state machine, the reducer calls, the
//! timeout), `early_retransmit` (RFC 5827 and its delayed form on the deadline), `rack`
//! (RFC 8985 §6 on the sender: RACK.segment, reo_wnd, the reorder timer, RTO marks), `ecn`
//! (RFC 3168: set-up, ECT/CWR marks, the CWR state on ECN-Echo),
//! `probe` (tail loss probes: scheduling, sending, the probe's ACKs), `timers` (the one
//! deadline: which kind is armed when), `transmit` (what to send next) and `account`
//! (recording what was sent).

/// Declares a getter of an internal's state (scoreboard, reducer, TLP episode, …): public
/// with the `introspect` feature, crate-private otherwise, as `introspect_mod!` does for
/// the modules their types live in. An embedder of the façade then cannot come to depend
/// on them, while the crate itself (`info.rs`) and the glossary's links still reach them.
macro_rules! introspect_getter {
    ($(#[$attr:meta])* fn $name:ident(&$self:ident) -> $ret:ty $body:block) => {
        $(#[$attr])*
        #[cfg(feature = "introspect")]
        pub fn $name(&$self) -> $ret $body
        $(#[$attr])*
        #[cfg(not(feature = "introspect"))]
        #[allow(dead_code)] // only `introspect` users read most of them
        pub(crate) fn $name(&$self) -> $ret $body
    };
}

mod account;
mod ack;
mod cc;
mod dupacks;
mod early_retransmit;
mod ecn;
mod evidence;
mod failed;
mod frto;
mod growth;
mod handshake;
mod hystart;
mod idle;
mod invariants;
mod observe;
mod optack;
mod pacing;
mod peer;
mod pending;
mod persist;
mod probe;
mod push;
mod rack;
mod recovery;
mod recovery_core;
mod recycle;
mod reno;
mod reordering;
mod response;
mod spurious;
mod state;
mod stream;
mod timeout;
mod timers;
mod transmit;

use std::collections::VecDeque;
use std::sync::Arc;

pub use failed::{TransmitFailedError, RESOURCE_PROBE_INTERVAL};
pub use state::RecoveryState;

use crate::cc::cwnd_limited::CwndUsage;
use crate::cc::{CongestionController, Controller, Window};
use crate::config::{Algorithms, Config, ConfigError};
use crate::event::{Event, EventKind};
use crate::packet::{Ack, SynOptions, Timestamps};
use crate::stats::Stats;
use crate::time::{Duration, Instant};
use crate::timer::TimerKind;
use pending::Pending;
use recovery_core::RecoveryCore;

/// Connection set-up (RFC 9293 §3.5).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Conn {
    /// Passive open: waiting for the peer's SYN.
    Listen,
    /// Our SYN (active open) or SYN-ACK (passive open) is to be (re)sent or outstanding.
    /// `first_sent`: when the first one left, for the handshake RTT sample.
    Handshake {
        passive: bool,
        first_sent: Option<Instant>,
        retransmitted: bool,
    },
    Established,
}

/// RFC 6298 §5.7: the RTO once data flows after a SYN timed out with no RTT sample.
const RTO_AFTER_SYN_TIMEOUT: Duration = Duration::from_secs(3);
/// Events kept for `poll_event` before the oldest are dropped (a caller that never polls
/// must not make the sender grow without bound).
const EVENT_QUEUE_LIMIT: usize = 4096;

/// The sending endpoint of one connection.
#[doc = include_str!("doc/sender.md")]
#[derive(Clone, Debug)]
pub struct Sender {
    /// Shared by every connection created from the same `Arc` (a simulator's thousands
    /// of flows keep one copy).
    cfg: Arc<Config>,
    /// The axes as this connection runs them, resolved from `cfg` after negotiation.
    alg: Arc<Algorithms>,
    /// Delivery-rate estimation, for a controller that takes rate samples (`cc`).
    rate: Option<Box<cc::RateSampler>>,
    /// Linux `sk_pacing_rate` as `tcp_update_pacing_rate` last set it, bytes/s.
    pacing_rate: u64,
    /// The departure clock and the packets waiting for it (pacing on, or the controller
    /// needs it).
    pacer: Option<Box<pacing::Pacer>>,
    conn: Conn,
    /// What goes out next whatever the window says.
    pending: Pending,
    /// What taking back the last transmission restores (`failed`), once the caller
    /// allowed transmit failures.
    xmit_undo: Option<Box<failed::XmitUndo>>,
    /// Negotiated values.
    mss: u64,
    sack_ok: bool,
    ts_ok: bool,
    /// Latest TSval from the peer (RFC 7323 TS.Recent), echoed on our segments.
    ts_recent: u64,
    /// The application's stream (`stream`).
    stream: stream::AppStream,
    /// Where PSH goes (`push`): the unsent data's skbs or write ends.
    push: push::Push,
    cwnd: u64,
    ssthresh: u64,
    /// The peer's window and the persist back-off (`peer`).
    peer: peer::PeerWindow,
    /// The congestion controller (`crate::cc`).
    cc: Controller,
    /// Whether the window is in use (Linux `tcp_cwnd_validate`), for growth.
    cwnd_usage: CwndUsage,
    /// ECN agreed, and a CWR to send (`ecn`).
    ecn: ecn::EcnState,
    /// The optimistic-ACK defence (`optack_defence`), when on.
    optack: Option<Box<crate::detect::optack::SkipSegment>>,
    events: VecDeque<Event>,
    events_dropped: u64,
    stats: Stats,
    /// The loss-recovery core: scoreboard, recovery state, detectors, probes, reducer,
    /// RTO machinery, RTT estimator and the one deadline (`recovery_core`).
    core: RecoveryCore,
}

impl Sender {
    /// A sender at `now`. With the handshake on, the first `poll_transmit` yields the SYN.
    /// `config` may be a `Config` or an `Arc<Config>` shared with other connections.
    pub fn new(config: impl Into<Arc<Config>>, now: Instant) -> Result<Sender, ConfigError> {
        Sender::with_resolved(config, None, now)
    }

    /// [`Sender::new`], sharing `resolved` (from [`Config::resolve`] with the options the
    /// config offers, `config.resolve(config.sack, config.timestamps)`) when it is what
    /// `config` resolves to: a driver of many connections with one configuration resolves
    /// it once, and each connection holds a pointer instead of its own copy until its
    /// handshake agrees on something else. Anything else is resolved afresh.
    pub fn with_resolved(
        config: impl Into<Arc<Config>>,
        resolved: Option<&Arc<Algorithms>>,
        now: Instant,
    ) -> Result<Sender, ConfigError> {
        let config: Arc<Config> = config.into();
        config.validate()?;
        // Resolved with the options offered; `negotiate` resolves again with the agreed
        // ones (which can only turn SACK-dependent algorithms off, not change options).
        let own = config.resolve(config.sack, config.timestamps);
        let alg = match resolved {
            Some(shared) if **shared == own => Arc::clone(shared),
            _ => Arc::new(own),
        };
        let mss = u64::from(config.mss);
        let mut s = Sender {
            conn: Conn::Established,
            pending: Pending::Nothing,
            xmit_undo: None,
            mss,
            sack_ok: config.sack,
            ts_ok: config.timestamps,
            ts_recent: 0,
            stream: stream::AppStream::default(),
            push: push::Push::default(),
            cwnd: u64::from(config.initial_cwnd) * mss,
            ssthresh: u64::MAX,
            peer: peer::PeerWindow::new(ack::MAX_WINDOW),
            cc: Controller::for_config(&config, &alg, now),
            cwnd_usage: CwndUsage::default(),
            ecn: ecn::EcnState::new(config.ecn),
            optack: None,
            core: RecoveryCore::new(&config, &alg),
            events: VecDeque::new(),
            events_dropped: 0,
            stats: Stats::default(),
            pacing_rate: crate::pacing::UNLIMITED,
            pacer: None,
            rate: None,
            alg,
            cfg: config,
        };
        s.configure_scoreboard();
        s.optack = s.optack_state();
        let h = s.hystart_config();
        s.cc.set_hystart(h);
        s.pacer = pacing::Pacer::for_config(&s.cfg, s.cc.needs_pacing());
        s.rate = cc::RateSampler::for_controller(&s.cc);
        if s.cfg.handshake {
            s.conn = Conn::Handshake {
                passive: false,
                first_sent: None,
                retransmitted: false,
            };
            s.pending = Pending::Syn;
        } else {
            s.emit(now, s.established_event());
            s.note_detection_available();
        }
        s.core.rtt.set_granularity(s.cfg.clock_granularity);
        Ok(s)
    }

    /// A sender that waits for the peer's SYN (passive open, as after `listen`/`accept`);
    /// deliver it with [`Sender::on_syn`]. The handshake is always used.
    pub fn new_passive(config: Config, now: Instant) -> Result<Sender, ConfigError> {
        let mut s = Sender::new(
            Config {
                handshake: false,
                ..config
            },
            now,
        )?;
        Arc::make_mut(&mut s.cfg).handshake = true;
        s.events.clear();
        s.stats = Stats::default();
        s.conn = Conn::Listen;
        Ok(s)
    }

    /// The peer's SYN arrived (passive open): negotiate options and answer with a SYN-ACK.
    /// A repeated SYN (our SYN-ACK was lost) gets the SYN-ACK again; otherwise ignored.
    pub fn on_syn(&mut self, _now: Instant, syn: &SynOptions, ts: Option<Timestamps>) {
        match self.conn {
            Conn::Listen => {
                self.negotiate(syn, ts);
                self.conn = Conn::Handshake {
                    passive: true,
                    first_sent: None,
                    retransmitted: false,
                };
                self.pending = Pending::Syn;
            }
            Conn::Handshake { passive: true, .. } => self.pending = Pending::Syn,
            _ => {}
        }
        self.check_invariants();
    }

    /// The application makes `bytes` more bytes available. Ignored after `close`.
    pub fn write(&mut self, now: Instant, bytes: u64) {
        if self.stream.closed || bytes == 0 {
            return;
        }
        self.xmit_on_input();
        self.rate_on_write();
        self.idle_on_write(now);
        let written = self.stream.written;
        self.stream.written = self.stream.written.saturating_add(bytes);
        self.push_on_write(written, self.stream.written - written);
    }

    /// No more data will be written; the last segment carries FIN.
    pub fn close(&mut self, _now: Instant) {
        self.stream.closed = true;
    }

    /// Processes one ACK.
    pub fn on_ack(&mut self, now: Instant, ack: &Ack) {
        self.xmit_on_input();
        if self.optack_detected() {
            return;
        }
        self.handle_ack(now, ack);
        self.check_invariants();
    }

    /// The deadline from `poll_timeout` passed; `now` should be that deadline.
    pub fn on_timeout(&mut self, now: Instant) {
        self.xmit_on_input();
        if let Some(kind) = self.core.timer.expired(now) {
            match kind {
                TimerKind::Rto => {
                    self.optack_on_rto();
                    self.on_rto(now);
                }
                TimerKind::EarlyRetransmit => self.on_delayed_early_retransmit(now),
                TimerKind::LossProbe => self.on_loss_probe(now),
                TimerKind::ReoTimeout => self.on_reo_timeout(now),
                TimerKind::Persist => self.on_persist_timeout(now),
            }
        }
        self.check_invariants();
    }

    /// When `on_timeout` must be called next.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        if self.optack_detected() {
            return None;
        }
        match (self.core.timer.deadline(), self.pacing_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The next decision, oldest first.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    /// What the scoreboard keeps for this connection's detector: the transmit-time order
    /// only when RACK can run (it needs SACK); whole-segment SACK tagging as Linux
    /// (`tcp_match_skb_to_sack`) and RACK (RFC 8985 reasons about segments) need it.
    fn configure_scoreboard(&mut self) {
        let rack = self.alg.rack();
        self.core.sb.set_time_order(rack);
        self.core
            .sb
            .set_whole_segments(rack || self.alg.rules.whole_segment_sack_tagging);
    }

    fn established_event(&self) -> EventKind {
        EventKind::Established {
            mss: self.mss,
            sack: self.sack_ok,
            timestamps: self.ts_ok,
        }
    }

    fn emit(&mut self, at: Instant, kind: EventKind) {
        push_event(
            &mut self.events,
            &mut self.events_dropped,
            Event { at, kind },
        );
    }

    fn window(&self) -> Window {
        Window {
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            mss: self.mss,
        }
    }

    fn arm_rto(&mut self, now: Instant) {
        self.core
            .timer
            .arm(TimerKind::Rto, now, now + self.core.rtt.rto());
    }
}

fn push_event(events: &mut VecDeque<Event>, dropped: &mut u64, e: Event) {
    if events.len() >= EVENT_QUEUE_LIMIT {
        events.pop_front();
        *dropped += 1;
    }
    events.push_back(e);
}

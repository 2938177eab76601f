//! The sender: sequences the algorithm modules on every input. It holds connection state
//! (handshake, application data, windows, the recovery state machine, the deadline) and no
//! algorithm of its own — loss detection is in `detect`, rate reduction in `reduce`,
//! estimation in `rtt`, growth in `cc`, the marks in `scoreboard`.
//!
//! Recovery states follow Linux's `tcp_ca_state` (Open, Disorder, Recovery, Loss); the
//! classic rules are RFC 6675 §5 (SACK), RFC 6582 (NewReno without SACK), RFC 5681 §3 and
//! RFC 6298 §5 (timer).

mod transmit;

use std::collections::VecDeque;

use crate::cc::{Cc, CongestionOps, Window};
use crate::config::{Config, ConfigError};
use crate::detect::{dupthresh, newreno};
use crate::event::{Event, EventKind, LossDetector};
use crate::packet::{Ack, Range, SynOptions, Timestamps};
use crate::reduce::rfc6675;
use crate::rtt::Rtt;
use crate::scoreboard::Scoreboard;
use crate::stats::Stats;
use crate::time::{Duration, Instant};
use crate::timer::{Timer, TimerKind};

/// Linux's congestion states (`tcp_ca_state`), which name the recovery state machine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecoveryState {
    /// Nothing suspicious.
    Open = 0,
    /// SACKs or duplicate ACKs seen, no loss inferred yet.
    Disorder = 1,
    /// A cwnd reduction without retransmission (ECN, TLP-detected loss).
    Cwr = 2,
    /// Fast recovery.
    Recovery = 3,
    /// Recovery after a retransmission timeout.
    Loss = 4,
}

impl RecoveryState {
    pub fn name(self) -> &'static str {
        match self {
            RecoveryState::Open => "open",
            RecoveryState::Disorder => "disorder",
            RecoveryState::Cwr => "cwr",
            RecoveryState::Recovery => "recovery",
            RecoveryState::Loss => "loss",
        }
    }
}

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
#[derive(Clone, Debug)]
pub struct Sender {
    cfg: Config,
    conn: Conn,
    syn_pending: bool,
    handshake_ack_pending: bool,
    /// Negotiated values.
    mss: u64,
    sack_ok: bool,
    ts_ok: bool,
    /// Latest TSval from the peer (RFC 7323 TS.Recent), echoed on our segments.
    ts_recent: u64,
    /// Application bytes written so far; the stream is [0, app_written).
    app_written: u64,
    closed: bool,
    /// FIN sent (on the last data segment or on its own).
    fin_sent: bool,
    /// Consecutive timeouts without SND.UNA advancing (Linux `icsk_retransmits`).
    rto_retransmits: u32,
    /// Offsets where a `write` ended: the segment carrying that byte gets PSH.
    write_ends: VecDeque<u64>,
    sb: Scoreboard,
    cwnd: u64,
    ssthresh: u64,
    peer_window: u64,
    /// Window scale the peer offered on its SYN (echoed on our SYN-ACK).
    peer_window_scale: Option<u8>,
    max_window: u64,
    rtt: Rtt,
    cc: Cc,
    state: RecoveryState,
    /// RFC 6675 RecoveryPoint / RFC 6582 `recover`: HighData when recovery or the RTO began.
    recovery_point: u64,
    /// RFC 6675 DupAcks.
    dupacks: u32,
    /// A fast retransmission of the head is due (RFC 6675 §5 step 4.3 / RFC 6582 step 2, 5).
    fast_rexmit_pending: bool,
    timer: Timer,
    events: VecDeque<Event>,
    events_dropped: u64,
    stats: Stats,
}

impl Sender {
    /// A sender at `now`. With the handshake on, the first `poll_transmit` yields the SYN.
    pub fn new(config: Config, now: Instant) -> Result<Sender, ConfigError> {
        config.validate()?;
        let mss = u64::from(config.mss);
        let mut s = Sender {
            conn: Conn::Established,
            syn_pending: false,
            handshake_ack_pending: false,
            mss,
            sack_ok: config.sack,
            ts_ok: config.timestamps,
            ts_recent: 0,
            app_written: 0,
            closed: false,
            fin_sent: false,
            rto_retransmits: 0,
            write_ends: VecDeque::new(),
            sb: Scoreboard::new(),
            cwnd: u64::from(config.initial_cwnd) * mss,
            ssthresh: u64::MAX,
            peer_window: u64::from(u32::MAX),
            peer_window_scale: None,
            max_window: 0,
            rtt: Rtt::new(
                config.rtt_estimator,
                config.initial_rto,
                config.min_rto,
                config.max_rto,
            ),
            cc: Cc::new(config.cc),
            state: RecoveryState::Open,
            recovery_point: 0,
            dupacks: 0,
            fast_rexmit_pending: false,
            timer: Timer::default(),
            events: VecDeque::new(),
            events_dropped: 0,
            stats: Stats::default(),
            cfg: config,
        };
        if s.cfg.handshake {
            s.conn = Conn::Handshake {
                passive: false,
                first_sent: None,
                retransmitted: false,
            };
            s.syn_pending = true;
        } else {
            s.emit(now, s.established_event());
        }
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
        s.cfg.handshake = true;
        s.events.clear();
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
                self.syn_pending = true;
            }
            Conn::Handshake { passive: true, .. } => self.syn_pending = true,
            _ => {}
        }
        self.check_invariants();
    }

    /// The application makes `bytes` more bytes available. Ignored after `close`.
    pub fn write(&mut self, _now: Instant, bytes: u64) {
        if self.closed || bytes == 0 {
            return;
        }
        self.app_written = self.app_written.saturating_add(bytes);
        self.write_ends.push_back(self.app_written);
    }

    /// No more data will be written; the last segment carries FIN.
    pub fn close(&mut self, _now: Instant) {
        self.closed = true;
    }

    /// Processes one ACK.
    pub fn on_ack(&mut self, now: Instant, ack: &Ack) {
        self.handle_ack(now, ack);
        self.check_invariants();
    }

    /// The deadline from `poll_timeout` passed; `now` should be that deadline.
    pub fn on_timeout(&mut self, now: Instant) {
        if let Some(kind) = self.timer.expired(now) {
            match kind {
                TimerKind::Rto => self.on_rto(now),
            }
        }
        self.check_invariants();
    }

    /// When `on_timeout` must be called next.
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.timer.deadline()
    }

    /// The next decision, oldest first.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    pub fn stats(&self) -> &Stats {
        &self.stats
    }
    pub fn config(&self) -> &Config {
        &self.cfg
    }
    /// Congestion window, bytes.
    pub fn cwnd(&self) -> u64 {
        self.cwnd
    }
    /// Slow-start threshold, bytes (`u64::MAX` until the first reduction).
    pub fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
    /// RFC 6675 pipe with SACK; FlightSize without.
    pub fn pipe(&self) -> u64 {
        if self.sack_ok {
            self.sb.pipe()
        } else {
            self.sb.flight_size()
        }
    }
    pub fn flight_size(&self) -> u64 {
        self.sb.flight_size()
    }
    pub fn state(&self) -> RecoveryState {
        self.state
    }
    pub fn snd_una(&self) -> u64 {
        self.sb.snd_una()
    }
    pub fn snd_nxt(&self) -> u64 {
        self.sb.snd_nxt()
    }
    /// Negotiated MSS (bytes).
    pub fn mss(&self) -> u64 {
        self.mss
    }
    pub fn rtt(&self) -> &Rtt {
        &self.rtt
    }
    pub fn scoreboard(&self) -> &Scoreboard {
        &self.sb
    }
    /// RFC 6675 RecoveryPoint (RFC 6582 `recover`).
    pub fn recovery_point(&self) -> u64 {
        self.recovery_point
    }
    /// RFC 6675 DupAcks.
    pub fn dupacks(&self) -> u32 {
        self.dupacks
    }
    pub fn sack_enabled(&self) -> bool {
        self.sack_ok
    }
    pub fn timestamps_enabled(&self) -> bool {
        self.ts_ok
    }
    /// What the single deadline is armed for.
    pub fn timer_kind(&self) -> Option<TimerKind> {
        self.timer.kind()
    }
    pub fn is_established(&self) -> bool {
        self.conn == Conn::Established
    }
    /// Bytes written by the application so far.
    pub fn bytes_written(&self) -> u64 {
        self.app_written
    }
    /// `close` was called and every byte is acknowledged.
    pub fn is_finished(&self) -> bool {
        self.closed && self.is_established() && self.sb.snd_una() == self.app_written
    }
    /// Consecutive timeouts since SND.UNA last advanced (Linux `icsk_retransmits`).
    pub fn rto_retransmits(&self) -> u32 {
        self.rto_retransmits
    }
    /// Events dropped because nobody polled them.
    pub fn events_dropped(&self) -> u64 {
        self.events_dropped
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

    /// Options agreed with the peer's SYN or SYN-ACK.
    fn negotiate(&mut self, peer: &SynOptions, ts: Option<Timestamps>) {
        // RFC 9293 §3.7.1: send no segment larger than the peer's MSS (536 if absent).
        let peer_mss = if peer.mss == 0 {
            536
        } else {
            u64::from(peer.mss)
        };
        self.mss = u64::from(self.cfg.mss).min(peer_mss).max(1);
        self.sack_ok = self.cfg.sack && peer.sack_permitted;
        self.ts_ok = self.cfg.timestamps && peer.timestamps && ts.is_some();
        self.peer_window_scale = peer.window_scale;
        if let Some(ts) = ts {
            self.ts_recent = ts.val;
        }
    }

    /// Completes the handshake on the SYN-ACK (active open) or on the ACK of our SYN-ACK
    /// (passive open).
    fn on_handshake_ack(&mut self, now: Instant, ack: &Ack) {
        let Conn::Handshake {
            passive,
            first_sent,
            retransmitted,
        } = self.conn
        else {
            return;
        };
        let Some(first_sent) = first_sent else { return }; // nothing of ours was sent yet
        if passive {
            if ack.syn.is_some() || ack.cumulative != 0 {
                return; // only the ACK of our SYN-ACK completes a passive open
            }
            if let Some(ts) = ack.ts {
                self.ts_recent = ts.val;
            }
        } else {
            let Some(peer) = ack.syn else { return };
            self.negotiate(&peer, ack.ts);
            self.handshake_ack_pending = true;
        }
        self.peer_window = ack.window;
        self.max_window = ack.window;
        self.rtt.reset_backoff();
        // Seed SRTT from the handshake as Linux does (`tcp_synack_rtt_meas`): from the first
        // SYN's send time unless it was retransmitted (Karn), else from the timestamp echo.
        let sample = if !retransmitted {
            Some(now - first_sent)
        } else {
            self.ts_sample(now, ack)
        };
        match sample {
            Some(r) => self.rtt.on_sample(now, r, 0, 0),
            // RFC 6298 §5.7.
            None => self
                .rtt
                .set_base_rto(RTO_AFTER_SYN_TIMEOUT.max(self.cfg.min_rto)),
        }
        // RFC 5681 §3.1: a lost SYN or SYN-ACK leaves an initial window of one segment.
        self.cwnd = if retransmitted {
            self.mss
        } else {
            u64::from(self.cfg.initial_cwnd) * self.mss
        };
        self.conn = Conn::Established;
        self.syn_pending = false;
        self.timer.stop();
        self.emit(now, self.established_event());
    }

    /// An RTT sample from the timestamp echo (RFC 7323 §4.1), if any.
    fn ts_sample(&self, now: Instant, ack: &Ack) -> Option<Duration> {
        let ecr = ack.ts?.ecr;
        let clock = transmit::ts_clock(now);
        (self.ts_ok && ecr != 0 && ecr <= clock).then(|| Duration::from_micros(clock - ecr))
    }

    fn handle_ack(&mut self, now: Instant, ack: &Ack) {
        if !self.is_established() {
            self.on_handshake_ack(now, ack);
            return;
        }
        if ack.syn.is_some() {
            // A retransmitted SYN-ACK: our handshake ACK was lost; send it again.
            self.handshake_ack_pending = true;
            return;
        }
        // The FIN takes one sequence number after the last byte: its ACK covers the data.
        let cumulative = if self.fin_sent && ack.cumulative == self.app_written + 1 {
            self.app_written
        } else {
            ack.cumulative
        };
        let ack = &Ack { cumulative, ..*ack };
        if ack.cumulative > self.sb.snd_nxt() {
            // RFC 9293 §3.10.7.4: an ACK for data not yet sent is dropped.
            self.stats.ack_beyond_snd_nxt += 1;
            return;
        }
        if self.ts_ok {
            if let Some(ts) = ack.ts {
                self.ts_recent = self.ts_recent.max(ts.val);
            }
        }
        let prior_una = self.sb.snd_una();
        let prior_window = self.peer_window;
        let prior_flight = self.sb.flight_size();
        self.peer_window = ack.window;
        self.max_window = self.max_window.max(ack.window);

        if self.sack_ok {
            if let Some(d) = ack.dsack() {
                self.on_dsack(now, d);
            }
        }

        // Cumulative part.
        let acked = self.sb.ack_cumulative(ack.cumulative);
        if acked.bytes > 0 {
            let sample = if self.ts_ok {
                self.ts_sample(now, ack)
            } else {
                acked.rtt_sample_sent.map(|sent| now - sent)
            };
            if let Some(r) = sample {
                self.rtt
                    .on_sample(now, r, self.sb.snd_una(), self.sb.snd_nxt());
            }
            self.dupacks = 0; // RFC 6675 §5 (2)
            self.rto_retransmits = 0;
        }

        // SACK part.
        let mut newly_sacked = 0;
        if self.sack_ok {
            for b in ack.sack_blocks() {
                match self.sb.sack(*b) {
                    Some(n) => newly_sacked += n,
                    None => self.stats.sack_discard += 1,
                }
            }
            self.sb.set_sack_cache(ack.sack_blocks());
            self.stats.sack_splits = self.sb.splits();
        }

        let is_dup = if self.sack_ok {
            dupthresh::is_dupack_sack(newly_sacked)
        } else {
            dupthresh::is_dupack_nosack(
                ack.cumulative,
                prior_una,
                prior_flight,
                ack.window,
                prior_window,
            )
        };
        if is_dup {
            self.dupacks = self.dupacks.saturating_add(1);
        }

        match self.state {
            RecoveryState::Open | RecoveryState::Disorder | RecoveryState::Cwr => {
                self.mark_lost_by_sack(now);
                let head_lost = self.sack_ok && self.sb.head_lost();
                if self.sb.flight_size() > 0
                    && dupthresh::should_enter_recovery(self.dupacks, self.cfg.dupthresh, head_lost)
                {
                    self.enter_recovery(now);
                } else {
                    if acked.bytes > 0 {
                        self.grow_cwnd(now, acked.bytes, prior_flight);
                    }
                    self.state = if self.sb.sacked_bytes() > 0 || self.dupacks > 0 {
                        RecoveryState::Disorder
                    } else {
                        RecoveryState::Open
                    };
                }
            }
            RecoveryState::Recovery => {
                if self.sb.snd_una() >= self.recovery_point {
                    self.exit_recovery(now);
                } else if self.sack_ok {
                    self.mark_lost_by_sack(now);
                } else if acked.bytes > 0 {
                    // RFC 6582 §3.2 step 5: a partial ACK.
                    self.cwnd = newreno::deflate_on_partial_ack(self.cwnd, acked.bytes, self.mss);
                    self.fast_rexmit_pending = true;
                    self.emit(
                        now,
                        EventKind::PartialAck {
                            snd_una: self.sb.snd_una(),
                            cwnd: self.cwnd,
                        },
                    );
                } else if is_dup {
                    self.cwnd = newreno::inflate(self.cwnd, self.mss);
                }
            }
            RecoveryState::Loss => {
                if acked.bytes > 0 {
                    self.grow_cwnd(now, acked.bytes, prior_flight);
                }
                if self.sb.snd_una() >= self.recovery_point {
                    self.state = RecoveryState::Open;
                    self.emit(
                        now,
                        EventKind::ExitLoss {
                            snd_una: self.sb.snd_una(),
                            cwnd: self.cwnd,
                        },
                    );
                }
            }
        }

        // RFC 6298 §5.2, §5.3.
        if self.sb.flight_size() == 0 {
            self.timer.stop();
        } else if acked.bytes > 0 || !self.timer.is_armed() {
            self.arm_rto(now);
        }
    }

    fn on_dsack(&mut self, now: Instant, d: Range) {
        self.stats.dsack_recv += 1;
        // Linux `tcp_check_dsack`: a DSACK longer than the largest window, or more DSACKs
        // than retransmissions, is dubious and ignored.
        let dubious = d.len() > self.max_window.max(self.mss)
            || self.stats.dsack_recv > self.stats.retrans_segs;
        if dubious {
            self.stats.dsack_ignored_dubious += 1;
        }
        self.emit(
            now,
            EventKind::Dsack {
                start: d.start,
                end: d.end,
                dubious,
            },
        );
    }

    fn mark_lost_by_sack(&mut self, now: Instant) {
        if !self.sack_ok {
            return;
        }
        let (dupthresh, mss) = (self.cfg.dupthresh, self.mss);
        let (sb, events, dropped) = (&mut self.sb, &mut self.events, &mut self.events_dropped);
        sb.update_lost(dupthresh, mss, |r| {
            let kind = EventKind::MarkLost {
                start: r.start,
                end: r.end,
                by: LossDetector::DupThresh,
            };
            push_event(events, dropped, Event { at: now, kind });
        });
    }

    fn grow_cwnd(&mut self, now: Instant, acked: u64, prior_flight: u64) {
        // Grow only when the window was in use (RFC 7661's spirit; Linux
        // `tcp_is_cwnd_limited`), so an application-limited sender does not inflate cwnd.
        if prior_flight.saturating_mul(2) < self.cwnd {
            return;
        }
        let mut w = self.window();
        self.cc.on_ack(now, &mut w, acked, self.rtt.srtt());
        self.cwnd = w.cwnd.max(self.mss);
    }

    /// RFC 6675 §5 step 4 / RFC 6582 §3.2 step 2.
    fn enter_recovery(&mut self, now: Instant) {
        let flight = self.sb.flight_size();
        self.ssthresh = self
            .cc
            .ssthresh(now, &self.window(), flight)
            .max(2 * self.mss);
        self.recovery_point = self.sb.snd_nxt();
        self.cwnd = if self.sack_ok {
            rfc6675::entry_cwnd(self.ssthresh)
        } else {
            newreno::entry_cwnd(self.ssthresh, self.mss)
        };
        self.state = RecoveryState::Recovery;
        self.sb.start_recovery_episode();
        if self.sack_ok {
            self.sb.mark_head_lost();
            self.stats.sack_recovery += 1;
        } else {
            self.stats.reno_recovery += 1;
        }
        self.fast_rexmit_pending = true;
        let kind = EventKind::EnterRecovery {
            recovery_point: self.recovery_point,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
            pipe: self.pipe(),
        };
        self.emit(now, kind);
    }

    fn exit_recovery(&mut self, now: Instant) {
        if !self.sack_ok {
            self.cwnd = newreno::exit_cwnd(self.ssthresh, self.sb.flight_size(), self.mss);
        }
        self.cwnd = self.cwnd.max(self.mss);
        self.state = RecoveryState::Open;
        self.dupacks = 0;
        self.fast_rexmit_pending = false;
        self.emit(
            now,
            EventKind::ExitRecovery {
                snd_una: self.sb.snd_una(),
                cwnd: self.cwnd,
            },
        );
        // Remaining SACK marks keep the connection in Disorder until acknowledged.
        if self.sb.sacked_bytes() > 0 {
            self.state = RecoveryState::Disorder;
        }
    }

    /// RFC 6298 §5.4-5.6 with RFC 5681 §3.1 and RFC 6675 §5.1.
    fn on_rto(&mut self, now: Instant) {
        if let Conn::Handshake { retransmitted, .. } = &mut self.conn {
            *retransmitted = true;
            self.rtt.backoff();
            self.syn_pending = true;
            self.stats.syn_retrans += 1;
            self.emit(
                now,
                EventKind::SynTimeout {
                    backoff: self.rtt.backoff_count(),
                },
            );
            self.timer.arm(TimerKind::Rto, now + self.rtt.rto());
            return;
        }
        if self.sb.flight_size() == 0 {
            self.timer.stop();
            return;
        }
        self.stats.timeouts += 1;
        self.rto_retransmits = self.rto_retransmits.saturating_add(1);
        if self.state == RecoveryState::Recovery {
            self.stats.recovery_fail += 1;
        }
        // RFC 5681 §3.1: ssthresh is held when the timer fires again for the same data.
        if self.rtt.backoff_count() == 0 || self.state != RecoveryState::Loss {
            let flight = self.sb.flight_size();
            self.ssthresh = self
                .cc
                .ssthresh(now, &self.window(), flight)
                .max(2 * self.mss);
        }
        self.cwnd = self.mss; // loss window (RFC 5681 §3.1)
        self.cc.on_timeout(now);
        self.sb.mark_all_lost();
        self.state = RecoveryState::Loss;
        self.recovery_point = self.sb.snd_nxt();
        self.dupacks = 0;
        self.fast_rexmit_pending = false;
        self.rtt.backoff();
        self.timer.arm(TimerKind::Rto, now + self.rtt.rto());
        let kind = EventKind::Rto {
            snd_una: self.sb.snd_una(),
            backoff: self.rtt.backoff_count(),
            rto_us: self.rtt.rto().as_micros() as u64,
            cwnd: self.cwnd,
            ssthresh: self.ssthresh,
        };
        self.emit(now, kind);
    }

    fn arm_rto(&mut self, now: Instant) {
        self.timer.arm(TimerKind::Rto, now + self.rtt.rto());
    }

    /// DESIGN.md's debug invariants, checked at the end of every handler.
    fn check_invariants(&self) {
        if cfg!(debug_assertions) {
            assert!(self.sb.snd_una() <= self.sb.snd_nxt());
            assert!(self.sb.snd_nxt() <= self.app_written);
            self.sb.check();
            assert!(
                self.cwnd >= self.mss,
                "cwnd {} below one MSS {}",
                self.cwnd,
                self.mss
            );
            if self.sb.flight_size() > 0
                || matches!(
                    self.conn,
                    Conn::Handshake {
                        first_sent: Some(_),
                        ..
                    }
                )
            {
                assert!(
                    self.timer.is_armed(),
                    "data outstanding but no deadline armed"
                );
            }
        }
    }
}

fn push_event(events: &mut VecDeque<Event>, dropped: &mut u64, e: Event) {
    if events.len() >= EVENT_QUEUE_LIMIT {
        events.pop_front();
        *dropped += 1;
    }
    events.push_back(e);
}

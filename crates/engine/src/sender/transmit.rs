//! Choosing the next segment to send: the handshake packets, fast recovery (the head's fast
//! retransmission, then RFC 6675 §5 step (C) with NextSeg, as much as the reducer's quota
//! allows; new data only without SACK), the slow-start repair after a timeout (RFC 6675
//! §5.1), and new data under cwnd with limited transmit (RFC 3042).

use super::pending::Pending;
use super::{Conn, RecoveryState, Sender};
use crate::cc::CongestionController;
use crate::detect::dupthresh;
use crate::packet::{Range, SynOptions, Timestamps, Transmit, Why};
use crate::scoreboard::{NextSegRule, SentSeg};
use crate::time::Instant;
use crate::timer::TimerKind;

/// Window scale the sender offers: Linux's for packetdrill's receive buffer (`tcp_rmem`
/// max 15 MB, `tcp_select_initial_window`: the smallest shift with 65535 << shift ≥ it).
const WINDOW_SCALE: u8 = 8;

/// Our timestamp clock: microseconds of `now`, plus one so that 0 never appears as a
/// TSval (an echo of 0 then always means "no echo").
pub(crate) fn ts_clock(now: Instant) -> u64 {
    now.as_micros() + 1
}

impl Sender {
    /// The next segment to send now, if any; call until `None` after every input.
    /// A transmission that could not leave the host is reported with `transmit_failed`.
    #[must_use = "a transmission not put on the wire is lost: drain poll_transmit after every input"]
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit> {
        if self.xmit_blocked() || self.optack_detected() {
            return None;
        }
        if self.pacer.is_some() && self.is_established() {
            return self.poll_paced(now);
        }
        self.transmit_at(now, now)
    }

    /// The next transmission decided at `now` and stamped `at`, its departure time
    /// (later than `now` only when a pacing qdisc will hold it): the scoreboard, RTT
    /// samples, RACK and the timestamp option see `at`, as Linux's `skb_mstamp_ns`.
    pub(super) fn transmit_at(&mut self, now: Instant, at: Instant) -> Option<Transmit> {
        self.xmit_snapshot();
        let idle = self.core.sb.flight_size() == 0;
        self.rate_before_send(at, idle);
        let t = self.next_transmit(at);
        match &t {
            Some((t, forced)) => {
                self.account_transmit(now, t, *forced);
                if !t.range.is_empty() {
                    self.cc_on_sent(at, t);
                }
            }
            None => self.persist_check(now),
        }
        self.check_invariants();
        let t = t.map(|(t, _)| t);
        self.xmit_polled(t);
        t
    }

    /// The next transmission and whether it is forced (out regardless of the reducer's
    /// quota: a probe or the head's retransmission).
    fn next_transmit(&mut self, now: Instant) -> Option<(Transmit, bool)> {
        if matches!(self.conn, Conn::Handshake { .. }) {
            return self.syn_transmit(now).map(|t| (t, false));
        }
        if self.conn == Conn::Listen {
            return None;
        }
        // A held segment and the ones sent ahead of it finish their burst (`optack`).
        if let Some(t) = self.optack_transmit(now) {
            return Some((t, false));
        }
        match core::mem::take(&mut self.pending) {
            Pending::HandshakeAck => {
                let at = self.core.sb.snd_nxt();
                let t = self.segment(now, Range::new(at, at), Why::HandshakeAck, false, false);
                return Some((t, false));
            }
            Pending::Probe(kind) => {
                if let Some(t) = self.probe_transmit(now, kind) {
                    return Some((t, true));
                }
            }
            Pending::Head(why) => {
                if let Some(t) = self.head_retransmit(now, why) {
                    return Some((t, true));
                }
            }
            Pending::WindowProbe => return self.window_probe_transmit(now).map(|t| (t, true)),
            // Waits for the loss recovery below (F-RTO step 2b).
            p @ Pending::FrtoNew(_) => self.pending = p,
            Pending::Syn | Pending::Nothing => {}
        }
        let t = match self.state() {
            RecoveryState::Recovery => self.next_in_recovery(now),
            RecoveryState::Loss => return self.next_in_loss(now).map(|t| (t, false)),
            // PRR's quota in a CWR episode (Linux: cwnd = in_flight + sndcnt).
            RecoveryState::Cwr if self.core.reducer.prr().is_some() && !self.cc.sets_cwnd() => {
                let room = self.core.reducer.prr().map_or(0, |p| p.quota());
                self.new_data(now, room, Why::New)
            }
            RecoveryState::Open | RecoveryState::Disorder | RecoveryState::Cwr => {
                self.next_in_open(now)
            }
        };
        t.map(|t| (t, false))
    }

    /// RTO recovery: F-RTO's new data first (RFC 5682 step 2b: no further retransmission
    /// until it decides), then the slow-start repair (RFC 6675 §5.1). Every un-SACKed
    /// segment was marked lost at the timeout (RACK: only the head and what had timed
    /// out), so the scoreboard's pipe counts only what was resent since and what is still
    /// in flight — with or without SACK (go-back-N without it).
    fn next_in_loss(&mut self, now: Instant) -> Option<Transmit> {
        if let Some(t) = self.frto_transmit(now) {
            return t;
        }
        let room = self.cwnd.saturating_sub(self.core.sb.pipe());
        if let Some(seg) = self.core.sb.next_lost() {
            return (seg.len() <= room).then(|| self.retransmit(now, seg, Why::RtoRetransmit));
        }
        self.new_data(now, room, Why::New)
    }

    /// Outside recovery the window limits FlightSize (RFC 5681 §3.1; pipe governs only
    /// during loss recovery, RFC 6675 §5), and the first two duplicate ACKs may each
    /// release one more segment (RFC 3042).
    fn next_in_open(&mut self, now: Instant) -> Option<Transmit> {
        let room = self.cwnd.saturating_sub(self.core.sb.flight_size());
        if let Some(t) = self.new_data(now, room, Why::New) {
            return Some(self.optack_on_new(now, t));
        }
        if self.alg.rules.sacked_leave_flight && self.sack_ok {
            // Linux `tcp_cwnd_test`: what SACKs took out of the flight may go, in any
            // state (`tcp_packets_in_flight`); no separate RFC 3042 allowance.
            let room = self.cwnd.saturating_sub(self.core.sb.pipe());
            if self.alg.rules.tso_defers_small_sends && self.tso_defers(now, room) {
                return None;
            }
            return self.new_data(now, room, Why::LimitedTransmit);
        }
        let extra =
            dupthresh::limited_transmit_allowance(self.core.dup.count, self.reordering(), self.mss);
        if extra > 0 && self.alg.limited_transmit {
            let room = (self.cwnd + extra).saturating_sub(self.core.sb.flight_size());
            return self.new_data(now, room, Why::LimitedTransmit);
        }
        None
    }

    /// The head's forced retransmission: after a timeout the head if it still awaits one
    /// (RFC 6298 §5.4); in fast recovery the head — with RACK the first segment it marked
    /// lost (Linux `fast_rexmit`, RFC 9937 §6.3's forced retransmission). A head whose
    /// retransmission is still in flight (one recovery following another) is not forced
    /// out again: like Linux's `tcp_xmit_retransmit_queue`, the first lost segment not yet
    /// retransmitted goes instead.
    fn head_retransmit(&mut self, now: Instant, why: Why) -> Option<Transmit> {
        if why == Why::RtoRetransmit {
            let head = self.core.sb.head().copied()?;
            return (head.lost && !head.retrans && !head.sacked)
                .then(|| self.retransmit(now, head, why));
        }
        if self.state() != RecoveryState::Recovery {
            return None;
        }
        let head = self
            .core
            .sb
            .head()
            .copied()
            .filter(|h| !h.sacked && !h.retrans);
        let first = if self.rack_active() {
            self.core.sb.next_lost()
        } else {
            head.or_else(|| self.core.sb.next_lost())
        }?;
        let t = self.retransmit(now, first, why);
        // RFC 6675 §5 step (4.3): HighRxt and RescueRxt both become the last octet
        // retransmitted, "to prevent … a premature rescue retransmission".
        if self.alg.rescue_retransmit {
            self.core.sb.rescue_rxt = Some(first.end - 1);
        }
        Some(t)
    }

    /// Our SYN (active open) or SYN-ACK (passive open), if one is due.
    fn syn_transmit(&mut self, now: Instant) -> Option<Transmit> {
        if let Conn::Handshake {
            passive,
            first_sent,
            retransmitted,
        } = &mut self.conn
        {
            if self.pending != Pending::Syn {
                return None;
            }
            let (passive, retransmitted) = (*passive, *retransmitted);
            self.pending = Pending::Nothing;
            first_sent.get_or_insert(now);
            self.core
                .timer
                .arm(TimerKind::Rto, now, now + self.core.rtt.rto());
            // Active open offers what is configured; a SYN-ACK states what was agreed.
            let marks = self.ecn_syn_marks(passive, retransmitted);
            let syn = if passive {
                SynOptions {
                    mss: self.advertised_mss(),
                    sack_permitted: self.sack_ok,
                    timestamps: self.ts_ok,
                    window_scale: self.peer.scale.map(|_| WINDOW_SCALE),
                    ecn: marks.ece,
                }
            } else {
                SynOptions {
                    mss: self.advertised_mss(),
                    sack_permitted: self.alg.shell.offer_sack,
                    timestamps: self.alg.shell.offer_timestamps,
                    window_scale: Some(WINDOW_SCALE),
                    ecn: marks.ece,
                }
            };
            let ts = if passive {
                self.ts_ok
            } else {
                self.alg.shell.offer_timestamps
            }
            .then(|| Timestamps {
                val: ts_clock(now),
                ecr: self.ts_recent,
            });
            let syn = Transmit {
                range: Range::new(0, 0),
                why: if passive { Why::SynAck } else { Why::Syn },
                syn: Some(syn),
                fin: false,
                psh: false,
                ts,
                ecn: marks,
            };
            return Some(syn);
        }
        None
    }

    fn next_in_recovery(&mut self, now: Instant) -> Option<Transmit> {
        let rack = self.rack_active();
        // A controller that sets cwnd itself rules recovery too (`tcp_cwnd_test`); PRR
        // only counts.
        let room = if self.cc.sets_cwnd() {
            self.cwnd.saturating_sub(self.recovery_pipe())
        } else {
            self.core.reducer.quota(
                self.cwnd,
                self.recovery_pipe(),
                self.core.sb.flight_size(),
                self.mss,
            )
        };
        if room == 0 {
            return None;
        }
        if !self.sack_ok {
            // RFC 6582 §3.2 steps 3-4: new data as the window allows.
            return self.new_data(now, room, Why::New);
        }
        // RFC 6675 §5 step (C): NextSeg while the quota lasts.
        let why = if rack {
            Why::RackRetransmit
        } else {
            Why::FastRetransmit
        };
        if let Some(seg) = self.core.sb.next_lost() {
            return (seg.len() <= room).then(|| self.retransmit(now, seg, why));
        }
        if let Some(t) = self.new_data(now, room, Why::New) {
            return Some(t);
        }
        if rack {
            // RFC 8985 §9.2: RACK decides what is lost; NextSeg's rules 3 and 4 (which
            // resend what is merely un-SACKed) do not apply.
            return None;
        }
        let rescue_ok = self.alg.rescue_retransmit;
        match self
            .core
            .sb
            .next_seg_fallback_with(self.core.ca.recovery_point()?, rescue_ok)
        {
            Some((seg, _)) if seg.len() > room => None,
            Some((seg, NextSegRule::Rescue)) => {
                let seg = self.core.sb.on_rescue_retransmit(now, seg.start)?;
                Some(self.segment(now, seg.range(), Why::Rescue, seg.psh, seg.fin))
            }
            Some((seg, _)) => Some(self.retransmit(now, seg, Why::FastRetransmit)),
            None => None,
        }
    }

    pub(super) fn retransmit(&mut self, now: Instant, seg: SentSeg, why: Why) -> Transmit {
        let room = self.retransmit_room();
        let psh = self.push_on_retransmit(now, &seg, room);
        self.core.sb.on_retransmit(now, seg.start);
        // Retransmitting the head in loss recovery restarts the RTO from now (Linux
        // tcp_xmit_retransmit_queue): an RTO anchored to the head's first transmission —
        // as it is after replacing a PTO (RFC 8985 §7.3, digest §2.3) — would otherwise
        // fire right after the repair was sent.
        let recovery_rexmit = matches!(
            why,
            Why::FastRetransmit | Why::RackRetransmit | Why::EarlyRetransmit
        );
        if recovery_rexmit
            && seg.start == self.core.sb.snd_una()
            && self.core.timer.kind() == Some(TimerKind::Rto)
        {
            self.core
                .timer
                .arm(TimerKind::Rto, now, now + self.core.rtt.rto());
        }
        // FIN stays with the bytes it was sent with (Linux retransmits the skb); PSH as
        // `push` places it.
        self.segment(now, seg.range(), why, psh, seg.fin)
    }

    /// A new segment of at most one MSS, if data, the receive window and `room` allow.
    pub(super) fn new_data(&mut self, now: Instant, room: u64, why: Why) -> Option<Transmit> {
        let start = self.core.sb.snd_nxt();
        let rwnd_room = (self.core.sb.snd_una() + self.peer.window).saturating_sub(start);
        if start >= self.stream.written {
            return self.bare_fin(now, start, room.min(rwnd_room), why);
        }
        let avail = self.stream.written - start;
        let len = self.mss.min(avail).min(rwnd_room);
        if len == 0 || len > room {
            if len > 0 && why == Why::New {
                self.note_window_use(true);
            }
            return None;
        }
        // Sender silly-window avoidance (RFC 9293 §3.8.6.2.1, Linux tcp_snd_wnd_test): do
        // not cut a short segment only because the peer's window ends there, unless
        // nothing is in flight (then the short segment doubles as a window probe).
        if len < self.mss.min(avail) && self.core.sb.flight_size() > 0 {
            return None;
        }
        let end = start + len;
        // PSH as `push` places it; the scoreboard keeps the mark for retransmissions.
        let psh = self.push_on_send(now, start, end, room);
        let fin = self.stream.closed && end == self.stream.written;
        self.stream.fin_sent |= fin;
        self.core
            .sb
            .on_send_new(now, Range::new(start, end), psh.mark, fin);
        if !psh.ends_packet {
            self.core.sb.continue_packet();
        }
        self.note_window_use(self.core.sb.flight_size() >= self.cwnd);
        Some(self.segment(now, Range::new(start, end), why, psh.wire, fin))
    }

    /// Linux `tcp_cwnd_validate` after new data went out or cwnd stopped it.
    fn note_window_use(&mut self, cwnd_limited: bool) {
        let (una, nxt, flight) = (
            self.core.sb.snd_una(),
            self.core.sb.snd_nxt(),
            self.core.sb.flight_size(),
        );
        self.cwnd_usage.on_send(una, nxt, flight, cwnd_limited);
    }

    /// A FIN on its own when `close` came after the last byte was sent (RFC 9293 §3.10.4).
    /// Like Linux's bare FIN skb (`tcp_send_fin`: `end_seq = seq + 1`, queued and pushed
    /// through `tcp_write_xmit`), it takes sequence number `at` on the scoreboard and goes
    /// only when cwnd and the peer's window leave room for it (`tcp_cwnd_test` has had no
    /// FIN exception since Linux 6.10; `tcp_snd_wnd_test`): from then on it is outstanding
    /// data to the timers, the probe and loss detection, done when an ACK covers `at + 1`.
    fn bare_fin(&mut self, now: Instant, at: u64, room: u64, why: Why) -> Option<Transmit> {
        if !self.stream.closed || self.stream.fin_sent || room == 0 {
            return None;
        }
        self.stream.fin_sent = true;
        self.core
            .sb
            .on_send_new(now, Range::new(at, at + 1), false, true);
        self.note_window_use(self.core.sb.flight_size() >= self.cwnd);
        Some(self.segment(now, Range::new(at, at + 1), why, false, true))
    }

    /// The bare FIN is on the scoreboard: SND.NXT lies one past the last byte.
    pub(super) fn fin_on_scoreboard(&self) -> bool {
        self.core.sb.snd_nxt() > self.stream.written
    }
}

//! What a caller, a trace or a test can look at: windows, the scoreboard, the estimators,
//! which algorithms are active on this connection, and their state.

use super::{Conn, RecoveryState, Sender};
use crate::config::resolved::{Detection, DupThreshRule, Probing};
use crate::config::{Algorithms, Config};
use crate::detect::rack::Rack;
use crate::probe::{tlp, tlp_draft};
use crate::reduce::Reducer;
use crate::rtt::Rtt;
use crate::scoreboard::Scoreboard;
use crate::stats::Stats;
use crate::timer::TimerKind;

impl Sender {
    /// The connection's counters (named as Linux's MIB counters where one exists).
    pub fn stats(&self) -> &Stats {
        &self.stats
    }
    /// The configuration this sender was built with, as the user set it.
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
    /// The pacing rate, bytes per second (Linux `sk_pacing_rate`, `tcpi_pacing_rate`):
    /// the controller's if it sets one, else `tcp_update_pacing_rate`'s as of the last ACK
    /// (`u64::MAX` before).
    pub fn pacing_rate(&self) -> u64 {
        self.sk_pacing_rate()
    }
    /// RFC 6675 pipe with SACK; FlightSize without.
    pub fn pipe(&self) -> u64 {
        if self.sack_ok {
            self.core.sb.pipe()
        } else {
            self.core.sb.flight_size()
        }
    }
    /// RFC 5681 FlightSize, bytes: SND.NXT − SND.UNA, SACKed and lost bytes included.
    pub fn flight_size(&self) -> u64 {
        self.core.sb.flight_size()
    }
    /// The recovery state (Linux `icsk_ca_state`).
    pub fn state(&self) -> RecoveryState {
        self.core.ca.name()
    }
    /// SND.UNA as a data offset (a bare FIN's sequence number is not counted: see
    /// [`Sender::fin_acked`]; the scoreboard has it).
    pub fn snd_una(&self) -> u64 {
        self.core.sb.snd_una().min(self.stream.written)
    }
    /// SND.NXT as a data offset (without a bare FIN's sequence number).
    pub fn snd_nxt(&self) -> u64 {
        self.core.sb.snd_nxt().min(self.stream.written)
    }
    /// Our FIN was sent: it takes the sequence number after the last byte, so segments
    /// (a bare FIN, a later pure ACK) may reach `bytes_written() + 1`.
    pub fn fin_sent(&self) -> bool {
        self.stream.fin_sent
    }
    /// Our FIN was sent and acknowledged (on its own: an ACK of `end + 1`; on the last
    /// data segment: with the data).
    pub fn fin_acked(&self) -> bool {
        self.stream.fin_sent
            && self.core.sb.snd_una() == self.core.sb.snd_nxt()
            && self.snd_una() == self.stream.written
    }
    /// The peer's receive window (SND.WND, bytes, scaled) as last accepted.
    pub fn peer_window(&self) -> u64 {
        self.peer.window
    }
    /// Negotiated MSS (bytes).
    pub fn mss(&self) -> u64 {
        self.mss
    }
    introspect_getter! {
        /// The RTT estimator (RFC 6298 SRTT, RTTVAR, RTO; min RTT).
        fn rtt(&self) -> &Rtt {
            &self.core.rtt
        }
    }
    introspect_getter! {
        /// The scoreboard of sent segments (RFC 6675 §3: SACKed, lost, retransmitted).
        fn scoreboard(&self) -> &Scoreboard {
            &self.core.sb
        }
    }
    /// RFC 6675 RecoveryPoint (RFC 6582 `recover`, Linux `high_seq`) of the fast or RTO
    /// recovery in progress.
    pub fn recovery_point(&self) -> Option<u64> {
        self.core.ca.recovery_point()
    }
    /// RFC 6675 DupAcks.
    pub fn dupacks(&self) -> u32 {
        self.core.dup.count
    }
    /// SACK was agreed in the handshake (RFC 2018 §2: both sent SACK-permitted).
    pub fn sack_enabled(&self) -> bool {
        self.sack_ok
    }
    /// Timestamps were agreed in the handshake (RFC 7323 §3.2: both sent TSopt).
    pub fn timestamps_enabled(&self) -> bool {
        self.ts_ok
    }
    /// ECN agreed for this connection (RFC 3168 §6.1.1).
    pub fn ecn_enabled(&self) -> bool {
        self.ecn.ok
    }
    introspect_getter! {
        /// What the single deadline is armed for.
        fn timer_kind(&self) -> Option<TimerKind> {
            self.core.timer.kind()
        }
    }
    /// The three-way handshake has completed (RFC 9293 §3.5).
    pub fn is_established(&self) -> bool {
        self.conn == Conn::Established
    }
    /// Bytes written by the application so far.
    pub fn bytes_written(&self) -> u64 {
        self.stream.written
    }
    /// `close` was called and every byte and the FIN are acknowledged.
    pub fn is_finished(&self) -> bool {
        self.stream.closed && self.is_established() && self.fin_acked()
    }
    /// Consecutive timeouts since SND.UNA last advanced (Linux `icsk_retransmits`).
    pub fn rto_retransmits(&self) -> u32 {
        self.core.rto_retransmits
    }
    /// Events dropped because nobody polled them.
    pub fn events_dropped(&self) -> u64 {
        self.events_dropped
    }
    introspect_getter! {
        /// The rate-reduction algorithm and its episode state (PRR's prr_delivered, …).
        fn reducer(&self) -> &Reducer {
            &self.core.reducer
        }
    }
    /// The duplicate threshold in use: `dupthresh`, or Linux's adaptive `tp->reordering`.
    pub fn reordering(&self) -> u32 {
        if self.alg.adaptive_reordering {
            self.core.reorder.degree
        } else {
            self.alg.dupthresh
        }
    }
    /// Reordering was detected (SACK, DSACK or timestamps) at least once.
    pub fn reordering_seen(&self) -> bool {
        self.core.reorder.seen
    }
    /// The loss detector in use (FACK falls back to dupthresh once adaptive reordering
    /// saw reordering, as Linux's `tcp_disable_fack`).
    ///
    /// RACK needs SACK (RFC 8985 §4): without it the sender falls back to `dupthresh`
    /// (NewReno).
    pub fn loss_detection(&self) -> Detection {
        match self.alg.loss_detection {
            Detection::Fack { .. } if self.core.reorder.fack_disabled => Detection::DupThresh {
                rule: DupThreshRule::Rfc6675,
            },
            d => d,
        }
    }
    /// The axes as this connection runs them (resolved after negotiation).
    pub fn algorithms(&self) -> &Algorithms {
        &self.alg
    }
    /// RACK is the loss detector (configured, and SACK in use).
    pub fn rack_active(&self) -> bool {
        self.alg.rack()
    }
    introspect_getter! {
        /// RACK's state (RACK.segment, RACK.rtt, reo_wnd, its multiplier and persistence).
        fn rack(&self) -> &Rack {
            &self.core.rack
        }
    }
    /// Tail loss probing is on (configured, and SACK in use: TLP draft §2.1 (2d), RFC 8985
    /// §4, Linux `tcp_is_sack`).
    pub fn probe_active(&self) -> bool {
        self.alg.probe != Probing::None
    }
    introspect_getter! {
        /// The TLP draft's episode state (TLPRtxOut, TLPHighRxt).
        fn tlp_draft_episode(&self) -> &tlp_draft::Episode {
            &self.core.tlp_draft
        }
    }
    introspect_getter! {
        /// The RFC 8985 / Linux TLP state (TLP.end_seq, TLP.is_retrans).
        fn tlp_episode(&self) -> &tlp::Episode {
            &self.core.tlp
        }
    }
    /// The pipe recovery runs on: RFC 6675 pipe with SACK; without SACK the same count
    /// with the bytes duplicate ACKs reported delivered in place of SACKed bytes (Linux's
    /// in_flight for Reno; NewReno under `rfc6675` uses FlightSize instead).
    pub fn recovery_pipe(&self) -> u64 {
        if self.sack_ok {
            self.core.sb.pipe()
        } else {
            self.core
                .sb
                .pipe()
                .saturating_sub(self.core.dup.reno_sacked)
        }
    }
}

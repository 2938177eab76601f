//! Connection set-up on the sender (RFC 9293 §3.5): option negotiation on the peer's SYN
//! or SYN-ACK, completing the handshake, and the handshake RTT sample.

use std::sync::Arc;

use super::pending::Pending;
use super::{transmit, Conn, Sender, RTO_AFTER_SYN_TIMEOUT};
use crate::cc::CongestionController;
use crate::packet::{Ack, SynOptions, Timestamps};
use crate::time::{Duration, Instant};

/// Room the timestamp option takes in every segment once negotiated (RFC 7323 §3: ten
/// bytes, padded to twelve).
const TS_OPTION_SPACE: u16 = 12;

/// Linux `tcp_min_snd_mss` (sysctl default since 2019): the smallest MSS a peer may make
/// the sender use.
const TCP_MIN_SND_MSS: u64 = 48;

impl Sender {
    /// The MSS option we send: `cfg.mss` is the payload of a segment with timestamps, so
    /// the option is 12 bytes more — Linux's `advmss`, MTU − 40 = 1460 on a 1500-byte
    /// device for the default 1448.
    pub(super) fn advertised_mss(&self) -> u16 {
        self.alg.shell.mss.saturating_add(TS_OPTION_SPACE)
    }

    /// Options agreed with the peer's SYN or SYN-ACK.
    pub(super) fn negotiate(&mut self, peer: &SynOptions, ts: Option<Timestamps>) {
        // RFC 9293 §3.7.1: send no segment larger than the peer's MSS (536 if absent).
        let peer_mss = if peer.mss == 0 {
            536
        } else {
            u64::from(peer.mss)
        };
        self.sack_ok = self.alg.shell.offer_sack && peer.sack_permitted;
        self.ts_ok = self.alg.shell.offer_timestamps && peer.timestamps && ts.is_some();
        let agreed = self.cfg.resolve(self.sack_ok, self.ts_ok);
        // Still shared with other connections unless the handshake changed something.
        if agreed != *self.alg {
            self.alg = Arc::new(agreed);
        }
        self.configure_scoreboard();
        // RFC 9293 §3.7.1: no segment above the peer's MSS; our own MTU leaves `advmss`
        // less the room of the options every segment carries (Linux `tcp_mtu_to_mss`).
        // Deviation: Linux takes that room off the peer's MSS too (min(advmss, peer) − 12);
        // here the peer's MSS bounds the payload directly, as the simulator's receiver
        // announces its payload size.
        let options = if self.ts_ok { TS_OPTION_SPACE } else { 0 };
        // Linux `tcp_min_snd_mss`: a peer may not make us send tiny segments.
        self.mss = u64::from(self.advertised_mss() - options)
            .min(peer_mss)
            .max(TCP_MIN_SND_MSS);
        self.cc.on_mss(self.mss);
        self.peer.scale = peer.window_scale;
        let passive = matches!(
            self.conn,
            Conn::Listen | Conn::Handshake { passive: true, .. }
        );
        self.ecn_negotiate(peer, passive);
        if let Some(ts) = ts {
            self.ts_recent = ts.val;
        }
    }

    /// Completes the handshake on the SYN-ACK (active open) or on the ACK of our SYN-ACK
    /// (passive open).
    pub(super) fn on_handshake_ack(&mut self, now: Instant, ack: &Ack) {
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
            self.pending = Pending::HandshakeAck;
        }
        self.peer.window = ack.window.min(super::ack::MAX_WINDOW);
        self.peer.max_window = self.peer.window;
        self.core.rtt.reset_backoff();
        // Seed SRTT from the handshake as Linux does (`tcp_synack_rtt_meas`): from the first
        // SYN's send time unless it was retransmitted (Karn), else from the timestamp echo.
        let sample = if !retransmitted {
            Some(now - first_sent)
        } else {
            self.ts_sample(now, ack)
        };
        match sample {
            Some(r) => self.core.rtt.on_sample(now, r, 0, 0),
            // RFC 6298 §5.7.
            None => self
                .core
                .rtt
                .set_base_rto(RTO_AFTER_SYN_TIMEOUT.max(self.alg.shell.min_rto)),
        }
        // RFC 5681 §3.1: a lost SYN or SYN-ACK leaves an initial window of one segment.
        self.cwnd = if retransmitted {
            self.mss
        } else {
            u64::from(self.alg.shell.initial_cwnd) * self.mss
        };
        // `tcp_update_pacing_rate` as the handshake completes (passive open: in
        // `tcp_rcv_state_process`; active: the SYN-ACK's `tcp_ack`).
        self.update_pacing_rate();
        self.conn = Conn::Established;
        if self.pending == Pending::Syn {
            self.pending = Pending::Nothing;
        }
        self.core.timer.stop();
        self.emit(now, self.established_event());
        self.note_detection_available();
    }

    /// An RTT sample from the timestamp echo (RFC 7323 §4.1), if any.
    pub(super) fn ts_sample(&self, now: Instant, ack: &Ack) -> Option<Duration> {
        let ecr = ack.ts?.ecr;
        let clock = transmit::ts_clock(now);
        (self.ts_ok && ecr != 0 && ecr <= clock).then(|| Duration::from_micros(clock - ecr))
    }
}

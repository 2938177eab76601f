//! The engine's `Receiver` answering a Linux sender: the client's segments become
//! [`Segment`]s (stream offsets from its SYN's ISN), the receiver's [`Ack`]s become real
//! segments. When the client's FIN has arrived in order, the ACK acknowledges it (one past
//! the last byte) and we close our side with a FIN of our own, so the client's socket
//! finishes as it would against a server that closes after reading.
//!
//! Once the client's SYN is taken every later segment passes [`crate::accept`] first
//! (RFC 5961, Linux `tcp_validate_incoming`): a SYN with another ISN, an RST off RCV.NXT or
//! an ACK of data never sent changes nothing; it is counted ([`EngineReceiver::accept_stats`])
//! and answered, within the rate limit, by a challenge or duplicate ACK built here. Data
//! outside the window still goes to the engine's receiver, which drops it and answers with
//! its ACK (and DSACK), as Linux's `tcp_send_dupack` does. An RST exactly at RCV.NXT
//! resets the connection. Deviation: Linux answers a SYN with another ISN in SYN-RECEIVED
//! from its request socket (`tcp_check_req`: an ACK, `TCPACKSkippedSynRecv`, or a reset of
//! the embryonic connection when in the window); we challenge it as in ESTABLISHED.

use std::net::SocketAddrV4;

use lossrec::{Ack, Instant, Range, Receiver, ReceiverConfig, Segment, SynOptions, Timestamps};
use lossrec_wire::{encode_ipv4_into, seq, TcpFlags, TcpSegment};

use crate::accept::{after, AcceptStats, Drop, Guard, Reply, Seg, Tcb, Verdict};
use crate::engine_sender::{engine_mss, ts_options, wire_mss, wire_sack};

/// One connection of the engine receiver.
pub struct EngineReceiver {
    pub receiver: Receiver,
    pub local: SocketAddrV4,
    pub peer: SocketAddrV4,
    isn: u32,
    peer_isn: Option<u32>,
    /// Our shift, once the peer's SYN offered scaling.
    wscale: Option<u8>,
    high: u64,
    fin_sent: bool,
    ip_id: u16,
    /// The peer's window shift (its SYN's option, once we offered ours).
    peer_wscale: u8,
    /// SND.UNA, RCV.NXT and window (bytes) of our last ACK (Linux `rcv_wup`, `rcv_wnd`),
    /// MAX.SND.WND, TS.Recent as last taken.
    snd_una: u32,
    rcv_wup: u32,
    rcv_wnd: u32,
    max_window: u32,
    ts_recent: Option<u32>,
    /// The acceptance checks' limit, counters, reset flag and pending replies.
    guard: Guard,
}

impl EngineReceiver {
    pub fn new(
        cfg: ReceiverConfig,
        now: Instant,
        local: SocketAddrV4,
        peer: SocketAddrV4,
        isn: u32,
    ) -> Self {
        EngineReceiver {
            receiver: Receiver::new(cfg, now),
            local,
            peer,
            isn,
            peer_isn: None,
            wscale: None,
            high: 0,
            fin_sent: false,
            ip_id: 0,
            peer_wscale: 0,
            snd_una: isn,
            rcv_wup: 0,
            rcv_wnd: 0,
            max_window: 0,
            ts_recent: None,
            guard: Guard::default(),
        }
    }

    /// What the acceptance checks did on this connection.
    pub fn accept_stats(&self) -> &AcceptStats {
        self.guard.stats()
    }

    /// The peer reset the connection with an acceptable RST (RFC 5961 §3.2).
    pub fn is_reset(&self) -> bool {
        self.guard.is_reset()
    }

    /// RCV.NXT as a stream offset (the FIN counted once in).
    fn rcv_nxt(&self) -> u64 {
        self.receiver.delivered() + u64::from(self.receiver.fin_received())
    }

    fn tcb(&self) -> Tcb {
        Tcb {
            iss: self.isn,
            irs: self.peer_isn,
            rcv_nxt: self.peer_isn.map_or(0, |i| seq::wrap(i, self.rcv_nxt())),
            rcv_wup: self.rcv_wup,
            rcv_wnd: self.rcv_wnd,
            snd_una: self.snd_una,
            snd_nxt: self.isn.wrapping_add(1 + u32::from(self.fin_sent)),
            max_window: self.max_window,
            fin_in: self.receiver.fin_received(),
        }
    }

    /// Runs the acceptance checks on a segment of a synchronised connection: `true` when
    /// the engine's receiver is to have it (see the module doc).
    fn acceptable(&mut self, now: Instant, seg: &TcpSegment<'_>) -> bool {
        let (v, sent) = self.guard.judge(&self.tcb(), &Seg::of(seg), now);
        match v {
            Verdict::Accept | Verdict::SameSyn => {
                if let Some(a) = seg.ack.filter(|&a| after(a, self.snd_una)) {
                    self.snd_una = a;
                }
                let w = u32::from(seg.window) << self.peer_wscale.min(14);
                self.max_window = self.max_window.max(w);
                self.ts_recent = seg.options.timestamps.map(|t| t.val).or(self.ts_recent);
                true
            }
            Verdict::Reset => false,
            // Data outside the window: the engine's receiver answers it (with DSACK).
            Verdict::Drop {
                why: Drop::OutOfWindow,
                reply: Reply::DupAck { limited: false },
            } => true,
            Verdict::Drop { .. } => {
                if sent {
                    self.challenge_ack(now);
                }
                false
            }
        }
    }

    /// `<SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>` with the window, SACK blocks and timestamps
    /// the connection's ACKs carry (RFC 5961 §3.2, §4.2; Linux `tcp_send_ack`).
    fn challenge_ack(&mut self, now: Instant) {
        let Some(peer_isn) = self.peer_isn else {
            return;
        };
        let snd_nxt = self.isn.wrapping_add(1 + u32::from(self.fin_sent));
        let mut s = TcpSegment::new(self.local, self.peer, snd_nxt);
        self.ip_id = self.ip_id.wrapping_add(1);
        s.ip_id = self.ip_id;
        let ts = (self.receiver.timestamps_in_use())
            .then_some(self.ts_recent)
            .flatten()
            .map(|ecr| Timestamps {
                val: now.as_micros(),
                ecr: u64::from(ecr),
            });
        s.options = ts_options(ts);
        s.ack = Some(seq::wrap(peer_isn, self.rcv_nxt()));
        let shift = self.wscale.unwrap_or(0);
        s.window = (self.receiver.window() >> shift).min(65_535) as u16;
        (self.rcv_wup, self.rcv_wnd) = (s.ack.unwrap_or(0), u32::from(s.window) << shift);
        if self.receiver.sack_in_use() {
            let blocks: Vec<Range> = self.receiver.out_of_order().collect();
            let max = s.options.max_sack_blocks();
            s.options.sack = wire_sack(peer_isn, &blocks, max);
        }
        let mut b = Vec::with_capacity(80);
        let _ = encode_ipv4_into(&s, &mut b);
        self.guard.push_reply(b);
    }

    /// A segment from the client.
    pub fn input(&mut self, now: Instant, seg: &TcpSegment<'_>) {
        let syn = seg.flags.contains(TcpFlags::SYN);
        if self.guard.is_reset() {
            return;
        }
        if self.peer_isn.is_some() {
            if !self.acceptable(now, seg) {
                return;
            }
        } else if syn {
            self.peer_isn = Some(seg.seq);
            self.peer_wscale = seg.options.window_scale.unwrap_or(0);
            self.ts_recent = seg.options.timestamps.map(|t| t.val);
        } else {
            return;
        }
        let Some(isn) = self.peer_isn else { return };
        let ts = seg.options.timestamps.map(|t| Timestamps {
            val: u64::from(t.val),
            ecr: u64::from(t.ecr),
        });
        let start = if syn {
            0
        } else {
            seq::unwrap(isn, seg.seq, self.high)
        };
        let range = Range::new(start, start + seg.payload.len() as u64);
        if range.end <= self.rcv_nxt() + self.receiver.window() {
            self.high = self.high.max(range.end);
        }
        let marks = lossrec_sim::pcap::ecn_marks(seg);
        let syn_opts = syn.then(|| SynOptions {
            // RFC 3168 §6.1.1; an ECT SYN is refused (Linux `tcp_ecn_create_request`).
            ecn: marks.is_setup_syn() && marks.ip == lossrec::IpEcn::NotEct,
            mss: engine_mss(seg.options.mss, seg.options.timestamps.is_some()),
            sack_permitted: seg.options.sack_permitted,
            timestamps: seg.options.timestamps.is_some(),
            window_scale: seg.options.window_scale,
        });
        self.receiver.on_segment(
            now,
            &Segment {
                ecn: marks,
                range,
                syn: syn_opts,
                fin: seg.flags.contains(TcpFlags::FIN),
                psh: seg.flags.contains(TcpFlags::PSH),
                ts,
            },
        );
    }

    /// Encodes every ACK the receiver has queued (and our FIN once theirs is in), appending
    /// each IPv4 packet to `out` (one `Vec` per packet).
    pub fn output(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.guard.take_replies(out);
        let Some(peer_isn) = self.peer_isn else {
            return;
        };
        if self.guard.is_reset() {
            // RFC 9293 §3.10.7.4: a reset connection sends nothing more.
            while self.receiver.poll_ack(now).is_some() {}
            return;
        }
        while let Some(ack) = self.receiver.poll_ack(now) {
            let mut buf = Vec::with_capacity(80);
            self.encode(peer_isn, &ack, &mut buf);
            out.push(buf);
        }
    }

    fn encode(&mut self, peer_isn: u32, ack: &Ack, out: &mut Vec<u8>) {
        let fin_in = self.receiver.fin_received();
        let mut s = TcpSegment::new(self.local, self.peer, self.isn.wrapping_add(1));
        self.ip_id = self.ip_id.wrapping_add(1);
        s.ip_id = self.ip_id;
        s.options = ts_options(ack.ts);
        // The engine's ACK already counts the FIN's sequence number, and SACKs a FIN above
        // a hole (`tcp_data_queue_ofo`).
        s.ack = Some(seq::wrap(peer_isn, ack.cumulative));
        if let Some(syn) = ack.syn {
            s.seq = self.isn;
            s.ack = Some(peer_isn.wrapping_add(1));
            s.flags = TcpFlags::SYN;
            s.window = ack.window.min(65_535) as u16;
            s.options.mss = Some(wire_mss(syn.mss, syn.timestamps));
            s.options.sack_permitted = syn.sack_permitted;
            s.options.window_scale = syn.window_scale;
            self.wscale = syn.window_scale;
            if syn.window_scale.is_none() {
                self.peer_wscale = 0;
            }
            (self.rcv_wup, self.rcv_wnd) = (peer_isn.wrapping_add(1), u32::from(s.window));
        } else {
            let shift = self.wscale.unwrap_or(0);
            s.window = (ack.window >> shift).min(65_535) as u16;
            (self.rcv_wup, self.rcv_wnd) = (s.ack.unwrap_or(0), u32::from(s.window) << shift);
            let max = s.options.max_sack_blocks();
            s.options.sack = wire_sack(peer_isn, ack.sack.as_slice(), max);
            if fin_in && !self.fin_sent {
                self.fin_sent = true;
                s.flags |= TcpFlags::FIN;
            } else if self.fin_sent {
                s.seq = s.seq.wrapping_add(1);
            }
        }
        lossrec_sim::pcap::put_ecn(&mut s, ack.ecn);
        let _ = encode_ipv4_into(&s, out);
    }
}

//! The engine's `Receiver` answering a Linux sender: the client's segments become
//! [`Segment`]s (stream offsets from its SYN's ISN), the receiver's [`Ack`]s become real
//! segments. When the client's FIN has arrived in order, the ACK acknowledges it (one past
//! the last byte) and we close our side with a FIN of our own, so the client's socket
//! finishes as it would against a server that closes after reading.

use std::net::SocketAddrV4;

use lossrec::{Ack, Instant, Range, Receiver, ReceiverConfig, Segment, SynOptions, Timestamps};
use lossrec_wire::{encode_ipv4_into, seq, TcpFlags, TcpSegment};

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
        }
    }

    /// A segment from the client.
    pub fn input(&mut self, now: Instant, seg: &TcpSegment<'_>) {
        let syn = seg.flags.contains(TcpFlags::SYN);
        if syn {
            self.peer_isn = Some(seg.seq);
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
        self.high = self.high.max(range.end);
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
        let Some(peer_isn) = self.peer_isn else {
            return;
        };
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
        } else {
            let shift = self.wscale.unwrap_or(0);
            s.window = (ack.window >> shift).min(65_535) as u16;
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

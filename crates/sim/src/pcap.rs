//! pcap capture of both directions as Ethernet/IPv4/TCP (via `lossrec_wire`).
//!
//! Capture point: **the sender's host**. Data-direction segments are recorded when the
//! sender emits them (so packets the path then loses are in the file, as on a real sender's
//! tcpdump), ACK-direction segments when they reach the sender (lost ACKs are not).
//!
//! Addresses are labels only: flow *i* is `10.0.0.1:(10000 + i) → 10.0.0.2:80`. Each flow's
//! two initial sequence numbers are derived from the run's seed and the flow id; stream
//! offset `x` is sequence number `ISN + 1 + x (mod 2^32)`, and the FIN (piggybacked on the
//! last data segment) takes one more. Payload bytes are zeros. The sender advertises a
//! fixed window (64 KiB unscaled on the SYN); the receiver's window is its ACK's window,
//! scaled by the negotiated shift. Timestamps are the engine's microsecond values truncated
//! to 32 bits.

use crate::rng::mix64;
use lossrec::{Ack, Transmit};
use lossrec_wire::{
    seq, Payload, PcapWriter, SackBlock, TcpFlags, TcpOptions, TcpSegment, Timestamps,
};
use std::net::{Ipv4Addr, SocketAddrV4};

/// The client (data sender) address.
pub const SENDER_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
/// The server (data receiver) address.
pub const RECEIVER_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
/// Flow *i* uses source port `BASE_PORT + i` (wrapping within u16).
pub const BASE_PORT: u16 = 10_000;
/// The window the data sender advertises (it receives no data): 64 KiB.
const SENDER_WINDOW: u64 = 65_535;

/// Per-flow wire state.
#[derive(Clone, Debug, Default)]
struct WireFlow {
    isn_s: u32,
    isn_r: u32,
    /// Stream offset just past the last byte, once the FIN went out.
    fin_at: Option<u64>,
    /// Window scale each side offered on its SYN (applied once both did).
    snd_wscale: Option<u8>,
    rcv_wscale: Option<u8>,
    ip_id_s: u16,
    ip_id_r: u16,
}

/// Collects packets into a pcap file in memory.
pub struct Capture {
    seed: u64,
    writer: PcapWriter<Vec<u8>>,
    flows: Vec<WireFlow>,
    /// Records that could not be written (never expected; counted rather than panicking).
    pub errors: u64,
}

impl Capture {
    pub fn new(seed: u64) -> Capture {
        let writer = PcapWriter::new(Vec::new()).expect("writing to a Vec cannot fail");
        Capture {
            seed,
            writer,
            flows: Vec::new(),
            errors: 0,
        }
    }

    fn flow(&mut self, id: u32) -> &mut WireFlow {
        let i = id as usize;
        while self.flows.len() <= i {
            let n = self.flows.len() as u64;
            let base = mix64(self.seed ^ mix64(crate::rng::component::ISN)) ^ mix64(n);
            self.flows.push(WireFlow {
                isn_s: mix64(base) as u32,
                isn_r: mix64(base ^ 0x5555_5555) as u32,
                ..WireFlow::default()
            });
        }
        &mut self.flows[i]
    }

    fn addrs(id: u32) -> (SocketAddrV4, SocketAddrV4) {
        let port = BASE_PORT.wrapping_add(id as u16);
        (
            SocketAddrV4::new(SENDER_IP, port),
            SocketAddrV4::new(RECEIVER_IP, 80),
        )
    }

    fn write(&mut self, t_ns: u64, seg: &TcpSegment<'_>) {
        if self.writer.write_segment(t_ns, seg).is_err() {
            self.errors += 1;
        }
    }

    /// A segment the sender emitted at `t_ns`.
    pub fn data(&mut self, t_ns: u64, id: u32, tx: &Transmit) {
        let (src, dst) = Self::addrs(id);
        let f = self.flow(id);
        f.ip_id_s = f.ip_id_s.wrapping_add(1);
        let mut options = TcpOptions {
            timestamps: tx.ts.map(|t| Timestamps {
                val: t.val as u32,
                ecr: t.ecr as u32,
            }),
            ..TcpOptions::default()
        };
        let mut s = TcpSegment::new(src, dst, seq::wrap(f.isn_s, tx.range.start));
        s.ip_id = f.ip_id_s;
        s.payload = Payload::Zeros(tx.range.len() as usize);
        if let Some(syn) = tx.syn {
            s.seq = f.isn_s;
            s.flags = TcpFlags::SYN;
            s.window = SENDER_WINDOW as u16;
            options.mss = Some(syn.mss);
            options.sack_permitted = syn.sack_permitted;
            options.window_scale = syn.window_scale;
            f.snd_wscale = syn.window_scale;
        } else {
            s.ack = Some(f.isn_r.wrapping_add(1));
            let shift = match (f.snd_wscale, f.rcv_wscale) {
                (Some(ws), Some(_)) => ws,
                _ => 0,
            };
            s.window = (SENDER_WINDOW >> shift).min(65_535) as u16;
        }
        if tx.fin {
            s.flags |= TcpFlags::FIN;
            f.fin_at = Some(tx.range.end);
        }
        if tx.psh {
            s.flags |= TcpFlags::PSH;
        }
        s.options = options;
        self.write(t_ns, &s);
    }

    /// An ACK that reached the sender at `t_ns`.
    pub fn ack(&mut self, t_ns: u64, id: u32, ack: &Ack) {
        let (client, server) = Self::addrs(id);
        let f = self.flow(id);
        f.ip_id_r = f.ip_id_r.wrapping_add(1);
        let fin_acked = f.fin_at.is_some_and(|end| ack.cumulative >= end);
        let mut options = TcpOptions {
            timestamps: ack.ts.map(|t| Timestamps {
                val: t.val as u32,
                ecr: t.ecr as u32,
            }),
            ..TcpOptions::default()
        };
        let mut s = TcpSegment::new(server, client, f.isn_r.wrapping_add(1));
        s.ip_id = f.ip_id_r;
        s.ack = Some(seq::wrap(f.isn_s, ack.cumulative).wrapping_add(u32::from(fin_acked)));
        if let Some(syn) = ack.syn {
            s.seq = f.isn_r;
            s.ack = Some(f.isn_s.wrapping_add(1));
            s.flags = TcpFlags::SYN;
            // RFC 7323 §2.2: the window on a SYN is never scaled.
            s.window = ack.window.min(65_535) as u16;
            options.mss = Some(syn.mss);
            options.sack_permitted = syn.sack_permitted;
            options.window_scale = syn.window_scale;
            f.rcv_wscale = syn.window_scale;
        } else {
            let shift = match (f.snd_wscale, f.rcv_wscale) {
                (Some(_), Some(ws)) => ws,
                _ => 0,
            };
            s.window = (ack.window >> shift).min(65_535) as u16;
            let max = options.max_sack_blocks();
            for b in ack.sack.iter().take(max) {
                options.sack.push(SackBlock::new(
                    seq::wrap(f.isn_s, b.start),
                    seq::wrap(f.isn_s, b.end),
                ));
            }
        }
        s.options = options;
        self.write(t_ns, &s);
    }

    /// The pcap file's bytes.
    pub fn finish(self) -> Vec<u8> {
        self.writer.into_inner()
    }
}

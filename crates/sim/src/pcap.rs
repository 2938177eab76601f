//! pcap capture of both directions as Ethernet/IPv4/TCP (via `lossrec_wire`).
//!
//! Two capture points, as tcpdump on either host would see the connection:
//!
//! - [`Point::Sender`]: data segments when the sender emits them (so packets the path then
//!   loses are in the file), ACKs when they reach the sender (lost ACKs are not).
//! - [`Point::Receiver`]: data segments when they reach the receiver, ACKs when the
//!   receiver emits them. Wireshark's spurious-retransmission analysis
//!   (`tcp.analysis.spurious_retransmission`) needs this side: only the receiver knows
//!   that a retransmitted segment had already arrived.
//!
//! Timestamps are the simulated time plus [`EPOCH_NS`] (2026-01-01T00:00:00Z), so tools
//! that show dates do not show 1970; the offset is fixed, so captures stay deterministic.
//!
//! Connections close with FIN in both directions: the data sender's FIN rides on its last
//! data segment (the engine's `fin`); the receiver, which sends no data, answers it with
//! FIN+ACK on the ACK that covers the sender's FIN, and the sender's final ACK of that FIN
//! is recorded at the same instant (the simulation ends each flow there).
//!
//! Addresses are labels only: flow *i* is `10.0.0.1:(10000 + i) → 10.0.0.2:80`. Each flow's
//! two initial sequence numbers are derived from the run's seed and the flow id; stream
//! offset `x` is sequence number `ISN + 1 + x (mod 2^32)`, and the FIN (piggybacked on the
//! last data segment) takes one more. Payload bytes are zeros. The sender advertises a
//! fixed window (64 KiB unscaled on the SYN); the receiver's window is its ACK's window,
//! scaled by the negotiated shift. The segment ↔ engine mapping is `lossrec-tcp`'s
//! ([`lossrec_tcp::map`]): MSS, SACK blocks, ECN marks. Timestamps show what a TCP endpoint
//! puts on the wire ([`lossrec_tcp::ts`]): the instant each engine value stands for, on the
//! default TSval clock (milliseconds, as Linux's `tcp_time_stamp`), each host's own; the
//! simulated endpoints are not `Endpoint`s, so each TSecr is the engine half's own echo.

use crate::rng::mix64;
use crate::sink::Sink;
use lossrec::{Ack, Segment};
use lossrec_tcp::map::{put_ecn, wire_sack};
use lossrec_tcp::ts::{receiver_ts_instant, sender_ts_instant, TsClock};
use lossrec_wire::{seq, Payload, PcapWriter, TcpFlags, TcpOptions, TcpSegment, Timestamps};
use std::net::{Ipv4Addr, SocketAddrV4};

/// The client (data sender) address.
pub const SENDER_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 1);
/// The server (data receiver) address.
pub const RECEIVER_IP: Ipv4Addr = Ipv4Addr::new(10, 0, 0, 2);
/// Flow *i* uses source port `BASE_PORT + i` (wrapping within u16).
pub const BASE_PORT: u16 = 10_000;
/// The window the data sender advertises (it receives no data): 64 KiB.
const SENDER_WINDOW: u64 = 65_535;
/// Added to every timestamp: 2026-01-01T00:00:00Z in nanoseconds since the Unix epoch.
pub const EPOCH_NS: u64 = 1_767_225_600 * 1_000_000_000;

/// Where the capture is taken (see the module doc).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Point {
    Sender,
    Receiver,
}

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
    /// The receiver's FIN (on the ACK of the sender's FIN) has been recorded.
    closed: bool,
}

/// Collects packets into a pcap file, in memory or streamed to a writer.
pub struct Capture {
    seed: u64,
    /// `None` when even the file header could not be written (counted in `errors`).
    writer: Option<PcapWriter<Sink>>,
    flows: Vec<WireFlow>,
    /// Where the capture is taken.
    pub point: Point,
    /// Records written.
    pub records: u64,
    /// Records that could not be written (counted rather than panicking).
    pub errors: u64,
    first_error: Option<String>,
}

impl Capture {
    /// A capture at the sender, kept in memory.
    pub fn new(seed: u64) -> Capture {
        Capture::to_sink(seed, Point::Sender, Sink::Memory(Vec::new()))
    }

    /// A capture at `point` written to `sink`.
    pub fn to_sink(seed: u64, point: Point, sink: Sink) -> Capture {
        let (writer, errors, first_error) = match PcapWriter::new(sink) {
            Ok(w) => (Some(w), 0, None),
            Err(e) => (None, 1, Some(e.to_string())),
        };
        Capture {
            seed,
            writer,
            flows: Vec::new(),
            point,
            records: 0,
            errors,
            first_error,
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
        let Some(w) = self.writer.as_mut() else {
            return;
        };
        match w.write_segment(t_ns.saturating_add(EPOCH_NS), seg) {
            Ok(()) => self.records += 1,
            Err(e) => {
                self.errors += 1;
                self.first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }

    /// A data-direction segment (emitted by the sender, or reaching the receiver).
    pub fn data(&mut self, t_ns: u64, id: u32, tx: &Segment) {
        let (src, dst) = Self::addrs(id);
        let f = self.flow(id);
        f.ip_id_s = f.ip_id_s.wrapping_add(1);
        let mut options = TcpOptions {
            // The sender's TSval, and its echo of the receiver's.
            timestamps: tx
                .ts
                .map(|t| wire_ts(sender_ts_instant(t.val), t.ecr, receiver_ts_instant)),
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
        put_ecn(&mut s, tx.ecn);
        s.options = options;
        self.write(t_ns, &s);
    }

    /// An ACK-direction segment (reaching the sender, or emitted by the receiver).
    pub fn ack(&mut self, t_ns: u64, id: u32, ack: &Ack) {
        let (client, server) = Self::addrs(id);
        let f = self.flow(id);
        f.ip_id_r = f.ip_id_r.wrapping_add(1);
        // The receiver acknowledges the FIN's own sequence number (`end + 1`).
        let fin_acked = f.fin_at.is_some_and(|end| ack.cumulative > end);
        // The receiver's FIN goes out once, on the first ACK of the sender's FIN.
        let (fin_now, was_closed) = (fin_acked && !f.closed, f.closed);
        f.closed |= fin_acked;
        let mut options = TcpOptions {
            // The receiver's TSval, and its echo of the sender's.
            timestamps: ack
                .ts
                .map(|t| wire_ts(receiver_ts_instant(t.val), t.ecr, sender_ts_instant)),
            ..TcpOptions::default()
        };
        let own_seq = f.isn_r.wrapping_add(1 + u32::from(was_closed));
        let mut s = TcpSegment::new(server, client, own_seq);
        s.ip_id = f.ip_id_r;
        s.ack = Some(seq::wrap(f.isn_s, ack.cumulative));
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
            options.sack = wire_sack(f.isn_s, ack.sack.as_slice(), max);
        }
        if fin_now {
            s.flags |= TcpFlags::FIN;
        }
        put_ecn(&mut s, ack.ecn);
        s.options = options;
        self.write(t_ns, &s);
        if fin_now {
            self.last_ack(t_ns, id);
        }
    }

    /// The sender's ACK of the receiver's FIN, which closes the connection.
    fn last_ack(&mut self, t_ns: u64, id: u32) {
        let (client, server) = Self::addrs(id);
        let f = self.flow(id);
        let Some(end) = f.fin_at else { return };
        f.ip_id_s = f.ip_id_s.wrapping_add(1);
        let mut s = TcpSegment::new(client, server, seq::wrap(f.isn_s, end).wrapping_add(1));
        s.ip_id = f.ip_id_s;
        s.ack = Some(f.isn_r.wrapping_add(2));
        let shift = match (f.snd_wscale, f.rcv_wscale) {
            (Some(ws), Some(_)) => ws,
            _ => 0,
        };
        s.window = (SENDER_WINDOW >> shift).min(65_535) as u16;
        self.write(t_ns, &s);
    }

    /// Ends the capture: the file's bytes when kept in memory, `None` when streamed.
    pub fn finish(self) -> std::io::Result<Option<Vec<u8>>> {
        if let Some(e) = self.first_error {
            return Err(std::io::Error::other(format!(
                "{} pcap record(s) not written: {e}",
                self.errors
            )));
        }
        match self.writer {
            Some(w) => w.into_inner().finish(),
            None => Ok(None),
        }
    }
}

/// The Timestamps option a host's segment carries: TSval from the default clock at `sent`,
/// TSecr the peer's engine value `ecr` (an instant by `peer`) on that clock; 0 stays 0 (no
/// echo).
fn wire_ts(sent: lossrec::Instant, ecr: u64, peer: fn(u64) -> lossrec::Instant) -> Timestamps {
    let clock = TsClock::default();
    Timestamps {
        val: clock.val(sent),
        ecr: if ecr == 0 { 0 } else { clock.val(peer(ecr)) },
    }
}

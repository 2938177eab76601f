//! Per-connection reconstruction: captured TCP packets → the data sender's transmissions
//! and the ACK stream it received, in 64-bit stream offsets.
//!
//! - **Offsets.** With the SYN captured, offset 0 is ISN + 1 (RFC 9293 §3.4, the same
//!   mapping as `lossrec_wire::seq`), and every later number is unwrapped near the
//!   highest offset seen, so a connection longer than 4 GiB keeps counting. A capture that
//!   starts mid-connection takes the first sequence number it sees as offset
//!   [`MID_BASE`] (so retransmissions of earlier data still have offsets) and says what it
//!   cannot know: the options, the window scale, the MSS, the ISN.
//! - **Segments.** A sender-side capture holds TSO/GSO super-packets: one captured packet
//!   of many MSS (Linux `tcp_tso_segment` cuts it at the NIC). Each is split into MSS-sized
//!   [`Transmission`]s, the same cut the engine makes, with `part` numbering the pieces.
//! - **ACKs.** Cumulative ACK, SACK blocks (RFC 2018) in wire order, DSACK (RFC 2883 §4:
//!   a first block below the cumulative ACK or inside the second), TSval/TSecr, the
//!   window scaled by the shift the receiver's SYN-ACK announced (RFC 7323 §2.3: only
//!   when both SYNs carried the option), ECE.
//! - **Capture drops.** Data below the highest offset the capture showed that it never
//!   showed, once an ACK covers it, was sent but missed by the capture
//!   ([`Record::CaptureDrop`]).

use std::collections::BTreeMap;
use std::net::SocketAddr;

use lossrec_wire::{seq, TcpFlags};

use crate::decode::TcpPacket;

/// The offset a mid-connection capture gives the first sequence number it sees (2^32:
/// up to 4 GiB of earlier data still maps to a non-negative offset).
pub const MID_BASE: u64 = 1 << 32;

/// Options of a SYN or SYN-ACK as captured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynInfo {
    /// Capture time, ns.
    pub ts_ns: u64,
    /// MSS option.
    pub mss: Option<u16>,
    /// Window scale shift.
    pub wscale: Option<u8>,
    /// SACK-Permitted.
    pub sack_permitted: bool,
    /// Timestamps option present (its TSval).
    pub tsval: Option<u32>,
    /// ECN-setup flags (ECE, and CWR on a SYN).
    pub ece: bool,
    /// CWR flag.
    pub cwr: bool,
}

/// One MSS-sized piece of a captured data transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transmission {
    /// Capture time, ns.
    pub ts_ns: u64,
    /// `[start, end)` stream offsets (a FIN takes one more past its data).
    pub start: u64,
    /// End offset (exclusive, data only).
    pub end: u64,
    /// The FIN flag (on the last piece).
    pub fin: bool,
    /// The PSH flag (on the last piece).
    pub psh: bool,
    /// TSval, if timestamps are in use.
    pub tsval: Option<u32>,
    /// Piece number inside a super-packet (0 for the first or only one).
    pub part: u32,
    /// Index of the captured packet in this connection's packets (0-based).
    pub packet: u64,
}

/// One ACK the data sender received.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRecord {
    /// Capture time, ns.
    pub ts_ns: u64,
    /// Cumulative ACK, stream offset.
    pub cumulative: u64,
    /// SACK blocks as offsets, wire order (a DSACK first); `nsack` are valid.
    pub sack: [(u64, u64); 4],
    /// Valid entries of `sack`.
    pub nsack: u8,
    /// (TSval, TSecr).
    pub ts: Option<(u32, u32)>,
    /// Window in bytes (scaled when the scale is known; `u64::MAX` when it is not).
    pub window: u64,
    /// ECN-Echo.
    pub ece: bool,
    /// The receiver's FIN rides on it.
    pub fin: bool,
    /// Index of the captured packet in this connection's packets.
    pub packet: u64,
}

impl AckRecord {
    /// The SACK blocks.
    pub fn sack_blocks(&self) -> &[(u64, u64)] {
        &self.sack[..usize::from(self.nsack)]
    }
}

/// What the reconstruction yields, in capture order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// The data sender's SYN (active open) or the peer's SYN (passive open).
    Syn(SynInfo),
    /// The SYN-ACK.
    SynAck(SynInfo),
    /// A data transmission piece.
    Data(Transmission),
    /// An ACK in the reverse direction.
    Ack(AckRecord),
    /// Bytes the ACKs prove were sent but the capture never showed.
    CaptureDrop {
        /// When the ACK proving it was captured.
        ts_ns: u64,
        /// The missing range.
        start: u64,
        /// End (exclusive).
        end: u64,
    },
}

/// Counters of one connection's reconstruction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConnStats {
    /// Packets of the connection (both directions).
    pub packets: u64,
    /// Data packets of the sender (before splitting).
    pub data_packets: u64,
    /// Super-packets longer than one MSS that were split.
    pub super_packets: u64,
    /// ACKs in the reverse direction.
    pub acks: u64,
    /// Packets cut by the snapshot length (used: their headers were captured).
    pub snaplen_cut: u64,
    /// Packets whose sequence lies before a mid-connection capture's first one.
    pub before_start: u64,
    /// Bytes the ACKs proved sent that the capture never showed.
    pub capture_drop_bytes: u64,
    /// Packets of the sender with RST.
    pub resets: u64,
}

/// Reconstructs one connection's data direction from its packets.
#[derive(Debug)]
pub struct Reconstructor {
    /// The data sender.
    pub sender: SocketAddr,
    /// The data receiver.
    pub receiver: SocketAddr,
    /// The sender's ISN (known from the SYN, or assumed mid-connection).
    isn: Option<u32>,
    /// The capture began after the handshake.
    pub mid_connection: bool,
    syn: Option<SynInfo>,
    syn_ack: Option<SynInfo>,
    /// Segment size used to split super-packets.
    pub mss: u64,
    /// The smaller MSS option of the handshake: no single segment is larger.
    mss_option: Option<u64>,
    /// Highest offset + 1 the capture showed the sender send.
    snd_max: u64,
    /// Highest cumulative ACK seen.
    snd_una: u64,
    /// Ranges below `snd_max` the capture has not shown (start → end).
    holes: BTreeMap<u64, u64>,
    /// Counters.
    pub stats: ConnStats,
    out: Vec<Record>,
}

impl Reconstructor {
    /// A reconstructor for the direction `sender` → `receiver`. `mss_hint` splits
    /// super-packets when the handshake is not captured.
    pub fn new(sender: SocketAddr, receiver: SocketAddr, mss_hint: u64) -> Reconstructor {
        Reconstructor {
            sender,
            receiver,
            isn: None,
            mid_connection: false,
            syn: None,
            syn_ack: None,
            mss: mss_hint.max(1),
            mss_option: None,
            snd_max: 0,
            snd_una: 0,
            holes: BTreeMap::new(),
            stats: ConnStats::default(),
            out: Vec::new(),
        }
    }

    /// The handshake's SYN of the data sender and SYN-ACK of the receiver, if captured.
    pub fn handshake(&self) -> (Option<SynInfo>, Option<SynInfo>) {
        (self.syn, self.syn_ack)
    }

    /// True when both SYNs carried SACK-Permitted (unknown mid-connection: `None`).
    pub fn sack_ok(&self) -> Option<bool> {
        Some(self.syn?.sack_permitted && self.syn_ack?.sack_permitted)
    }

    /// Feeds one packet of this connection (either direction); returns what it yields.
    pub fn push(&mut self, p: &TcpPacket) -> impl Iterator<Item = Record> + '_ {
        self.stats.packets += 1;
        self.stats.snaplen_cut += u64::from(p.cut);
        let index = self.stats.packets - 1;
        if p.src == self.sender && p.dst == self.receiver {
            self.on_sender_packet(p, index);
        } else if p.src == self.receiver && p.dst == self.sender {
            self.on_receiver_packet(p, index);
        }
        self.out.drain(..)
    }

    fn syn_info(p: &TcpPacket) -> SynInfo {
        SynInfo {
            ts_ns: p.ts_ns,
            mss: p.options.mss,
            wscale: p.options.window_scale,
            sack_permitted: p.options.sack_permitted,
            tsval: p.options.timestamps.map(|t| t.val),
            ece: p.flags.contains(TcpFlags::ECE),
            cwr: p.flags.contains(TcpFlags::CWR),
        }
    }

    /// The segment size from the handshake: the smaller MSS option (RFC 9293 §3.7.1),
    /// less 12 bytes when timestamps are on (Linux `tcp_mtu_to_mss`/`mss_cache`).
    fn set_mss(&mut self) {
        let (Some(a), Some(b)) = (self.syn, self.syn_ack) else {
            return;
        };
        let m = u64::from(a.mss.unwrap_or(536).min(b.mss.unwrap_or(536)));
        let ts = if a.tsval.is_some() && b.tsval.is_some() {
            12
        } else {
            0
        };
        self.mss = m.saturating_sub(ts).max(1);
        self.mss_option = Some(m);
    }

    /// The offset of `s`, unwrapped near `near`; starts a mid-connection capture.
    fn offset(&mut self, s: u32, near: u64) -> u64 {
        let isn = *self.isn.get_or_insert_with(|| {
            self.mid_connection = true;
            self.snd_max = MID_BASE;
            self.snd_una = MID_BASE;
            s.wrapping_sub(1).wrapping_sub(MID_BASE as u32)
        });
        let near = if self.mid_connection {
            near.max(MID_BASE)
        } else {
            near
        };
        seq::unwrap(isn, s, near)
    }

    fn on_sender_packet(&mut self, p: &TcpPacket, index: u64) {
        if p.flags.contains(TcpFlags::RST) {
            self.stats.resets += 1;
            return;
        }
        if p.flags.contains(TcpFlags::SYN) {
            let info = Self::syn_info(p);
            if p.flags.contains(TcpFlags::ACK) {
                // Passive open: the data sender answers the peer's SYN.
                self.syn_ack.get_or_insert(info);
                self.syn = self.syn.or(self.syn_ack);
            }
            self.isn.get_or_insert(p.seq);
            self.syn.get_or_insert(info);
            self.set_mss();
            self.out.push(Record::Syn(info));
            return;
        }
        let fin = p.flags.contains(TcpFlags::FIN);
        if p.payload_len == 0 && !fin {
            return; // a pure ACK of the sender (it receives nothing we explain)
        }
        let start = self.offset(p.seq, self.snd_max);
        if self.mid_connection && start + (1 << 31) < MID_BASE {
            self.stats.before_start += 1;
            return;
        }
        let end = start + u64::from(p.payload_len);
        self.stats.data_packets += 1;
        // A packet no larger than the MSS option is one segment: a stack that does not
        // subtract its option room (or a smaller one) shows its real segment size here.
        let len = u64::from(p.payload_len);
        if self.mss_option.is_some_and(|m| len <= m) && len > self.mss {
            self.mss = len;
        }
        self.note_sent(start, end);
        let pieces = (end - start).div_ceil(self.mss).max(1);
        if pieces > 1 {
            self.stats.super_packets += 1;
        }
        for part in 0..pieces {
            let a = start + part * self.mss;
            let b = (a + self.mss).min(end);
            let last = part + 1 == pieces;
            self.out.push(Record::Data(Transmission {
                ts_ns: p.ts_ns,
                start: a,
                end: b,
                fin: fin && last,
                psh: p.flags.contains(TcpFlags::PSH) && last,
                tsval: p.options.timestamps.map(|t| t.val),
                part: part as u32,
                packet: index,
            }));
        }
    }

    /// Data `[start, end)` was captured: fill holes it covers, open one it skips.
    fn note_sent(&mut self, start: u64, end: u64) {
        if start > self.snd_max {
            self.holes.insert(self.snd_max, start);
        }
        self.remove_holes(start, end, None);
        self.snd_max = self.snd_max.max(end);
    }

    /// Removes `[start, end)` from the holes; with `report`, each removed part is a
    /// capture drop found at that time.
    fn remove_holes(&mut self, start: u64, end: u64, report: Option<u64>) {
        let overlapping: Vec<(u64, u64)> = self
            .holes
            .range(..end)
            .filter(|(_, &e)| e > start)
            .map(|(&s, &e)| (s, e))
            .collect();
        for (s, e) in overlapping {
            self.holes.remove(&s);
            if s < start {
                self.holes.insert(s, start);
            }
            if e > end {
                self.holes.insert(end, e);
            }
            if let Some(ts_ns) = report {
                let (a, b) = (s.max(start), e.min(end));
                self.stats.capture_drop_bytes += b - a;
                self.out.push(Record::CaptureDrop {
                    ts_ns,
                    start: a,
                    end: b,
                });
            }
        }
    }

    /// The receiver's window scale, applied only when both SYNs offered one.
    fn window(&self, raw: u16) -> u64 {
        match (self.syn, self.syn_ack) {
            (Some(a), Some(b)) => match (a.wscale, b.wscale) {
                (Some(_), Some(shift)) => u64::from(raw) << shift.min(14),
                _ => u64::from(raw),
            },
            // Mid-connection: the scale is unknown, so the window is not a limit.
            _ => u64::MAX,
        }
    }

    fn on_receiver_packet(&mut self, p: &TcpPacket, index: u64) {
        if p.flags.contains(TcpFlags::SYN) {
            let info = Self::syn_info(p);
            if p.flags.contains(TcpFlags::ACK) {
                self.syn_ack.get_or_insert(info);
                self.set_mss();
                self.out.push(Record::SynAck(info));
            } else {
                // The peer's SYN of a passive open (the data sender is the server).
                self.syn.get_or_insert(info);
                self.out.push(Record::Syn(info));
            }
            return;
        }
        let Some(ack) = p.ack else { return };
        if self.isn.is_none() && self.syn.is_none() {
            // Mid-connection and no data yet: the ACK fixes the mapping.
            self.offset(ack, MID_BASE);
        }
        let cumulative = self.offset(ack, self.snd_una);
        self.stats.acks += 1;
        let mut sack = [(0, 0); 4];
        let mut nsack = 0;
        for b in p.options.sack.as_slice().iter().take(4) {
            let s = self.offset(b.left, cumulative);
            sack[nsack] = (s, s + u64::from(b.right.wrapping_sub(b.left)));
            nsack += 1;
        }
        // Data above anything captured, or in a hole, that the ACK covers was sent.
        let ts_ns = p.ts_ns;
        let proven_end = sack[..nsack]
            .iter()
            .map(|b| b.1)
            .chain([cumulative])
            .max()
            .unwrap_or(cumulative);
        let fin_room = u64::from(p.flags.contains(TcpFlags::FIN));
        let _ = fin_room;
        if proven_end > self.snd_max + 1 {
            // One past snd_max may be the sender's FIN's own sequence number.
            self.holes.insert(self.snd_max, proven_end);
            self.snd_max = proven_end;
        }
        self.remove_holes(self.snd_una.min(cumulative), cumulative, Some(ts_ns));
        for &(a, b) in &sack[..nsack] {
            if a >= cumulative {
                self.remove_holes(a, b, Some(ts_ns));
            }
        }
        self.snd_una = self.snd_una.max(cumulative);
        self.out.push(Record::Ack(AckRecord {
            ts_ns,
            cumulative,
            sack,
            nsack: nsack as u8,
            ts: p.options.timestamps.map(|t| (t.val, t.ecr)),
            window: self.window(p.window),
            ece: p.flags.contains(TcpFlags::ECE),
            fin: p.flags.contains(TcpFlags::FIN),
            packet: index,
        }));
    }
}

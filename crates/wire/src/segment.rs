//! One TCP/IPv4 packet in wire terms (RFC 9293 §3.1 header format, RFC 791).
//!
//! Sequence and acknowledgment numbers here are the 32-bit wire values; use
//! [`crate::seq`] to convert from stream offsets.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddrV4};
use std::ops::{BitOr, BitOrAssign};

/// TCP control bits, with the values they have in byte 13 of the header
/// (RFC 9293 §3.1; ECE/CWR from RFC 3168).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(u8);

impl TcpFlags {
    /// No more data from sender.
    pub const FIN: TcpFlags = TcpFlags(0x01);
    /// Synchronize sequence numbers.
    pub const SYN: TcpFlags = TcpFlags(0x02);
    /// Reset the connection.
    pub const RST: TcpFlags = TcpFlags(0x04);
    /// Push function.
    pub const PSH: TcpFlags = TcpFlags(0x08);
    /// Acknowledgment field is significant.
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// Urgent pointer field is significant.
    pub const URG: TcpFlags = TcpFlags(0x20);
    /// ECN-Echo (RFC 3168).
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// Congestion Window Reduced (RFC 3168).
    pub const CWR: TcpFlags = TcpFlags(0x80);

    /// No flags.
    pub const fn empty() -> TcpFlags {
        TcpFlags(0)
    }
    /// From the raw flag byte.
    pub const fn from_bits(bits: u8) -> TcpFlags {
        TcpFlags(bits)
    }
    /// The raw flag byte.
    pub const fn bits(self) -> u8 {
        self.0
    }
    /// True if every flag in `other` is set.
    pub const fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    /// `self` with the flags of `other` added.
    pub const fn with(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
    /// `self` with the flags of `other` removed.
    pub const fn without(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 & !other.0)
    }
}

impl BitOr for TcpFlags {
    type Output = TcpFlags;
    fn bitor(self, rhs: TcpFlags) -> TcpFlags {
        self.with(rhs)
    }
}

impl BitOrAssign for TcpFlags {
    fn bitor_assign(&mut self, rhs: TcpFlags) {
        *self = self.with(rhs);
    }
}

impl fmt::Debug for TcpFlags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const NAMES: [&str; 8] = ["FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR"];
        let mut first = true;
        f.write_str("TcpFlags(")?;
        for (i, name) in NAMES.iter().enumerate() {
            if self.0 & (1 << i) != 0 {
                if !first {
                    f.write_str("|")?;
                }
                f.write_str(name)?;
                first = false;
            }
        }
        f.write_str(")")
    }
}

/// IP ECN codepoint Not-ECT (RFC 3168 §5).
pub const ECN_NOT_ECT: u8 = 0b00;
/// IP ECN codepoint ECT(1).
pub const ECN_ECT1: u8 = 0b01;
/// IP ECN codepoint ECT(0).
pub const ECN_ECT0: u8 = 0b10;
/// IP ECN codepoint CE (Congestion Experienced).
pub const ECN_CE: u8 = 0b11;

/// One SACK block (RFC 2018 §3): `left` is the first sequence number of the
/// block, `right` the sequence number just past its last byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SackBlock {
    /// Left Edge of Block.
    pub left: u32,
    /// Right Edge of Block.
    pub right: u32,
}

impl SackBlock {
    /// Block `[left, right)`.
    pub const fn new(left: u32, right: u32) -> SackBlock {
        SackBlock { left, right }
    }
}

/// Up to [`SackList::MAX`] SACK blocks, in the order they go on the wire
/// (RFC 2018 §4: the first block reports the most recent arrival; a DSACK,
/// RFC 2883, is the first block). Fixed capacity, no allocation.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SackList {
    blocks: [SackBlock; SackList::MAX],
    len: u8,
}

impl SackList {
    /// Most blocks a SACK option can carry (40 option bytes: 2 + 4 × 8 = 34).
    pub const MAX: usize = 4;

    /// No blocks.
    pub const fn new() -> SackList {
        SackList {
            blocks: [SackBlock::new(0, 0); SackList::MAX],
            len: 0,
        }
    }

    /// The first `MAX` blocks of `blocks` (the rest are ignored; the first are
    /// the ones RFC 2018 §4 says must be kept).
    pub fn from_slice(blocks: &[SackBlock]) -> SackList {
        let mut list = SackList::new();
        for b in blocks.iter().take(SackList::MAX) {
            list.push(*b);
        }
        list
    }

    /// Appends a block; returns false (and drops it) if the list is full.
    pub fn push(&mut self, block: SackBlock) -> bool {
        let n = usize::from(self.len);
        if n == SackList::MAX {
            return false;
        }
        self.blocks[n] = block;
        self.len += 1;
        true
    }

    /// Removes all blocks.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The blocks, in wire order.
    pub fn as_slice(&self) -> &[SackBlock] {
        &self.blocks[..usize::from(self.len)]
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// True if there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl fmt::Debug for SackList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl<'a> IntoIterator for &'a SackList {
    type Item = &'a SackBlock;
    type IntoIter = std::slice::Iter<'a, SackBlock>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

/// TCP Timestamps option values (RFC 7323 §3.2): TSval and TSecr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Timestamps {
    /// TSval: the sender's timestamp clock.
    pub val: u32,
    /// TSecr: the TSval echoed from the peer.
    pub ecr: u32,
}

/// The TCP options lossrec understands. Unknown options are skipped on decode
/// (RFC 9293 §3.1: a TCP must ignore options it does not implement).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpOptions {
    /// Maximum Segment Size (kind 2, RFC 9293 §3.7.1).
    pub mss: Option<u16>,
    /// Window Scale shift count (kind 3, RFC 7323 §2).
    pub window_scale: Option<u8>,
    /// SACK-Permitted (kind 4, RFC 2018 §2).
    pub sack_permitted: bool,
    /// SACK blocks (kind 5, RFC 2018 §3). On encode, blocks that do not fit
    /// into the 40 option bytes left by the other options are dropped from the
    /// end, as Linux does; see [`TcpOptions::max_sack_blocks`].
    pub sack: SackList,
    /// Timestamps (kind 8, RFC 7323 §3).
    pub timestamps: Option<Timestamps>,
}

impl TcpOptions {
    /// Bytes the options take on the wire, with the NOP padding encode uses
    /// (always a multiple of 4, at most 40).
    pub fn encoded_len(&self) -> usize {
        crate::options::encoded_len(self)
    }

    /// How many SACK blocks fit beside the other options (4 without
    /// timestamps, 3 with; fewer on a SYN carrying MSS and window scale).
    pub fn max_sack_blocks(&self) -> usize {
        crate::options::max_sack_blocks(self)
    }
}

/// The segment's payload: real bytes, or a length whose bytes are zeros
/// (the simulator carries no data, only lengths).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Payload<'a> {
    /// This many zero bytes.
    Zeros(usize),
    /// These bytes.
    Bytes(&'a [u8]),
}

impl Payload<'_> {
    /// Payload length in bytes.
    pub fn len(&self) -> usize {
        match self {
            Payload::Zeros(n) => *n,
            Payload::Bytes(b) => b.len(),
        }
    }

    /// True if there is no payload.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for Payload<'_> {
    fn default() -> Self {
        Payload::Zeros(0)
    }
}

/// One TCP segment in an IPv4 packet, in wire terms.
///
/// Encode writes the ACK flag if `flags` has [`TcpFlags::ACK`] *or* `ack` is
/// `Some` (the acknowledgment field is then `ack`, or 0 if `None`). Decode
/// returns `ack: Some(_)` exactly when the ACK flag is set, and keeps the ACK
/// flag in `flags` too.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TcpSegment<'a> {
    /// Source address and port.
    pub src: SocketAddrV4,
    /// Destination address and port.
    pub dst: SocketAddrV4,
    /// Sequence number (of the SYN, or of the first payload byte).
    pub seq: u32,
    /// Acknowledgment number, if the ACK flag is set.
    pub ack: Option<u32>,
    /// Control bits.
    pub flags: TcpFlags,
    /// Receive window as sent (unscaled; RFC 7323 §2.2).
    pub window: u16,
    /// Options.
    pub options: TcpOptions,
    /// Payload.
    pub payload: Payload<'a>,
    /// IPv4 time to live.
    pub ttl: u8,
    /// IPv4 identification.
    pub ip_id: u16,
    /// IPv4 Don't Fragment flag (Linux sets it: path MTU discovery).
    pub dont_fragment: bool,
    /// IPv4 TOS/DS byte (DSCP and ECN bits).
    pub tos: u8,
}

impl<'a> TcpSegment<'a> {
    /// A segment with no flags, options or payload, window 0, TTL 64, IP ID 0
    /// and DF set; fill in the rest with struct update syntax or the fields.
    pub fn new(src: SocketAddrV4, dst: SocketAddrV4, seq: u32) -> TcpSegment<'a> {
        TcpSegment {
            src,
            dst,
            seq,
            ack: None,
            flags: TcpFlags::empty(),
            window: 0,
            options: TcpOptions::default(),
            payload: Payload::Zeros(0),
            ttl: 64,
            ip_id: 0,
            dont_fragment: true,
            tos: 0,
        }
    }

    /// The flag byte as it goes on the wire (ACK added when `ack` is `Some`).
    pub fn wire_flags(&self) -> TcpFlags {
        if self.ack.is_some() {
            self.flags | TcpFlags::ACK
        } else {
            self.flags
        }
    }

    /// The IP ECN field (RFC 3168 §5): the low two bits of `tos`, one of
    /// [`ECN_NOT_ECT`], [`ECN_ECT1`], [`ECN_ECT0`], [`ECN_CE`].
    pub fn ecn(&self) -> u8 {
        self.tos & 0b11
    }

    /// Sets the IP ECN field, keeping the DSCP bits (higher bits of
    /// `codepoint` are ignored).
    pub fn set_ecn(&mut self, codepoint: u8) {
        self.tos = (self.tos & !0b11) | (codepoint & 0b11);
    }

    /// Sequence space the segment occupies: payload length, plus one each for
    /// SYN and FIN (RFC 9293 §3.4).
    pub fn seq_len(&self) -> u64 {
        self.payload.len() as u64
            + u64::from(self.flags.contains(TcpFlags::SYN))
            + u64::from(self.flags.contains(TcpFlags::FIN))
    }
}

/// The dummy, locally administered MAC address used for `ip` in encoded
/// frames: `02:00:` followed by the four address bytes, so each host has a
/// stable MAC of its own.
pub fn dummy_mac(ip: Ipv4Addr) -> [u8; 6] {
    let o = ip.octets();
    [0x02, 0x00, o[0], o[1], o[2], o[3]]
}

//! What crosses the engine's boundary: segments the sender emits, ACKs it receives.
//!
//! All sequence numbers are `u64` stream offsets: byte 0 is the first byte the application
//! wrote. The SYN is not in this space; the FIN is offset `end`, one past the last byte,
//! as its sequence number is on the wire: a receiver's ACK of it is `end + 1` and a SACK
//! of an out-of-order FIN ends there (Linux counts the FIN in `end_seq`). A `Transmit` or
//! `Segment` carries the FIN as a flag on an empty or data range; a bare FIN is on the
//! sender's scoreboard as `[end, end + 1)`. `crates/wire` maps offsets onto 32-bit
//! sequence numbers (`ISN + 1 + offset`).

use core::fmt;

mod ecn;
pub use ecn::{EcnMarks, IpEcn};

/// A half-open range `[start, end)` of stream offsets.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Range {
    /// First offset in the range.
    pub start: u64,
    /// One past the last offset.
    pub end: u64,
}

impl Range {
    /// `[start, end)`.
    pub const fn new(start: u64, end: u64) -> Self {
        Range { start, end }
    }
    /// Bytes in the range (0 when empty).
    pub const fn len(&self) -> u64 {
        self.end.saturating_sub(self.start)
    }
    /// No byte in the range.
    pub const fn is_empty(&self) -> bool {
        self.end <= self.start
    }
    /// `seq` lies in the range.
    pub const fn contains(&self, seq: u64) -> bool {
        self.start <= seq && seq < self.end
    }
    /// `other` lies entirely inside `self`.
    pub const fn covers(&self, other: &Range) -> bool {
        self.start <= other.start && other.end <= self.end
    }
    /// The two ranges share at least one byte.
    pub const fn overlaps(&self, other: &Range) -> bool {
        self.start < other.end && other.start < self.end
    }
    /// The bytes both ranges hold, if any.
    pub fn intersect(&self, other: &Range) -> Option<Range> {
        let r = Range::new(self.start.max(other.start), self.end.min(other.end));
        (!r.is_empty()).then_some(r)
    }
}

impl fmt::Debug for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// Most SACK blocks one TCP header can carry (RFC 2018 §3: 4 without timestamps, 3 with).
pub const MAX_SACK_BLOCKS: usize = 4;

/// The SACK blocks of one ACK, in the order the receiver sent them (fixed size: no allocation).
#[derive(Copy, Clone, PartialEq, Eq, Default)]
pub struct SackBlocks {
    blocks: [Range; MAX_SACK_BLOCKS],
    len: u8,
}

impl SackBlocks {
    /// No blocks.
    pub const fn new() -> Self {
        SackBlocks {
            blocks: [Range::new(0, 0); MAX_SACK_BLOCKS],
            len: 0,
        }
    }
    /// Builds from a slice; blocks past the fourth are ignored, as they would not fit a header.
    pub fn from_slice(blocks: &[Range]) -> Self {
        let mut s = SackBlocks::new();
        for b in blocks {
            s.push(*b);
        }
        s
    }
    /// Appends a block; returns false (and drops it) when full.
    pub fn push(&mut self, r: Range) -> bool {
        if (self.len as usize) < MAX_SACK_BLOCKS {
            self.blocks[self.len as usize] = r;
            self.len += 1;
            true
        } else {
            false
        }
    }
    /// The blocks, first first.
    pub fn as_slice(&self) -> &[Range] {
        &self.blocks[..self.len as usize]
    }
    /// The blocks, first first.
    pub fn iter(&self) -> core::slice::Iter<'_, Range> {
        self.as_slice().iter()
    }
    /// How many blocks.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// No blocks.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Keeps the first `n` blocks.
    pub fn truncate(&mut self, n: usize) {
        self.len = self.len.min(n as u8);
    }
}

impl fmt::Debug for SackBlocks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// RFC 7323 timestamp option. Values are each side's own clock in microseconds; the wire
/// truncates them to 32 bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Timestamps {
    /// TSval: the sender's clock when it sent (RFC 7323 §3).
    pub val: u64,
    /// TSecr: the TSval echoed (RFC 7323 §4.3).
    pub ecr: u64,
}

/// Options carried on a SYN or SYN-ACK.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SynOptions {
    /// MSS option (RFC 9293 §3.7.1), bytes.
    pub mss: u16,
    /// SACK-Permitted (RFC 2018 §2).
    pub sack_permitted: bool,
    /// The timestamps option was offered (RFC 7323 §3).
    pub timestamps: bool,
    /// Window scale shift (RFC 7323 §2), if offered.
    pub window_scale: Option<u8>,
    /// ECN set-up (RFC 3168 §6.1.1): on a SYN, an ECN-setup SYN (ECE and CWR) asking for
    /// ECN; on a SYN-ACK, an ECN-setup SYN-ACK (ECE without CWR) agreeing to it. Decoders
    /// fill it with [`EcnMarks::is_setup_syn`] / [`EcnMarks::is_setup_syn_ack`].
    pub ecn: bool,
}

/// A segment in the data direction, as the receiver sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Segment {
    /// Payload as stream offsets; empty for a SYN or pure ACK.
    pub range: Range,
    /// Present on a SYN.
    pub syn: Option<SynOptions>,
    /// The FIN flag: the last byte of the stream is `range.end - 1`.
    pub fin: bool,
    /// The PSH flag.
    pub psh: bool,
    /// The timestamps option, if negotiated.
    pub ts: Option<Timestamps>,
    /// The IP ECN codepoint and the ECE/CWR flags (RFC 3168).
    pub ecn: EcnMarks,
}

/// An acknowledgment in the reverse direction, as the sender sees it, in stream offsets.
///
/// ```
/// use lossrec::{Ack, Range};
/// // RCV.NXT 1000; a DSACK for [0, 500) (below the cumulative ACK, RFC 2883 §4) and a
/// // SACK block beyond a hole.
/// let a = Ack::cumulative(1000).with_sack(&[Range::new(0, 500), Range::new(2000, 3000)]);
/// assert_eq!(a.dsack(), Some(Range::new(0, 500)));
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Ack {
    /// Next stream offset expected (RCV.NXT).
    pub cumulative: u64,
    /// SACK blocks as sent, first block first; a DSACK, if any, is the first block.
    pub sack: SackBlocks,
    /// The timestamps option, if negotiated.
    pub ts: Option<Timestamps>,
    /// Receive window in bytes (already scaled).
    pub window: u64,
    /// Present on a SYN-ACK.
    pub syn: Option<SynOptions>,
    /// The IP ECN codepoint and the ECE/CWR flags (RFC 3168); ECE echoes congestion.
    pub ecn: EcnMarks,
}

impl Ack {
    /// A plain cumulative ACK with a large window.
    pub fn cumulative(cumulative: u64) -> Self {
        Ack {
            cumulative,
            window: u64::from(u32::MAX),
            ..Ack::default()
        }
    }
    /// The same ACK with these SACK blocks.
    pub fn with_sack(mut self, blocks: &[Range]) -> Self {
        self.sack = SackBlocks::from_slice(blocks);
        self
    }
    /// The first block, if it reports a duplicate per RFC 2883 §4: it lies below the
    /// cumulative ACK, or inside the second block.
    pub fn dsack(&self) -> Option<Range> {
        let first = *self.sack.as_slice().first()?;
        if first.is_empty() {
            return None;
        }
        let inside_second = self
            .sack
            .as_slice()
            .get(1)
            .is_some_and(|s| s.covers(&first));
        (first.start < self.cumulative || inside_second).then_some(first)
    }
    /// The SACK blocks that report received data above the cumulative ACK (DSACK excluded).
    pub fn sack_blocks(&self) -> &[Range] {
        let s = self.sack.as_slice();
        if self.dsack().is_some() {
            &s[1..]
        } else {
            s
        }
    }
}

/// Why the sender emitted a segment. Every transmission says which rule sent it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Why {
    /// A SYN (first or retransmitted) of an active open.
    Syn,
    /// A SYN-ACK (first or retransmitted) of a passive open.
    SynAck,
    /// The third packet of the handshake: a pure ACK of the SYN-ACK.
    HandshakeAck,
    /// New data under the congestion window.
    New,
    /// New data sent on duplicate ACKs before recovery (RFC 3042).
    LimitedTransmit,
    /// A retransmission in fast recovery (dupthresh/FACK detection, NextSeg, NewReno partial ACK).
    FastRetransmit,
    /// The rescue retransmission (RFC 6675 §4 NextSeg rule 4): once per recovery, the
    /// highest outstanding un-SACKed segment, resent without evidence that it was lost.
    /// Linux has no rule 4; only presets with `rescue_retransmit` send it.
    Rescue,
    /// A retransmission of a segment RACK marked lost.
    RackRetransmit,
    /// An early retransmission (RFC 5827).
    EarlyRetransmit,
    /// A tail loss probe.
    Probe(ProbeKind),
    /// A retransmission after a retransmission timeout (the head, then the slow-start repair).
    RtoRetransmit,
    /// A zero-window probe (RFC 9293 §3.8.6.1): an empty segment at SND.UNA − 1.
    WindowProbe,
}

/// What a tail loss probe carried.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ProbeKind {
    /// New data (no loss suspected).
    New,
    /// A retransmission of the highest outstanding segment.
    Retransmit,
}

impl Why {
    /// The trace name: `new`, `fast_retransmit`, `rto`, …
    pub fn name(self) -> &'static str {
        match self {
            Why::Syn => "syn",
            Why::SynAck => "syn_ack",
            Why::HandshakeAck => "handshake_ack",
            Why::New => "new",
            Why::LimitedTransmit => "limited_transmit",
            Why::FastRetransmit => "fast_retransmit",
            Why::Rescue => "rescue",
            Why::RackRetransmit => "rack",
            Why::EarlyRetransmit => "early_retransmit",
            Why::Probe(ProbeKind::New) => "probe_new",
            Why::Probe(ProbeKind::Retransmit) => "probe_retransmit",
            Why::RtoRetransmit => "rto",
            Why::WindowProbe => "window_probe",
        }
    }
    /// True when the segment carries data sent before.
    pub fn is_retransmission(self) -> bool {
        matches!(
            self,
            Why::FastRetransmit
                | Why::Rescue
                | Why::RackRetransmit
                | Why::EarlyRetransmit
                | Why::Probe(ProbeKind::Retransmit)
                | Why::RtoRetransmit
        )
    }
}

/// One segment the sender wants on the wire, and why (returned by
/// [`Sender::poll_transmit`](crate::Sender::poll_transmit)).
///
/// ```
/// use lossrec::{Config, Instant, Receiver, ReceiverConfig, Sender, Why};
/// let now = Instant::ZERO;
/// let mut s = Sender::new(Config::preset("rfc")?, now)?;
/// s.write(now, 1000);
/// let syn = s.poll_transmit(now).expect("the handshake starts");
/// assert_eq!(syn.why, Why::Syn);
/// assert!(syn.syn.is_some() && syn.range.is_empty());
/// // What the receiver sees of it:
/// let mut r = Receiver::new(ReceiverConfig::default(), now);
/// r.on_segment(now, &syn.segment());
/// assert!(r.poll_ack(now).and_then(|a| a.syn).is_some()); // the SYN-ACK
/// # Ok::<(), lossrec::ConfigError>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// The stream offsets it carries; empty for a SYN, pure ACK or window probe.
    pub range: Range,
    /// Which rule sent it.
    pub why: Why,
    /// SYN options, on a SYN or SYN-ACK.
    pub syn: Option<SynOptions>,
    /// The FIN flag.
    pub fin: bool,
    /// The PSH flag.
    pub psh: bool,
    /// TSval and TSecr, if timestamps are in use.
    pub ts: Option<Timestamps>,
    /// ECT(0) on new data and CWR once after a reduction when ECN is in use; ECE and CWR
    /// on an ECN-setup SYN, ECE on an ECN-setup SYN-ACK (RFC 3168 §6.1).
    pub ecn: EcnMarks,
}

impl Transmit {
    /// The segment as the receiver will see it.
    pub fn segment(&self) -> Segment {
        Segment {
            range: self.range,
            syn: self.syn,
            fin: self.fin,
            psh: self.psh,
            ts: self.ts,
            ecn: self.ecn,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    fn r(a: u64, b: u64) -> Range {
        Range::new(a, b)
    }
    #[test]
    fn dsack_below_cumulative() {
        let a = Ack::cumulative(4000).with_sack(&[r(3000, 3500)]);
        assert_eq!(a.dsack(), Some(r(3000, 3500)));
        assert!(a.sack_blocks().is_empty());
    }
    #[test]
    fn dsack_inside_second_block() {
        let a = Ack::cumulative(4000).with_sack(&[r(5000, 5500), r(4500, 5500)]);
        assert_eq!(a.dsack(), Some(r(5000, 5500)));
        assert_eq!(a.sack_blocks(), &[r(4500, 5500)]);
    }
    #[test]
    fn ordinary_sack_is_not_dsack() {
        let a = Ack::cumulative(4000).with_sack(&[r(4500, 5000), r(5500, 6000)]);
        assert_eq!(a.dsack(), None);
        assert_eq!(a.sack_blocks().len(), 2);
    }
    #[test]
    fn sack_blocks_cap_at_four() {
        let b: Vec<Range> = (0..6).map(|i| r(i * 10, i * 10 + 5)).collect();
        assert_eq!(SackBlocks::from_slice(&b).len(), 4);
    }
}

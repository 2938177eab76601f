//! The scoreboard's records: one sent segment with its marks (RFC 6675 §3: SACKed, lost,
//! retransmitted; RFC 8985 §6.1's per-segment xmit_ts), what a cumulative ACK removed, and
//! which NextSeg rule (RFC 6675 §4) chose a retransmission.

use crate::cc::rate::TxState;
use crate::packet::Range;
use crate::time::Instant;

/// One segment that was sent and is not cumulatively acknowledged.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SentSeg {
    /// First stream offset.
    pub start: u64,
    /// End stream offset (exclusive).
    pub end: u64,
    /// SACKed (RFC 6675 §4 IsLost/SetPipe).
    pub sacked: bool,
    /// Deemed lost (IsLost, or marked at a timeout).
    pub lost: bool,
    /// A retransmission of it is outstanding (counts in pipe, RFC 6675 "S ≤ HighRxt").
    pub retrans: bool,
    /// Retransmitted at least once (Karn's rule, RFC 6298 §3).
    pub ever_retrans: bool,
    /// SACKed by an ACK for its original transmission (`proof`: a DSACK for it counts).
    pub orig_proven: bool,
    /// Transmissions of it so far.
    pub xmit_count: u32,
    /// When it was first sent.
    pub first_sent: Instant,
    /// When it was last sent (RACK xmit_ts).
    pub last_sent: Instant,
    /// SND.NXT when it was last retransmitted (Linux's `ack_seq` for
    /// `tcp_mark_lost_retrans`).
    pub rexmit_nxt: u64,
    /// Its current transmission's place among all transmissions: orders what was sent at
    /// one instant as a finer clock would (RACK's "sent after", RFC 8985 §6.2).
    pub xmit_order: u64,
    /// Sent with PSH.
    pub psh: bool,
    /// Carries the FIN.
    pub fin: bool,
    /// The last segment of a packet as first sent (Linux flavour; what Linux retransmits
    /// as one skb, `sender::push`).
    pub packet_end: bool,
    /// Its current transmission's node in the transmit-time order (`u32::MAX` when not
    /// linked: SACKed, lost awaiting retransmission, or the order is not kept).
    pub ts_node: u32,
    /// What its current transmission recorded for delivery-rate estimation.
    pub tx: TxState,
}

impl SentSeg {
    /// Bytes.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    /// No byte.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
    /// `[start, end)`.
    pub fn range(&self) -> Range {
        Range::new(self.start, self.end)
    }
    /// Still outstanding with its current transmission, as RACK sees it: not SACKed, and
    /// not lost while awaiting a retransmission (RFC 8985's "infinite" xmit_ts).
    pub fn in_time_order(&self) -> bool {
        !self.sacked && (!self.lost || self.retrans)
    }
}

/// What a cumulative ACK removed from the scoreboard.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Acked {
    /// Bytes newly acknowledged.
    pub bytes: u64,
    /// Send time of the newest acknowledged segment, if it was never retransmitted.
    pub rtt_sample_sent: Option<Instant>,
    /// Some acknowledged segment had been retransmitted.
    pub any_retransmitted: bool,
    /// Bytes acknowledged that had been SACKed before (already counted as delivered).
    pub was_sacked: u64,
    /// Bytes acknowledged of an un-SACKed segment the ACK ends inside (its prefix).
    pub partial: u64,
    /// It acknowledged at least one whole segment (Linux: acknowledged a packet).
    pub completes_a_segment: bool,
    /// It ended strictly inside a segment (a receiver acknowledges the segments it
    /// received whole; a slice of a divided ACK ends anywhere).
    pub ends_inside: bool,
    /// The earliest last transmission among acknowledged segments that had been
    /// retransmitted (for the timestamp check of RFC 3522 §2).
    pub oldest_retrans_sent: Option<Instant>,
    /// The earliest first transmission among the acknowledged segments: a timestamp
    /// echo older than it was not sent for any of them (RFC 7323 §4).
    pub oldest_sent: Option<Instant>,
}

/// Which NextSeg rule (RFC 6675 §4) chose a retransmission.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum NextSegRule {
    /// Rule 1: the lowest lost segment above HighRxt.
    // Built only by `next_seg_fallback`, which only `introspect` users call.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    Lost,
    /// Rule 3: the lowest un-SACKed segment above HighRxt below the highest SACK.
    Unsacked,
    /// Rule 4: the once-per-recovery rescue retransmission.
    Rescue,
}

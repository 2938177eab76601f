//! The scoreboard's kept aggregates and caches, grouped by the rule that keeps each group
//! true. Every group is plain data, written only by `impl Scoreboard` (`sack`, `nextseg`,
//! `hint`, `proof`, `rack`, `undo`), and checked by [`Scoreboard::recount`] where it can
//! be re-derived.

use super::{proof, CACHE};
use crate::packet::Range;

/// The byte and segment counts RFC 6675 SetPipe is made of, kept incrementally so that
/// pipe costs nothing per ACK. Invariant (`check`, debug builds): the byte counts equal
/// a recount of the segments' marks (`lost_pending_bytes`: lost and not retransmitted).
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct Counts {
    /// Bytes SACKed above SND.UNA.
    pub(super) sacked_bytes: u64,
    /// Segments SACKed above SND.UNA.
    pub(super) sacked_segs: u64,
    /// Bytes marked lost, retransmitted or not.
    pub(super) lost_bytes: u64,
    /// Bytes of lost segments retransmitted and not yet acknowledged.
    pub(super) retrans_bytes: u64,
    /// Lost bytes with no retransmission outstanding: what NextSeg rule 1 may still send.
    pub(super) lost_pending_bytes: u64,
}

/// RFC 6675 §4 IsLost as a boundary: every un-SACKed segment ending at or below
/// `lost_upto` is lost, and it only moves forward between timeouts (module doc of
/// `scoreboard`). Invariant (`check`): `sacked_below_bytes` equals the SACKed bytes of
/// the segments ending at or below it.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct LostBoundary {
    /// Every un-SACKed segment ending at or below this offset is lost.
    pub(super) lost_upto: u64,
    /// SACKed bytes below `lost_upto`.
    pub(super) sacked_below_bytes: u64,
    /// SACKed segments below `lost_upto`.
    pub(super) sacked_below_segs: u64,
    /// Where the last IsLost walk stopped, the segment at `lost_upto` (`popped + index`,
    /// mod 2³²; see `hint`).
    pub(super) lost_hint: u32,
}

/// Where NextSeg (RFC 6675 §4) rules 1 and 3 resume: below `*_from` nothing can be chosen
/// again until a timeout or a new recovery resets them. The hints only save a search
/// (`hint`); a stale one is detected and ignored.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct NextSegCursors {
    /// NextSeg rule 1 never needs to look below this offset again.
    pub(super) rule1_from: u64,
    /// `popped + index` (mod 2³²) of the segment at `rule1_from` (see `hint`).
    pub(super) rule1_hint: u32,
    /// Nor does rule 3 (see `next_seg_fallback_with`).
    pub(super) rule3_from: u64,
    /// Where rule 3's last walk stopped (`popped + index`, mod 2³²; see `hint`).
    pub(super) rule3_hint: u32,
}

/// The previous ACK's SACK blocks (Linux `recv_sack_cache`): a block seen before is
/// already applied and is skipped. Only a cache: clearing it costs a re-walk, not a
/// wrong mark.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct SackMemo {
    /// Blocks of the previous ACK, all already applied (Linux `recv_sack_cache`).
    pub(super) sack_cache: [Range; CACHE],
    /// The same blocks as the peer sent them (before whole-segment tagging).
    pub(super) sack_cache_raw: [Range; CACHE],
    /// Where the last SACK marking ended (`popped + index`): a growing block's next edge
    /// is almost always there, which saves a binary search over the window per ACK.
    pub(super) sack_hint: u64,
}

/// What the ACK being processed saw as it arrived, set by [`Scoreboard::begin_ack`]
/// and read when its summary is built: the reordering evidence of digest §8.4.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct ThisAck {
    /// SND.FACK when the current ACK arrived ([`Scoreboard::begin_ack`]).
    pub(super) ack_fack: u64,
    /// Lowest byte this ACK delivered (SACKed or cumulatively acknowledged, never
    /// retransmitted, not SACKed before) that lay below `ack_fack`.
    pub(super) reorder_low: Option<u64>,
}

/// The last few retransmitted segments a cumulative ACK removed, with how often each was
/// retransmitted: what a DSACK for data already acknowledged can prove spurious
/// (`proof`). A ring: `acked_retrans_next` is the slot written next.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct AckedRetrans {
    /// The ring.
    pub(super) acked_retrans: [(u64, u32, u32); proof::ACKED_RETRANS],
    /// The slot written next.
    pub(super) acked_retrans_next: usize,
}

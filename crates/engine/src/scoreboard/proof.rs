//! Which retransmitted ranges a DSACK may prove spurious (issue 13, DSACK spoofing; a
//! departure from Linux, `dsack_proof`).
//!
//! RFC 2883 §5 and RFC 3708 take a DSACK at its word, and so does Linux's `undo_retrans`
//! accounting (`tcp_check_dsack`'s "dumb counting" below SND.UNA, `tcp_sacktag_one` above
//! it): a receiver that reports every hole-filling retransmission as a duplicate has every
//! loss response undone (`tcp_try_undo_dsack`). A DSACK is honest only if the *original*
//! transmission reached the receiver, and the sender can check that when the range is
//! first covered:
//!
//! - by a cumulative ACK echoing a TSval older than the retransmission's own: the ACK was
//!   sent for an earlier copy (RFC 3522 §2; Linux `tcp_packet_delayed`,
//!   `tcp_skb_spurious_retrans`). This also covers the lost-ACK case, where the DSACK
//!   arrives on the first ACK the sender sees: a fully old duplicate does not update
//!   TS.Recent (RFC 7323 §4.3). A SACK's echo proves nothing — out-of-order data does not
//!   update TS.Recent either, so it echoes the last in-order segment, whatever filled the
//!   hole;
//! - by any ACK arriving sooner than min_RTT after the retransmission: it cannot be for
//!   the retransmission (Linux `tcp_rack_advance`: "ACK too soon after the retransmission
//!   is for the original"; RFC 8985 §6.2 step 2).
//!
//! Both are [`RackFilter`]'s test for "this ACK is for an earlier copy", and only a range
//! retransmitted exactly once has the original as that earlier copy. A retransmitted range
//! first covered without such evidence was delivered by a retransmission as far as the
//! sender can tell, and its DSACK does not count toward `undo_retrans`. The honest cases
//! given up leave their reduction in place, as a sender without DSACK would: an original
//! that arrives *after* its retransmission (reordering by more than a round trip), and a
//! spurious timeout whose original's ACK the receiver was still delaying when the
//! retransmission arrived — the duplicate starts at Last.ACK.sent, so it updates TS.Recent
//! (Linux `tcp_replace_ts_recent`: `seq` not after `rcv_wup`) and the first ACK echoes it,
//! a round trip after the retransmission: exactly what the attacker's ACK looks like.
//!
//! Ranges retransmitted more than once are never proven (which copy an early ACK answered
//! is unknown): their DSACKs count only under Linux's accounting, and a timestamp undo
//! (`tcp_packet_delayed`) still applies to them.
//!
//! What it does not stop: a receiver that forges timestamp echoes (it defeats Eifel and
//! `tcp_packet_delayed` the same way), or one that predicts a retransmission and reports
//! it before it can have arrived (acknowledging data it does not have, as an optimistic
//! ACKer does).
//!
//! The evidence is one flag per segment while it is SACKed (`SentSeg::orig_proven`) and
//! the top bit of the retransmission count in the ring of acknowledged retransmissions.

use super::{RackFilter, Scoreboard, SentSeg};
use crate::packet::Range;

/// Acknowledged retransmitted segments remembered for DSACK accounting.
pub(super) const ACKED_RETRANS: usize = 8;

/// The top bit of an `acked_retrans` entry's retransmission count: the original was
/// proven to have arrived.
pub(super) const PROVEN: u32 = 1 << 31;

/// The ACK carrying a DSACK, as evidence for what it covers for the first time.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Cover {
    /// Which segments RACK may consider.
    pub filter: RackFilter,
    /// The ACK's cumulative point.
    pub cumulative: u64,
}

impl RackFilter {
    /// `s` is being covered for the first time by this ACK (`by_sack`: not cumulatively):
    /// does the ACK show that the original transmission delivered it?
    pub(super) fn proves_original(&self, s: &SentSeg, by_sack: bool) -> bool {
        s.ever_retrans && s.xmit_count == 2 && !self.accepts(s, by_sack)
    }
}

impl Scoreboard {
    /// `s` was shown delivered by its original: recorded when it was SACKed, or decided by
    /// `cover` (the ACK now carrying the DSACK) if it is not covered yet.
    fn original_proven(s: &SentSeg, cover: &Cover) -> bool {
        if s.sacked {
            s.orig_proven
        } else {
            cover.filter.proves_original(s, s.end > cover.cumulative)
        }
    }

    /// The entry the ring of acknowledged retransmissions keeps for `s`: (start, length,
    /// retransmissions | [`PROVEN`]). Called as a cumulative ACK removes it.
    pub(super) fn acked_retrans_entry(&self, s: &SentSeg) -> (u64, u32, u32) {
        // A segment's length fits in 32 bits (a longer one is remembered by its first 4 GB).
        let len = u32::try_from(s.len()).unwrap_or(u32::MAX);
        let n = s.xmit_count.saturating_sub(1).min(PROVEN - 1);
        let proven = if s.sacked {
            s.orig_proven
        } else {
            self.rack_filter.proves_original(s, false)
        };
        (s.start, len, n | if proven { PROVEN } else { 0 })
    }

    /// Segments in `range` that were ever retransmitted and end above `above`, counted in
    /// `mss`-sized segments (Linux `pcount`), for DSACK accounting; with `cover`, only
    /// those whose original was shown to arrive.
    pub fn retransmitted_segs_in(
        &self,
        range: Range,
        above: u64,
        mss: u64,
        cover: Option<&Cover>,
    ) -> u64 {
        let mut i = self.segs.partition_point(|s| s.end <= range.start);
        let mut n = 0;
        while i < self.segs.len() && self.segs[i].start < range.end {
            let s = &self.segs[i];
            let proven = cover.is_none_or(|c| Self::original_proven(s, c));
            if s.ever_retrans && s.end > above && proven {
                n += s.len().div_ceil(mss.max(1));
            }
            i += 1;
        }
        n
    }

    /// How many times the data in `range` was retransmitted (the most for any segment in
    /// it): from the scoreboard, or for data already acknowledged from the last few
    /// retransmitted segments a cumulative ACK removed; 0 when nothing in it ever was.
    /// With `cover`, only segments whose original was shown to arrive count.
    pub fn retransmissions_in(&self, range: Range, cover: Option<&Cover>) -> u32 {
        let overlaps = |a: u64, b: u64| a < range.end && range.start < b;
        let mut i = self.segs.partition_point(|s| s.end <= range.start);
        let mut most = 0;
        while i < self.segs.len() && self.segs[i].start < range.end {
            let s = &self.segs[i];
            if cover.is_none_or(|c| Self::original_proven(s, c)) {
                most = most.max(s.xmit_count.saturating_sub(1));
            }
            i += 1;
        }
        for &(a, len, n) in &self.proofs.acked_retrans {
            if overlaps(a, a.saturating_add(u64::from(len))) && (cover.is_none() || n & PROVEN != 0)
            {
                most = most.max(n & !PROVEN);
            }
        }
        most
    }

    /// Of the data in `range` already acknowledged, the `mss`-sized segments whose
    /// original was shown to arrive (bounds Linux's "dumb counting" for a DSACK below
    /// SND.UNA, which counts the DSACK's length).
    pub fn proven_acked_segs_in(&self, range: Range, mss: u64) -> u64 {
        let mut n = 0;
        for &(a, len, k) in &self.proofs.acked_retrans {
            let b = a.saturating_add(u64::from(len));
            if k & PROVEN != 0 && a < range.end && range.start < b {
                n += u64::from(len).div_ceil(mss.max(1));
            }
        }
        n
    }
}

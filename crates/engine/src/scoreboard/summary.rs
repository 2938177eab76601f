//! One ACK applied to the scoreboard (RFC 6675 §5 `Update()`): the cumulative part, then
//! the SACK blocks (skipping what the previous ACK reported), returning what happened as
//! one value — nothing the caller must set up first or read back afterwards.

use super::{Acked, Delivered, RackFilter, Scoreboard, SentSeg};
use crate::packet::Range;

/// What one ACK did to the scoreboard.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckSummary {
    /// The cumulative part (Δsnd.una and what it covered).
    pub acked: Acked,
    /// Bytes newly SACKed (RFC 6675 §2: makes the ACK a "duplicate acknowledgment").
    pub newly_sacked: u64,
    /// Blocks wholly outside [SND.UNA, SND.NXT) (Linux `TCPSACKDiscard`).
    pub discarded: u32,
    /// The most recently sent segments it delivered (RACK, F-RTO's evidence).
    pub delivered: Delivered,
    /// The lowest never-retransmitted byte it delivered below the SND.FACK it found
    /// (Linux `tcp_check_sack_reordering`'s `low_seq`), if any.
    pub reorder_low: Option<u64>,
}

impl Scoreboard {
    /// Applies one ACK: `cumulative` (at most SND.NXT) and `blocks` (SACK blocks without
    /// the DSACK; empty without SACK). `filter` is RACK's test for retransmitted segments
    /// on this ACK (RFC 8985 §6.2 step 2).
    // Inlined into its one caller, so the 176-byte summary is read where it is, not
    // copied out by a memcpy call per ACK.
    #[inline]
    pub fn on_ack(&mut self, filter: RackFilter, cumulative: u64, blocks: &[Range]) -> AckSummary {
        self.rack_filter = filter;
        self.this_ack.ack_fack = self.high_sacked();
        self.this_ack.reorder_low = None;
        self.delivered = Delivered::default();
        let acked = self.ack_cumulative(cumulative);
        let (mut newly_sacked, mut discarded) = (0, 0);
        let mut tagged = [None; crate::packet::MAX_SACK_BLOCKS];
        for (k, b) in blocks.iter().enumerate() {
            match self.tag_block(*b) {
                Some(t) => {
                    newly_sacked += self.sack_tagged(t);
                    if let Some(slot) = tagged.get_mut(k) {
                        *slot = t;
                    }
                }
                None => discarded += 1,
            }
        }
        self.store_sack_cache(blocks, &tagged[..blocks.len().min(tagged.len())]);
        AckSummary {
            acked,
            newly_sacked,
            discarded,
            delivered: self.delivered,
            reorder_low: self.this_ack.reorder_low,
        }
    }

    /// Removes everything below `cumulative` (which must not exceed SND.NXT).
    pub fn ack_cumulative(&mut self, cumulative: u64) -> Acked {
        let mut out = Acked::default();
        if cumulative <= self.snd_una {
            return out;
        }
        debug_assert!(cumulative <= self.snd_nxt);
        while let Some(&front) = self.segs.front() {
            if front.start >= cumulative {
                break;
            }
            if front.end > cumulative {
                // Partial ACK of a segment: drop its acknowledged prefix.
                let cut = cumulative - front.start;
                out.ends_inside = true;
                if !front.sacked {
                    let mut part = front;
                    part.end = cumulative;
                    self.note_delivered(&part, false, false);
                    out.partial = cut;
                }
                if front.sacked {
                    // Delivered when it was SACKed (RFC 6937 §2), not again now.
                    out.was_sacked += cut;
                }
                self.uncount(0, cut);
                self.segs[0].start = cumulative;
                out.bytes += cut;
                break;
            }
            self.unlink(0);
            out.completes_a_segment = true;
            // `front` is the segment as it was (only its time-order link, unused below,
            // changed): moving the popped 96-byte value out again cost a memmove per
            // acknowledged segment.
            let s = front;
            self.segs.pop_front();
            self.popped += 1;
            self.uncount_seg(&s);
            out.bytes += s.len();
            if s.sacked {
                out.was_sacked += s.len();
            } else {
                self.note_delivered(&s, false, true);
            }
            if s.ever_retrans {
                let k = self.proofs.acked_retrans_next % super::proof::ACKED_RETRANS;
                self.proofs.acked_retrans[k] = self.acked_retrans_entry(&s);
                self.proofs.acked_retrans_next += 1;
                out.oldest_retrans_sent = Some(
                    out.oldest_retrans_sent
                        .map_or(s.last_sent, |t| t.min(s.last_sent)),
                );
            }
            out.any_retransmitted |= s.ever_retrans;
            out.rtt_sample_sent = (!s.ever_retrans).then_some(s.last_sent);
            out.oldest_sent = Some(
                out.oldest_sent
                    .map_or(s.first_sent, |t| t.min(s.first_sent)),
            );
        }
        self.snd_una = cumulative;
        if self.bound.lost_upto < cumulative {
            self.bound.lost_upto = cumulative;
        }
        self.high_rxt = self.high_rxt.max(cumulative);
        self.cursor.rule1_from = self.cursor.rule1_from.max(cumulative);
        out
    }

    /// `s` (or, unless `whole`, an acknowledged prefix of it) was delivered by this ACK.
    pub(super) fn note_delivered(&mut self, s: &SentSeg, by_sack: bool, whole: bool) {
        let (start, end) = (s.start, s.end);
        if !s.ever_retrans && end <= self.this_ack.ack_fack {
            self.this_ack.reorder_low =
                Some(self.this_ack.reorder_low.map_or(start, |l| l.min(start)));
        }
        self.delivered.note(&self.rack_filter, s, by_sack);
        self.delivered.segs += u64::from(whole);
    }
}

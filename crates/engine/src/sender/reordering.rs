//! Reordering evidence on the sender: a retransmission shown unneeded (DSACK, timestamp),
//! and never-retransmitted data delivered below the highest SACK (Linux
//! `tcp_check_sack_reordering`, digest §8.4) — its degree, the counters, the adaptive
//! threshold and RACK's note of it (RFC 8985 §6.2 step 3).

use super::Sender;
use crate::detect::reordering;
use crate::event::{EventKind, ReorderSignal};
use crate::packet::Range;
use crate::time::Instant;

/// The reordering the connection has seen.
#[derive(Clone, Debug)]
pub(super) struct Reorder {
    /// Linux `tp->reordering`: the duplicate threshold in use with adaptive reordering.
    pub degree: u32,
    /// Reordering was detected at least once (RFC 5827 App. A.1 mitigation input).
    pub seen: bool,
    /// FACK turned off after reordering (Linux `tcp_disable_fack`).
    pub fack_disabled: bool,
    /// The last early retransmission and whether it was already found spurious.
    pub er_last: Option<(Range, bool)>,
}

impl Reorder {
    /// None seen yet; the threshold starts at DupThresh.
    pub fn new(dupthresh: u32) -> Reorder {
        Reorder {
            degree: dupthresh,
            seen: false,
            fack_disabled: false,
            er_last: None,
        }
    }
}

impl Sender {
    /// A retransmission covering `range` was not needed.
    pub(super) fn note_spurious(&mut self, now: Instant, range: Range, by: ReorderSignal) {
        self.core.reorder.seen = true;
        if let Some((er, counted)) = &mut self.core.reorder.er_last {
            if !*counted && er.overlaps(&range) {
                *counted = true;
                self.stats.early_retrans_spurious += 1;
            }
        }
        let degree = u64::from(self.reordering());
        self.emit(now, EventKind::Reordering { degree, by });
    }

    /// Linux `tcp_check_sack_reordering` (digest §8.4): never-retransmitted data delivered
    /// below SND.FACK arrived out of order by ⌈(SND.FACK − seq)/SMSS⌉ segments. With
    /// adaptive reordering a larger degree becomes the duplicate threshold (and FACK is
    /// turned off, `tcp_disable_fack`).
    pub(super) fn check_sack_reordering(&mut self, now: Instant, reorder_low: Option<u64>) {
        if let Some(low) = reorder_low {
            self.reordering_from(now, low, ReorderSignal::Sack);
        }
    }

    /// Data from `low` up was delivered out of order (SACK evidence, or a timestamp that
    /// showed a hole filled by the original): RACK learns it, and the degree
    /// ⌈(SND.FACK − low)/SMSS⌉ may raise the adaptive threshold.
    pub(super) fn reordering_from(&mut self, now: Instant, low: u64, by: ReorderSignal) {
        let degree = reordering::degree(self.core.sb.high_sacked(), low, self.mss);
        if degree == 0 {
            return;
        }
        self.core.reorder.seen = true;
        self.core.rack.note_reordering(); // RFC 8985 §6.2 step 3; Linux `reord_seen++`
        let raised = degree > self.reordering();
        // A timestamp's is counted as `TCPTSReorder` by the caller. Linux counts every
        // event (`tcp_check_sack_reordering`), older kernels only a raise
        // (`tcp_update_reordering`).
        if by == ReorderSignal::Sack && (raised || self.alg.rules.every_reordering_counted) {
            if matches!(
                self.loss_detection(),
                crate::config::resolved::Detection::Fack { .. }
            ) {
                self.stats.fack_reorder += 1;
            } else {
                self.stats.sack_reorder += 1;
            }
        }
        if !raised {
            return;
        }
        if self.alg.adaptive_reordering {
            self.core.reorder.degree = reordering::raise(self.core.reorder.degree, degree);
            self.core.reorder.fack_disabled = true;
        }
        self.emit(
            now,
            EventKind::Reordering {
                degree: u64::from(self.reordering()),
                by,
            },
        );
    }
}

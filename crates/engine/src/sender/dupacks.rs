//! Duplicate-ACK counting (RFC 5681 §3.2, RFC 6675 §5) and, without SACK, Linux's
//! emulated `sacked_out` (`tcp_add_reno_sack`): the counters that outlive one recovery
//! state (they build up in Open and Disorder before fast recovery starts, and a partial
//! advance can leave credit behind in Open), so they are one value on the sender with named
//! resets rather than data of a `Ca` variant; and the sender's counting of one ACK as a
//! duplicate (`count_dupack`).

use super::ack::{Prior, MAX_WINDOW};
use super::Sender;
use crate::detect::ack_budget::AckBudget;
use crate::detect::dupthresh;
use crate::packet::Ack;
use crate::scoreboard::AckSummary as ScoreboardAck;
use crate::time::Instant;

/// The duplicate-ACK counters of one connection.
#[derive(Clone, Debug, Default)]
pub(super) struct DupAcks {
    /// RFC 6675 DupAcks.
    pub count: u32,
    /// Without SACK: Linux's `sacked_out` as `tcp_add_reno_sack` counts it, every
    /// duplicate ACK, at most the segments outstanding beyond the hole.
    pub reno: u32,
    /// Without SACK: bytes credited to duplicate ACKs as delivered above SND.UNA (Linux's
    /// emulated `sacked_out`; RFC 6937 §2 DeliveredData).
    pub reno_sacked: u64,
    /// Linux flavour with SACK: bytes acknowledged of the segment SND.UNA is inside, not
    /// yet delivered (Linux counts packets; `sender::reno::hold_partial`).
    pub held_partial: u64,
    /// Without SACK: the ACKs the peer can honestly have sent (`detect::ack_budget`); a
    /// duplicate beyond it is not counted.
    pub budget: AckBudget,
    /// With `dupack_budget` (beyond Linux): what an undone fast recovery's non-SACK
    /// DeliveredData budget had left. An undo says the episode was not a loss, not that
    /// its duplicates were honest, so they earn no fresh credit: the Open and Disorder
    /// states that follow stay held to it until a new episode, the end of one, or a
    /// timeout (a DupACK spoofer's undone recoveries would otherwise refill it each time,
    /// issue 26 item 4).
    pub undone_budget: Option<u64>,
}

impl DupAcks {
    /// Fast recovery ended at its point: the non-SACK counts start over (Linux
    /// `tcp_reset_reno_sack` via `tcp_try_undo_recovery`/`tcp_end_cwnd_reduction`'s
    /// callers). DupAcks itself is reset where the state is left (`end_recovery`).
    pub fn on_recovery_exit(&mut self) {
        self.undone_budget = None;
        self.reno_sacked = 0;
        self.reno = 0;
    }

    /// A retransmission timeout: every count starts over (Linux `tcp_enter_loss` →
    /// `tcp_reset_reno_sack`; RFC 6675 §5.1).
    pub fn on_timeout(&mut self) {
        self.undone_budget = None;
        self.count = 0;
        self.reno_sacked = 0;
        self.reno = 0;
    }

    /// An undo leaves recovery: the credit goes, the duplicate count stays (Linux's undo
    /// keeps `sacked_out`: `tcp_try_undo_partial`, `tcp_try_undo_dsack`).
    pub fn on_undo(&mut self) {
        self.reno_sacked = 0;
    }
}

impl Sender {
    /// RFC 6675 §2's duplicate acknowledgment with SACK, RFC 5681's without; counts it.
    pub(super) fn count_dupack(
        &mut self,
        now: Instant,
        ack: &Ack,
        sb: &ScoreboardAck,
        prior: Prior,
        prior_window: u64,
    ) -> bool {
        let is_dup = if self.sack_ok {
            dupthresh::is_dupack_sack(sb.newly_sacked)
        } else {
            // An ACK that advances SND.UNA without completing a segment (a slice of a
            // divided ACK, Savage et al. 1999 §2.1) answers no segment: it costs the
            // budget nothing, as Linux counts it as acknowledging no packet
            // (`tcp_clean_rtx_queue`). Charging it would take the meaning from the genuine
            // duplicates after the next loss (`detect::ack_budget`).
            let slice = sb.acked.bytes > 0 && !sb.acked.completes_a_segment;
            // Only with `dupack_budget`: Linux has no such budget.
            let answers_a_segment =
                slice || !self.alg.dupack_budget || self.core.dup.budget.on_ack();
            if ack.cumulative > prior.una {
                let outstanding = self.core.sb.flight_size() + self.core.sb.retrans_bytes();
                self.core
                    .dup
                    .budget
                    .on_advance(outstanding.div_ceil(self.mss));
            }
            let dup = dupthresh::is_dupack_nosack(
                ack.cumulative,
                prior.una,
                prior.flight,
                ack.window.min(MAX_WINDOW),
                prior_window,
            );
            if dup {
                self.add_reno_dupack(now);
            }
            if dup && !answers_a_segment {
                // More ACKs than segments sent: Savage et al.'s DupACK spoofing.
                self.stats.dupacks_ignored += 1;
            }
            dup && answers_a_segment
        };
        if is_dup {
            self.core.dup.count = self.core.dup.count.saturating_add(1);
        }
        is_dup
    }
}

//! Duplicate-ACK counting (RFC 5681 §3.2, RFC 6675 §5) and, without SACK, Linux's
//! emulated `sacked_out` (`tcp_add_reno_sack`): the counters that outlive one recovery
//! state (they build up in Open and Disorder before fast recovery starts, and a partial
//! advance can leave credit behind in Open), so they are one value on the sender with named
//! resets rather than data of a `Ca` variant.

use crate::detect::ack_budget::AckBudget;

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

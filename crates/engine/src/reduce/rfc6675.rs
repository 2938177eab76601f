//! RFC 6675 §5 rate reduction (as RFC 3517 §5): at the start of recovery
//! cwnd = ssthresh (FlightSize/2 by RFC 5681 eq. 4, via the congestion control), then send
//! while cwnd − pipe ≥ SMSS (step C). Without SACK the same axis value runs NewReno's
//! window inflation (RFC 6582 §3.2, RFC 5681 §3.2), whose arithmetic is in
//! [`crate::detect::newreno`].

use super::{Entry, RecoveryAck};
use crate::detect::newreno;

/// cwnd at recovery entry: ssthresh itself (RFC 6675 §5 step 4.2).
pub fn entry_cwnd(ssthresh: u64) -> u64 {
    ssthresh
}

/// Step (C): how many bytes may be sent now (0 when cwnd − pipe < SMSS).
pub fn quota(cwnd: u64, pipe: u64, mss: u64) -> u64 {
    let room = cwnd.saturating_sub(pipe);
    if room >= mss {
        room
    } else {
        0
    }
}

/// Per-episode state: whether SACK drives it, and whether the next ACK is the one that
/// started recovery (NewReno's ssthresh + 3·SMSS already counts its duplicates).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Rfc6675 {
    sack: bool,
    entry_ack: bool,
}

impl Rfc6675 {
    /// Enters recovery (RFC 6675 §5 step 4.2): the new cwnd.
    pub fn on_enter(&mut self, e: &Entry) -> u64 {
        self.sack = e.sack;
        self.entry_ack = true;
        if e.sack {
            entry_cwnd(e.ssthresh)
        } else {
            newreno::entry_cwnd(e.ssthresh, e.mss)
        }
    }

    /// An ACK in recovery: the cwnd after it.
    pub fn on_ack(&mut self, a: &RecoveryAck, cwnd: u64) -> u64 {
        if self.sack || core::mem::take(&mut self.entry_ack) {
            cwnd
        } else if a.acked > 0 {
            // RFC 6582 §3.2 step 5: a partial ACK deflates the window.
            newreno::deflate_on_partial_ack(cwnd, a.acked, a.delivered, a.mss)
        } else if a.dupack {
            // Only a duplicate the sender credited (at most one per segment outstanding,
            // Linux `tcp_limit_reno_sacked`; within RecoverFS, RFC 9937 §6) inflates.
            newreno::inflate(cwnd, a.delivered.min(a.mss))
        } else {
            cwnd
        }
    }

    /// What may be sent now (RFC 6675 §5: cwnd − pipe).
    pub fn quota(&self, cwnd: u64, pipe: u64, flight_size: u64, mss: u64) -> u64 {
        if self.sack {
            quota(cwnd, pipe, mss)
        } else {
            // RFC 6582 §3.2 steps 3-4: new data as the inflated cwnd allows FlightSize.
            cwnd.saturating_sub(flight_size)
        }
    }

    /// Leaves recovery (RFC 6675 §5): the cwnd after it.
    pub fn on_exit(&mut self, cwnd: u64, ssthresh: u64, flight_size: u64, mss: u64) -> u64 {
        if self.sack {
            cwnd
        } else {
            // RFC 6582 §3.2 step 6, option 1.
            newreno::exit_cwnd(ssthresh, flight_size, mss)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn send_only_with_a_full_segment_of_room() {
        assert_eq!(quota(10_000, 9_000, 1000), 1000);
        assert_eq!(quota(10_000, 9_001, 1000), 0);
        assert_eq!(quota(10_000, 12_000, 1000), 0);
    }
}

//! How many ACKs the peer can honestly have sent: a receiver sends at most one ACK per
//! segment it receives (RFC 9293 §3.10.7.4; RFC 5681 §4.2 asks for one at least every
//! second segment). Without SACK a duplicate ACK carries no evidence of which segment
//! caused it; one beyond the segments sent so far, less the ACKs already received, was
//! caused by none — a DupACK spoofer's copy (Savage, Cardwell, Wetherall, Anderson, CCR
//! 1999 §2.2) or a duplicate made by the network — and is not counted (no DupAcks, no
//! DeliveredData, no window inflation).
//!
//! Linux bounds the count at the segments outstanding (`tcp_limit_reno_sacked`); that
//! lets a spoofer repeating every ACK keep the count at the bound while each credited
//! copy releases a new segment. The budget here is over the connection's life: ACKs
//! beyond it are a debt that only segments sent later pay off. And it never exceeds the
//! transmissions still outstanding: a segment cumulatively acknowledged has caused every
//! ACK it ever will, so the ACK a delayed-ACK receiver did not send for it is not owed
//! any more (otherwise a spoofer saves them up over an honest phase and spends them at
//! once).
//!
//! An ACK that advances SND.UNA without completing a segment (a slice of a divided ACK,
//! CCR 1999 §2.1) answers no segment and is not charged (the sender's `count_dupack`):
//! Linux counts it as acknowledging no packet, and charging the slices would leave the
//! genuine duplicates after the next loss uncounted — the hole to the RTO.

/// Data segments sent minus ACKs received (negative: more ACKs than segments).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckBudget {
    balance: i64,
}

impl AckBudget {
    /// A data segment (new or retransmitted) was sent.
    pub fn on_send(&mut self) {
        self.balance = self.balance.saturating_add(1);
    }

    /// SND.UNA advanced: at most `outstanding` transmissions can still cause an ACK.
    pub fn on_advance(&mut self, outstanding: u64) {
        self.balance = self
            .balance
            .min(i64::try_from(outstanding).unwrap_or(i64::MAX));
    }

    /// An ACK arrived: whether a segment not yet answered could have caused it.
    pub fn on_ack(&mut self) -> bool {
        let ok = self.balance > 0;
        self.balance = self.balance.saturating_sub(1);
        ok
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_ack_per_segment_and_copies_are_a_debt() {
        let mut b = AckBudget::default();
        b.on_send();
        b.on_send();
        assert!(b.on_ack());
        assert!(b.on_ack());
        // Two copies beyond the segments: not caused by any, and owed.
        assert!(!b.on_ack());
        assert!(!b.on_ack());
        b.on_send();
        b.on_send();
        assert!(!b.on_ack(), "the debt is paid first");
        b.on_send();
        b.on_send();
        assert!(b.on_ack());
    }

    #[test]
    fn unused_acks_expire_with_their_segments() {
        let mut b = AckBudget::default();
        for _ in 0..4 {
            b.on_send();
        }
        assert!(b.on_ack()); // a delayed ACK of two
        b.on_advance(2);
        assert!(b.on_ack()); // … and of the last two
        b.on_advance(0);
        b.on_send();
        assert!(b.on_ack(), "the one segment outstanding may cause one");
        assert!(!b.on_ack(), "the two unused ACKs are not owed any more");
    }
}

//! NewReno fast recovery for connections without SACK (RFC 6582 §3.2), with the window
//! inflation of RFC 5681 §3.2.

/// cwnd at entry (RFC 6582 §3.2 step 2, RFC 5681 step 3): ssthresh + 3·SMSS.
pub fn entry_cwnd(ssthresh: u64, mss: u64) -> u64 {
    ssthresh.saturating_add(3 * mss)
}

/// Each further duplicate ACK inflates cwnd by one SMSS (RFC 6582 §3.2 step 3): by the
/// `credited` bytes the sender counted for it, one SMSS or nothing.
pub fn inflate(cwnd: u64, credited: u64) -> u64 {
    cwnd.saturating_add(credited)
}

/// A partial ACK (RFC 6582 §3.2 step 5): deflate cwnd by the amount newly acknowledged and
/// add back one SMSS if at least one SMSS was acknowledged — "to reflect the additional
/// segment that has left the network": the retransmission the ACK acknowledges. `delivered`
/// is what the ACK delivered beyond what the duplicates already counted (RFC 9937 §6's
/// non-SACK DeliveredData); an ACK with less than an SMSS of it (a slice of a divided ACK,
/// Savage et al. 1999, which acknowledges no retransmission) adds nothing back, so the
/// slices of one ACK deflate as the whole ACK would and add back at most once.
pub fn deflate_on_partial_ack(cwnd: u64, newly_acked: u64, delivered: u64, mss: u64) -> u64 {
    let c = cwnd.saturating_sub(newly_acked);
    let c = if newly_acked >= mss && delivered >= mss {
        c + mss
    } else {
        c
    };
    c.max(mss)
}

/// A full ACK ends recovery (RFC 6582 §3.2 step 6, option 1):
/// cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS).
pub fn exit_cwnd(ssthresh: u64, flight_size: u64, mss: u64) -> u64 {
    ssthresh.min(flight_size.max(mss) + mss)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc6582_steps() {
        let mss = 1000;
        assert_eq!(entry_cwnd(5000, mss), 8000);
        assert_eq!(inflate(8000, mss), 9000);
        // 2000 bytes newly acked: 9000 − 2000 + 1000.
        assert_eq!(deflate_on_partial_ack(9000, 2000, 1000, mss), 8000);
        assert_eq!(deflate_on_partial_ack(9000, 500, 500, mss), 8500);
        // A slice that acknowledged no retransmission: the duplicates counted its bytes.
        assert_eq!(deflate_on_partial_ack(9000, 2000, 0, mss), 7000);
        assert_eq!(exit_cwnd(5000, 1000, mss), 2000);
        assert_eq!(exit_cwnd(5000, 9000, mss), 5000);
    }
}

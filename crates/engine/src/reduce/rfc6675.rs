//! RFC 6675 §5 rate reduction (as RFC 3517): at the start of recovery
//! cwnd = ssthresh = FlightSize/2 (RFC 5681 eq. 4, via the congestion control), then send
//! while cwnd − pipe ≥ SMSS (step C).

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

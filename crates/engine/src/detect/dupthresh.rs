//! Duplicate-ACK threshold loss detection: RFC 6675 §2 (duplicate ACK with SACK), §4 IsLost,
//! §5 entry rules; RFC 5681 §2 duplicate ACKs without SACK; RFC 3042 limited transmit.
//!
//! Pure decisions; the sender applies them. IsLost itself lives in the scoreboard, where
//! the SACK marks are.

/// RFC 6675 §2: with SACK, an ACK is a "duplicate" when it newly SACKs data in
/// [HighACK, HighData] — even if it also advances the cumulative ACK.
pub fn is_dupack_sack(newly_sacked: u64) -> bool {
    newly_sacked > 0
}

/// RFC 5681 §2 duplicate ACK, for connections without SACK: outstanding data, no
/// cumulative advance, no window change, no SACK/data (the receiver sends no data).
pub fn is_dupack_nosack(
    cumulative: u64,
    snd_una: u64,
    flight_size: u64,
    window: u64,
    prev_window: u64,
) -> bool {
    flight_size > 0 && cumulative == snd_una && window == prev_window
}

/// RFC 6675 §5: enter loss recovery once DupAcks ≥ DupThresh, or earlier when the first
/// unacknowledged segment is already deemed lost by IsLost.
pub fn should_enter_recovery(dupacks: u32, dupthresh: u32, head_lost: bool) -> bool {
    dupacks >= dupthresh || head_lost
}

/// RFC 3042: on the first two duplicate ACKs (below DupThresh) the sender may send one new
/// segment each beyond cwnd, as long as FlightSize stays ≤ cwnd + 2·SMSS. Returns the extra
/// allowance in bytes.
pub fn limited_transmit_allowance(dupacks: u32, dupthresh: u32, mss: u64) -> u64 {
    if dupacks == 0 || dupacks >= dupthresh {
        0
    } else {
        u64::from(dupacks.min(2)) * mss
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limited_transmit_allows_two_segments() {
        assert_eq!(limited_transmit_allowance(0, 3, 1000), 0);
        assert_eq!(limited_transmit_allowance(1, 3, 1000), 1000);
        assert_eq!(limited_transmit_allowance(2, 3, 1000), 2000);
        assert_eq!(limited_transmit_allowance(3, 3, 1000), 0);
    }

    #[test]
    fn entry_on_threshold_or_islost() {
        assert!(!should_enter_recovery(2, 3, false));
        assert!(should_enter_recovery(3, 3, false));
        assert!(should_enter_recovery(1, 3, true));
    }

    #[test]
    fn nosack_dupack_definition() {
        assert!(is_dupack_nosack(100, 100, 500, 65535, 65535));
        assert!(!is_dupack_nosack(200, 100, 500, 65535, 65535), "advances");
        assert!(
            !is_dupack_nosack(100, 100, 0, 65535, 65535),
            "nothing outstanding"
        );
        assert!(
            !is_dupack_nosack(100, 100, 500, 1000, 65535),
            "window update"
        );
    }
}

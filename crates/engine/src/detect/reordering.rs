//! Linux's adaptive reordering degree (`tp->reordering`; digest §8.4, §16): the duplicate
//! threshold grows to the largest reordering the connection has seen.
//!
//! When a segment that was never retransmitted is SACKed or cumulatively acknowledged
//! below the forward-most SACK (SND.FACK), the network delivered it out of order by
//! ⌈(SND.FACK − seq)/SMSS⌉ segments (`tcp_check_sack_reordering`). A larger degree replaces
//! the threshold, capped at `tcp_max_reordering` = 300; a timeout in Open or Disorder with
//! at least the configured DupThresh SACKed segments resets it (`tcp_enter_loss`).

/// Linux `sysctl_tcp_max_reordering`.
pub const MAX_REORDERING: u32 = 300;

/// The reordering degree, in segments, shown by delivering `low_seq` while SND.FACK is
/// `snd_fack`; 0 when `low_seq` is not below SND.FACK.
pub fn degree(snd_fack: u64, low_seq: u64, mss: u64) -> u32 {
    if low_seq >= snd_fack {
        return 0;
    }
    let segs = (snd_fack - low_seq).div_ceil(mss.max(1));
    segs.min(u64::from(MAX_REORDERING)) as u32
}

/// The new `tp->reordering`: raised to `degree` if larger, capped at 300.
pub fn raise(current: u32, degree: u32) -> u32 {
    current.max(degree.min(MAX_REORDERING))
}

/// After a timeout (Linux `tcp_enter_loss`): back to the configured threshold if the
/// connection was in Open or Disorder with at least that many segments SACKed.
pub fn after_timeout(
    current: u32,
    configured: u32,
    open_or_disorder: bool,
    sacked_segs: u64,
) -> u32 {
    if open_or_disorder && sacked_segs >= u64::from(configured) {
        current.min(configured)
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segment 0 is delayed behind segments 1..3 (SACKed, SND.FACK = 4000): its late
    /// arrival shows reordering of degree 4 (Linux: (fack − low_seq)/mss rounded up).
    #[test]
    fn degree_from_a_late_segment() {
        assert_eq!(degree(4000, 0, 1000), 4);
        assert_eq!(degree(4000, 2500, 1000), 2);
        assert_eq!(degree(4000, 4000, 1000), 0);
        assert_eq!(degree(u64::MAX, 0, 1), MAX_REORDERING);
        assert_eq!(raise(3, 4), 4);
        assert_eq!(raise(5, 4), 5);
        assert_eq!(raise(5, 1000), 300);
        assert_eq!(after_timeout(9, 3, true, 3), 3);
        assert_eq!(after_timeout(9, 3, true, 2), 9);
        assert_eq!(after_timeout(9, 3, false, 5), 9);
    }
}

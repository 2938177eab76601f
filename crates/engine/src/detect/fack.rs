//! FACK threshold recovery: the TLP draft §2.2 (draft-dukkipati-tcpm-tcp-loss-probe-01) and
//! §3.1 of the FACK paper (Mathis & Mahdavi, 1996); digest §6.
//!
//! SND.FACK is one past the forward-most SACKed byte (SND.UNA when nothing is SACKed).
//! Recovery starts as soon as the receiver holds more than DupThresh segments beyond
//! SND.UNA — often on the first SACK after a burst loss — and every un-SACKed byte more
//! than DupThresh·SMSS below SND.FACK is lost (Linux's `tcp_update_scoreboard` in FACK mode
//! marks the first `fackets_out − reordering` segments).
//!
//! Pure decisions; the scoreboard applies the loss boundary.

/// TLP draft §2.2: `(SND.FACK − SND.UNA) > dupack threshold` invokes fast retransmit and
/// fast recovery. The threshold is in segments; here in bytes, DupThresh·SMSS.
pub fn should_enter_recovery(snd_fack: u64, snd_una: u64, dupthresh: u32, mss: u64) -> bool {
    snd_fack.saturating_sub(snd_una) > u64::from(dupthresh).saturating_mul(mss)
}

/// The FACK loss boundary: un-SACKed segments ending at or below this offset are lost.
pub fn lost_below(snd_fack: u64, dupthresh: u32, mss: u64) -> u64 {
    snd_fack.saturating_sub(u64::from(dupthresh).saturating_mul(mss))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segments of 1000 bytes, DupThresh 3: SACK of segment 4 with 0..3 missing puts
    /// SND.FACK at 5000: 5000 − 0 > 3000 → recovery; segments 0 and 1 (ending at or below
    /// 2000) are lost, as Linux marks fackets_out (5) − reordering (3) = 2 segments.
    #[test]
    fn threshold_and_boundary() {
        assert!(should_enter_recovery(5000, 0, 3, 1000));
        assert!(
            !should_enter_recovery(3000, 0, 3, 1000),
            "3 segments: not more than 3"
        );
        assert!(
            should_enter_recovery(4000, 0, 3, 1000),
            "the first SACK of segment 3"
        );
        assert_eq!(lost_below(5000, 3, 1000), 2000);
        assert_eq!(lost_below(2000, 3, 1000), 0);
    }
}

//! Early Retransmit: RFC 5827 §2-3 (byte- and segment-based, with the SACK variants), the
//! mitigations of its Appendix A, Linux 3.5-4.10's delayed ER (`tcp_early_retrans` = 2,
//! digest §7), and the enhancement of the TLP draft §4.2 (seed 000).
//!
//! ER lowers the duplicate-ACK threshold when too little data is outstanding to produce
//! DupThresh duplicates — but only when no new segment can be sent (RFC 5827 §2 (b)):
//! otherwise limited transmit (RFC 3042) would bring more duplicates.
//!
//! Pure decisions; the sender applies them (and owns the deadline for the delayed form).

use core::time::Duration;

use crate::config::resolved::{ErMode, ErRule};

/// The connection as an ACK leaves it, as far as ER cares.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// Outstanding segments (RFC 5827 `oseg`), SACKed ones included.
    pub oseg: u64,
    /// Outstanding bytes (RFC 5827 `ownd`, FlightSize).
    pub ownd: u64,
    /// SACKed segments among the outstanding ones.
    pub sacked_segs: u64,
    /// SACKed bytes among the outstanding ones.
    pub sacked_bytes: u64,
    /// The highest outstanding segment is SACKed.
    pub last_sacked: bool,
    /// Duplicate ACKs (RFC 5681 without SACK).
    pub dupacks: u32,
    /// SACK is in use (RFC 5827 §3.2 rather than §3.1).
    pub sack: bool,
    /// The sender's MSS, bytes.
    pub mss: u64,
    /// Previously unsent data is ready and the receive window admits a segment of it
    /// (RFC 5827 §2 (b): then ER does not apply).
    pub can_send_new: bool,
}

/// Which rule allows the early retransmit.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// RFC 5827's lowered threshold.
    Rfc5827,
    /// TLP draft §4.2: three segments outstanding, the last SACKed — always delayed.
    Enhanced,
}

/// RFC 5827 §3.2: ER_thresh = oseg − 1 duplicate ACKs when oseg < 4; `None` when ER does
/// not apply (oseg ≥ 4, or oseg ≤ 1 where the threshold would be 0).
pub fn thresh_segments(oseg: u64) -> Option<u32> {
    (2..4).contains(&oseg).then(|| (oseg - 1) as u32)
}

/// RFC 5827 §3.1: ER_thresh = ⌈ownd/SMSS⌉ − 1 duplicate ACKs when ownd < 4·SMSS; `None`
/// when ER does not apply or the threshold is 0 (a sub-MSS flight: useless).
pub fn thresh_bytes(ownd: u64, smss: u64) -> Option<u32> {
    let smss = smss.max(1);
    if ownd >= 4 * smss {
        return None;
    }
    let t = ownd.div_ceil(smss).saturating_sub(1);
    (t > 0).then_some(t as u32)
}

/// Whether this ACK allows an early retransmit under `mode`.
pub fn check(mode: ErMode, v: &View) -> Option<Trigger> {
    let ErMode::On { rule, .. } = mode else {
        return None;
    };
    if v.can_send_new || v.ownd == 0 {
        return None;
    }
    // Something must be left to retransmit: not everything SACKed (reneging aside).
    if v.sack && v.sacked_segs >= v.oseg {
        return None;
    }
    let standard = match rule {
        ErRule::Segments | ErRule::SegmentsTlp => {
            thresh_segments(v.oseg).filter(|&t| {
                if v.sack {
                    // §3.2 with SACK: oseg − 1 segments SACKed.
                    v.sacked_segs >= u64::from(t)
                } else {
                    v.dupacks >= t
                }
            })
        }
        ErRule::Bytes => thresh_bytes(v.ownd, v.mss).filter(|&t| {
            if v.sack {
                // §3.1 with SACK: ownd − SMSS bytes SACKed.
                v.sacked_bytes > 0 && v.sacked_bytes >= v.ownd.saturating_sub(v.mss)
            } else {
                v.dupacks >= t
            }
        }),
    };
    if standard.is_some() {
        return Some(Trigger::Rfc5827);
    }
    // TLP draft §4.2: "three outstanding segments that have not been cumulatively
    // acknowledged and one segment that has been fully SACKed" — scoreboard A _ _ S.
    (rule == ErRule::SegmentsTlp && v.sack && v.oseg == 3 && v.last_sacked)
        .then_some(Trigger::Enhanced)
}

/// Linux's delayed-ER wait (`tcp_pause_early_retransmit`): max(SRTT/4, 2 ms); `None`
/// without an RTT sample (then ER is not delayed).
pub fn delay(srtt: Option<Duration>) -> Option<Duration> {
    srtt.map(|s| (s / 4).max(Duration::from_millis(2)))
}

/// RFC 5827 App. A.2 rate cap: one more early retransmit keeps them at most
/// `cap_percent` % of the data segments sent (0: no cap).
pub fn within_rate_cap(cap_percent: u32, early_retrans: u64, data_segs_out: u64) -> bool {
    cap_percent == 0
        || (early_retrans + 1).saturating_mul(100)
            <= u64::from(cap_percent).saturating_mul(data_segs_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5827 §3.2 (digest §7): oseg 3 → 2 duplicate ACKs, oseg 2 → 1, oseg 1 → no use,
    /// oseg ≥ 4 → ER off.
    #[test]
    fn segment_thresholds() {
        assert_eq!(thresh_segments(3), Some(2));
        assert_eq!(thresh_segments(2), Some(1));
        assert_eq!(thresh_segments(1), None);
        assert_eq!(thresh_segments(4), None);
        assert_eq!(thresh_segments(0), None);
    }

    /// RFC 5827 §3.1's pathologies (digest §7), SMSS 1460: three 400-byte segments give
    /// ownd 1200 and ER_thresh ⌈1200/1460⌉ − 1 = 0 (useless); ten 400-byte segments give
    /// ownd 4000 < 5840 and ER_thresh 3 − 1 = 2 although ten segments are out.
    #[test]
    fn byte_thresholds() {
        assert_eq!(thresh_bytes(1200, 1460), None);
        assert_eq!(thresh_bytes(4000, 1460), Some(2));
        assert_eq!(thresh_bytes(3 * 1460, 1460), Some(2));
        assert_eq!(thresh_bytes(2 * 1460, 1460), Some(1));
        assert_eq!(thresh_bytes(4 * 1460, 1460), None);
    }

    fn view(oseg: u64, sacked: u64, last: bool) -> View {
        View {
            oseg,
            ownd: oseg * 1000,
            sacked_segs: sacked,
            sacked_bytes: sacked * 1000,
            last_sacked: last,
            sack: true,
            mss: 1000,
            ..View::default()
        }
    }

    /// ER on with `rule` and no mitigation (they are the sender's, not `check`'s).
    fn on(rule: ErRule) -> ErMode {
        ErMode::On {
            rule,
            delayed: false,
            disable_on_reordering: false,
            rate_cap_percent: 0,
        }
    }

    #[test]
    fn sack_variants_and_enhancement() {
        let (rfc5827, er_tlp, rfc5827_bytes) = (
            on(ErRule::Segments),
            on(ErRule::SegmentsTlp),
            on(ErRule::Bytes),
        );
        let off = ErMode::Off;
        assert_eq!(check(rfc5827, &view(3, 2, true)), Some(Trigger::Rfc5827));
        assert_eq!(check(rfc5827, &view(3, 1, true)), None);
        assert_eq!(check(er_tlp, &view(3, 1, true)), Some(Trigger::Enhanced));
        assert_eq!(
            check(er_tlp, &view(3, 1, false)),
            None,
            "A _ S _ is not the §4.2 case"
        );
        assert_eq!(check(rfc5827, &view(2, 1, true)), Some(Trigger::Rfc5827));
        assert_eq!(check(rfc5827, &view(4, 3, true)), None);
        assert_eq!(
            check(rfc5827_bytes, &view(3, 2, true)),
            Some(Trigger::Rfc5827)
        );
        assert_eq!(check(rfc5827_bytes, &view(3, 1, true)), None);
        let mut v = view(3, 2, true);
        v.can_send_new = true;
        assert_eq!(check(rfc5827, &v), None, "RFC 5827 §2 (b): new data can go");
        assert_eq!(check(off, &view(3, 2, true)), None);
    }

    #[test]
    fn delay_and_cap() {
        assert_eq!(delay(None), None);
        assert_eq!(
            delay(Some(Duration::from_millis(100))),
            Some(Duration::from_millis(25))
        );
        assert_eq!(
            delay(Some(Duration::from_millis(4))),
            Some(Duration::from_millis(2))
        );
        assert!(within_rate_cap(0, 99, 1));
        assert!(within_rate_cap(10, 0, 10));
        assert!(!within_rate_cap(10, 1, 10));
        assert!(within_rate_cap(10, 1, 20));
    }
}

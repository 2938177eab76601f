//! Tail loss probing, one module per specification: [`tlp_draft`]
//! (draft-dukkipati-tcpm-tcp-loss-probe-01, seed 000) and [`tlp`] (RFC 8985 §7, and
//! Linux's variant of it, digest §9.3). Pure decisions — the probe timeout and what an ACK
//! says about a probe — over the probe state; the sender schedules, sends and responds.

pub mod tlp;
pub mod tlp_draft;

use crate::config::resolved::Probing;
use crate::time::{Duration, Instant};

/// What the probe's ACKs showed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The episode is still open.
    Pending,
    /// The episode ended and the probe was not needed (or it carried new data).
    NoLoss,
    /// The episode ended and the probe repaired a loss that would otherwise go unseen:
    /// reduce cwnd (TLP draft §3.2 (4b), RFC 8985 §7.4.2).
    Loss,
}

/// One ACK as the probe logic sees it (after the sender applied it).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckView {
    /// SEG.ACK (cumulative).
    pub cumulative: u64,
    /// SND.UNA advanced.
    pub advanced: bool,
    /// The ACK carried a SACK block (DSACK excluded) ending above this offset: set by the
    /// sender as "SACK blocks above TLPHighRxt / TLP.end_seq".
    pub sack_above: bool,
    /// The ACK carried any SACK option, DSACK included (RFC 8985 "DupAck without any SACK
    /// option").
    pub any_sack: bool,
    /// The ACK newly SACKed data (Linux `FLAG_DATA_SACKED`).
    pub newly_sacked: bool,
    /// The DSACK block, if any.
    pub dsack: Option<(u64, u64)>,
    /// The advertised window changed.
    pub window_update: bool,
}

/// The PTO before the RTO cap, per variant: the draft's max(2·SRTT, 10 ms) or, with one
/// segment out, max(2·SRTT, 1.5·SRTT + WCDelAckT) (§2.1 (1)); RFC 8985 §7.2's 2·SRTT
/// (+ TLP.max_ack_delay with one segment out), 1 s without an RTT sample; Linux's
/// 2·SRTT + (one packet out ? 200 ms : 2 jiffies), 1 s without one. `None` when the
/// variant does not probe without SRTT (the draft, as Linux 3.10 required `tp->srtt`).
/// Linux's one-packet term is `rto_min` (`tcp_rto_min(sk)` in `tcp_schedule_loss_probe`).
pub fn pto(
    variant: Probing,
    srtt: Option<Duration>,
    one_segment: bool,
    rto_min: Duration,
) -> Option<Duration> {
    match variant {
        Probing::None => None,
        Probing::TlpDraft { wc_del_ack_t, .. } => {
            srtt.map(|s| tlp_draft::pto(s, one_segment, wc_del_ack_t))
        }
        Probing::Tlp { max_ack_delay, .. } => Some(srtt.map_or(tlp::NO_SRTT_PTO, |s| {
            2 * s
                + if one_segment {
                    max_ack_delay
                } else {
                    Duration::ZERO
                }
        })),
        Probing::TlpLinux { .. } => Some(srtt.map_or(tlp::NO_SRTT_PTO, |s| {
            2 * s
                + if one_segment {
                    rto_min
                } else {
                    crate::detect::rack::LINUX_TIMEOUT_MIN
                }
        })),
    }
}

/// When the PTO fires, given when the RTO would: never later (draft §2.1 (1)
/// "PTO = min(RTO, PTO)", RFC 8985 §7.2). Linux caps only when the RTO is still ahead.
pub fn deadline(now: Instant, pto: Duration, rto_at: Instant) -> Instant {
    let at = now + pto;
    if rto_at > now {
        at.min(rto_at)
    } else {
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// Digest §1 / §9: the three PTO formulas, SRTT 100 ms and 4 ms; WCDelAckT,
    /// TLP.max_ack_delay and rto_min all 200 ms.
    #[test]
    fn pto_formulas() {
        let d = ms(200);
        let s = Some(ms(100));
        #[allow(non_snake_case)]
        let (TlpDraft, Tlp, TlpLinux) = (
            Probing::TlpDraft {
                max_probes: 1,
                wc_del_ack_t: d,
                in_recovery: false,
            },
            Probing::Tlp {
                max_ack_delay: d,
                in_recovery: false,
            },
            Probing::TlpLinux { in_recovery: false },
        );
        assert_eq!(pto(TlpDraft, s, false, d), Some(ms(200)));
        assert_eq!(pto(TlpDraft, s, true, d), Some(ms(350)), "1.5·100 + 200");
        assert_eq!(
            pto(TlpDraft, Some(ms(4)), false, d),
            Some(ms(10)),
            "10 ms floor"
        );
        assert_eq!(
            pto(TlpDraft, Some(ms(500)), true, d),
            Some(ms(1000)),
            "2·SRTT wins"
        );
        assert_eq!(pto(TlpDraft, None, false, d), None);
        assert_eq!(pto(Tlp, s, false, d), Some(ms(200)));
        assert_eq!(pto(Tlp, s, true, d), Some(ms(400)));
        assert_eq!(pto(Tlp, None, true, d), Some(ms(1000)));
        assert_eq!(pto(TlpLinux, s, false, d), Some(ms(202)));
        assert_eq!(pto(TlpLinux, s, true, d), Some(ms(400)));
        assert_eq!(pto(TlpLinux, Some(ms(4)), false, d), Some(ms(10)));
        assert_eq!(pto(Probing::None, s, false, d), None);
    }

    #[test]
    fn capped_at_rto() {
        let now = Instant::from_millis(1000);
        assert_eq!(
            deadline(now, ms(200), Instant::from_millis(1100)),
            Instant::from_millis(1100)
        );
        assert_eq!(
            deadline(now, ms(200), Instant::from_millis(1500)),
            Instant::from_millis(1200)
        );
        assert_eq!(
            deadline(now, ms(200), Instant::from_millis(900)),
            Instant::from_millis(1200),
            "an RTO already due does not cap"
        );
    }
}

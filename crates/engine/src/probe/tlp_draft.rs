//! Tail Loss Probe as draft-dukkipati-tcpm-tcp-loss-probe-01 specifies it (seed 000
//! §2.1 and §3; digest §9.1).
//!
//! §2.1: after new data is sent in Open state, and on every ACK, a probe timeout (PTO) is
//! scheduled if (a) the connection is in Open state, (b) it is cwnd- or
//! application-limited, (c) fewer than the allowed consecutive PTOs (one or two) were
//! sent for this tail, (d) SACK is in use. When it fires the probe is a new segment if one
//! can be sent, else a retransmission of the highest-sequence segment.
//!
//! §3: a TLP retransmission "episode" counts the retransmitted probes not yet answered by a
//! "TLP dupack" (TLPRtxOut) and remembers SND.NXT when it started (TLPHighRxt). When an
//! ACK goes beyond TLPHighRxt the episode ends; a probe still unanswered (and no DSACK for
//! it) means the probe itself repaired a loss, and cwnd must be reduced.

use super::{AckView, Verdict};
use crate::time::Duration;

/// §2.1 (1): the PTO floor with more than one segment in flight.
pub const MIN_PTO: Duration = Duration::from_millis(10);

/// §2.1 (1): max(2·SRTT, 10 ms) with FlightSize > 1; max(2·SRTT, 1.5·SRTT + WCDelAckT)
/// with FlightSize = 1.
pub fn pto(srtt: Duration, one_segment: bool, wc_del_ack_t: Duration) -> Duration {
    if one_segment {
        (2 * srtt).max(srtt * 3 / 2 + wc_del_ack_t)
    } else {
        (2 * srtt).max(MIN_PTO)
    }
}

/// The draft's probe state (§3.2 (1) names).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Episode {
    /// TLPRtxOut: TLP retransmissions in this episode not yet answered by a TLP dupack.
    pub tlp_rtx_out: u32,
    /// TLPHighRxt: SND.NXT when the episode's first TLP retransmission was sent.
    pub tlp_high_rxt: Option<u64>,
    /// Consecutive PTOs for the current tail (§2.1 (2c)).
    pub consecutive: u32,
    /// The range of the last TLP retransmission (to recognise a DSACK for it).
    pub probe: Option<(u64, u64)>,
}

impl Episode {
    /// §3.2 (2): on ESTABLISHED, a timeout, or entering fast recovery.
    pub fn reset(&mut self) {
        *self = Episode::default();
    }

    /// §3.2 (3): a TLP retransmission of `range` is sent with SND.NXT = `snd_nxt`.
    pub fn on_retransmit_probe(&mut self, snd_nxt: u64, range: (u64, u64)) {
        if self.tlp_rtx_out == 0 {
            self.tlp_high_rxt = Some(snd_nxt);
        }
        self.tlp_rtx_out += 1;
        self.probe = Some(range);
    }

    /// §3.2 (5): a TLP *retransmission* may only be sent when no other episode is open,
    /// or SND.NXT has not moved since it began (one retransmitted range at a time).
    pub fn may_retransmit(&self, snd_nxt: u64) -> bool {
        self.tlp_rtx_out == 0 || self.tlp_high_rxt == Some(snd_nxt)
    }

    /// §3.2 (4): one ACK. (a) A "TLP dupack" — SEG.ACK = TLPHighRxt, no SACK above it, no
    /// advance of SND.UNA, no data, no window update — answers one probe. (b) An ACK beyond
    /// TLPHighRxt ends the episode: with probes unanswered and no DSACK for the probe, the
    /// probe repaired a loss.
    pub fn on_ack(&mut self, a: &AckView) -> Verdict {
        let Some(high) = self.tlp_high_rxt else {
            return Verdict::Pending;
        };
        if self.tlp_rtx_out > 0
            && a.cumulative == high
            && !a.sack_above
            && !a.advanced
            && !a.window_update
        {
            self.tlp_rtx_out -= 1;
        }
        if a.cumulative > high {
            let dsack_for_probe = match (a.dsack, self.probe) {
                (Some((s, e)), Some((ps, pe))) => s < pe && ps < e,
                _ => false,
            };
            let loss = self.tlp_rtx_out > 0 && !dsack_for_probe;
            self.tlp_rtx_out = 0;
            self.tlp_high_rxt = None;
            self.probe = None;
            return if loss { Verdict::Loss } else { Verdict::NoLoss };
        }
        Verdict::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn pto_rules() {
        assert_eq!(pto(ms(100), false, ms(200)), ms(200));
        assert_eq!(pto(ms(3), false, ms(200)), ms(10));
        assert_eq!(pto(ms(100), true, ms(200)), ms(350));
        assert_eq!(pto(ms(100), true, ms(0)), ms(200), "WCDelAckT 0: 2·SRTT");
        assert_eq!(pto(ms(100), true, ms(50)), ms(200), "1.5·100 + 50 = 200");
    }

    fn ack(cum: u64, advanced: bool) -> AckView {
        AckView {
            cumulative: cum,
            advanced,
            ..AckView::default()
        }
    }

    /// The probe repaired the only loss: the ACK it draws advances SND.UNA to TLPHighRxt
    /// (no TLP dupack), and the next ACK beyond TLPHighRxt ends the episode with a loss.
    #[test]
    fn masked_loss() {
        let mut e = Episode::default();
        e.on_retransmit_probe(10_000, (9000, 10_000));
        assert_eq!(e.on_ack(&ack(10_000, true)), Verdict::Pending);
        assert_eq!(e.tlp_rtx_out, 1);
        assert_eq!(e.on_ack(&ack(11_000, true)), Verdict::Loss);
        assert_eq!(e, Episode::default());
    }

    /// Nothing was lost: the original tail's ACK advances SND.UNA, then the probe's
    /// duplicate draws a TLP dupack; the episode then ends without a loss.
    #[test]
    fn unnecessary_probe() {
        let mut e = Episode::default();
        e.on_retransmit_probe(10_000, (9000, 10_000));
        e.on_ack(&ack(10_000, true));
        let mut dup = ack(10_000, false);
        dup.dsack = Some((9000, 10_000));
        assert_eq!(e.on_ack(&dup), Verdict::Pending);
        assert_eq!(e.tlp_rtx_out, 0);
        assert_eq!(e.on_ack(&ack(11_000, true)), Verdict::NoLoss);
    }

    /// A DSACK for the probe on the ACK that ends the episode also shows no loss.
    #[test]
    fn dsack_at_episode_end() {
        let mut e = Episode::default();
        e.on_retransmit_probe(10_000, (9000, 10_000));
        let mut a = ack(11_000, true);
        a.dsack = Some((9000, 10_000));
        assert_eq!(e.on_ack(&a), Verdict::NoLoss);
    }

    /// §3.2 (5): a second TLP retransmission only while SND.NXT is still TLPHighRxt.
    #[test]
    fn one_retransmitted_range_at_a_time() {
        let mut e = Episode::default();
        assert!(e.may_retransmit(5000));
        e.on_retransmit_probe(5000, (4000, 5000));
        assert!(e.may_retransmit(5000));
        assert!(!e.may_retransmit(6000));
        e.on_retransmit_probe(5000, (4000, 5000));
        assert_eq!(e.tlp_rtx_out, 2);
        // Two probes, one TLP dupack: still a loss at the end.
        e.on_ack(&ack(5000, true));
        e.on_ack(&ack(5000, false));
        assert_eq!(e.on_ack(&ack(6000, true)), Verdict::Loss);
    }
}

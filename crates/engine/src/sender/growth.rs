//! Growth outside fast recovery (RFC 5681 §3.1 with RFC 3465 byte counting; Linux
//! `tcp_cong_control`), through the congestion control, and what of an ACK it counts: not
//! what the receiver had reported delivered before, nor, after a timeout, what left the
//! network long ago (RFC 3465 §2.3) — a receiver that divides its ACKs (Savage, Cardwell,
//! Wetherall, Anderson, CCR 1999 §2.1) grows cwnd no faster than an honest one.

use super::ack::AckSummary;
use super::state::Ca;
use super::Sender;
use crate::cc::CongestionController;
use crate::time::Instant;

impl Sender {
    /// Growth outside fast recovery on an ACK that acknowledged `acked` bytes cumulatively
    /// and delivered `delivered` (RFC 6937 DeliveredData).
    ///
    /// RFC flavour: RFC 5681 grows on ACKs of new data by the bytes they acknowledge, only
    /// while the window was in use (half the window in flight, in RFC 7661's spirit).
    /// Linux flavour: `tcp_cong_control` passes the newly delivered segments (`acked_sacked`:
    /// what was SACKed earlier is not counted again) on ACKs of new data
    /// (`tcp_may_raise_cwnd`: any forward progress — SND.UNA advanced or new data SACKed —
    /// once reordering was raised), while
    /// `tcp_is_cwnd_limited`.
    pub(super) fn grow_cwnd(&mut self, now: Instant, a: &AckSummary) {
        if !a.cong_control || self.cc.sets_cwnd() {
            return;
        }
        let (acked, delivered, prior_flight) = (a.acked, a.delivered, a.prior.flight);
        let (amount, used) = if !self.alg.rules.growth_by_delivered {
            (
                self.rfc_bytes_acked(a),
                prior_flight.saturating_mul(2) >= self.cwnd,
            )
        } else {
            let raised = self.reordering() > self.alg.dupthresh;
            // FLAG_FORWARD_PROGRESS is ACKED or DATA_SACKED: a duplicate ACK without
            // SACK (`tcp_add_reno_sack`) sets neither, whatever it was credited.
            let progress = acked > 0 || (raised && self.sack_ok && delivered > 0);
            let in_ss = self.cwnd < self.ssthresh;
            let amount = if progress { delivered } else { 0 };
            (amount, self.cwnd_usage.is_cwnd_limited(self.cwnd, in_ss))
        };
        if amount == 0 || !used {
            return;
        }
        let mut w = self.window();
        // RFC flavour: the segments sent ahead of a held one (`detect::optack`) count as
        // the ACKs they would have had in order, so RFC 3465's per-ACK limit L does not
        // take from an honest connection what the check's reordering lumped together.
        let ahead = if !self.alg.rules.growth_by_delivered {
            a.optack_credit.min(amount)
        } else {
            0
        };
        for part in [amount - ahead, ahead] {
            if part > 0 {
                self.cc.on_ack(now, &mut w, part, self.core.rtt.srtt());
            }
        }
        self.cwnd = w.cwnd.max(self.mss);
    }

    /// RFC 3465 bytes_acked for one ACK, unless no honest receiver's ACK covers it.
    ///
    /// - An advance over data the receiver had reported delivered before, and nothing
    ///   else, is a slice of a divided ACK (Savage et al., CCR 1999 §2.1) and counts
    ///   nothing: a cumulative point moves only when the segment at it arrives, and that
    ///   segment cannot have been reported — not SACKed (SACK blocks lie above RCV.NXT, RFC
    ///   2018 §4), not counted by a duplicate before a timeout (the duplicates reported
    ///   the data above the hole). What they reported left the network long ago (RFC 3465
    ///   §2.3). Honest ACKs count in full, late ones after a spurious timeout included.
    /// - RFC 3465 §2.3: in the slow start after a timeout, an ACK ending inside a segment
    ///   (a receiver acknowledges whole segments), and every ACK after one whose timestamp
    ///   echo showed it the answer to the timeout's retransmission (the receiver's next
    ///   advance answers the next segment resent: go-back-N), counts only what was resent
    ///   or sent new since; so a cumulative ACK cut into slices grows cwnd as the whole
    ///   ACK would. Without timestamps nothing tells such slices from a spurious timeout's
    ///   late ACKs, which RFC 3465 counts: the first rule is all there is then.
    fn rfc_bytes_acked(&self, a: &AckSummary) -> u64 {
        if a.acked > 0 && a.acked <= a.reported_before {
            return 0;
        }
        match self.core.ca {
            Ca::Loss { answered, .. } if a.ends_inside || answered => a.acked.min(a.sent_since_rto),
            _ => a.acked,
        }
    }
}

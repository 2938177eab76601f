//! Proportional Rate Reduction, in its three specified forms:
//!
//! - RFC 6937 §3 (Experimental): RecoverFS = FlightSize at the start of recovery; while
//!   pipe > ssthresh send CEIL(prr_delivered·ssthresh/RecoverFS) − prr_out, else at most
//!   ssthresh − pipe, bounded by the conservative (CRB: prr_delivered − prr_out) or the
//!   slow-start reduction bound (SSRB: MAX(prr_delivered − prr_out, DeliveredData) + MSS).
//!   At the end of recovery cwnd = ssthresh, as the IMC'11 paper's Algorithm 2 (seed 003)
//!   and Linux 3.2 did; RFC 6937 itself leaves the exit open (RFC 9937 §4 item 5).
//! - RFC 9937 §6 (Standards Track): RecoverFS excludes what was SACKed before the triggering
//!   ACK (§6.1); ACKs with no DeliveredData change nothing; the bound is chosen per ACK by
//!   SafeACK (SND.UNA advanced and no further loss indicated: SSRB, else CRB widened to
//!   MAX(banked, DeliveredData)); a forced fast retransmit when nothing was sent yet;
//!   cwnd = inflight + SndCnt; cwnd = ssthresh at the end (§6.4).
//! - Linux (`tcp_cwnd_reduction`, digest §11.3): as RFC 9937 with RecoverFS = cwnd at
//!   entry (`prior_cwnd`) and SafeACK = SND.UNA advanced and no packet newly marked lost.
//!   Linux counts packets; here everything is bytes.
//!
//! Banking (RFC 6937 §4): when the application pauses, prr_out falls behind the allowance;
//! the difference is sent as soon as data arrives — the proportional part by construction,
//! the reduction bound through its prr_delivered − prr_out term.
//!
//! Units are bytes, but the proportional part's CEIL rounds up to a whole SMSS, so that
//! full-sized segments leave on the same ACKs as in the RFCs' segment-counted examples.
//!
//! Deviation (issue 13, ACK division): the SMSS the slow-start reduction bound adds (RFC
//! 6937 SSRB on every ACK, RFC 9937 and Linux on a SafeACK) is at most the ACK's
//! DeliveredData, so that an ACK cut into slices earns no segment per slice. Linux has the
//! same effect by counting whole segments (`tcp_clean_rtx_queue`); ACKs delivering a full
//! segment or more are unchanged.
//!
//! The sender uses RFC 6675 pipe as `inflight` (RFC 9937 §6.2 allows it with RFC 6675 loss
//! detection; with FACK the lost marks come from FACK, as Linux's in_flight).

use super::{Bound, Entry, RecoveryAck};
use crate::config::Reduction;

/// Which PRR.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Variant {
    /// RFC 6937 with the conservative reduction bound.
    Rfc6937Crb,
    /// RFC 6937 with the slow-start reduction bound.
    Rfc6937Ssrb,
    /// RFC 9937 §6 (SafeACK chooses the bound).
    Rfc9937,
    /// Linux `tcp_cwnd_reduction`.
    Linux,
}

impl Variant {
    /// The reduction axis value this variant belongs to.
    pub fn reduction(self) -> Reduction {
        match self {
            Variant::Rfc6937Crb => Reduction::Prr6937Crb,
            Variant::Rfc6937Ssrb => Reduction::Prr6937Ssrb,
            Variant::Rfc9937 => Reduction::Prr,
            Variant::Linux => Reduction::PrrLinux,
        }
    }
}

/// PRR state for one recovery episode (RFC 6937 §3, RFC 9937 §6.1 variable names).
#[derive(Clone, Debug)]
pub struct Prr {
    variant: Variant,
    /// Bytes delivered to the receiver during this recovery.
    prr_delivered: u64,
    /// Bytes sent during this recovery.
    prr_out: u64,
    /// The flight the reduction is proportional to.
    recover_fs: u64,
    /// SndCnt of the last ACK.
    sndcnt: u64,
    /// What is left of it to send.
    sndcnt_left: u64,
    /// cwnd = inflight + SndCnt as of the last ACK.
    cwnd: u64,
    bound: Bound,
    safe_ack: bool,
    /// Sum of SndCnt over the episode, and bytes sent by the forced fast retransmit beyond
    /// it: prr_out never exceeds their sum (debug invariant).
    granted: u64,
    forced: u64,
    /// Bytes sent beyond the quota without being forced (must stay 0).
    overdraft: u64,
}

impl Prr {
    /// PRR before any episode.
    pub fn new(variant: Variant) -> Prr {
        Prr {
            variant,
            prr_delivered: 0,
            prr_out: 0,
            recover_fs: 0,
            sndcnt: 0,
            sndcnt_left: 0,
            cwnd: 0,
            bound: Bound::default(),
            safe_ack: false,
            granted: 0,
            forced: 0,
            overdraft: 0,
        }
    }

    /// Which PRR this is.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// prr_delivered (RFC 6937 §3), bytes.
    pub fn prr_delivered(&self) -> u64 {
        self.prr_delivered
    }
    /// prr_out (RFC 6937 §3), bytes.
    pub fn prr_out(&self) -> u64 {
        self.prr_out
    }
    /// RecoverFS (RFC 6937 §3), bytes.
    pub fn recover_fs(&self) -> u64 {
        self.recover_fs
    }
    /// SndCnt computed on the last ACK.
    pub fn sndcnt(&self) -> u64 {
        self.sndcnt
    }
    /// Which term set the last SndCnt (RFC 6937 §3.1's RB row).
    pub fn bound(&self) -> Bound {
        self.bound
    }
    /// Whether the last ACK was a SafeACK (RFC 9937 §6.2; Linux's variant).
    pub fn safe_ack(&self) -> bool {
        self.safe_ack
    }

    /// RFC 6937 §3 / RFC 9937 §6.1 initialisation.
    pub fn on_enter(&mut self, e: &Entry) -> u64 {
        *self = Prr::new(self.variant);
        self.recover_fs = match self.variant {
            // "RecoverFS = snd.nxt − snd.una // FlightSize at the start of recovery"
            Variant::Rfc6937Crb | Variant::Rfc6937Ssrb => e.flight_size,
            // SND.NXT − SND.UNA − SACKed, as they stood before the triggering ACK: the
            // RFC's formula (after the ACK, adding back what it newly SACKed or ACKed)
            // when that ACK cumulatively acknowledges nothing that was SACKed.
            Variant::Rfc9937 => e.prior_flight.saturating_sub(e.prior_sacked),
            // Linux: prior_cwnd.
            Variant::Linux => e.cwnd,
        }
        .max(1);
        self.cwnd = e.cwnd;
        e.cwnd
    }

    /// RFC 6937 §3 "On every ACK during recovery" / RFC 9937 §6.2: returns cwnd.
    pub fn on_ack(&mut self, a: &RecoveryAck, ssthresh: u64) -> u64 {
        let modern = matches!(self.variant, Variant::Rfc9937 | Variant::Linux);
        if modern && a.delivered == 0 {
            return self.cwnd; // §6.2: "if (DeliveredData is 0) return"
        }
        self.prr_delivered += a.delivered;
        self.safe_ack = a.acked > 0 && a.newly_lost == 0;
        let mut bound = Bound::default();
        let mut sndcnt = if a.pipe > ssthresh {
            // Proportional Rate Reduction.
            bound.proportional = true;
            // CEIL in whole segments: the RFCs' examples and Linux count segments, and a
            // byte-exact ceiling would let a full-sized segment go out one ACK late.
            let mss = u128::from(a.mss.max(1));
            let target = (u128::from(self.prr_delivered) * u128::from(ssthresh))
                .div_ceil(u128::from(self.recover_fs) * mss)
                * mss;
            (target.min(u128::from(u64::MAX)) as u64).saturating_sub(self.prr_out)
        } else {
            let banked = self.prr_delivered.saturating_sub(self.prr_out);
            // The slow-start bonus of one SMSS is worth at most what the ACK delivered:
            // an ACK cut into slices (Savage et al.'s ACK division) must not earn a
            // segment per slice. Linux gets this by counting whole segments
            // (`tcp_clean_rtx_queue`); RFC 3465 §2.2 asks the same of slow start.
            let bonus = a.mss.min(a.delivered);
            let (b, d) = match self.variant {
                Variant::Rfc6937Crb => (banked, 0),
                Variant::Rfc6937Ssrb => (banked + bonus, a.delivered + bonus),
                Variant::Rfc9937 | Variant::Linux => {
                    let extra = if self.safe_ack { bonus } else { 0 };
                    (banked + extra, a.delivered + extra)
                }
            };
            let limit = b.max(d);
            let s = ssthresh - a.pipe;
            let sndcnt = s.min(limit);
            bound.s = s == sndcnt;
            bound.b = b == sndcnt;
            bound.d = self.variant != Variant::Rfc6937Crb && d == sndcnt;
            sndcnt
        };
        if modern && self.prr_out == 0 && sndcnt == 0 {
            // RFC 9937 §6.2: force the fast retransmit (Linux: max(sndcnt, prr_out ? 0 : 1)).
            sndcnt = a.mss;
        }
        self.bound = bound;
        self.sndcnt = sndcnt;
        self.sndcnt_left = sndcnt;
        self.granted += sndcnt;
        self.cwnd = a.pipe + sndcnt;
        self.cwnd
    }

    /// Bytes that may still be sent in response to the last ACK.
    pub fn quota(&self) -> u64 {
        self.sndcnt_left
    }

    /// Linux's old-ACK path (`tcp_ack` for an ACK below SND.UNA carrying SACK blocks)
    /// skips `tcp_cwnd_reduction` yet calls `tcp_xmit_recovery`: what may go is cwnd less
    /// what is in flight now, cwnd being what the last reduction step set (`room`), so
    /// the segments this ACK SACKed make room without growing PRR's counters.
    pub fn on_old_ack(&mut self, room: u64) {
        if self.variant == Variant::Linux && room > self.sndcnt_left {
            self.granted += room - self.sndcnt_left;
            self.sndcnt_left = room;
        }
    }

    /// RFC 6937 §3 "On any data transmission or retransmission: prr_out += (data sent)".
    pub fn on_transmit(&mut self, bytes: u64, forced: bool) {
        self.prr_out += bytes;
        let from_quota = bytes.min(self.sndcnt_left);
        self.sndcnt_left -= from_quota;
        if forced {
            self.forced += bytes - from_quota;
        } else {
            self.overdraft += bytes - from_quota;
        }
    }

    /// What `on_transmit` counted never left the host (Linux adds to `prr_out` only what
    /// left, `tcp_xmit_retransmit_queue`); `sndcnt_left` is what was left before it.
    pub fn on_transmit_failed(&mut self, bytes: u64, forced: bool, sndcnt_left: u64) {
        self.prr_out = self.prr_out.saturating_sub(bytes);
        let beyond = bytes - bytes.min(sndcnt_left);
        self.sndcnt_left = sndcnt_left;
        if forced {
            self.forced = self.forced.saturating_sub(beyond);
        } else {
            self.overdraft = self.overdraft.saturating_sub(beyond);
        }
    }

    /// RFC 9937 §6.4 (and Algorithm 2 of the IMC'11 paper): cwnd = ssthresh.
    pub fn on_exit(&mut self, ssthresh: u64) -> u64 {
        ssthresh
    }

    /// prr_out never exceeds what the bound granted plus the forced fast retransmission.
    pub fn check(&self) {
        assert_eq!(self.overdraft, 0, "PRR sent beyond SndCnt");
        assert!(
            self.prr_out <= self.granted + self.forced,
            "prr_out {} exceeds the allowance {} + forced {}",
            self.prr_out,
            self.granted,
            self.forced
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(flight: u64, prior_sacked: u64, cwnd: u64) -> Entry {
        Entry {
            ssthresh: 10,
            cwnd,
            flight_size: flight,
            prior_flight: flight,
            prior_sacked,
            mss: 1,
            sack: true,
        }
    }
    fn ack(delivered: u64, acked: u64, pipe: u64) -> RecoveryAck {
        RecoveryAck {
            delivered,
            acked,
            pipe,
            mss: 1,
            ..RecoveryAck::default()
        }
    }

    /// Seed 003's worked table (RFC 6937 §3, in segments; ssthresh 10, RecoverFS 20):
    /// ACK 3: prr_delivered 1, sndcnt 1, prr_out 1; ACK 4: 2, 0, 1; ACK 5: 3, 1, 2.
    #[test]
    fn seed_sndcnt_table() {
        let mut p = Prr::new(Variant::Rfc6937Ssrb);
        p.on_enter(&entry(20, 0, 20));
        let mut rows = vec![];
        for pipe in [18, 18, 17] {
            p.on_ack(&ack(1, 0, pipe), 10);
            let sndcnt = p.sndcnt();
            for _ in 0..sndcnt {
                p.on_transmit(1, false);
            }
            rows.push((p.prr_delivered(), sndcnt, p.prr_out()));
        }
        assert_eq!(rows, [(1, 1, 1), (2, 0, 1), (3, 1, 2)]);
        p.check();
    }

    /// RFC 9937 §6.1: RecoverFS = 22 − 2 (SACKed before the triggering ACK) = 20; the
    /// forced retransmit when the first SndCnt would be 0.
    #[test]
    fn rfc9937_recoverfs_and_forced_retransmit() {
        let mut p = Prr::new(Variant::Rfc9937);
        p.on_enter(&entry(22, 2, 20));
        assert_eq!(p.recover_fs(), 20);
        // A huge RecoverFS makes the proportional SndCnt 0: forced to one SMSS.
        let mut q = Prr::new(Variant::Rfc9937);
        q.on_enter(&Entry {
            prior_flight: 1000,
            ..entry(1000, 0, 1000)
        });
        q.on_ack(&ack(1, 0, 999), 10);
        assert_eq!(q.sndcnt(), 1);
        // No DeliveredData: nothing changes.
        let c = q.on_ack(&ack(0, 0, 5), 10);
        assert_eq!((c, q.prr_delivered()), (1000, 1));
    }

    /// The reduction bounds of RFC 6937 §3.1's burst example (segments): pipe 4,
    /// ssthresh 11, one segment delivered per ACK.
    #[test]
    fn crb_and_ssrb_bounds() {
        let mut crb = Prr::new(Variant::Rfc6937Crb);
        crb.on_enter(&entry(22, 0, 20));
        crb.on_ack(&ack(1, 0, 4), 11);
        assert_eq!((crb.sndcnt(), crb.bound().label()), (1, "b".into()));
        let mut ssrb = Prr::new(Variant::Rfc6937Ssrb);
        ssrb.on_enter(&entry(22, 0, 20));
        ssrb.on_ack(&ack(1, 0, 4), 11);
        assert_eq!((ssrb.sndcnt(), ssrb.bound().label()), (2, "bd".into()));
    }

    /// Sending beyond SndCnt without the forced flag trips the invariant.
    #[test]
    #[should_panic(expected = "beyond SndCnt")]
    fn overdraft_is_caught() {
        let mut p = Prr::new(Variant::Rfc6937Crb);
        p.on_enter(&entry(20, 0, 20));
        p.on_transmit(1, false);
        p.check();
    }
}

//! Rate reduction in fast recovery, one module per algorithm, behind one enum.
//!
//! The sender calls the [`Reducer`] at the edges of a recovery episode and on every ACK
//! inside it; the reducer's answer — the new cwnd and how many bytes may be sent now — is
//! what the sender applies. Call order:
//! 1. [`Reducer::on_enter`] when recovery starts (after ssthresh was computed), then
//!    [`Reducer::on_ack`] for the same, triggering ACK (RFC 6937 §3 counts its
//!    DeliveredData; Linux runs `tcp_cwnd_reduction` on it);
//! 2. [`Reducer::on_ack`] for every further ACK that does not end recovery;
//! 3. [`Reducer::quota`] before each transmission, [`Reducer::on_transmit`] after it (the
//!    RFC 5681 fast retransmit, which goes out regardless, is passed as `forced`);
//! 4. [`Reducer::on_exit`] on the ACK that ends recovery. A timeout abandons the episode.
//!
//! DeliveredData (RFC 6937 §2) is computed by the sender: Δsnd.una + ΔSACKd with SACK;
//! without SACK one SMSS per duplicate ACK and, on an advance, Δsnd.una less the SMSS
//! already credited for the duplicates it covers.

pub mod prr;
pub mod rate_halving;
pub mod rfc6675;

use crate::config::Reduction;

/// The connection as recovery starts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    /// The new ssthresh (already computed by the congestion control).
    pub ssthresh: u64,
    /// cwnd before the reduction (Linux `prior_cwnd`).
    pub cwnd: u64,
    /// SND.NXT − SND.UNA after the triggering ACK (RFC 6937 RecoverFS).
    pub flight_size: u64,
    /// SND.NXT − SND.UNA before the triggering ACK.
    pub prior_flight: u64,
    /// Bytes SACKed before the triggering ACK.
    pub prior_sacked: u64,
    /// The sender's MSS, bytes.
    pub mss: u64,
    /// SACK is in use.
    pub sack: bool,
}

/// One ACK inside recovery.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoveryAck {
    /// RFC 6937 DeliveredData, bytes.
    pub delivered: u64,
    /// Δsnd.una, bytes.
    pub acked: u64,
    /// A duplicate ACK (RFC 6675 §2 with SACK, RFC 5681 without).
    pub dupack: bool,
    /// Bytes newly marked lost while processing this ACK.
    pub newly_lost: u64,
    /// RFC 6675 pipe with SACK (RFC 9937 `inflight`); without SACK, FlightSize less the
    /// bytes credited to duplicate ACKs.
    pub pipe: u64,
    /// SND.NXT − SND.UNA.
    pub flight_size: u64,
    /// The sender's MSS, bytes.
    pub mss: u64,
}

/// Which term of the reduction bound chose the send count: the "RB" key of RFC 6937 §3.1
/// (`s` ssthresh − pipe, `b` banked prr_delivered − prr_out (+ SMSS), `d` DeliveredData
/// + SMSS), or the proportional part. Several may apply at once.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    /// The proportional part (pipe > ssthresh).
    pub proportional: bool,
    /// `s`: ssthresh − pipe.
    pub s: bool,
    /// `b`: banked prr_delivered − prr_out (+ SMSS).
    pub b: bool,
    /// `d`: DeliveredData + SMSS.
    pub d: bool,
}

impl Bound {
    /// The RFC's label: "", "s", "b", "d", "bd", … (empty for the proportional part).
    pub fn label(&self) -> String {
        let mut out = String::new();
        for (on, c) in [(self.s, 's'), (self.b, 'b'), (self.d, 'd')] {
            if on {
                out.push(c);
            }
        }
        out
    }
}

/// The rate-reduction algorithm of one connection with its per-episode state.
#[derive(Clone, Debug)]
pub enum Reducer {
    /// RFC 6675 §5 / RFC 3517 (NewReno's inflation without SACK).
    Rfc6675(rfc6675::Rfc6675),
    /// Linux's rate-halving before 3.2.
    RateHalving(rate_halving::RateHalving),
    /// PRR in its RFC 6937, RFC 9937 and Linux variants.
    Prr(prr::Prr),
}

impl Reducer {
    /// A reducer of `kind` before any episode.
    pub fn new(kind: Reduction) -> Reducer {
        match kind {
            Reduction::Rfc6675 => Reducer::Rfc6675(rfc6675::Rfc6675::default()),
            Reduction::RateHalving => Reducer::RateHalving(rate_halving::RateHalving::default()),
            Reduction::Prr6937Crb => Reducer::Prr(prr::Prr::new(prr::Variant::Rfc6937Crb)),
            Reduction::Prr6937Ssrb => Reducer::Prr(prr::Prr::new(prr::Variant::Rfc6937Ssrb)),
            Reduction::Prr => Reducer::Prr(prr::Prr::new(prr::Variant::Rfc9937)),
            Reduction::PrrLinux => Reducer::Prr(prr::Prr::new(prr::Variant::Linux)),
        }
    }

    /// Which reduction this is.
    // Read only through the `introspect` getters of `Sender`.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))]
    pub fn kind(&self) -> Reduction {
        match self {
            Reducer::Rfc6675(_) => Reduction::Rfc6675,
            Reducer::RateHalving(_) => Reduction::RateHalving,
            Reducer::Prr(p) => p.variant().reduction(),
        }
    }

    /// Recovery starts: returns cwnd for the episode's start.
    pub fn on_enter(&mut self, e: &Entry) -> u64 {
        match self {
            Reducer::Rfc6675(r) => r.on_enter(e),
            Reducer::RateHalving(r) => r.on_enter(e),
            Reducer::Prr(p) => p.on_enter(e),
        }
    }

    /// An ACK in recovery (including the one that started it): returns the new cwnd.
    pub fn on_ack(&mut self, a: &RecoveryAck, cwnd: u64, ssthresh: u64) -> u64 {
        match self {
            Reducer::Rfc6675(r) => r.on_ack(a, cwnd),
            Reducer::RateHalving(r) => r.on_ack(a, cwnd, ssthresh),
            Reducer::Prr(p) => p.on_ack(a, ssthresh),
        }
    }

    /// Bytes that may be sent now; a segment goes out only if it fits.
    pub fn quota(&self, cwnd: u64, pipe: u64, flight_size: u64, mss: u64) -> u64 {
        match self {
            Reducer::Rfc6675(r) => r.quota(cwnd, pipe, flight_size, mss),
            Reducer::RateHalving(_) => cwnd.saturating_sub(pipe),
            Reducer::Prr(p) => p.quota(),
        }
    }

    /// A Linux old ACK (below SND.UNA) in recovery: `room` = cwnd − pipe now (see
    /// [`prr::Prr::on_old_ack`]).
    pub fn on_old_ack(&mut self, room: u64) {
        if let Reducer::Prr(p) = self {
            p.on_old_ack(room)
        }
    }

    /// `bytes` were sent in recovery; `forced` for the fast retransmission that goes out
    /// whatever the quota (RFC 5681 §3.2 step 2, RFC 6582 §3.2 step 5).
    pub fn on_transmit(&mut self, bytes: u64, forced: bool) {
        if let Reducer::Prr(p) = self {
            p.on_transmit(bytes, forced)
        }
    }

    /// The transmission `on_transmit` just counted never left (see
    /// [`prr::Prr::on_transmit_failed`]); `quota` is what `quota` said before it.
    pub fn on_transmit_failed(&mut self, bytes: u64, forced: bool, quota: u64) {
        if let Reducer::Prr(p) = self {
            p.on_transmit_failed(bytes, forced, quota)
        }
    }

    /// Recovery ended (SND.UNA reached the recovery point): returns cwnd afterwards.
    pub fn on_exit(&mut self, cwnd: u64, ssthresh: u64, flight_size: u64, mss: u64) -> u64 {
        match self {
            Reducer::Rfc6675(r) => r.on_exit(cwnd, ssthresh, flight_size, mss),
            Reducer::RateHalving(_) => rate_halving::exit_cwnd(cwnd, ssthresh),
            Reducer::Prr(p) => p.on_exit(ssthresh),
        }
    }

    /// The PRR state, for observation.
    pub fn prr(&self) -> Option<&prr::Prr> {
        match self {
            Reducer::Prr(p) => Some(p),
            _ => None,
        }
    }

    /// Debug invariants (PRR: nothing was sent beyond what the bound allowed).
    pub fn check(&self) {
        if let Reducer::Prr(p) = self {
            p.check();
        }
    }
}

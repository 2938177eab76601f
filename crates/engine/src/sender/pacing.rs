//! Pacing on the sender ([`crate::pacing`] has the rules): the socket's pacing rate
//! (`sk_pacing_rate`, kept up to date whether or not anything paces, as Linux does; TSO
//! sizing and HyStart read it), and — with `pacing = fq` or `internal`, or when the
//! congestion controller needs pacing (`SK_PACING_NEEDED`) — the departure clock and the
//! packets waiting for their time, on the sender's one deadline.
//!
//! - `internal` (TCP's pacing timer, what a controller that needs pacing gets): nothing
//!   new is handed out before `tcp_wstamp_ns`; [`Sender::poll_timeout`] then returns it.
//! - `fq`: TCP hands packets to the qdisc as soon as TCP Small Queues allows, stamped with
//!   their departure time; they wait here, counted as sent (SND.NXT, the scoreboard and
//!   RTT samples see them as Linux does: sent at their departure stamp), until
//!   `poll_transmit` is called at or after that time.
//!
//! Only data (and a FIN) is paced; pure ACKs and window probes leave at once (Linux does
//! not pace pure ACKs). Forced transmissions — probes, the head's retransmission — are
//! stamped but never held back by the pacing check or TSQ (Linux's RTO and probe paths
//! call `tcp_retransmit_skb` directly). TSQ sizes the next packet as a full TSO packet.

use std::collections::VecDeque;

use super::pending::Pending;
use super::Sender;
use crate::cc::CongestionController;
use crate::config::{Config, Pacing};
use crate::pacing::{self, Edt, RateInputs};
use crate::packet::{Transmit, Why};
use crate::time::Instant;

/// The departure clock and the packets a pacing qdisc holds.
#[derive(Clone, Debug)]
pub(super) struct Pacer {
    /// `fq` (packets wait here for their stamp) rather than TCP's own timer.
    fq: bool,
    edt: Edt,
    /// Committed transmissions waiting for their departure time, in order.
    queue: VecDeque<(Instant, Transmit)>,
    /// Their truesize (`sk_wmem_alloc` less one).
    queued_truesize: u64,
    /// Internal pacing holds a transmission until `tcp_wstamp_ns`.
    blocked: bool,
}

impl Pacer {
    /// The pacer a configuration asks for, if any; `needed`: the congestion controller
    /// needs pacing (Linux `SK_PACING_NEEDED`: TCP's internal pacing unless fq is set).
    pub(super) fn for_config(cfg: &Config, needed: bool) -> Option<Box<Pacer>> {
        let fq = match (cfg.pacing, needed) {
            (Pacing::Fq, _) => true,
            (Pacing::Internal, _) | (Pacing::Off, true) => false,
            (Pacing::Off, false) => return None,
        };
        Some(Box::new(Pacer {
            fq,
            edt: Edt::default(),
            queue: VecDeque::new(),
            queued_truesize: 0,
            blocked: false,
        }))
    }
}

/// A queued transmission as it may still leave once SND.UNA is `snd_una`: an ACK can
/// cover a retransmission while it waits (the original arrived), and data the peer has
/// acknowledged is not put on the wire again — dropped whole, or trimmed to its
/// unacknowledged tail. (Linux's fq would send its clone; the receiver discards it.)
fn acknowledged_meanwhile(mut t: Transmit, snd_una: u64) -> Option<Transmit> {
    if t.range.is_empty() || t.range.start >= snd_una {
        return Some(t);
    }
    if t.range.end <= snd_una && !t.fin {
        return None;
    }
    t.range.start = snd_una.min(t.range.end);
    Some(t)
}

/// Whether Linux paces this transmission: data and FINs, not pure ACKs or window probes.
fn is_paced(t: &Transmit) -> bool {
    (!t.range.is_empty() || t.fin) && t.why != Why::WindowProbe
}

impl Sender {
    /// `sk_pacing_rate`, bytes per second: the controller's if it sets one, else what
    /// `tcp_update_pacing_rate` last set ([`pacing::UNLIMITED`] before that).
    pub(super) fn sk_pacing_rate(&self) -> u64 {
        self.cc.pacing_rate().unwrap_or(self.pacing_rate)
    }

    /// Linux `tcp_update_pacing_rate` (after `tcp_cong_control`, and when the handshake
    /// completes). Only what reads the rate pays for it: the Linux flavour (TSO sizing,
    /// HyStart) and a pacer, and not when the controller sets the rate itself (Linux: its
    /// `cong_control` sets `sk_pacing_rate` on every ACK, after which
    /// `tcp_update_pacing_rate` is not called).
    pub(super) fn update_pacing_rate(&mut self) {
        let unread = !self.alg.rules.pacing_rate_always && self.pacer.is_none();
        if unread || self.cc.pacing_rate().is_some() {
            return;
        }
        let mss = self.mss.max(1);
        // Linux's srtt_us is 8 × SRTT in µs: SRTT in units of 125 ns.
        let srtt_us = self.core.rtt.srtt().map_or(0, |s| {
            s.as_secs()
                .saturating_mul(8_000_000)
                .saturating_add(u64::from(s.subsec_nanos() / 125))
                .max(1)
        });
        self.pacing_rate = pacing::tcp_pacing_rate(&RateInputs {
            mss,
            cwnd: self.cwnd / mss,
            ssthresh: self.ssthresh / mss,
            packets_out: self.core.sb.flight_size().div_ceil(mss),
            srtt_us,
            ss_ratio: self.alg.shell.pacing_ss_ratio,
            ca_ratio: self.alg.shell.pacing_ca_ratio,
        });
    }

    /// Pacing is on (`sk_pacing_status` is not `SK_PACING_NONE`).
    pub(super) fn paced(&self) -> bool {
        self.pacer.is_some()
    }

    /// When a held or queued transmission may leave, if one waits.
    pub(super) fn pacing_deadline(&self) -> Option<Instant> {
        let p = self.pacer.as_deref()?;
        let queued = p.queue.front().map(|&(at, _)| at);
        let held = p.blocked.then(|| p.edt.wstamp());
        match (queued, held) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// `poll_transmit` with pacing on: a queued packet whose time has come, else the next
    /// transmission if the pacing check or TSQ allows it, stamped with its departure.
    pub(super) fn poll_paced(&mut self, now: Instant) -> Option<Transmit> {
        loop {
            let p = self.pacer.as_deref_mut()?;
            if let Some(&(at, t)) = p.queue.front() {
                if at <= now {
                    p.queue.pop_front();
                    p.queued_truesize -= pacing::truesize(t.range.len());
                    let una = self.core.sb.snd_una();
                    if !t.range.is_empty() && t.range.start < una {
                        self.stats.pacing_acked_while_queued += 1;
                    }
                    match acknowledged_meanwhile(t, una) {
                        Some(t) => return Some(t),
                        None => continue,
                    }
                }
            }
            if !self.may_hand_out(now) {
                return None;
            }
            // A pure ACK or window probe leaves now; anything else at its departure.
            let unpaced = matches!(self.pending, Pending::HandshakeAck | Pending::WindowProbe);
            let stamp = if unpaced {
                now
            } else {
                self.pacer.as_deref()?.edt.stamp_for(now, None)
            };
            let t = self.transmit_at(now, stamp)?;
            if !is_paced(&t) {
                return Some(t);
            }
            let ends_packet = !self.push_packet_continues(stamp, t.range.end);
            let seg = pacing::Segment {
                now,
                start: t.range.start,
                end: t.range.end,
                rate: self.sk_pacing_rate(),
                segs_out: self.stats.data_segs_out,
            };
            let p = self.pacer.as_deref_mut()?;
            let departs = p.edt.on_segment(&seg, ends_packet);
            // Without fq only the pacing check holds packets back: what passed it (a
            // forced transmission, `tcp_retransmit_skb`) reaches the device at once.
            if departs <= now || !p.fq {
                return Some(t);
            }
            p.queued_truesize += pacing::truesize(t.range.len());
            p.queue.push_back((departs, t));
        }
    }

    /// Linux `tcp_pacing_check` (internal) or `tcp_small_queue_check` (fq) before the
    /// next packet; the rest of an open packet and forced transmissions always go.
    fn may_hand_out(&mut self, now: Instant) -> bool {
        let forced = !matches!(self.pending, Pending::Nothing | Pending::FrtoNew(_));
        let mss = self.mss.max(1);
        let full_packet = self.tso_segs_now() * mss;
        let (rate, flight) = (self.sk_pacing_rate(), self.core.sb.flight_size());
        let Some(p) = self.pacer.as_deref_mut() else {
            return true;
        };
        if forced || p.edt.open_at(now) {
            return true;
        }
        if p.fq {
            // At most one packet unacknowledged (`tcp_rtx_queue_empty_or_single_skb`).
            let single = flight <= full_packet;
            let next = pacing::truesize(full_packet);
            return !pacing::tsq_throttled(p.queued_truesize, next, rate, single);
        }
        p.blocked = now < p.edt.wstamp();
        !p.blocked
    }
}

//! Pacing as Linux does it: the rate TCP asks for, when each packet may leave, and how far
//! TCP may run ahead of a pacing qdisc. Pure arithmetic; the sender applies it
//! (`sender::pacing`).
//!
//! - The rate, `sk_pacing_rate` (net/ipv4/tcp_input.c `tcp_update_pacing_rate`, after every
//!   ACK's `tcp_cong_control` and when a passive open completes):
//!   `mss · 80000 · ratio · max(cwnd, packets_out) / srtt_us`, where `srtt_us` is Linux's
//!   8 × SRTT in µs, so the rate is ratio % of mss · cwnd / SRTT bytes per second. The ratio
//!   is `tcp_pacing_ss_ratio` (200 %) while cwnd < ssthresh / 2 — the first half of slow
//!   start — and `tcp_pacing_ca_ratio` (120 %) after. Without an RTT sample the product is
//!   not divided (a rate so high nothing waits). Before the first computation the socket's
//!   rate is `~0UL`: no pacing ([`UNLIMITED`]).
//! - Departure times, Linux's Earliest Departure Time model (net/ipv4/tcp_output.c
//!   `__tcp_transmit_skb`, `tcp_update_skb_after_send`): each packet (a TSO skb, however
//!   many segments) is stamped `tcp_wstamp_ns = max(tcp_wstamp_ns, now)`, and after it
//!   `tcp_wstamp_ns += len · 10⁹ / rate` (payload bytes), less up to half of that as credit
//!   for the time the sender was late (`now` − the previous stamp, "OS jitter"). The first
//!   10 segments a connection sends are not paced ("Original sch_fq does not pace first 10
//!   MSS": the advance applies once `data_segs_out` ≥ 10). `fq` then holds each packet
//!   until its stamp (net/sched/sch_fq.c `fq_dequeue`: `time_to_send` from `skb->tstamp`;
//!   fq's own `len / rate` and credit rules run only for packets without a stamp, which
//!   TCP's never are); TCP's internal pacing (BBR, `SK_PACING_NEEDED`) instead does not
//!   send before it (`tcp_pacing_check`).
//! - TCP Small Queues (`tcp_small_queue_check`): TCP stops handing packets to a pacing
//!   qdisc while what it holds there exceeds max(2 · the next packet's truesize,
//!   rate >> `sk_pacing_shift` (10), about 1 ms at the rate) — not capped by
//!   `tcp_limit_output_bytes` once pacing is on — unless at most one packet is
//!   unacknowledged. With `fq` that holds SND.NXT about two packets ahead of the wire.

use crate::time::{Duration, Instant};

/// Linux `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio` defaults, percent.
pub const SS_RATIO: u32 = 200;
/// Linux `sysctl_tcp_pacing_ca_ratio` default: 120 % in congestion avoidance.
pub const CA_RATIO: u32 = 120;
/// `sk_pacing_rate` before TCP first sets it (`~0UL`): nothing is paced.
pub const UNLIMITED: u64 = u64::MAX;
/// Linux `sk_pacing_shift` default.
pub const PACING_SHIFT: u32 = 10;
/// Segments sent before pacing starts (`tcp_update_skb_after_send`).
pub const UNPACED_SEGMENTS: u64 = 10;
/// What an skb costs its socket beyond its payload (`skb->truesize` of a TCP skb with its
/// payload in page fragments: the fclone head, `SKB_TRUESIZE` of a `MAX_TCP_HEADER`
/// allocation, 1280 bytes on x86-64).
pub const SKB_OVERHEAD: u64 = 1280;

/// What `tcp_update_pacing_rate` reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RateInputs {
    /// `mss_cache`, bytes.
    pub mss: u64,
    /// cwnd, ssthresh and packets out, segments.
    pub cwnd: u64,
    /// ssthresh, segments.
    pub ssthresh: u64,
    /// Packets in flight (`packets_out`), segments.
    pub packets_out: u64,
    /// Linux `srtt_us`: 8 × SRTT in µs; 0 before the first sample.
    pub srtt_us: u64,
    /// `tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio`, percent.
    pub ss_ratio: u32,
    /// `tcp_pacing_ca_ratio`, percent.
    pub ca_ratio: u32,
}

/// Linux `tcp_update_pacing_rate`: the pacing rate in bytes per second.
pub fn tcp_pacing_rate(i: &RateInputs) -> u64 {
    let ratio = if i.cwnd < i.ssthresh / 2 {
        i.ss_ratio
    } else {
        i.ca_ratio
    };
    // (USEC_PER_SEC / 100) << 3: percent, and srtt_us's factor of 8. Linux's u64; a
    // product beyond it (a window of millions of segments) saturates.
    let rate = i
        .mss
        .saturating_mul(80_000)
        .saturating_mul(u64::from(ratio))
        .saturating_mul(i.cwnd.max(i.packets_out));
    rate.checked_div(i.srtt_us).unwrap_or(rate)
}

/// Linux `tcp_small_queue_check`: TCP must not queue another packet of `next_truesize`
/// while `queued` bytes of truesize wait in the qdisc (`sk_wmem_alloc`, which counts one
/// more), unless `single`: at most one packet is unacknowledged
/// (`tcp_rtx_queue_empty_or_single_skb`).
pub fn tsq_throttled(queued: u64, next_truesize: u64, rate: u64, single: bool) -> bool {
    let limit = (2 * next_truesize).max(rate >> PACING_SHIFT);
    !single && queued + 1 > limit
}

/// A packet's truesize: its payload and the skb around it.
pub fn truesize(payload: u64) -> u64 {
    payload + SKB_OVERHEAD
}

/// `tcp_wstamp_ns` and the packet being stamped (its segments are handed out one at a
/// time, at one instant).
#[derive(Copy, Clone, Debug, Default)]
pub struct Edt {
    /// The earliest time the next packet may leave (`tcp_wstamp_ns`).
    wstamp: Instant,
    open: Option<Open>,
}

/// The packet whose segments are being stamped.
#[derive(Copy, Clone, Debug)]
struct Open {
    /// When it was handed out and where its next segment starts.
    at: Instant,
    next: u64,
    /// Its departure time, and the lateness credit it was stamped with.
    stamp: Instant,
    credit: Duration,
    bytes: u64,
    /// `sk_pacing_rate` when it was stamped.
    rate: u64,
}

/// One segment handed out: `[start, end)` at `now`, with the connection's rate and its
/// data segments sent so far including this one (`data_segs_out`).
#[derive(Copy, Clone, Debug)]
pub struct Segment {
    /// When it was handed out.
    pub now: Instant,
    /// First stream offset.
    pub start: u64,
    /// End stream offset (exclusive).
    pub end: u64,
    /// The pacing rate then, bytes/s.
    pub rate: u64,
    /// Data segments sent so far, this one included.
    pub segs_out: u64,
}

impl Edt {
    /// `tcp_wstamp_ns`.
    pub fn wstamp(&self) -> Instant {
        self.wstamp
    }

    /// The departure time a segment handed out at `now` gets: its packet's, if it
    /// continues the open one, else a new packet's.
    pub fn stamp_for(&self, now: Instant, start: Option<u64>) -> Instant {
        match self.open {
            Some(p) if p.at == now && start.is_none_or(|s| s == p.next) => p.stamp,
            _ => self.wstamp.max(now),
        }
    }

    /// A packet is open at `now`: its next segment may be handed out whatever the clock.
    pub fn open_at(&self, now: Instant) -> bool {
        self.open.is_some_and(|p| p.at == now)
    }

    /// Stamps a segment (`__tcp_transmit_skb`, then `tcp_update_skb_after_send` for the
    /// packet so far) and returns its departure time. `ends_packet`: no segment of this
    /// packet follows.
    pub fn on_segment(&mut self, s: &Segment, ends_packet: bool) -> Instant {
        let joins = self
            .open
            .is_some_and(|p| p.at == s.now && p.next == s.start);
        if !joins {
            let prior = self.wstamp;
            let stamp = self.wstamp.max(s.now);
            self.open = Some(Open {
                at: s.now,
                next: s.start,
                stamp,
                credit: stamp - prior,
                bytes: 0,
                rate: s.rate,
            });
        }
        let Some(p) = self.open.as_mut() else {
            return s.now;
        };
        p.bytes += s.end - s.start;
        p.next = s.end;
        let stamp = p.stamp;
        self.wstamp = stamp + advance(p, s.segs_out);
        if ends_packet {
            self.open = None;
        }
        stamp
    }

    /// No further segment joins the open packet.
    #[cfg_attr(not(feature = "introspect"), allow(dead_code))] // used by observers
    pub fn close(&mut self) {
        self.open = None;
    }
}

/// `tcp_update_skb_after_send`'s advance of `tcp_wstamp_ns` after packet `p`.
fn advance(p: &Open, segs_out: u64) -> Duration {
    if p.rate == UNLIMITED || p.rate == 0 || segs_out < UNPACED_SEGMENTS {
        return Duration::ZERO;
    }
    let len_ns = u128::from(p.bytes) * 1_000_000_000 / u128::from(p.rate);
    let len_ns = u64::try_from(len_ns).unwrap_or(u64::MAX);
    let credit = u64::try_from(p.credit.as_nanos()).unwrap_or(u64::MAX);
    Duration::from_nanos(len_ns - (len_ns / 2).min(credit))
}

#[cfg(test)]
mod tests;

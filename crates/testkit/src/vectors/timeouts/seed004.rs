//! Seed 004's comparisons on one spurious timeout ([`super::spike_after_recovery`]): the
//! responses (none, full undo, RFC 4015, partial, new partial) and the RTO adaptations
//! (Std, Reseed, Back-off, Min++).

use super::*;

/// One arm of seed 004's response comparison on [`spike_after_recovery`].
#[derive(Clone, Debug)]
pub struct ResponseRow {
    pub response: SpuriousResponse,
    /// cwnd and ssthresh before the timeout, right after it, and right after the verdict
    /// (bytes; ssthresh `u64::MAX` = not set).
    pub before: (u64, u64),
    pub after_rto: (u64, u64),
    pub after_verdict: (u64, u64),
    /// Retransmissions of the whole run (the timeout's own is 1; fast recovery's 1).
    pub retransmissions: u64,
    /// When the last byte before the late write was acknowledged (ms).
    pub drained_ms: u64,
    pub trace: Trace,
}

/// Seed 004 slide 8 and 13's undo variants — Full, Partial, None, New partial — and RFC
/// 4015, each with Eifel detection on the same spurious timeout (cwnd 20, ssthresh 15,
/// FlightSize 20; the timeout sets ssthresh 10, cwnd 1).
pub fn seed004_responses() -> Vec<ResponseRow> {
    [
        SpuriousResponse::FullUndo,
        SpuriousResponse::Partial,
        SpuriousResponse::None,
        SpuriousResponse::NewPartial,
        SpuriousResponse::Rfc4015,
    ]
    .into_iter()
    .map(|response| {
        let mut c = Config::rfc();
        c.spurious_detection = SpuriousDetection::Eifel;
        c.spurious_response = response;
        let (p, trace) = spike_after_recovery(c);
        let at = |t: Instant| {
            let mut q = p.clone();
            q.until = t;
            let s = run(&q).sender;
            (s.cwnd(), s.ssthresh())
        };
        let when = |f: &dyn Fn(&lossrec::event::EventKind) -> bool| {
            trace.events.iter().find(|e| f(&e.kind)).map(|e| e.at)
        };
        let rto = when(&|k| matches!(k, lossrec::event::EventKind::Rto { .. })).unwrap_or_default();
        let verdict =
            when(&|k| matches!(k, lossrec::event::EventKind::Spurious { .. })).unwrap_or(rto);
        let drained = trace
            .acks
            .iter()
            .find(|(_, a)| a.cumulative >= 135 * MSS)
            .map_or(0, |(t, _)| t.as_millis());
        ResponseRow {
            response,
            before: at(rto - Duration::from_micros(1)),
            after_rto: at(rto),
            after_verdict: at(verdict),
            retransmissions: trace.sender.stats().retrans_segs,
            drained_ms: drained,
            trace,
        }
    })
    .collect()
}

/// One RTO adaptation of [`seed004_rto_adaptation`].
#[derive(Clone, Debug)]
pub struct AdaptationRow {
    pub adaptation: lossrec::config::RtoAdaptation,
    /// Right after the verdict: the RTO (with backoff), the minimum RTO, the backoff count
    /// that samples keep, whether a reseed waits for the next sample (µs, µs, count, flag).
    pub rto_us: u64,
    pub min_rto_us: u64,
    pub kept_backoff: u32,
    pub reseed_pending: bool,
    /// At the end of the run, after the late ACKs' samples and the 500 ms one.
    pub end_srtt_us: u64,
    pub end_rto_us: u64,
    pub trace: Trace,
}

/// Seed 004 slide 10's RTO adaptations after the spurious timeout of
/// [`spike_after_recovery`] (Eifel, full undo): Std changes nothing; Reseed makes the next
/// sample a first one (RFC 6298 §2.2); Back-off keeps the timeout's backoff (the RTO
/// stays doubled through later samples); Min++ raises the minimum RTO from 1 s to 2 s.
pub fn seed004_rto_adaptation() -> Vec<AdaptationRow> {
    use lossrec::config::RtoAdaptation;
    RtoAdaptation::NAMES
        .iter()
        .map(|n| n.parse::<RtoAdaptation>().expect("valid name"))
        .map(|a| {
            let mut c = Config::rfc();
            c.spurious_detection = SpuriousDetection::Eifel;
            c.spurious_response = SpuriousResponse::FullUndo;
            c.rto_adaptation = a;
            let (p, trace) = spike_after_recovery(c);
            let verdict = trace
                .events
                .iter()
                .find(|e| matches!(e.kind, lossrec::event::EventKind::Spurious { .. }))
                .map_or(Instant::ZERO, |e| e.at);
            let mut q = p.clone();
            q.until = verdict;
            let s = run(&q).sender;
            let us = |d: Duration| d.as_micros() as u64;
            let end = trace.sender.rtt();
            AdaptationRow {
                adaptation: a,
                rto_us: us(s.rtt().rto()),
                min_rto_us: us(s.rtt().min_rto()),
                kept_backoff: s.rtt().kept_backoff(),
                reseed_pending: s.rtt().reseed_pending(),
                end_srtt_us: end.srtt().map_or(0, us),
                end_rto_us: us(end.rto()),
                trace,
            }
        })
        .collect()
}

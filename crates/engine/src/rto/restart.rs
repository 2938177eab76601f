//! RTO Restart, RFC 7765 §4 (seed 002).
//!
//! RFC 6298 §5.3 restarts the timer one RTO after every ACK of new data, so a lost tail
//! segment is retransmitted about RTO + RTT after it was sent. RTOR re-arms it to fire one
//! RTO after the earliest outstanding segment was sent, while the connection has fewer
//! than `rrthresh` segments outstanding or queued (so fast retransmit cannot help):
//!
//! 1. T_earliest = 0.
//! 2. If outstanding + prevunsnt < rrthresh: T_earliest = now − send time of the earliest
//!    outstanding segment.
//! 3. Fire after RTO − T_earliest if that is positive, else after RTO.
//!
//! RFC 8985 §9.2: RACK-TLP works with RTOR; the sender also uses this rule when the RTO
//! replaces a PTO or reorder timer and after a probe.

use crate::time::{Duration, Instant};

/// RFC 7765 §4: the RECOMMENDED rrthresh.
#[cfg_attr(not(feature = "introspect"), allow(dead_code))] // used by observers
pub const RRTHRESH: u32 = 4;

/// RFC 7765 §4 steps 1-2: T_earliest, given the segments outstanding, the previously
/// unsent segments queued (prevunsnt) and the earliest outstanding segment's send time.
pub fn t_earliest(
    now: Instant,
    earliest_sent: Instant,
    outstanding: u64,
    prevunsnt: u64,
    rrthresh: u32,
) -> Duration {
    if outstanding.saturating_add(prevunsnt) < u64::from(rrthresh) {
        now.saturating_duration_since(earliest_sent)
    } else {
        Duration::ZERO
    }
}

/// RFC 7765 §4 step 3: how long from now until the timer fires.
pub fn delay(rto: Duration, t_earliest: Duration) -> Duration {
    if rto > t_earliest {
        rto - t_earliest
    } else {
        rto
    }
}

/// Steps 1-3 together: the RTO's expiry when re-armed at `now`.
pub fn expiry(
    now: Instant,
    rto: Duration,
    earliest_sent: Instant,
    outstanding: u64,
    prevunsnt: u64,
    rrthresh: u32,
) -> Instant {
    now + delay(
        rto,
        t_earliest(now, earliest_sent, outstanding, prevunsnt, rrthresh),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> Instant {
        Instant::from_millis(t)
    }
    fn d(t: u64) -> Duration {
        Duration::from_millis(t)
    }

    /// RFC 7765 §4 as a table: (now, earliest sent, outstanding, prevunsnt, RTO) → delay.
    #[test]
    fn formula() {
        let rows = [
            // Two segments out, nothing queued, the earliest sent 100 ms ago: RTO − 100.
            (1100, 1000, 2, 0, 300, 200),
            // Four segments: not below rrthresh, RFC 6298 (full RTO).
            (1100, 1000, 4, 0, 300, 300),
            // Outstanding + queued counts: 2 + 2 = 4.
            (1100, 1000, 2, 2, 300, 300),
            // T_earliest equal to the RTO: step 3(b), a full RTO.
            (1300, 1000, 1, 0, 300, 300),
            // T_earliest beyond the RTO: a full RTO.
            (1500, 1000, 1, 0, 300, 300),
            // Just below: 1 ms left.
            (1299, 1000, 1, 0, 300, 1),
        ];
        for (now, sent, out, unsent, rto, want) in rows {
            let t = t_earliest(ms(now), ms(sent), out, unsent, RRTHRESH);
            assert_eq!(delay(d(rto), t), d(want), "row {now} {sent} {out} {unsent}");
            assert_eq!(
                expiry(ms(now), d(rto), ms(sent), out, unsent, RRTHRESH),
                ms(now + want)
            );
        }
    }

    #[test]
    fn rrthresh_one_never_restarts_early() {
        assert_eq!(t_earliest(ms(500), ms(0), 1, 0, 1), Duration::ZERO);
        assert_eq!(t_earliest(ms(500), ms(0), 0, 0, 1), d(500));
    }
}

//! The Eifel algorithms: detection (RFC 3522 §3.2) and response (RFC 4015 §3.1).
//!
//! Detection needs timestamps (RFC 7323). When loss recovery starts, RetransmitTS is the
//! TSval of the first retransmission (later retransmissions of the episode do not
//! overwrite it). The first acceptable ACK (one that advances SND.UNA) decides: its echo
//! older than RetransmitTS means the original, not the retransmission, was acknowledged —
//! unless the ACK carries a DSACK, or (without DSACKs ever seen) it acknowledges
//! everything outstanding, the corner cases of step 5.
//!
//! Response, for timeouts only (step 7): (0) when the timeout starts recovery, keep
//! pipe_prev = max(FlightSize, ssthresh), SRTT_prev = SRTT + 2G, RTTVAR_prev = RTTVAR;
//! (8) on SPUR_TO resume with new data (SND.NXT = SND.MAX); (9) unless the ACK has ECE,
//! cwnd = FlightSize + min(bytes_acked, IW) and ssthresh = pipe_prev; (11) on the first RTT
//! sample of data sent after the timeout, SRTT = max(SRTT_prev, sample), RTTVAR =
//! max(RTTVAR_prev, sample/2), RTO = SRTT + max(G, 4·RTTVAR) within its bounds. Digest
//! §14.2 notes the RFC's text sends (9) to DONE before (10)-(11); they are part of the
//! response here.

use crate::time::Duration;

/// RFC 3522 / RFC 4015 `SpuriousRecovery`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[cfg_attr(not(feature = "introspect"), allow(dead_code))] // used by observers
pub enum SpuriousRecovery {
    /// FALSE: not (known to be) spurious.
    No,
    /// SPUR_TO: a spurious timeout detected before the retransmission's ACK.
    SpurTo,
    /// LATE_SPUR_TO (RFC 4015 §2): detected only after the retransmission arrived (by
    /// DSACK, RFC 3708).
    LateSpurTo,
    /// A spurious fast retransmit: dupacks + 1 (RFC 3522 step 6).
    FastRetransmit {
        /// The duplicate ACKs that triggered it, plus one.
        dupacks_plus_one: u32,
    },
}

/// What the first acceptable ACK carries, for RFC 3522 §3.2 steps 4-5.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AcceptableAck {
    /// Its TSecr in the sender's TS clock (`None` without an echo).
    pub ts_ecr: Option<u64>,
    /// It carries a DSACK.
    pub dsack: bool,
    /// A DSACK arrived earlier on this connection.
    pub dsack_seen_before: bool,
    /// It acknowledges all outstanding data.
    pub acks_all: bool,
}

/// RFC 3522 §3.2 steps 4-5: does the first acceptable ACK show the retransmission sent
/// with TSval `retransmit_ts` was spurious?
pub fn detect(retransmit_ts: u64, a: &AcceptableAck) -> bool {
    let Some(ecr) = a.ts_ecr.filter(|&e| e != 0) else {
        return false;
    };
    // (4) the echo is older than the retransmission: the original was acknowledged.
    if ecr >= retransmit_ts {
        return false;
    }
    // (5) a DSACK on this ACK: DONE; otherwise only with DSACK experience or data still
    // outstanding.
    !a.dsack && (a.dsack_seen_before || !a.acks_all)
}

/// RFC 4015 §3.1 step (0): what the response restores from, kept when a timeout starts
/// loss recovery.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Prev {
    /// pipe_prev = max(FlightSize, ssthresh), bytes.
    pub pipe_prev: u64,
    /// SRTT_prev = SRTT + 2·G (`None` before the first RTT sample).
    pub srtt_prev: Option<Duration>,
    /// RTTVAR_prev = RTTVAR.
    pub rttvar_prev: Duration,
}

impl Prev {
    /// Step (0) from FlightSize, ssthresh, SRTT, RTTVAR and G before the timeout.
    pub fn new(
        flight_size: u64,
        ssthresh: u64,
        srtt: Option<Duration>,
        rttvar: Duration,
        g: Duration,
    ) -> Prev {
        Prev {
            pipe_prev: flight_size.max(ssthresh),
            srtt_prev: srtt.map(|s| s + g * 2),
            rttvar_prev: rttvar,
        }
    }
}

/// Step (9): (cwnd, ssthresh) after a spurious timeout, or `None` when the acceptable ACK
/// has ECN-Echo (keep the reduction). `flight_size` after the ACK; `iw` = the initial
/// window (RFC 3390), bytes.
pub fn restore(
    prev: &Prev,
    flight_size: u64,
    bytes_acked: u64,
    iw: u64,
    ece: bool,
) -> Option<(u64, u64)> {
    if ece {
        return None;
    }
    Some((flight_size + bytes_acked.min(iw), prev.pipe_prev))
}

/// Step (11): (SRTT, RTTVAR) from the first sample of new data.
pub fn adapt(prev: &Prev, sample: Duration) -> (Duration, Duration) {
    let srtt = prev.srtt_prev.map_or(sample, |s| s.max(sample));
    (srtt, prev.rttvar_prev.max(sample / 2))
}

/// RFC 6298 §2.3-2.5 applied to step 11's values: SRTT + max(G, 4·RTTVAR) in [min, max].
#[cfg_attr(not(feature = "introspect"), allow(dead_code))] // used by observers
pub fn rto(
    srtt: Duration,
    rttvar: Duration,
    g: Duration,
    min: Duration,
    max: Duration,
) -> Duration {
    (srtt + g.max(rttvar * 4)).max(min).min(max)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(t: u64) -> Duration {
        Duration::from_millis(t)
    }

    /// Digest §14.2: SRTT 100 ms, RTTVAR 25 ms, G 10 ms; FlightSize 20 segments,
    /// ssthresh 15; a spurious timeout; the acceptable ACK acknowledges one segment;
    /// IW 4 segments (MSS 1000); the first new-data sample is 500 ms.
    #[test]
    fn rfc4015_vector() {
        let mss = 1000;
        let prev = Prev::new(20 * mss, 15 * mss, Some(ms(100)), ms(25), ms(10));
        assert_eq!(prev.srtt_prev, Some(ms(120)));
        assert_eq!(prev.rttvar_prev, ms(25));
        assert_eq!(prev.pipe_prev, 20 * mss);
        let (cwnd, ssthresh) = restore(&prev, 19 * mss, mss, 4 * mss, false).unwrap();
        assert_eq!((cwnd, ssthresh), (20 * mss, 20 * mss));
        assert_eq!(restore(&prev, 19 * mss, mss, 4 * mss, true), None, "ECE");
        let (srtt, rttvar) = adapt(&prev, ms(500));
        assert_eq!((srtt, rttvar), (ms(500), ms(250)));
        assert_eq!(rto(srtt, rttvar, ms(10), ms(1000), ms(60_000)), ms(1500));
        // A sample below SRTT_prev keeps the conservative values.
        assert_eq!(adapt(&prev, ms(40)), (ms(120), ms(25)));
    }

    /// RFC 3522 §3.2 steps 4-5.
    #[test]
    fn detection_steps() {
        let ack = |ecr: u64, dsack: bool, before: bool, all: bool| AcceptableAck {
            ts_ecr: Some(ecr),
            dsack,
            dsack_seen_before: before,
            acks_all: all,
        };
        let rts = 5000;
        assert!(detect(rts, &ack(4000, false, false, false)), "older echo");
        assert!(
            !detect(rts, &ack(5000, false, false, false)),
            "echo of the retransmit"
        );
        assert!(
            !detect(rts, &ack(4000, true, true, false)),
            "DSACK on the ACK"
        );
        assert!(
            !detect(rts, &ack(4000, false, false, true)),
            "acks all, no DSACK seen"
        );
        assert!(
            detect(rts, &ack(4000, false, true, true)),
            "acks all, DSACK seen"
        );
        assert!(!detect(rts, &AcceptableAck::default()), "no timestamps");
    }
}

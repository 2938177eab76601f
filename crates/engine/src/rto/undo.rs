//! "Undo is a value" (DESIGN.md): entering fast recovery or a timeout saves a congestion
//! [`Snapshot`]; a spurious verdict restores from it per the configured response. Also
//! Linux's bookkeeping of the evidence (tcp_input.c, digest §15): `undo_marker` (the
//! snapshot's SND.UNA), `undo_retrans` (retransmissions of the episode not yet reported
//! by a DSACK) and `retrans_stamp` (when the first one left; its TSval is RFC 3522's
//! RetransmitTS).
//!
//! Responses (seed 004, RFC 4015, Linux), from the snapshot (cwnd₀, ssthresh₀) and the
//! current reduced values:
//!
//! | response | cwnd | ssthresh |
//! |---|---|---|
//! | `none` | kept | kept |
//! | `full-undo` | the congestion control's undo_cwnd: max(cwnd, cwnd₀) | max(ssthresh, ssthresh₀) |
//! | `partial` | max(cwnd, ssthresh) — the multiplicative decrease stays | kept |
//! | `new-partial` | max(cwnd, cwnd₀) | cwnd₀ |
//! | `rfc4015` (timeouts) | FlightSize + min(bytes_acked, IW) | pipe_prev |

use super::eifel::{self, Prev};
use crate::cc::Checkpoint;
use crate::config::SpuriousResponse;
use crate::time::Instant;

/// The congestion state before a reduction: the one undo value, taken once at the first
/// reduction of an episode and restored whole.
#[derive(Copy, Clone, Debug)]
pub struct Snapshot {
    /// cwnd before the reduction (Linux `prior_cwnd`), bytes.
    pub cwnd: u64,
    /// The congestion control's own state before it (RFC 9438 §4.9: CUBIC's W_max, K,
    /// epoch …), restored by the responses that roll the algorithm back.
    pub cc: Checkpoint,
    /// ssthresh before it (Linux `prior_ssthresh`; `u64::MAX` before any reduction).
    pub ssthresh: u64,
    /// SND.UNA when it started (Linux `undo_marker`).
    pub una: u64,
    /// SND.NXT when it started.
    pub high: u64,
    /// A retransmission timeout is part of this episode.
    pub timeout: bool,
    /// RFC 4015 step (0), taken at the episode's first timeout.
    pub eifel: Option<Prev>,
    /// The backoff count the episode's last timeout reached.
    pub backoff: u32,
    /// cwnd and ssthresh may be restored (Linux: not when the reduction started from a
    /// cwnd reduction already in progress, `prior_ssthresh` = 0).
    pub restorable: bool,
}

/// The evidence kept for the current snapshot.
#[derive(Clone, Debug, Default)]
pub struct Undo {
    /// The snapshot (Linux: `undo_marker` ≠ 0); on the heap, since it exists only during
    /// an episode and holds a copy of the congestion control.
    pub snapshot: Option<Box<Snapshot>>,
    /// Linux `undo_retrans`: retransmitted segments not yet DSACKed; −1 before the first.
    pub retrans: i64,
    /// TSval of the episode's first retransmission (RFC 3522 RetransmitTS; Linux
    /// `retrans_stamp`).
    pub retrans_ts: Option<u64>,
    /// When it left.
    pub retrans_at: Option<Instant>,
    /// RFC 3522: the first acceptable ACK after that retransmission was examined.
    pub eifel_done: bool,
    /// The DSACKed ranges counted against `retrans` in this episode, each with how many
    /// DSACKs it took: each retransmission may be proven spurious once, so a DSACK beyond
    /// a range's retransmissions (a replay) proves nothing. On the heap from the episode's
    /// first DSACK: most connections never see one.
    counted: Option<Box<Counted>>,
}

/// The ring of DSACKed ranges of one episode (older ones are forgotten first).
#[derive(Clone, Debug, Default)]
struct Counted {
    ranges: [(u64, u64, u32); COUNTED],
    n: usize,
}

/// DSACKed ranges remembered per episode (a ring: older ones are forgotten first).
const COUNTED: usize = 4;

impl Undo {
    /// A reduction starts: keep `s`; `retrans_out` segments are retransmitted and still
    /// outstanding (Linux `tcp_init_undo`: undo_retrans = retrans_out, or −1). The
    /// first-retransmission timestamp is not touched: while an earlier retransmission is
    /// outstanding it stays the oldest (Linux leaves `retrans_stamp` alone here; clearing
    /// it would let an echo older than that retransmission pass as "delayed").
    pub fn start(&mut self, s: Snapshot, retrans_out: u64) {
        self.snapshot = Some(Box::new(s));
        self.retrans = if retrans_out > 0 {
            retrans_out as i64
        } else {
            -1
        };
        self.eifel_done = false;
        self.counted = None;
    }

    /// A retransmission of `segs` segments left at `at` with TSval `ts`; `counted` is false
    /// for Linux's TLP probe (not in undo_retrans, no retrans_stamp). The first one sets
    /// RetransmitTS / `retrans_stamp` (Linux `tcp_retransmit_skb`), episode or not.
    pub fn on_retransmit(&mut self, at: Instant, ts: u64, segs: u64, counted: bool) {
        if !counted {
            return;
        }
        if self.retrans_ts.is_none() {
            self.retrans_ts = Some(ts);
            self.retrans_at = Some(at);
        }
        if self.snapshot.is_some() {
            self.retrans = self.retrans.max(0) + segs as i64;
        }
    }

    /// No retransmission is outstanding any more (Linux `tcp_try_to_open`:
    /// `!tcp_any_retrans_done` → `retrans_stamp = 0`).
    pub fn retransmissions_done(&mut self) {
        self.retrans_ts = None;
        self.retrans_at = None;
    }

    /// A believable DSACK: `in_queue` retransmitted segments above the snapshot's SND.UNA
    /// were reported (Linux `tcp_sacktag_one`), or, for data already acknowledged
    /// (`forgotten`, the DSACK ends at or below the ACK's prior SND.UNA and above the
    /// snapshot's), `dup_segs` segments (Linux's "dumb counting" in `tcp_check_dsack`).
    pub fn on_dsack(
        &mut self,
        dsack: (u64, u64),
        prior_una: u64,
        in_queue: u64,
        dup_segs: u64,
        retransmissions: u32,
    ) {
        let Some(s) = self.snapshot.as_deref() else {
            return;
        };
        let (start, dsack_end) = dsack;
        if self.retrans <= 0 || dsack_end <= s.una {
            return;
        }
        // Issue 13: a range proves as many retransmissions spurious as it had, no more; a
        // replayed DSACK, or one for data never retransmitted, proves nothing.
        let c = self.counted.get_or_insert_with(Default::default);
        let slot = c.ranges[..c.n.min(COUNTED)]
            .iter()
            .position(|&(a, b, _)| start < b && a < dsack_end);
        let used = slot.map_or(0, |k| c.ranges[k].2);
        if used >= retransmissions {
            return;
        }
        match slot {
            Some(k) => c.ranges[k].2 += 1,
            None => {
                c.ranges[c.n % COUNTED] = (start, dsack_end, 1);
                c.n += 1;
            }
        }
        let n = if dsack_end <= prior_una {
            dup_segs
        } else {
            in_queue
        };
        self.retrans = (self.retrans - n as i64).max(0);
    }

    /// Every retransmission of the episode was DSACKed (Linux `undo_retrans == 0`).
    pub fn all_dsacked(&self) -> bool {
        self.snapshot.is_some() && self.retrans == 0
    }

    /// Linux `tcp_packet_delayed`: the echo `ts_ecr` predates the first retransmission, or
    /// nothing was retransmitted.
    pub fn packet_delayed(&self, ts_ecr: Option<u64>) -> bool {
        match self.retrans_ts {
            None => true,
            Some(rts) => ts_ecr.is_some_and(|e| e != 0 && e < rts),
        }
    }

    /// Linux `tcp_may_undo`.
    pub fn may_undo(&self, ts_ecr: Option<u64>) -> bool {
        self.snapshot.is_some() && (self.retrans == 0 || self.packet_delayed(ts_ecr))
    }
}

/// The connection when a verdict is applied.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Current {
    /// cwnd, bytes.
    pub cwnd: u64,
    /// ssthresh, bytes.
    pub ssthresh: u64,
    /// FlightSize after the ACK.
    pub flight_size: u64,
    /// Bytes the ACK carrying the verdict acknowledged (RFC 4015 bytes_acked).
    pub bytes_acked: u64,
    /// Initial window (RFC 4015 IW), bytes.
    pub iw: u64,
    /// cwnd to restore when the congestion control rolls back (Linux
    /// `tcp_reno_undo_cwnd`: max(cwnd, prior_cwnd)).
    pub undo_cwnd: u64,
    /// The ACK had ECN-Echo.
    pub ece: bool,
}

/// Whether `response` rolls the congestion control's own state back to the snapshot's
/// (and so needs `Current::undo_cwnd`).
pub fn restores_cc(response: SpuriousResponse) -> bool {
    matches!(
        response,
        SpuriousResponse::FullUndo | SpuriousResponse::NewPartial | SpuriousResponse::Rfc4015
    )
}

/// The (cwnd, ssthresh) `response` sets for a spurious verdict on the episode of `s`
/// (`timeout`: a spurious timeout rather than a fast retransmit); `None` keeps them.
pub fn respond(
    response: SpuriousResponse,
    s: &Snapshot,
    timeout: bool,
    c: &Current,
) -> Option<(u64, u64)> {
    if !s.restorable {
        return None;
    }
    match response {
        SpuriousResponse::None => None,
        SpuriousResponse::FullUndo => Some((c.undo_cwnd, c.ssthresh.max(s.ssthresh))),
        SpuriousResponse::Partial => {
            (c.ssthresh != u64::MAX).then_some((c.cwnd.max(c.ssthresh), c.ssthresh))
        }
        SpuriousResponse::NewPartial => Some((c.cwnd.max(s.cwnd), s.cwnd)),
        // RFC 4015 step 7: only timeouts.
        SpuriousResponse::Rfc4015 if timeout => s
            .eifel
            .and_then(|p| eifel::restore(&p, c.flight_size, c.bytes_acked, c.iw, c.ece)),
        SpuriousResponse::Rfc4015 => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn snap() -> Snapshot {
        Snapshot {
            cwnd: 20 * MSS,
            cc: Checkpoint::default(),
            ssthresh: 15 * MSS,
            una: 100 * MSS,
            high: 120 * MSS,
            timeout: true,
            eifel: Some(Prev {
                pipe_prev: 20 * MSS,
                srtt_prev: None,
                rttvar_prev: Default::default(),
            }),
            backoff: 1,
            restorable: true,
        }
    }
    fn cur() -> Current {
        // After the timeout: cwnd 1 segment, ssthresh 10 (FlightSize/2).
        Current {
            cwnd: MSS,
            ssthresh: 10 * MSS,
            flight_size: 19 * MSS,
            bytes_acked: MSS,
            iw: 4 * MSS,
            undo_cwnd: 20 * MSS,
            ece: false,
        }
    }

    /// The response table of the module doc, on one spurious timeout.
    #[test]
    fn responses() {
        let (s, c) = (snap(), cur());
        let r = |resp| respond(resp, &s, true, &c);
        assert_eq!(r(SpuriousResponse::None), None);
        assert_eq!(r(SpuriousResponse::FullUndo), Some((20 * MSS, 15 * MSS)));
        assert_eq!(r(SpuriousResponse::Partial), Some((10 * MSS, 10 * MSS)));
        assert_eq!(r(SpuriousResponse::NewPartial), Some((20 * MSS, 20 * MSS)));
        assert_eq!(r(SpuriousResponse::Rfc4015), Some((20 * MSS, 20 * MSS)));
        // RFC 4015 does not respond to a spurious fast retransmit (step 7).
        assert_eq!(respond(SpuriousResponse::Rfc4015, &s, false, &c), None);
        let mut n = s;
        n.restorable = false;
        assert_eq!(respond(SpuriousResponse::FullUndo, &n, true, &c), None);
    }

    /// Linux's accounting: undo_retrans counts retransmissions, DSACKs count them down
    /// (one per DSACK for data already acknowledged), timestamps prove delay.
    #[test]
    fn linux_accounting() {
        let mut u = Undo::default();
        u.start(snap(), 0);
        assert_eq!(u.retrans, -1);
        assert!(u.may_undo(None), "nothing retransmitted yet");
        u.on_retransmit(Instant::from_millis(1000), 1_000_001, 1, true);
        u.on_retransmit(Instant::from_millis(1010), 1_010_001, 1, false); // a TLP
        assert_eq!((u.retrans, u.retrans_ts), (1, Some(1_000_001)));
        assert!(!u.may_undo(None));
        assert!(
            u.may_undo(Some(900_001)),
            "echo older than the retransmission"
        );
        assert!(!u.may_undo(Some(1_000_001)));
        // A DSACK below the snapshot's SND.UNA is ignored; one for forgotten data above
        // it counts, however the segment was sent.
        u.on_dsack((98 * MSS, 99 * MSS), 110 * MSS, 0, 1, 1);
        assert_eq!(u.retrans, 1);
        u.on_dsack((101 * MSS, 102 * MSS), 110 * MSS, 0, 1, 1);
        assert!(u.all_dsacked() && u.may_undo(None));
    }
}

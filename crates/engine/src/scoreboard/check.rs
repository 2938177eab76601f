//! The scoreboard's structural invariants (DESIGN.md): segments tile [SND.UNA, SND.NXT),
//! the running counters match a recount, and the transmit-time order links exactly the
//! segments RACK may see. Debug builds check them after every handler.

use super::timeorder::NIL;
use super::Scoreboard;

impl Scoreboard {
    /// (sacked, lost, retrans) bytes recounted from the segments, for debug invariants.
    pub fn recount(&self) -> (u64, u64, u64) {
        let mut c = (0, 0, 0);
        for s in &self.segs {
            if s.sacked {
                c.0 += s.len();
            }
            if s.lost {
                c.1 += s.len();
            }
            if s.retrans {
                c.2 += s.len();
            }
        }
        c
    }

    /// Checks the structural invariants (debug builds call this after every handler).
    pub fn check(&self) {
        let mut at = self.snd_una;
        for s in &self.segs {
            assert_eq!(s.start, at, "scoreboard has a gap or overlap at {at}");
            assert!(s.end > s.start, "empty segment at {at}");
            assert!(
                !(s.sacked && (s.lost || s.retrans)),
                "SACKed segment still lost/retrans"
            );
            at = s.end;
        }
        assert_eq!(at, self.snd_nxt, "scoreboard does not end at SND.NXT");
        let (sacked, lost, retrans) = self.recount();
        assert_eq!(
            (sacked, lost, retrans),
            (
                self.count.sacked_bytes,
                self.count.lost_bytes,
                self.count.retrans_bytes
            ),
            "scoreboard counters drifted"
        );
        let below: u64 = self
            .segs
            .iter()
            .filter(|s| s.sacked && s.end <= self.bound.lost_upto)
            .map(|s| s.len())
            .sum();
        assert_eq!(
            below, self.bound.sacked_below_bytes,
            "sacked-below-boundary drifted"
        );
        let pending: u64 = self
            .segs
            .iter()
            .filter(|s| s.lost && !s.retrans)
            .map(|s| s.len())
            .sum();
        assert_eq!(
            pending, self.count.lost_pending_bytes,
            "lost-pending bytes drifted"
        );
        for s in &self.segs {
            let should = self.time_order && s.in_time_order();
            assert_eq!(s.ts_node != NIL, should, "time-order link wrong for {s:?}");
        }
        self.tsorted
            .check_refs(self.segs.iter().map(|s| s.ts_node).filter(|&n| n != NIL));
    }
}

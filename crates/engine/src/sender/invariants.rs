//! DESIGN.md's debug invariants, checked at the end of every handler.

use super::state::Ca;
use super::{Conn, Sender};
use crate::timer::TimerKind;

impl Sender {
    /// DESIGN.md's debug invariants, checked at the end of every handler.
    pub(super) fn check_invariants(&self) {
        // A sender stopped by the optimistic-ACK defence keeps no deadline.
        if cfg!(debug_assertions) && !self.optack_detected() {
            assert!(self.core.sb.snd_una() <= self.core.sb.snd_nxt());
            // A bare FIN takes one sequence number past the last byte.
            assert!(
                self.core.sb.snd_nxt() <= self.stream.written + u64::from(self.stream.fin_sent)
            );
            self.core.sb.check();
            self.core.reducer.check();
            match self.core.timer.kind() {
                Some(TimerKind::EarlyRetransmit) => assert!(
                    matches!(
                        self.core.ca,
                        Ca::Disorder {
                            delayed_er: Some(_)
                        }
                    ),
                    "delayed ER without an RTO to restore"
                ),
                Some(TimerKind::LossProbe) => {
                    assert!(self.probe_active(), "PTO armed without probing");
                    assert!(self.core.sb.flight_size() > 0, "PTO armed with nothing out");
                }
                Some(TimerKind::Persist) => {
                    assert_eq!(
                        self.core.sb.flight_size(),
                        0,
                        "persist timer with data in flight"
                    );
                }
                Some(TimerKind::ReoTimeout) => {
                    assert!(self.rack_active(), "reorder timer without RACK");
                    assert!(
                        self.core.sb.flight_size() > 0,
                        "reorder timer with nothing out"
                    );
                }
                _ => {}
            }
            assert!(
                self.cwnd >= self.mss,
                "cwnd {} below one MSS {}",
                self.cwnd,
                self.mss
            );
            assert!(
                self.core.dup.held_partial == 0 || self.core.sb.flight_size() > 0,
                "a partly acknowledged segment held with nothing outstanding"
            );
            if self.core.sb.flight_size() > 0
                || matches!(
                    self.conn,
                    Conn::Handshake {
                        first_sent: Some(_),
                        ..
                    }
                )
            {
                assert!(
                    self.core.timer.is_armed(),
                    "data outstanding but no deadline armed"
                );
            }
        }
    }
}

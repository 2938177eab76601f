//! The optimistic-ACK defence on the sender (`optack_defence = skip-segment`; the rule and
//! its verdicts are in `detect::optack`): which new segment is held back, the segment sent
//! ahead of it, its release in the same burst, the ACK check, and the response.
//!
//! Response: on a detection the sender stops — `poll_transmit` and `poll_timeout` return
//! `None` from then on, ACKs and timeouts are ignored, and `OptAckDetected` is counted with
//! an event; the caller ends the connection (e.g. with a RST). A milder response (cwnd
//! back to one segment, say) would still let a peer that lies between checks keep part of
//! its gain; a peer proven to acknowledge data it never received has nothing left to be
//! trusted with. It is deterministic: the same inputs and seed give the same verdict.

use super::{RecoveryState, Sender};
use crate::cc::CongestionController;
use crate::detect::optack::{AckView, SkipSegment, Verdict};
use crate::event::EventKind;
use crate::packet::{Ack, Transmit, Why};
use crate::time::Instant;

impl Sender {
    /// Supplies the randomness the engine may use — which new segments the optimistic-ACK
    /// defence holds back — since it has no RNG of its own. Call it once after `new` with
    /// a secret random value (the simulator derives it from its seeded RNG, the script
    /// runner and the wire endpoint from theirs); without it the positions follow seed 0,
    /// which a peer could predict. Harmless when the defence is off.
    pub fn set_seed(&mut self, seed: u64) {
        if let Some(o) = self.optack.as_deref_mut() {
            o.set_seed(seed);
        }
    }

    /// The optimistic-ACK defence found the peer acknowledging data it did not receive;
    /// the sender has stopped.
    pub fn optack_detected(&self) -> bool {
        self.optack.as_deref().is_some_and(SkipSegment::detected)
    }

    /// The defence's state for a new connection, if it is on.
    pub(super) fn optack_state(&self) -> Option<Box<SkipSegment>> {
        match self.alg.optack {
            crate::config::resolved::OptAck::Off => None,
            crate::config::resolved::OptAck::SkipSegment { interval } => {
                Some(Box::new(SkipSegment::new(interval, 0)))
            }
        }
    }

    /// The second segment sent ahead, then the held one, right after the first, each
    /// stamped as sent now.
    pub(super) fn optack_transmit(&mut self, now: Instant) -> Option<Transmit> {
        let t = self.optack.as_deref_mut()?.release()?;
        self.core.sb.restamp(now, t.range.start);
        Some(t)
    }

    /// `t` is the next new segment in Open state: sent as is, or held back when a skip is
    /// due and the two segments after it can go first (the first is returned instead; the
    /// second and then the held one follow on the next calls, `optack_transmit`).
    pub(super) fn optack_on_new(&mut self, now: Instant, t: Transmit) -> Transmit {
        let Some(o) = self.optack.as_deref_mut() else {
            return t;
        };
        if !o.due() {
            o.on_new_segment();
            return t;
        }
        // Only a full segment with two more full segments queued behind it, and enough in
        // flight that early retransmit (fewer than four outstanding) cannot misread the
        // duplicates; never the FIN, which must stay last. Otherwise the skip waits for
        // the next segment.
        let queued = self.stream.written.saturating_sub(self.core.sb.snd_nxt());
        let rwnd_room =
            (self.core.sb.snd_una() + self.peer.window).saturating_sub(self.core.sb.snd_nxt());
        let suitable = t.range.len() == self.mss
            && !t.fin
            && queued >= 3 * self.mss
            && rwnd_room >= 3 * self.mss
            && self.core.sb.flight_size() >= 4 * self.mss
            && self.state() == RecoveryState::Open;
        if !suitable {
            return t;
        }
        let room = self.cwnd.saturating_sub(self.core.sb.flight_size());
        let Some(first) = self.new_data(now, room, Why::New) else {
            return t;
        };
        // Without SACK a second segment goes ahead, so that an honest receiver sends a
        // duplicate ACK at the hole whatever its delayed-ACK parity (`detect::optack`). It
        // may borrow one segment of the next ACK's room: the window is exceeded by at most
        // one segment until that ACK, once per check (as RFC 3042 sends beyond it).
        let second = if self.sack_ok {
            None
        } else {
            let room = self
                .cwnd
                .saturating_sub(self.core.sb.flight_size())
                .max(self.mss);
            self.new_data(now, room, Why::New)
        };
        let ahead_end = second.map_or(first.range.end, |s| s.range.end);
        self.stats.optack_skips += 1;
        if let Some(o) = self.optack.as_deref_mut() {
            o.hold(now, t, second, ahead_end);
        }
        first
    }

    /// The check on an acceptable ACK; true if the sender has stopped.
    pub(super) fn optack_on_ack(&mut self, now: Instant, ack: &Ack) -> bool {
        if self.optack.is_none() {
            return false;
        }
        let view = AckView {
            now,
            cum: ack.cumulative,
            una: self.core.sb.snd_una(),
            blocks: if self.sack_ok { ack.sack_blocks() } else { &[] },
            sack: self.sack_ok,
            min_rtt: self.core.rtt.min_rtt().unwrap_or_default(),
        };
        let Some(o) = self.optack.as_deref_mut() else {
            return false;
        };
        let skipped = o.skipped();
        match o.on_ack(&view) {
            Verdict::Strike => self.stats.optack_strikes += 1,
            Verdict::Detected => {
                self.stats.optack_strikes += 1;
                self.stats.optack_detected += 1;
                let r = skipped.unwrap_or_default();
                self.emit(
                    now,
                    EventKind::OptAckDetected {
                        start: r.start,
                        end: r.end,
                    },
                );
                self.core.timer.stop();
                return true;
            }
            Verdict::Pending | Verdict::Pass | Verdict::Void => {}
        }
        false
    }

    /// The growth a passed check gives back on this ACK, beyond its DeliveredData
    /// (`SkipSegment::take_credit`), unless the congestion control sets cwnd itself.
    pub(super) fn optack_credit(&mut self, acked: u64, delivered: u64) -> u64 {
        if self.cc.sets_cwnd() {
            return 0;
        }
        self.optack
            .as_deref_mut()
            .map_or(0, |o| o.take_credit(acked, delivered))
    }

    /// Linux's reordering evidence without the held segment's own late delivery.
    pub(super) fn optack_reorder_filter(&self, low: Option<u64>) -> Option<u64> {
        match self.optack.as_deref() {
            Some(o) => o.reorder_filter(low),
            None => low,
        }
    }

    /// A retransmission of `range`: below the held segment it repairs a loss that hides
    /// the hole without SACK (`SkipSegment::on_retransmit`).
    pub(super) fn optack_on_retransmit(&mut self, range: crate::packet::Range) {
        if let Some(o) = self.optack.as_deref_mut() {
            o.on_retransmit(range);
        }
    }

    /// A retransmission timeout: the open check can no longer be judged.
    pub(super) fn optack_on_rto(&mut self) {
        if let Some(o) = self.optack.as_deref_mut() {
            o.void();
        }
    }
}

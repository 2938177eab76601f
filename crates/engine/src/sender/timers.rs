//! The one loss-recovery deadline (RFC 8985 §8, digest §10): which of RTO, PTO and RACK's
//! reorder timer is armed after an ACK or a transmission, and how the RTO is anchored when
//! it replaces one of the others.
//!
//! Rule (a debug invariant): exactly one deadline is armed whenever data is outstanding.
//! After an ACK, in Linux's order (`tcp_ack`): a reorder timer RACK asked for wins; else,
//! if the ACK is one the probe algorithm reschedules on, a PTO when the probe's conditions
//! hold; else the RTO as RFC 6298 §5.2-5.3 left it. An RTO that replaces a PTO or a
//! reorder timer fires one RTO after the head's last transmission, not one RTO from now
//! (Linux `tcp_rearm_rto`, digest §2.3), so probing and reordering waits never postpone it.
//!
//! With `rto_timer = restart` (RFC 7765 §4) the RTO, whenever it is re-armed on an ACK,
//! replaces a PTO or reorder timer, or follows a probe (RFC 8985 §9.2), fires one RTO after
//! the earliest outstanding segment was sent while fewer than rrthresh segments are
//! outstanding or queued.

use super::ack::AckSummary;
use super::state::Ca;
use super::{RecoveryState, Sender};
use crate::config::resolved::{Probing, RtoRearm};
use crate::probe;
use crate::rto::restart;
use crate::time::{Duration, Instant};
use crate::timer::TimerKind;

/// The earliest an anchored RTO may fire (Linux: `max(delta_us, 1)`).
const MIN_DELAY: Duration = Duration::from_micros(1);

/// The least time Linux gives a receiver that seems to have reneged before the timeout
/// forgets its SACKs (`tcp_check_sack_reneging`: `msecs_to_jiffies(10)`).
const RENEGING_WAIT_MIN: Duration = Duration::from_millis(10);

impl Sender {
    /// When the RTO fires if re-armed now: one RTO from now when `advancing` (an ACK of new
    /// data, or sending from idle), else one RTO after the head's last transmission (Linux
    /// `tcp_rto_delta_us`), at the earliest 1 µs from now.
    pub(super) fn rto_expiry(&self, now: Instant, advancing: bool) -> Instant {
        let rto = self.core.rtt.rto();
        if let Some(at) = self.rto_restart_expiry(now) {
            return at;
        }
        match self.core.sb.head() {
            Some(h) if !advancing => (h.last_sent + rto).max(now + MIN_DELAY),
            _ => now + rto,
        }
    }

    /// RFC 7765 §4 (`rto_timer = restart`): the expiry when outstanding plus queued
    /// segments are fewer than rrthresh; `None` when RTO Restart does not apply.
    fn rto_restart_expiry(&self, now: Instant) -> Option<Instant> {
        let RtoRearm::Restart { rrthresh } = self.alg.rto_timer else {
            return None;
        };
        let head = self.core.sb.head()?;
        let outstanding = self.core.sb.flight_size().div_ceil(self.mss);
        let prevunsnt = self
            .stream
            .written
            .saturating_sub(self.core.sb.snd_nxt())
            .div_ceil(self.mss);
        if outstanding + prevunsnt >= u64::from(rrthresh) {
            return None;
        }
        Some(restart::expiry(
            now,
            self.core.rtt.rto(),
            head.last_sent,
            outstanding,
            prevunsnt,
            rrthresh,
        ))
    }

    /// Linux `tcp_rearm_rto`: stop with nothing outstanding; otherwise an RTO from now,
    /// or anchored to the head when it replaces a PTO or a reorder timer.
    pub(super) fn rearm_rto(&mut self, now: Instant) {
        if self.core.sb.flight_size() == 0 {
            self.core.timer.stop();
            return;
        }
        let replaces = matches!(
            self.core.timer.kind(),
            Some(TimerKind::LossProbe | TimerKind::ReoTimeout)
        );
        let at = self.rto_expiry(now, !replaces);
        self.core.timer.arm(TimerKind::Rto, now, at);
    }

    /// Linux `tcp_check_sack_reneging`: SND.UNA advanced onto a segment the receiver had
    /// SACKed, so it may have dropped what it SACKed (RFC 2018 §8). Rather than resend at
    /// once, the receiver gets "a little time (max(RTT/2, 10ms)) to send us some more ACKs
    /// that will restore sanity to the SACK scoreboard": the retransmission timer is
    /// re-armed for that, and nothing else of `tcp_fastretrans_alert` runs on this ACK; if
    /// the reneging persists, the timeout forgets the SACKs (`tcp_timeout_mark_lost`).
    /// `tcp_cong_control` still runs: the reduction step in fast recovery or CWR, else
    /// growth.
    pub(super) fn on_sack_reneging(&mut self, now: Instant, a: &AckSummary) {
        let half_srtt = self.core.rtt.srtt().unwrap_or_default() / 2;
        self.core
            .timer
            .arm(TimerKind::Rto, now, now + half_srtt.max(RENEGING_WAIT_MIN));
        match self.core.ca {
            Ca::Recovery { .. } | Ca::Cwr { .. } => self.reduce_on_ack(a, 0),
            Ca::Open | Ca::Disorder { .. } | Ca::Loss { .. } => self.grow_cwnd(now, a),
        }
    }

    /// The deadline after an ACK was processed (`advanced`: SND.UNA moved; `newly_sacked`:
    /// it SACKed new data). RFC 6298 §5.2-5.3 already ran before the state machine.
    pub(super) fn set_timer_after_ack(&mut self, now: Instant, advanced: bool, newly_sacked: bool) {
        if self.core.sb.flight_size() == 0 {
            self.core.timer.stop();
            return;
        }
        if self.core.timer.kind() == Some(TimerKind::EarlyRetransmit) {
            return; // armed by this ACK; it restores what it displaced
        }
        if let Some(wait) = self.core.rack_wait.take() {
            self.arm_reo_timer(now, wait);
            return;
        }
        if !self.probe_active() {
            return;
        }
        let reschedule = match self.alg.probe {
            // TLP draft §2.1 (4): every ACK cancels the PTO and reschedules it if allowed.
            Probing::TlpDraft { .. } => true,
            // RFC 8985 §7.2: an ACK that cumulatively acknowledges new data (with probes in
            // recovery, a SACK too, as Linux).
            Probing::Tlp { in_recovery, .. } => advanced || (in_recovery && newly_sacked),
            // Linux FLAG_SET_XMIT_TIMER: new data acknowledged, or a SACK RTT sample.
            Probing::TlpLinux { .. } => advanced || newly_sacked,
            Probing::None => false,
        };
        let scheduled = reschedule && self.schedule_probe(now, advanced);
        let pto_pending = self.core.timer.kind() == Some(TimerKind::LossProbe);
        if pto_pending && !scheduled && (reschedule || !self.probe_state_ok()) {
            self.rearm_rto(now);
        }
    }

    /// Arms RACK's reorder timer for `wait` (RFC 8985 §6.2 step 5; Linux adds slack and
    /// caps it at the RTO).
    pub(super) fn arm_reo_timer(&mut self, now: Instant, wait: Duration) {
        let d = self.core.rack.reo_timer(wait, self.core.rtt.rto());
        self.core
            .timer
            .arm(TimerKind::ReoTimeout, now, now + d.max(MIN_DELAY));
    }

    /// Arms the PTO if the probe algorithm's conditions hold now; `advancing` as in
    /// [`Sender::rto_expiry`]. Returns whether it did.
    pub(super) fn schedule_probe(&mut self, now: Instant, advancing: bool) -> bool {
        if !self.probe_active() || self.core.sb.flight_size() == 0 || !self.probe_conditions() {
            return false;
        }
        let one_segment = match self.alg.probe {
            Probing::TlpLinux { .. } => self.core.sb.len() == 1,
            _ => self.core.sb.flight_size() <= self.mss,
        };
        let srtt = self.core.rtt.srtt();
        let Some(pto) = probe::pto(self.alg.probe, srtt, one_segment, self.alg.shell.min_rto)
        else {
            return false;
        };
        let at = probe::deadline(now, pto, self.rto_expiry(now, advancing));
        self.core.timer.arm(TimerKind::LossProbe, now, at);
        true
    }

    /// A state in which probing makes sense at all: not in RTO recovery, and not in fast
    /// recovery unless `tlp_in_recovery`.
    pub(super) fn probe_state_ok(&self) -> bool {
        match self.state() {
            RecoveryState::Loss => false,
            RecoveryState::Recovery => self.alg.probe.in_recovery(),
            _ => true,
        }
    }

    /// The draft's consecutive-PTO limit (§2.1 (2c)) is not yet reached; other variants
    /// limit probes per episode instead. It holds in recovery too: there a PTO re-armed
    /// after every probe would keep the RTO — the only repair of a lost retransmission
    /// without RACK (RFC 6675 §5.1, RFC 6298 §5.4) — from ever firing.
    pub(super) fn draft_probes_left(&self) -> bool {
        match self.alg.probe {
            Probing::TlpDraft { max_probes, .. } => self.core.tlp_draft.consecutive < max_probes,
            _ => true,
        }
    }

    /// The variant's conditions for scheduling a PTO.
    fn probe_conditions(&self) -> bool {
        if !self.is_established() {
            return false;
        }
        if self.state() == RecoveryState::Recovery {
            return self.alg.probe.in_recovery() && self.draft_probes_left();
        }
        match self.alg.probe {
            // §2.1 (2): (a) Open; (b) cwnd- or application-limited (Linux 3.10: not when
            // cwnd has room and unsent data is queued); (c) consecutive PTOs below the
            // limit; (d) SACK (probe_active). The PTO needs SRTT (Linux 3.10 `tp->srtt`).
            Probing::TlpDraft { max_probes, .. } => {
                let cwnd_room = self.cwnd > self.core.sb.flight_size();
                let queued = self.stream.written > self.core.sb.snd_nxt();
                self.state() == RecoveryState::Open
                    && !(cwnd_room && queued)
                    && self.core.tlp_draft.consecutive < max_probes
                    && self.core.rtt.srtt().is_some()
            }
            // RFC 8985 §7.2: not in fast or RTO recovery, nothing SACKed.
            Probing::Tlp { .. } => self.probe_state_ok() && self.core.sb.sacked_segs() == 0,
            // Linux `tcp_schedule_loss_probe`: Open or CWR.
            Probing::TlpLinux { .. } => {
                matches!(self.state(), RecoveryState::Open | RecoveryState::Cwr)
            }
            Probing::None => false,
        }
    }
}

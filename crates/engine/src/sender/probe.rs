//! Tail loss probes on the sender (decisions in [`crate::probe`]): the PTO firing (TLP
//! draft §2.1 (3), RFC 8985 §7.3, Linux `tcp_send_loss_probe`), sending the probe — new data
//! if the receive window allows, even beyond cwnd, else the highest-sequence segment — its
//! bookkeeping, scheduling after new data, and the probe's ACKs (draft §3.2, RFC 8985
//! §7.4) with the cwnd reduction when a probe masked a loss.

use super::ack::Prior;
use super::pending::Pending;
use super::{RecoveryState, Sender};
use crate::config::resolved::Probing;
use crate::event::EventKind;
use crate::packet::{Ack, ProbeKind, Range, Transmit, Why};
use crate::probe::{AckView, Verdict};
use crate::time::Instant;
use crate::timer::TimerKind;

impl Sender {
    /// The PTO expired: decide the probe (sent by the next `poll_transmit`) and re-arm the
    /// RTO. No probe in recovery, with an episode still open (RFC 8985, Linux), without an
    /// RTT sample since the last one (RFC 8985), or when the draft's §3.2 (5) forbids a
    /// second retransmitted range.
    pub(super) fn on_loss_probe(&mut self, now: Instant) {
        if self.core.sb.flight_size() == 0 {
            self.core.timer.stop();
            return;
        }
        let kind = if self.probe_active() && self.probe_state_ok() {
            self.choose_probe()
        } else {
            None
        };
        let what = match kind {
            Some(ProbeKind::New) => {
                let s = self.core.sb.snd_nxt();
                // A queued bare FIN is the new "segment": its sequence number.
                Some((s, s + self.mss.min(self.stream.written - s).max(1), false))
            }
            Some(ProbeKind::Retransmit) => self.probe_target().map(|t| (t.start, t.end, true)),
            None => None,
        };
        let (Some(kind), Some((start, end, retransmit))) = (kind, what) else {
            if self.alg.probe.rto_from_now_after_pto() {
                // RFC 8985 §7.3: "regardless of whether a loss probe was sent", the RTO
                // is re-armed — one RTO from now (RTO Restart: from the earliest
                // outstanding segment).
                let at = self.rto_expiry(now, true);
                self.core.timer.arm(TimerKind::Rto, now, at);
            } else {
                // "Rearm the RTO" (draft §2.1 (3d); Linux `tcp_send_loss_probe` →
                // `tcp_rearm_rto`), anchored to the head since it replaces the PTO.
                self.rearm_rto(now);
            }
            return;
        };
        self.pending = Pending::Probe(kind);
        self.emit(
            now,
            EventKind::LossProbe {
                start,
                end,
                retransmit,
            },
        );
        // Until the probe's transmission re-arms it: the deadline rule holds meanwhile.
        self.arm_rto(now);
    }

    fn choose_probe(&self) -> Option<ProbeKind> {
        let new = self.can_send_new_segment();
        if self.state() == RecoveryState::Recovery {
            // Seed 001 slide 18: in recovery, new data or the highest un-SACKed segment.
            let ok = match self.alg.probe {
                Probing::TlpDraft { .. } => self.draft_probes_left(),
                _ => self.core.tlp.may_probe(),
            };
            return if !ok {
                None
            } else if new {
                Some(ProbeKind::New)
            } else {
                self.probe_target().map(|_| ProbeKind::Retransmit)
            };
        }
        match self.alg.probe {
            Probing::TlpDraft { max_probes, .. } => {
                if self.core.tlp_draft.consecutive >= max_probes {
                    None
                } else if new {
                    Some(ProbeKind::New)
                } else {
                    self.core
                        .tlp_draft
                        .may_retransmit(self.core.sb.snd_nxt())
                        .then_some(ProbeKind::Retransmit)
                        .filter(|_| self.core.sb.last().is_some_and(|s| !s.sacked))
                }
            }
            Probing::Tlp { .. } | Probing::TlpLinux { .. } => {
                if !self.core.tlp.may_probe() {
                    None
                } else if new {
                    Some(ProbeKind::New)
                } else {
                    self.core
                        .sb
                        .last()
                        .is_some_and(|s| !s.sacked)
                        .then_some(ProbeKind::Retransmit)
                }
            }
            Probing::None => None,
        }
    }

    /// The segment a retransmitted probe carries: the highest-sequence one (draft §2.1
    /// (3b), RFC 8985 §7.3); in recovery the highest un-SACKed one.
    fn probe_target(&self) -> Option<crate::scoreboard::SentSeg> {
        if self.state() == RecoveryState::Recovery {
            self.core.sb.segments().rev().find(|s| !s.sacked).copied()
        } else {
            self.core.sb.last().filter(|s| !s.sacked).copied()
        }
    }

    /// Previously unsent data is ready and the receive window admits a segment of it.
    /// A queued bare FIN counts (Linux `tcp_send_loss_probe` sends the send head, whatever
    /// it carries).
    pub(super) fn can_send_new_segment(&self) -> bool {
        let start = self.core.sb.snd_nxt();
        let avail = self.stream.written.saturating_sub(start);
        let rwnd_room = (self.core.sb.snd_una() + self.peer.window).saturating_sub(start);
        let fin_queued =
            self.stream.closed && !self.stream.fin_sent && start == self.stream.written;
        (avail > 0 && rwnd_room >= self.mss.min(avail)) || (fin_queued && rwnd_room > 0)
    }

    /// The pending probe as a transmission. It goes out whatever cwnd or PRR's quota say
    /// (in recovery too, seed 001).
    pub(super) fn probe_transmit(&mut self, now: Instant, kind: ProbeKind) -> Option<Transmit> {
        match kind {
            // New data regardless of cwnd ("cwnd remains unchanged", draft §2.1 (3a); RFC
            // 8985 §7.3 lets FlightSize exceed cwnd by one segment).
            ProbeKind::New => self.new_data(now, u64::MAX, Why::Probe(ProbeKind::New)),
            ProbeKind::Retransmit => {
                let last = self.probe_target()?;
                let seg = if matches!(self.alg.probe, Probing::TlpLinux { .. }) {
                    // Linux: the probe is not counted as a retransmission in flight.
                    self.core.sb.on_retransmit_untracked(now, last.start)?
                } else {
                    self.core.sb.on_retransmit(now, last.start)?
                };
                Some(self.segment(
                    now,
                    seg.range(),
                    Why::Probe(ProbeKind::Retransmit),
                    seg.psh,
                    seg.fin,
                ))
            }
        }
    }

    /// A probe left: count it, open its episode, and arm what follows it — another PTO if
    /// the draft allows a second consecutive probe, else the RTO from now.
    pub(super) fn on_probe_sent(&mut self, now: Instant, range: Range, kind: ProbeKind) {
        self.stats.loss_probes += 1;
        let snd_nxt = self.core.sb.snd_nxt();
        let retransmit = kind == ProbeKind::Retransmit;
        let draft = matches!(self.alg.probe, Probing::TlpDraft { .. });
        match self.alg.probe {
            Probing::TlpDraft { .. } => {
                if retransmit {
                    self.core
                        .tlp_draft
                        .on_retransmit_probe(snd_nxt, (range.start, range.end));
                }
                self.core.tlp_draft.consecutive += 1;
            }
            _ => self.core.tlp.on_probe(snd_nxt, retransmit),
        }
        // One RTO from now (RTO Restart: from the earliest outstanding segment).
        let at = self.rto_expiry(now, true);
        self.core.timer.arm(TimerKind::Rto, now, at);
        if draft {
            self.schedule_probe(now, true);
        }
    }

    /// New data (not a probe) left: restart the PTO (draft §2.1 (1), RFC 8985 §7.2, Linux
    /// `tcp_event_new_data_sent` + `tcp_schedule_loss_probe`); a pending PTO first gives
    /// way to the RTO anchored at the head.
    pub(super) fn probe_on_new_data(&mut self, now: Instant) {
        self.core.tlp_draft.consecutive = 0;
        // Linux rearms the RTO (anchored) when a PTO was pending, then schedules the PTO:
        // the same as scheduling first and falling back to the RTO.
        if !self.schedule_probe(now, false) && self.core.timer.kind() == Some(TimerKind::LossProbe)
        {
            self.rearm_rto(now);
        }
    }

    /// The probe part of an ACK (before the state machine, as Linux's
    /// `tcp_process_tlp_ack`): count TLP dupacks, end the episode, reduce cwnd if the probe
    /// masked a loss.
    pub(super) fn probe_on_ack(
        &mut self,
        now: Instant,
        ack: &Ack,
        dsack: Option<Range>,
        prior: Prior,
        newly_sacked: bool,
        window_update: bool,
    ) {
        let advanced = self.core.sb.snd_una() > prior.una;
        let high = match self.alg.probe {
            Probing::TlpDraft { .. } => self.core.tlp_draft.tlp_high_rxt,
            _ => self.core.tlp.end_seq,
        };
        let view = AckView {
            cumulative: ack.cumulative,
            advanced,
            sack_above: high.is_some_and(|h| ack.sack_blocks().iter().any(|b| b.end > h)),
            any_sack: !ack.sack.is_empty(),
            newly_sacked,
            dsack: dsack.map(|d| (d.start, d.end)),
            window_update,
        };
        let verdict = match self.alg.probe {
            Probing::TlpDraft { .. } => {
                if advanced {
                    self.core.tlp_draft.consecutive = 0;
                }
                self.core.tlp_draft.on_ack(&view)
            }
            Probing::Tlp { .. } | Probing::TlpLinux { .. } => self.core.tlp.on_ack(&view),
            Probing::None => Verdict::Pending,
        };
        if verdict == Verdict::Loss {
            self.tlp_loss_response(now, prior);
        }
    }

    /// The probe repaired a loss nobody else saw: a congestion response "equivalent to fast
    /// recovery" (RFC 8985 §7.4.2; draft §3.2 (4b) "EnterRecovery()" with PRR) — done as
    /// Linux (both the draft's 3.10 code and today's): ssthresh from the congestion control
    /// and cwnd = ssthresh at once (`tcp_init_cwnd_reduction` + `tcp_end_cwnd_reduction`),
    /// since nothing is left to pace the reduction over.
    fn tlp_loss_response(&mut self, now: Instant, prior: Prior) {
        self.stats.loss_probe_recovery += 1;
        let flight = prior.flight.max(self.core.sb.flight_size());
        self.reduce_ssthresh(now, flight);
        self.reduction_sets_cwnd(self.ssthresh);
        self.emit(
            now,
            EventKind::TlpRecovery {
                cwnd: self.cwnd,
                ssthresh: self.ssthresh,
            },
        );
    }
}

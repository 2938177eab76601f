//! One ACK: the cumulative and SACK parts (RFC 6675 §5, RFC 5681 §3), RTT samples
//! (RFC 6298, RFC 7323), DeliveredData (RFC 6937 §2), and the evidence of reordering and
//! spurious retransmission: SACKs below SND.FACK (digest §8.4), DSACKs (RFC 2883, RFC 3708)
//! and timestamp echoes older than a retransmission (RFC 3522 §2); what that evidence
//! does to the reordering threshold is `sender::reordering`.

use super::pending::Pending;
use super::spurious::SpurAck;
use super::state::Ca;
use super::{transmit, Sender};
use crate::event::EventKind;
use crate::packet::{Ack, Range};
use crate::scoreboard::{AckSummary as ScoreboardAck, RackFilter};
use crate::time::Instant;

/// The largest window a peer can announce (RFC 7323 §2.3: 65535 · 2^14 bytes); anything
/// larger is capped so that SND.UNA + window never overflows.
pub(super) const MAX_WINDOW: u64 = 65_535 << 14;

/// What one ACK did, as the recovery state machine and the congestion response see it.
#[derive(Copy, Clone, Debug)]
pub(super) struct AckSummary {
    /// Bytes newly acknowledged cumulatively (Δsnd.una).
    pub acked: u64,
    /// RFC 6937 DeliveredData (Linux `acked_sacked`).
    pub delivered: u64,
    /// Of `delivered`, the growth a passed optimistic-ACK check gives back: the segments
    /// sent ahead of the held one, which in order would have been acknowledged by ACKs of
    /// their own (`detect::optack`, `SkipSegment::take_credit`).
    pub optack_credit: u64,
    /// Of `acked`, the bytes the receiver had reported delivered before this ACK: SACKed,
    /// or (without SACK, in RTO recovery) counted by the duplicates before the timeout.
    pub reported_before: u64,
    /// Without SACK: the advance acknowledged a retransmission the receiver has had time
    /// to answer — RFC 6582's partial ACK, which answers the retransmission of a hole.
    pub fills_hole: bool,
    /// SND.UNA moved to the inside of a segment: the receiver acknowledged part of it.
    pub ends_inside: bool,
    /// In RTO recovery: bytes it acknowledges that were retransmitted, or sent new past
    /// the recovery point, at least min_RTT ago.
    pub sent_since_rto: u64,
    /// Its timestamp echo is of a retransmission or later (not older than the first
    /// retransmission, RFC 3522 §2): it answers a retransmission.
    pub echo_answers_retrans: bool,
    /// A duplicate ACK (RFC 6675 §2 with SACK, RFC 5681 without).
    pub is_dup: bool,
    /// cwnd may change on this ACK: not a Linux old ACK (below SND.UNA), whose SACK blocks
    /// are tagged and whose losses are marked, but which skips `tcp_cong_control`.
    pub cong_control: bool,
    /// ECN-Echo, with ECN in use (Linux FLAG_ECE).
    pub ece: bool,
    pub prior: Prior,
}

/// What the connection looked like before this ACK.
#[derive(Copy, Clone, Debug)]
pub(super) struct Prior {
    pub una: u64,
    pub flight: u64,
    pub sacked: u64,
}

impl Sender {
    /// One ACK, in the order of RFC 6675 §5 and Linux's `tcp_ack`: acceptability, the
    /// window, the scoreboard (DSACK, cumulative and SACK parts), the RTT sample and
    /// reordering evidence, DupAcks and DeliveredData, RACK and the probe's ACK, the
    /// retransmission timer, spurious-retransmission detection, the recovery state
    /// machine, and the deadline.
    pub(super) fn handle_ack(&mut self, now: Instant, ack: &Ack) {
        let Some(ack) = self.acceptable(now, ack) else {
            return;
        };
        let ack = &ack;
        if self.optack_on_ack(now, ack) {
            return;
        }
        // Any ACK cancels a delayed early retransmit (Linux `tcp_ack` re-arms the RTO);
        // the checks below may arm a fresh one.
        self.cancel_delayed_early_retransmit();
        let prior = self.prior();
        let (prior_window, window_update) = self.accept_window(now, ack, prior.flight);
        let dsack_before = self.core.evidence.dsack_seen;
        let sent_since_rto = self.sent_since_rto(now, ack.cumulative);
        // Before this ACK's own sample: one taken from an ACK that ends a hole's wait
        // would make the hole's retransmission look too recent to have been answered.
        let min_rtt = self.core.rtt.min_rtt().unwrap_or_default();
        let (sb, dsack) = self.update_scoreboard(now, ack, prior);
        let is_dup = self.count_dupack(now, ack, &sb, prior, prior_window);
        // Without SACK: does the advance answer a retransmission (RFC 6582's partial ACK)?
        let fills_hole = !self.sack_ok && self.fills_hole(now, &sb.acked, min_rtt);
        let delivered = self.delivered_data(now, &sb.acked, sb.newly_sacked, is_dup, fills_hole);
        let delivered = self.hold_partial(delivered, &sb.acked);
        let optack_credit = self.optack_credit(sb.acked.bytes, delivered);
        let delivered = delivered + optack_credit;
        let echo_answers_retrans = self.echo_answers_retrans(ack);
        self.tail_on_ack(now, ack, &sb, dsack, prior, window_update);
        self.restart_rto_on_ack(now, sb.acked.bytes > 0);
        // Spurious timeouts and retransmissions (`rto`): may undo the reduction and
        // leave recovery before the state machine sees the ACK.
        let advanced = sb.acked.bytes > 0;
        let ece = self.ecn_echo(ack.ecn.ece);
        // Without SACK: it acknowledges a retransmission the receiver has had time to
        // answer (F-RTO's proof under `ack_division_guard`).
        let answers_retrans = !self.sack_ok
            && sb
                .acked
                .oldest_retrans_sent
                .is_some_and(|t| super::reno::answered_by(now, t, min_rtt));
        let spur = SpurAck {
            advanced,
            answers_retrans,
            acked: sb.acked.bytes,
            dsack: dsack.is_some(),
            dsack_before,
            dupack: if self.sack_ok {
                !advanced && !window_update && dsack.is_none()
            } else {
                is_dup
            },
            newly_sacked: sb.newly_sacked > 0,
            ts_ecr: self.ts_ecr(ack),
            delivered: sb.delivered,
            ece,
        };
        self.spurious_on_ack(now, &spur);
        let summary = AckSummary {
            acked: sb.acked.bytes,
            delivered,
            optack_credit,
            reported_before: sb.acked.was_sacked,
            fills_hole,
            ends_inside: sb.acked.ends_inside,
            sent_since_rto,
            echo_answers_retrans,
            is_dup,
            // Linux's old-ACK path skips `tcp_cong_control`.
            cong_control: !(ack.cumulative < prior.una
                && self.alg.rules.old_ack_skips_cong_control),
            ece,
            prior,
        };
        self.recover_and_grow(now, &summary, &sb);
    }

    /// The ACK's window (RFC 9293 §3.10.7.4 SND.WND, capped at [`MAX_WINDOW`]): returns
    /// the window before it and whether it changed.
    fn accept_window(&mut self, now: Instant, ack: &Ack, prior_flight: u64) -> (u64, bool) {
        let prior_window = self.peer.window;
        let window = ack.window.min(MAX_WINDOW);
        let window_update = window != prior_window;
        self.peer.window = window;
        self.peer.max_window = self.peer.max_window.max(window);
        self.idle_on_window_update(now, window_update, prior_flight);
        (prior_window, window_update)
    }

    /// The second half of `handle_ack`, on its summary: the recovery state machine (or
    /// the reneging response), growth, the pacing rate, the deadline and persist.
    fn recover_and_grow(&mut self, now: Instant, summary: &AckSummary, sb: &ScoreboardAck) {
        let prior = summary.prior;
        let advanced = sb.acked.bytes > 0;
        // Linux `tcp_clean_rtx_queue` FLAG_SACK_RENEGING: SND.UNA advanced onto a segment
        // the receiver had SACKed.
        let reneged = self.alg.rules.sack_reneging_short_timer
            && sb.acked.bytes > 0
            && self.core.sb.head().is_some_and(|h| h.sacked);
        if reneged {
            self.on_sack_reneging(now, summary);
        } else {
            self.run_state_machine(now, summary);
        }
        self.cc_on_ack(now, summary, sb);
        if summary.cong_control && prior.flight > 0 {
            // The end of `tcp_cong_control` (an ACK with nothing outstanding takes
            // `tcp_ack`'s no_queue path, which skips it).
            self.update_pacing_rate();
        }
        self.after_ack(now, advanced, sb.newly_sacked > 0, reneged);
        self.persist_on_ack(now, prior.flight == 0);
    }

    /// The ACK as the sender processes it, or `None` when it is for the handshake or
    /// must be dropped. The FIN takes one sequence number after the last byte: a bare FIN
    /// is on the scoreboard and its ACK (`end + 1`) acknowledges it there; a FIN that rode
    /// on the last data segment is that segment's, so its ACK counts as the data's.
    fn acceptable(&mut self, now: Instant, ack: &Ack) -> Option<Ack> {
        if !self.is_established() {
            self.on_handshake_ack(now, ack);
            return None;
        }
        if ack.syn.is_some() {
            // A retransmitted SYN-ACK: our handshake ACK was lost; send it again.
            self.pending = Pending::HandshakeAck;
            return None;
        }
        let piggybacked = self.stream.fin_sent && !self.fin_on_scoreboard();
        let cumulative = if piggybacked && ack.cumulative == self.stream.written + 1 {
            self.stream.written
        } else {
            ack.cumulative
        };
        if cumulative > self.core.sb.snd_nxt() {
            // RFC 9293 §3.10.7.4: an ACK for data not yet sent is dropped.
            self.stats.ack_beyond_snd_nxt += 1;
            self.emit(
                now,
                EventKind::AckRejected {
                    cumulative,
                    snd_nxt: self.core.sb.snd_nxt(),
                },
            );
            return None;
        }
        if self.ts_ok {
            if let Some(ts) = ack.ts {
                self.ts_recent = self.ts_recent.max(ts.val);
            }
        }
        Some(Ack { cumulative, ..*ack })
    }

    /// The ACK's echo is of a retransmission or later: not older than the first
    /// retransmission (RFC 3522 §2; Linux `tcp_packet_delayed` says the opposite).
    fn echo_answers_retrans(&self, ack: &Ack) -> bool {
        let ecr = self.ts_ecr(ack);
        self.core.evidence.undo.retrans_ts.is_some()
            && ecr.is_some()
            && !self.core.evidence.undo.packet_delayed(ecr)
    }

    /// The ACK's timestamp echo, when timestamps are in use and it echoes something.
    pub(super) fn ts_ecr(&self, ack: &Ack) -> Option<u64> {
        ack.ts.filter(|t| self.ts_ok && t.ecr != 0).map(|t| t.ecr)
    }

    /// RFC 6675 §5 `Update()` and what comes with it: a believable DSACK (RFC 2883,
    /// Linux's sanity checks), the cumulative and SACK parts, the RTT sample (RFC 6298,
    /// RFC 7323), and reordering evidence from timestamps and SACKs. Returns the
    /// scoreboard's summary and the believable DSACK.
    fn update_scoreboard(
        &mut self,
        now: Instant,
        ack: &Ack,
        prior: Prior,
    ) -> (ScoreboardAck, Option<Range>) {
        let raw_dsack = ack.dsack();
        let blocks = &ack.sack.as_slice()[usize::from(raw_dsack.is_some())..];
        let dsack = raw_dsack.filter(|&d| self.sack_ok && self.on_dsack(now, d, ack));
        let filter = RackFilter {
            now,
            min_rtt: self.core.rtt.min_rtt(),
            ts_ecr: self.ts_ecr(ack),
        };
        let blocks = if self.sack_ok { blocks } else { &[] };
        let sb = self.core.sb.on_ack(filter, ack.cumulative, blocks);
        self.stats.sack_discard += u64::from(sb.discarded);
        self.stats.sack_splits = self.core.sb.splits();
        if sb.acked.bytes > 0 {
            // RFC 7323 §4: the echo must be of a timestamp sent for what this ACK covers;
            // otherwise the send time of a never-retransmitted segment (Karn) stands.
            let echo_floor = sb.acked.oldest_sent.map_or(0, transmit::ts_clock);
            // Linux takes no send-time sample from an ACK that also covers a
            // retransmission: it waited for the hole (`tcp_clean_rtx_queue`,
            // FLAG_RETRANS_DATA_ACKED). RFC 6298's Karn rule excludes only the segment.
            let waited =
                sb.acked.any_retransmitted && self.alg.rules.no_send_time_sample_after_retransmit;
            let send_time_sample = (!waited)
                .then_some(sb.acked.rtt_sample_sent)
                .flatten()
                .map(|sent| now - sent);
            let sample = match self.ts_ecr(ack) {
                None if self.ts_ok => None,
                Some(ecr) if ecr >= echo_floor => self.ts_sample(now, ack),
                _ => send_time_sample,
            };
            if let Some(r) = sample {
                self.rate_on_rtt_sample(r);
                self.take_rtt_sample(now, r);
                self.core.tlp.rtt_sampled = true; // RFC 8985 §7.3's condition
            }
            self.hystart_on_ack(now, &sb.acked);
            self.core.dup.count = 0; // RFC 6675 §5 (2)
            self.core.rto_retransmits = 0;
            self.check_timestamp_spurious(now, ack, &sb.acked, prior.una);
        }
        if self.sack_ok {
            self.check_sack_reordering(now, self.optack_reorder_filter(sb.reorder_low));
        }
        (sb, dsack)
    }

    /// RFC 8985 §6.2 steps 2-4 (Linux `tcp_rack_advance`, `tcp_rack_update_reo_wnd`),
    /// then the probe's ACK processing (§7.4; Linux `tcp_process_tlp_ack`).
    fn tail_on_ack(
        &mut self,
        now: Instant,
        ack: &Ack,
        sb: &ScoreboardAck,
        dsack: Option<Range>,
        prior: Prior,
        window_update: bool,
    ) {
        let tlp_dsack = dsack.is_some_and(|d| Some(d.end) == self.core.tlp.end_seq);
        if self.rack_active() {
            self.rack_on_ack(now, &sb.delivered, dsack.is_some(), tlp_dsack);
        }
        if self.probe_active() {
            let newly_sacked = sb.newly_sacked > 0;
            self.probe_on_ack(now, ack, dsack, prior, newly_sacked, window_update);
        }
    }

    /// RFC 6298 §5.2, §5.3 — before the state machine, so that a delayed early
    /// retransmit armed there keeps the slot; an RTO replacing a PTO or reorder timer
    /// stays anchored at the head.
    fn restart_rto_on_ack(&mut self, now: Instant, advanced: bool) {
        if self.core.sb.flight_size() == 0 {
            self.core.timer.stop();
        } else if advanced {
            self.rearm_rto(now);
        } else if !self.core.timer.is_armed() {
            self.arm_rto(now);
        }
    }

    /// The recovery state machine on one ACK.
    fn run_state_machine(&mut self, now: Instant, a: &AckSummary) {
        match self.core.ca {
            Ca::Open | Ca::Disorder { .. } => self.on_ack_open(now, a),
            Ca::Cwr { high_seq } => self.on_ack_cwr(now, a, high_seq),
            Ca::Recovery { .. } => self.on_ack_recovery(now, a),
            Ca::Loss { recovery_point, .. } => self.on_ack_loss(now, a, recovery_point),
        }
    }

    /// After the state machine: a cwnd ceiling a response set, the deadline (not after
    /// reneging, whose timer stands: Linux clears FLAG_SET_XMIT_TIMER), and Linux's
    /// `tcp_try_to_open` clearing the first-retransmission stamp once back in
    /// Open/Disorder (or in CWR) with no retransmission left (`tcp_any_retrans_done`).
    fn after_ack(&mut self, now: Instant, advanced: bool, newly_sacked: bool, reneged: bool) {
        if let Some(ceiling) = self.core.cwnd_ceiling.take() {
            self.cwnd = self.cwnd.min(ceiling).max(self.mss);
        }
        if !reneged {
            self.set_timer_after_ack(now, advanced, newly_sacked);
        }
        let open = matches!(
            self.core.ca,
            Ca::Open | Ca::Disorder { .. } | Ca::Cwr { .. }
        );
        let head_retransmitted = self.core.sb.head().is_some_and(|h| h.ever_retrans);
        if open && self.core.sb.retrans_bytes() == 0 && !head_retransmitted {
            self.core.evidence.undo.retransmissions_done();
        }
    }

    /// The state an ACK starts from. Without SACK, the bytes credited to duplicate ACKs
    /// stand in for SACKed bytes (RFC 9937 §6).
    pub(super) fn prior(&self) -> Prior {
        Prior {
            una: self.core.sb.snd_una(),
            flight: self.core.sb.flight_size(),
            sacked: if self.sack_ok {
                self.core.sb.sacked_bytes()
            } else {
                self.core.dup.reno_sacked
            },
        }
    }
}

//! ECN on the sender (RFC 3168 §6.1): negotiation, the marks on what we send, and the
//! reaction to ECN-Echo — the CWR state.
//!
//! - Set-up (§6.1.1): an active open with `ecn = on` sends an ECN-setup SYN (ECE and CWR;
//!   Linux `tcp_ecn_send_syn`; a retransmitted SYN falls back to a plain one,
//!   `tcp_ecn_clear_syn`) and uses ECN only if the SYN-ACK is an ECN-setup SYN-ACK
//!   (ECE without CWR; `tcp_ecn_rcv_synack`). A passive open with `ecn = accept` or `on`
//!   answers an ECN-setup SYN with ECE on the SYN-ACK (`tcp_ecn_create_request`,
//!   `tcp_ecn_make_synack`). Without a handshake `on` means both ends agreed.
//! - Marks (§6.1.2, §6.1.5; Linux `tcp_ecn_send`): ECT(0) on new data only — never on a
//!   retransmission, a window probe, a bare FIN or a pure ACK — and CWR on the first new
//!   data segment after a reduction (`tcp_ecn_queue_cwr`, `TCP_ECN_QUEUE_CWR`).
//! - Reaction (§6.1.2; Linux `tcp_fastretrans_alert` → `tcp_try_to_open` →
//!   `tcp_enter_cwr`): an ECE ACK in Open or Disorder starts a CWR episode: ssthresh from
//!   the congestion control, the reducer's episode starts as fast recovery's would
//!   (`tcp_init_cwnd_reduction`: PRR with prior_cwnd; other reducers set cwnd = ssthresh at
//!   once, §6.1.2's halving), and nothing undoes it (`undo_marker = 0`). The episode
//!   lasts until SND.UNA passes SND.NXT as it was at its start — one window of data, so
//!   further ECEs in it change nothing — and ends with cwnd = ssthresh
//!   (`tcp_end_cwnd_reduction`). A loss found meanwhile turns it into fast recovery that
//!   keeps the reduction and its recovery point (`tcp_enter_recovery` when
//!   `tcp_in_cwnd_reduction`). An ECE in fast or RTO recovery only forbids restoring
//!   ssthresh on undo (`prior_ssthresh = 0`).

use super::ack::AckSummary;
use super::{RecoveryState, Sender};
use crate::config::Ecn;
use crate::event::EventKind;
use crate::packet::{EcnMarks, IpEcn, Range, SynOptions, Why};
use crate::reduce::Entry;
use crate::time::Instant;

/// The sender's ECN state (Linux `tp->ecn_flags` for the sending direction).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct EcnState {
    /// ECN is in use on this connection (`TCP_ECN_OK`).
    pub ok: bool,
    /// CWR goes on the next new data segment (`TCP_ECN_QUEUE_CWR`).
    pub queue_cwr: bool,
}

impl EcnState {
    /// At creation: without a handshake ECN runs when configured `on`; an active open
    /// asks for it when `on` and waits for the SYN-ACK.
    pub fn new(mode: Ecn) -> EcnState {
        EcnState {
            ok: mode == Ecn::On,
            queue_cwr: false,
        }
    }
}

impl Sender {
    /// ECN agreed with the peer's SYN (passive open: `accept` or `on` answers an
    /// ECN-setup SYN) or SYN-ACK (active open: we asked, it agreed).
    pub(super) fn ecn_negotiate(&mut self, peer: &SynOptions, passive: bool) {
        self.ecn.ok = peer.ecn
            && if passive {
                self.alg.shell.ecn != Ecn::Off
            } else {
                self.alg.shell.ecn == Ecn::On
            };
    }

    /// What a SYN (active: ECE and CWR when asking) or SYN-ACK (ECE when agreed) carries.
    /// A retransmitted SYN no longer asks, in case ECN-setup SYNs are what gets dropped
    /// (Linux `tcp_ecn_clear_syn` with `tcp_ecn_fallback=1`, its default; RFC 3168 §6.1.1.1).
    pub(super) fn ecn_syn_marks(&self, passive: bool, retransmitted: bool) -> EcnMarks {
        let ask = !passive && !retransmitted && self.alg.shell.ecn == Ecn::On;
        EcnMarks {
            ip: IpEcn::NotEct,
            ece: ask || (passive && self.ecn.ok),
            cwr: ask,
        }
    }

    /// The marks of a segment the sender builds (Linux `tcp_ecn_send`): ECT(0) on new data,
    /// with the queued CWR on the first one.
    pub(super) fn ecn_data_marks(&mut self, range: Range, why: Why) -> EcnMarks {
        let new_data = !range.is_empty() && !why.is_retransmission() && why != Why::WindowProbe;
        if !self.ecn.ok || !new_data {
            return EcnMarks::default();
        }
        EcnMarks {
            ip: IpEcn::Ect0,
            ece: false,
            cwr: core::mem::take(&mut self.ecn.queue_cwr),
        }
    }

    /// The ACK echoes congestion (Linux `tcp_ecn_rcv_ecn_echo`: ECN in use, not a SYN).
    pub(super) fn ecn_echo(&self, ece: bool) -> bool {
        ece & self.ecn.ok // no branch: this runs on every ACK
    }

    /// An ECE ACK in Open or Disorder (Linux `tcp_enter_cwr` + `tcp_init_cwnd_reduction`).
    pub(super) fn enter_cwr(&mut self, now: Instant) {
        // Congestion is proven: nothing undoes this reduction (`undo_marker = 0`).
        self.core.evidence.undo.snapshot = None;
        let flight = self.core.sb.flight_size();
        let prior_cwnd = self.cwnd;
        self.reduce_ssthresh(now, flight);
        if self.core.reducer.prr().is_some() {
            let entry = Entry {
                ssthresh: self.ssthresh,
                cwnd: prior_cwnd,
                flight_size: flight,
                prior_flight: flight,
                prior_sacked: self.core.sb.sacked_bytes(),
                mss: self.mss,
                sack: self.sack_ok,
            };
            let cwnd = self.core.reducer.on_enter(&entry);
            self.reduction_sets_cwnd(cwnd);
        } else {
            // RFC 3168 §6.1.2: cwnd halves at once (ssthresh as the CC computed it).
            self.reduction_sets_cwnd(self.ssthresh);
        }
        self.ecn.queue_cwr = self.ecn.ok;
        // `tcp_init_cwnd_reduction` clears `tlp_high_seq`: a new episode starts.
        self.core.tlp_draft.reset();
        self.core.tlp.reset();
        let high_seq = self.core.sb.snd_nxt();
        self.begin_cwr(high_seq);
        self.stats.ecn_reductions += 1;
        let (cwnd, ssthresh) = (self.cwnd, self.ssthresh);
        self.emit(
            now,
            EventKind::EnterCwr {
                high_seq,
                cwnd,
                ssthresh,
            },
        );
    }

    /// An ACK in the CWR state (Linux `tcp_fastretrans_alert` for `TCP_CA_CWR`, then
    /// `tcp_cong_control`).
    pub(super) fn on_ack_cwr(&mut self, now: Instant, a: &AckSummary, high_seq: u64) {
        // "CWR is to be held something *above* high_seq is ACKed for CWR bit to reach
        // receiver": the episode ends once SND.UNA passes high_seq, and the ACK is then
        // an Open one (which may start the next episode).
        if self.core.sb.snd_una() > high_seq {
            self.exit_cwr(now);
            self.on_ack_open(now, a);
            return;
        }
        let newly_lost = self.mark_lost(now);
        if self.core.sb.flight_size() > 0 && self.loss_trigger() {
            self.enter_recovery(now, self.recovery_why(), a.prior);
            self.reduce_on_ack(a, newly_lost);
            return;
        }
        if self.core.reducer.prr().is_some() {
            self.reduce_on_ack(a, newly_lost);
        } else {
            // The halving is done; growth goes on from ssthresh (RFC 3168 §6.1.2).
            self.grow_cwnd(now, a);
        }
    }

    /// The CWR episode ends (`tcp_end_cwnd_reduction`: cwnd = ssthresh after PRR; other
    /// reducers halved at once and have grown since): Open, or Disorder while SACK marks
    /// remain.
    pub(super) fn exit_cwr(&mut self, now: Instant) {
        if self.core.reducer.prr().is_some() {
            self.reduction_sets_cwnd(self.ssthresh);
        }
        self.settle();
        let (snd_una, cwnd) = (self.core.sb.snd_una(), self.cwnd);
        self.emit(now, EventKind::ExitCwr { snd_una, cwnd });
    }

    /// ECE in fast or RTO recovery (or on the ACK that undoes): an undo restores nothing —
    /// Linux zeroes `prior_ssthresh` first thing in `tcp_fastretrans_alert`, which skips
    /// the whole restore in `tcp_undo_cwnd_reduction`. Called from the one `ece` test
    /// each ACK path already makes, so ECN adds a single branch per ACK.
    pub(super) fn ecn_forbid_restore(&mut self) {
        if let Some(s) = self.core.evidence.undo.snapshot.as_mut() {
            s.restorable = false;
        }
    }

    /// Whether the connection is in a CWR episode.
    pub(super) fn in_cwr(&self) -> bool {
        self.state() == RecoveryState::Cwr
    }
}

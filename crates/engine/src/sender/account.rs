//! Recording a transmission once `transmit` chose it: the segment's options (TSopt with
//! our clock and TS.Recent, RFC 7323 §3; the ECN marks, RFC 3168 §6.1) and what every
//! transmission updates — the counters (Linux `tcp_transmit_skb`, `TCPFastRetrans`, …),
//! PRR's prr_out (RFC 6937 §3), the retransmission timer (RFC 6298 §5.1) and the probe
//! timeout (RFC 8985 §7.2).

use super::transmit::ts_clock;
use super::{RecoveryState, Sender};
use crate::cc::CongestionController;
use crate::packet::{Range, Timestamps, Transmit, Why};
use crate::time::Instant;
use crate::timer::TimerKind;

impl Sender {
    pub(super) fn segment(
        &mut self,
        now: Instant,
        range: Range,
        why: Why,
        psh: bool,
        fin: bool,
    ) -> Transmit {
        let ts = self.ts_ok.then(|| Timestamps {
            val: ts_clock(now),
            ecr: self.ts_recent,
        });
        // The bare FIN's scoreboard entry [end, end + 1) is its sequence number, not a
        // byte: on the wire it carries no payload.
        let range = Range::new(
            range.start,
            range.end.min(self.stream.written).max(range.start),
        );
        let ecn = self.ecn_data_marks(range, why);
        Transmit {
            range,
            why,
            syn: None,
            fin,
            psh,
            ts,
            ecn,
        }
    }

    pub(super) fn account_transmit(&mut self, now: Instant, t: &Transmit, forced: bool) {
        // A bare FIN is accounted as the sequence number it occupies.
        let bare_fin = t.fin && t.range.is_empty() && self.fin_on_scoreboard();
        let t = &Transmit {
            range: Range::new(t.range.start, t.range.end + u64::from(bare_fin)),
            ..*t
        };
        // Every segment the peer must answer — data, a bare FIN, a window probe — allows
        // it one ACK (`detect::ack_budget`).
        let answered = !t.range.is_empty() || t.fin || t.why == Why::WindowProbe;
        if !self.sack_ok && answered {
            self.core.dup.budget.on_send();
        }
        if t.range.is_empty() {
            return;
        }
        self.idle_on_transmit(now, t);
        // Linux counts `data_segs_out` only for skbs with payload (`tcp_transmit_skb`).
        if !bare_fin {
            self.stats.data_segs_out += 1;
            self.stats.data_bytes_out += t.range.len();
        }
        if t.why.is_retransmission() {
            self.stats.retrans_segs += 1;
            self.spurious_on_transmit(now, t);
            self.optack_on_retransmit(t.range);
        }
        match t.why {
            // A rescue is a retransmission in fast recovery: `TCPFastRetrans`'s count.
            Why::FastRetransmit | Why::Rescue | Why::RackRetransmit => self.stats.fast_retrans += 1,
            Why::EarlyRetransmit => {
                // An early retransmit is the fast retransmit of an ER-started recovery.
                self.stats.fast_retrans += 1;
                self.stats.early_retrans += 1;
                self.core.reorder.er_last = Some((t.range, false));
            }
            // `TCPSlowStartRetrans` is counted by `tcp_xmit_retransmit_queue` in Loss; the
            // timer's own retransmission of the head (forced) only under `TCPTimeouts`.
            Why::RtoRetransmit if !forced => self.stats.slow_start_retrans += 1,
            Why::LimitedTransmit => self.stats.limited_transmit += 1,
            _ => {}
        }
        // PRR's prr_out counts everything sent in recovery (RFC 6937 §3); when the
        // controller sets cwnd itself, its cwnd, not PRR's quota, decides what goes out.
        let reducing = matches!(self.state(), RecoveryState::Recovery | RecoveryState::Cwr);
        if reducing && !self.cc.sets_cwnd() {
            self.xmit_on_reducer(t.range.len(), forced);
            self.core.reducer.on_transmit(t.range.len(), forced);
        }
        // RFC 6298 §5.1: start the timer when data is sent and it is not running (the
        // persist timer, for a window that was closed, gives way to it).
        if !self.core.timer.is_armed() || self.core.timer.kind() == Some(TimerKind::Persist) {
            self.arm_rto(now);
        }
        match t.why {
            Why::Probe(kind) => self.on_probe_sent(now, t.range, kind),
            Why::New | Why::LimitedTransmit if self.probe_active() => self.probe_on_new_data(now),
            // Seed 001 slide 18: in recovery the PTO runs from the last retransmission.
            w if w.is_retransmission()
                && self.state() == RecoveryState::Recovery
                && self.alg.probe.in_recovery() =>
            {
                self.schedule_probe(now, true);
            }
            _ => {}
        }
    }
}

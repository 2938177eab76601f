//! Behaviour only Linux has and no RFC axis owns, resolved once from `flavour` into named
//! rules (DESIGN.md "Axes carry their options"): the sender reads a rule where it decides,
//! never the flavour.

use super::Flavour;

/// Behaviour only Linux has and no RFC axis owns, one named rule per field, resolved once
/// from `flavour` (DESIGN.md "Axes carry their options"): the sender reads a rule, never
/// the flavour, where it decides. Each rule names the kernel function that holds it
/// (Linux 6.18 as measured on the live kernel; 6.12 LTS where that is silent).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct FlavourRules {
    /// The ACK that ends fast recovery goes on through the Open state's processing on the
    /// same ACK: loss detection, and a new recovery at once if it finds a loss
    /// (`tcp_fastretrans_alert`: after `tcp_try_undo_recovery` and
    /// `tcp_end_cwnd_reduction` the state is Open, and its `default:` case runs
    /// `tcp_identify_packet_loss` and `tcp_time_to_recover`). RFC 6675 §5 leaves it to
    /// the next ACK.
    pub loss_check_on_recovery_exit: bool,
    /// Without SACK, fast recovery holds while SND.UNA is exactly at the recovery point
    /// and ends only on an ACK above it (`tcp_is_non_sack_preventing_reopen`, from
    /// `tcp_try_undo_recovery`; RFC 2582's guard against a false fast retransmit). RFC
    /// 6582 §3.2 step 3 ends it on an ACK that covers the point.
    pub reno_holds_recovery_at_high_seq: bool,
    /// An ACK that advances SND.UNA onto a SACKed segment (the receiver reneged, RFC 2018
    /// §8) re-arms the retransmission timer for max(SRTT/2, 10 ms) and skips the rest of
    /// the state machine (`tcp_check_sack_reneging`). Without it the timer runs its full
    /// RTO before the timeout forgets the SACKs.
    pub sack_reneging_short_timer: bool,
    /// `TCPSpuriousRTOs` counts F-RTO's undos only (`tcp_try_undo_loss(sk, true)`); an
    /// undone timeout found by a timestamp or DSACKs is a `TCPLossUndo` or `TCPDSACKUndo`
    /// alone. Otherwise every timeout found spurious is counted.
    pub spurious_rtos_frto_only: bool,
    /// An undo whose episode began on an ECN-Echo restores nothing (`prior_ssthresh` =
    /// 0 in `tcp_enter_recovery(sk, ece_ack)`, `tcp_fastretrans_alert` (A)) but is still
    /// counted as the undo it is (`TCPDSACKUndo`, `TCPFullUndo`, … in the
    /// `tcp_try_undo_*` functions). Otherwise it counts as `TCPSpuriousKept`.
    pub undo_counted_without_restore: bool,
    /// Every reordering event SACKs show is counted (`TCPSACKReorder`, `tcpi_reord_seen`),
    /// not only one that raises the threshold: `tcp_check_sack_reordering` (4.16 on)
    /// counts before comparing the degree with `tp->reordering`.
    pub every_reordering_counted: bool,
    /// With SACK, SACKed segments leave the flight in the Open and Disorder states too:
    /// new data may go while cwnd exceeds packets_out − (sacked_out + lost_out) +
    /// retrans_out (`tcp_cwnd_test` from `tcp_write_xmit`, `tcp_packets_in_flight`), so
    /// an ACK that SACKs two segments frees two. This replaces RFC 3042's limited
    /// transmit (one segment per duplicate ACK, two at most); without SACK the RFC's rule
    /// stays (Linux counts each duplicate as one SACKed segment, `tcp_add_reno_sack`).
    pub sacked_leave_flight: bool,
    /// Outside fast and RTO recovery, what SACKs freed (beyond cwnd − FlightSize) waits
    /// for the next ACK when `tcp_tso_should_defer` holds: the last write less than 1 ms
    /// ago, less than a full TSO packet and a third of the window to send, more than one
    /// segment unsent, the next ACK due within min(SRTT/2, 1 ms) (Linux 6.18). On a
    /// burst of duplicate ACKs this holds back the second segment RFC 3042 would send.
    pub tso_defers_small_sends: bool,
    /// Without SACK, an ACK that cumulatively acknowledges a retransmitted segment does
    /// not show that never-retransmitted data arrived (`FLAG_ORIG_SACK_ACKED` is cleared
    /// when `FLAG_RETRANS_DATA_ACKED` is set, `tcp_clean_rtx_queue`, Linux 4.18 on: "tcp:
    /// prevent bogus FRTO undos with non-SACK flows"): the cumulative ACK that the timeout's
    /// retransmission releases over data buffered beyond the hole is no F-RTO undo.
    pub reno_retrans_ack_not_original: bool,
    /// Timers count jiffies and fire on the timer wheel's buckets (`timer_hz`;
    /// `crate::timer::Wheel`); `None`: exact deadlines.
    pub timer_wheel: Option<crate::timer::Wheel>,
    /// Whole segments are tagged SACKed, never a part (`tcp_match_skb_to_sack` splits an
    /// skb only on MSS boundaries and tags only what a block covers whole). The RFC
    /// flavour tags any SACKed byte range unless RACK runs (RFC 8985 reasons about
    /// segments).
    pub whole_segment_sack_tagging: bool,
    /// cwnd grows by what was newly delivered (`acked_sacked` in `tcp_cong_control` →
    /// `tcp_slow_start`/`tcp_cong_avoid_ai`) while `tcp_is_cwnd_limited`, and slow start
    /// is Linux's (`tcp_slow_start`). Otherwise RFC 3465 byte counting with its limit L,
    /// the segments sent since a timeout (§2.3), and cwnd used at least half.
    pub growth_by_delivered: bool,
    /// With SACK, the bytes an ACK acknowledges of the segment it ends inside are held
    /// back from DeliveredData until that segment completes (`tcp_clean_rtx_queue` counts
    /// packets; `sender::reno::hold_partial`).
    pub hold_partial_segments: bool,
    /// A tail loss probe's retransmission is neither in `undo_retrans` nor
    /// `retrans_stamp` (`tcp_send_loss_probe` → `__tcp_retransmit_skb`), so a DSACK for
    /// it proves no retransmission of the episode spurious either.
    pub probe_outside_undo: bool,
    /// A tail loss probe's retransmission still in flight when an episode starts counts
    /// in `undo_retrans` (`tcp_init_undo`, 6.10 on: 0ec986ed7bab "tcp: fix incorrect undo
    /// caused by DSACK of TLP retransmit"; `tcp_enter_loss` and `tcp_init_cwnd_reduction`
    /// clear `tlp_high_seq` only after it): the episode is undone by DSACKs only once
    /// both the probe and its own retransmissions were reported. Without it a DSACK of
    /// one copy undoes a timeout that followed a probe.
    pub probe_in_flight_counts_at_undo_start: bool,
    /// `sk_pacing_rate` is kept on every ACK (`tcp_update_pacing_rate`) even without a
    /// pacer; otherwise only when pacing is on.
    pub pacing_rate_always: bool,
    /// A reorder timeout that starts recovery runs one reduction step at once, one
    /// segment counted as delivered (`tcp_rack_reo_timeout`: `tcp_cwnd_reduction(sk, 1,
    /// lost, 0)`).
    pub reo_timeout_reduces_at_once: bool,
    /// A reorder timeout during fast recovery sends what cwnd (as the last ACK's
    /// reduction step set it) less what is in flight now allows: no step of its own, but
    /// `tcp_xmit_retransmit_queue` stops only at `tcp_packets_in_flight` ≥ cwnd, so the
    /// segments the timer marked lost make room (`tcp_rack_reo_timeout`). Otherwise
    /// recovery sends only the quota of the last ACK.
    pub reo_timeout_in_recovery_fills_cwnd: bool,
    /// HyStart runs on ACKs that cover no retransmission (`bictcp_acked` →
    /// `hystart_update`); the RFC flavour has no HyStart.
    pub hystart: bool,
    /// A DSACK undo keeps RACK's reordering window one recovery longer
    /// (`tcp_try_undo_dsack`: `tp->rack.reo_wnd_persist`).
    pub dsack_undo_keeps_reo_wnd: bool,
    /// An undone recovery's end is not counted toward RACK's reo_wnd persistence (only
    /// `tcp_try_undo_recovery`'s normal exit is); RFC 8985 §6.2 step 4 counts every one.
    pub undone_recovery_not_counted: bool,
    /// A timeout during fast recovery keeps the recovery's ssthresh and undo marker: a new
    /// reduction only from Open/Disorder, after the previous episode's point, or in Loss
    /// before any timeout retransmission (`tcp_enter_loss`). RFC 5681 §3.1 holds ssthresh
    /// only when the timer fires again for the same data.
    pub rto_keeps_recovery_ssthresh: bool,
    /// The timeout's cwnd is what is in flight after the marks, plus one segment
    /// (`tcp_enter_loss`: `tcp_packets_in_flight(tp) + 1`); RFC 5681 §3.1's loss window
    /// is one segment.
    pub rto_cwnd_in_flight_plus_one: bool,
    /// PSH marks and TSO packet sizes as `tcp_sendmsg` cuts writes into skbs and
    /// `tcp_write_xmit`/`tcp_xmit_retransmit_queue` send them (`sender::push`).
    pub skb_push_and_tso: bool,
    /// An ACK below SND.UNA (an old ACK) skips the congestion-control step
    /// (`tcp_ack`'s old-ACK path does not reach `tcp_cong_control`).
    pub old_ack_skips_cong_control: bool,
    /// No send-time RTT sample from an ACK that also covers a retransmission: it waited
    /// for the hole (`tcp_clean_rtx_queue`, FLAG_RETRANS_DATA_ACKED). RFC 6298's Karn
    /// rule excludes only the retransmitted segment.
    pub no_send_time_sample_after_retransmit: bool,
    /// A timestamp undo in fast recovery is reordering measured from the prior SND.UNA
    /// (`tcp_try_undo_partial` → `tcp_check_sack_reordering(sk, prior_snd_una, 1)`).
    pub timestamp_undo_is_reordering: bool,
    /// The first data segment after the flight emptied tells the congestion control how
    /// long it was idle (`tcp_event_data_sent`: CA_EVENT_TX_START, on which CUBIC moves
    /// its epoch, `cubictcp_cwnd_event`).
    pub cc_tx_start_event: bool,
    /// With `slow_start_after_idle` set: cwnd restarts after an idle RTO
    /// (`tcp_slow_start_after_idle_check` → `tcp_cwnd_restart`, also on a window update in
    /// `tcp_ack_update_window`; `sender::idle`). Only the Linux flavour has it.
    pub idle_restart: bool,
}

impl FlavourRules {
    /// The named rules of `flavour`; `slow_start_after_idle` (for `idle_restart`) and
    /// `timer_hz` (for `timer_wheel`) are the settings a rule also needs.
    pub fn of(flavour: Flavour, slow_start_after_idle: bool, timer_hz: u32) -> FlavourRules {
        let linux = flavour == Flavour::Linux;
        FlavourRules {
            loss_check_on_recovery_exit: linux,
            reno_holds_recovery_at_high_seq: linux,
            sack_reneging_short_timer: linux,
            spurious_rtos_frto_only: linux,
            undo_counted_without_restore: linux,
            every_reordering_counted: linux,
            sacked_leave_flight: linux,
            tso_defers_small_sends: linux,
            reno_retrans_ack_not_original: linux,
            timer_wheel: if linux {
                crate::timer::Wheel::from_hz(timer_hz)
            } else {
                None
            },
            whole_segment_sack_tagging: linux,
            growth_by_delivered: linux,
            hold_partial_segments: linux,
            probe_outside_undo: linux,
            probe_in_flight_counts_at_undo_start: linux,
            pacing_rate_always: linux,
            reo_timeout_reduces_at_once: linux,
            reo_timeout_in_recovery_fills_cwnd: linux,
            hystart: linux,
            dsack_undo_keeps_reo_wnd: linux,
            undone_recovery_not_counted: linux,
            rto_keeps_recovery_ssthresh: linux,
            rto_cwnd_in_flight_plus_one: linux,
            skb_push_and_tso: linux,
            old_ack_skips_cong_control: linux,
            no_send_time_sample_after_retransmit: linux,
            timestamp_undo_is_reordering: linux,
            cc_tx_start_event: linux,
            idle_restart: linux && slow_start_after_idle,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every rule is Linux's alone: the RFC flavour has none, the Linux flavour all
    /// (the idle restart only with `slow_start_after_idle`).
    #[test]
    fn linux_has_every_rule_rfc_none() {
        assert_eq!(
            FlavourRules::of(Flavour::Rfc, true, 250),
            FlavourRules::default()
        );
        let linux = FlavourRules::of(Flavour::Linux, true, 250);
        let all_on = format!("{linux:?}");
        assert!(!all_on.contains("false"), "{all_on}");
        assert!(!FlavourRules::of(Flavour::Linux, false, 250).idle_restart);
    }
}

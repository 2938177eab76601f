//! Counters named like Linux's SNMP/MIB counters (`nstat` names), so traces, scripts and
//! Linux captures can be compared by name.

/// Declares the counter struct and its name table together so they cannot drift apart.
macro_rules! counters {
    ($($(#[$m:meta])* $field:ident = $name:literal),+ $(,)?) => {
        /// Per-connection counters.
        #[derive(Clone, Debug, Default, PartialEq, Eq)]
        pub struct Stats { $($(#[$m])* pub $field: u64),+ }
        impl Stats {
            /// Every counter's MIB name.
            pub const NAMES: &'static [&'static str] = &[$($name),+];
            /// `(MIB name, value)` for every counter.
            pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
                [$(($name, self.$field)),+].into_iter()
            }
            /// A counter by its MIB name.
            pub fn get(&self, name: &str) -> Option<u64> {
                match name { $($name => Some(self.$field),)+ _ => None }
            }
        }
    };
}

counters! {
    /// Data segments sent, first transmissions and retransmissions (Linux `OutSegs` minus pure ACKs).
    data_segs_out = "DataSegsOut",
    /// Payload bytes sent including retransmissions.
    data_bytes_out = "DataBytesOut",
    /// Segments retransmitted for any reason (`RetransSegs`).
    retrans_segs = "RetransSegs",
    /// Retransmissions in fast recovery (`TCPFastRetrans`).
    fast_retrans = "TCPFastRetrans",
    /// Retransmissions in slow start after a timeout (`TCPSlowStartRetrans`).
    slow_start_retrans = "TCPSlowStartRetrans",
    /// Retransmission timeouts (`TCPTimeouts`).
    timeouts = "TCPTimeouts",
    /// SYN retransmissions (`TCPSynRetrans`).
    syn_retrans = "TCPSynRetrans",
    /// Fast recoveries entered with SACK (`TCPSackRecovery`).
    sack_recovery = "TCPSackRecovery",
    /// Fast recoveries entered without SACK, NewReno (`TCPRenoRecovery`).
    reno_recovery = "TCPRenoRecovery",
    /// Timeouts during fast recovery (`TCPSackRecoveryFail` / `TCPRenoRecoveryFail`).
    recovery_fail = "TCPRecoveryFail",
    /// Segments sent by limited transmit (RFC 3042).
    limited_transmit = "TCPLimitedTransmit",
    /// Tail loss probes sent (`TCPLossProbes`).
    loss_probes = "TCPLossProbes",
    /// Probes that repaired a loss (`TCPLossProbeRecovery`).
    loss_probe_recovery = "TCPLossProbeRecovery",
    /// Timeouts found to be spurious (`TCPSpuriousRTOs`).
    spurious_rtos = "TCPSpuriousRTOs",
    /// Congestion reductions undone (sum of the four undo counters below).
    undos = "TCPUndo",
    /// Undone when fast recovery ended (`TCPFullUndo`).
    full_undo = "TCPFullUndo",
    /// Undone by a timestamp on a partial ACK in fast recovery (`TCPPartialUndo`).
    partial_undo = "TCPPartialUndo",
    /// Undone because every retransmission was DSACKed (`TCPDSACKUndo`).
    dsack_undo = "TCPDSACKUndo",
    /// A timeout's reduction undone (`TCPLossUndo`).
    loss_undo = "TCPLossUndo",
    /// Spurious retransmissions found by a detector whose response keeps the reduction
    /// (`spurious_response=none`): nothing undone, go-back-N avoided.
    spurious_kept = "TCPSpuriousKept",
    /// Timeouts F-RTO or Eifel found genuine (the loss was real).
    genuine_rtos = "TCPGenuineRTOs",
    /// Connections whose spurious-timeout detector needs an option that was not
    /// negotiated (Eifel without timestamps, DSACK without SACK): it works as `none`.
    spurious_detection_unavailable = "TCPSpuriousDetectionUnavailable",
    /// DSACKs received (`TCPDSACKRecv`).
    dsack_recv = "TCPDSACKRecv",
    /// DSACKs ignored as dubious (`TCPDSACKIgnoredDubious`).
    dsack_ignored_dubious = "TCPDSACKIgnoredDubious",
    /// ACKs ignored because they acknowledge data never sent (`TCPAckBeyondSndNxt`).
    ack_beyond_snd_nxt = "TCPAckBeyondSndNxt",
    /// SACK blocks ignored as invalid: outside [SND.UNA, SND.NXT) or empty (`TCPSACKDiscard`).
    sack_discard = "TCPSACKDiscard",
    /// Segments split because a SACK edge fell inside them.
    sack_splits = "TCPSackSplits",
    /// Retransmissions that were themselves lost (`TCPLostRetransmit`).
    lost_retransmit = "TCPLostRetransmit",
    /// Early retransmits sent (RFC 5827; Linux had no counter for them).
    early_retrans = "TCPEarlyRetrans",
    /// Early retransmits that waited on the delayed-ER deadline (RFC 5827 App. A.3).
    early_retrans_delayed = "TCPEarlyRetransDelayed",
    /// Early retransmits a DSACK or a timestamp echo showed to be spurious.
    early_retrans_spurious = "TCPSpuriousEarlyRetrans",
    /// Reordering detected from SACKs while SACK loss detection ran (`TCPSACKReorder`).
    sack_reorder = "TCPSACKReorder",
    /// Reordering detected from SACKs while FACK ran (`TCPFACKReorder`).
    fack_reorder = "TCPFACKReorder",
    /// Reordering detected from a timestamp echo older than a retransmission (`TCPTSReorder`).
    ts_reorder = "TCPTSReorder",
    /// Without SACK: more duplicate ACKs than segments outstanding, read as reordering
    /// (`TCPRenoReorder`, Linux `tcp_check_reno_reordering`).
    reno_reorder = "TCPRenoReorder",
    /// A timeout found the head SACKed: the receiver discarded data it had SACKed (RFC
    /// 2018 §8), so every SACK mark was cleared (Linux `tcp_timeout_mark_lost`).
    sack_reneging = "TCPSACKReneging",
    /// Without SACK: duplicate ACKs beyond one per data segment sent, not counted as
    /// duplicates (`detect::ack_budget`; Linux has no counter).
    dupacks_ignored = "TCPDupAckIgnored",
    /// Zero-window probes sent by the persist timer (`TCPWinProbe`).
    win_probes = "TCPWinProbe",
    /// Retransmissions that failed locally (`TCPRetransFail`; `Sender::transmit_failed`).
    retrans_fail = "TCPRetransFail",
    /// CWR episodes started by ECN-Echo (RFC 3168 §6.1.2; Linux has no counter).
    ecn_reductions = "TCPECNReductions",
    /// New segments held back by the optimistic-ACK defence (`detect::optack`; not in Linux).
    optack_skips = "OptAckSkips",
    /// Held segments covered by an ACK that never reported the hole.
    optack_strikes = "OptAckStrikes",
    /// Peers found acknowledging data they did not receive; the sender stopped.
    optack_detected = "OptAckDetected",
    /// Transmissions the fq pacer held that an ACK covered before they left: dropped, or
    /// trimmed to their unacknowledged tail (`sender/pacing.rs`; Linux's fq would send the
    /// clone, so Linux has no counter).
    pacing_acked_while_queued = "PacingAckedWhileQueued",
}

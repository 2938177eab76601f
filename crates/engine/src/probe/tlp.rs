//! Tail Loss Probe as RFC 8985 §7 specifies it (`tlp`) and as Linux runs it (`tlp-linux`,
//! `tcp_send_loss_probe` / `tcp_process_tlp_ack`, digest §9.2-9.3).
//!
//! One probe per episode: TLP.end_seq (Linux `tlp_high_seq`) is SND.NXT after the probe
//! and no new probe is sent while it is set. RFC 8985 also needs an RTT sample since the
//! last probe. §7.4: once the cumulative ACK reaches TLP.end_seq, a new-data probe simply
//! ends the episode; for a retransmitted probe a DSACK for it, or a duplicate ACK without
//! SACK (Linux: without SACK, data or window change), shows that the original arrived; an
//! ACK beyond TLP.end_seq without that evidence means the probe repaired a loss.

use super::{AckView, Verdict};
use crate::time::Duration;

/// RFC 8985 §7.2 / Linux `TCP_TIMEOUT_INIT`: the PTO without an RTT sample.
pub const NO_SRTT_PTO: Duration = Duration::from_secs(1);

/// TLP state (RFC 8985 §7.1 names).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Episode {
    /// TLP.end_seq: SND.NXT after the outstanding probe; `None` when none is.
    pub end_seq: Option<u64>,
    /// TLP.is_retrans: the outstanding probe was a retransmission.
    pub is_retrans: bool,
    /// An RTT sample was taken since the last probe (or since the connection started).
    pub rtt_sampled: bool,
    /// Linux's rules (no RTT-sample requirement, its duplicate-ACK test).
    pub linux: bool,
}

impl Episode {
    /// An episode; `linux` applies Linux's `tcp_process_tlp_ack` rules.
    pub fn new(linux: bool) -> Episode {
        Episode {
            end_seq: None,
            is_retrans: false,
            rtt_sampled: true,
            linux,
        }
    }

    /// RFC 8985 §7.1: on entering fast or RTO recovery (Linux: any RTO, any cwnd
    /// reduction).
    pub fn reset(&mut self) {
        self.end_seq = None;
        self.is_retrans = false;
    }

    /// RFC 8985 §7.3: may a probe be sent now?
    pub fn may_probe(&self) -> bool {
        self.end_seq.is_none() && (self.linux || self.rtt_sampled)
    }

    /// A probe left; `snd_nxt` is SND.NXT after it.
    pub fn on_probe(&mut self, snd_nxt: u64, retransmission: bool) {
        self.end_seq = Some(snd_nxt);
        self.is_retrans = retransmission;
        self.rtt_sampled = false;
    }

    /// RFC 8985 §7.4.2 `TLP_process_ack` (Linux `tcp_process_tlp_ack`).
    pub fn on_ack(&mut self, a: &AckView) -> Verdict {
        let Some(end) = self.end_seq else {
            return Verdict::Pending;
        };
        if a.cumulative < end {
            return Verdict::Pending;
        }
        // New data, or a DSACK for the probe: no loss hidden.
        let verdict = if !self.is_retrans || a.dsack.is_some_and(|(_, e)| e == end) {
            Verdict::NoLoss
        } else if a.cumulative > end {
            Verdict::Loss
        } else if self.is_pure_dupack(a) {
            Verdict::NoLoss
        } else {
            return Verdict::Pending;
        };
        self.reset();
        verdict
    }

    /// RFC 8985: "a DupAck without any SACK option"; Linux: no advance, no data, no window
    /// update, nothing newly SACKed.
    fn is_pure_dupack(&self, a: &AckView) -> bool {
        if self.linux {
            !a.advanced && !a.newly_sacked && !a.window_update
        } else {
            !a.advanced && !a.any_sack
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ack(cum: u64, advanced: bool) -> AckView {
        AckView {
            cumulative: cum,
            advanced,
            ..AckView::default()
        }
    }

    #[test]
    fn one_probe_per_episode_and_rtt_sample_rule() {
        let mut e = Episode::new(false);
        assert!(e.may_probe());
        e.on_probe(4000, true);
        assert!(!e.may_probe());
        e.on_ack(&ack(5000, true));
        assert!(!e.may_probe(), "RFC 8985: no RTT sample since the probe");
        e.rtt_sampled = true;
        assert!(e.may_probe());
        let mut l = Episode::new(true);
        l.on_probe(4000, true);
        l.on_ack(&ack(5000, true));
        assert!(l.may_probe(), "Linux has no RTT-sample rule");
    }

    /// §7.4.2's cases for a retransmitted probe ending at 4000.
    #[test]
    fn process_ack_cases() {
        let probe = || {
            let mut e = Episode::new(false);
            e.on_probe(4000, true);
            e
        };
        assert_eq!(probe().on_ack(&ack(3000, true)), Verdict::Pending);
        assert_eq!(probe().on_ack(&ack(5000, true)), Verdict::Loss);
        let mut d = ack(4000, false);
        d.dsack = Some((3000, 4000));
        d.any_sack = true;
        assert_eq!(probe().on_ack(&d), Verdict::NoLoss);
        assert_eq!(
            probe().on_ack(&ack(4000, false)),
            Verdict::NoLoss,
            "pure dupack"
        );
        let mut s = ack(4000, false);
        s.any_sack = true;
        s.newly_sacked = true;
        assert_eq!(probe().on_ack(&s), Verdict::Pending);
        let mut e = probe();
        assert_eq!(
            e.on_ack(&ack(4000, true)),
            Verdict::Pending,
            "ambiguous: wait"
        );
        assert_eq!(e.on_ack(&ack(4000, false)), Verdict::NoLoss);
        let mut n = Episode::new(false);
        n.on_probe(4000, false);
        assert_eq!(
            n.on_ack(&ack(4000, true)),
            Verdict::NoLoss,
            "new-data probe"
        );
    }
}

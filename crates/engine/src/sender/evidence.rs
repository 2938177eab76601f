//! What the sender keeps to judge its own retransmissions (`sender::spurious`) and to
//! respond to a verdict (`sender::response`): the one undo value, F-RTO, RFC 4015's
//! pending RTO adaptation, and whether a believable DSACK was seen; and how an ACK adds
//! to it: DSACKs (RFC 2883 §4, RFC 3708, Linux `tcp_check_dsack`) and timestamp echoes
//! older than a retransmission (RFC 3522 §2).

use super::state::Ca;
use super::{transmit, Sender};
use crate::event::{EventKind, ReorderSignal};
use crate::packet::{Ack, Range};
use crate::rto::{eifel, frto, undo};
use crate::scoreboard::Acked;
use crate::time::Instant;

/// The spurious-retransmission evidence of one connection.
#[derive(Clone, Debug)]
pub(super) struct Evidence {
    /// The congestion snapshot and the evidence for undoing it (`rto::undo`).
    pub undo: undo::Undo,
    /// F-RTO (RFC 5682 / Linux) state.
    pub frto: frto::Frto,
    /// RFC 4015 step 11 waits for the first RTT sample of data above this offset.
    pub eifel_adapt: Option<Box<(u64, eifel::Prev)>>,
    /// A believable DSACK arrived on this connection (RFC 3522 step 5).
    pub dsack_seen: bool,
}

impl Default for Evidence {
    fn default() -> Evidence {
        Evidence {
            undo: undo::Undo::default(),
            frto: frto::Frto::new(frto::Variant::Sack),
            eifel_adapt: None,
            dsack_seen: false,
        }
    }
}

impl Sender {
    /// A DSACK (RFC 2883 §4). When it is believable, the data it reports arrived twice: a
    /// retransmission was spurious, which means reordering (RFC 3708) — and if it was the
    /// last early retransmission, that one was spurious.
    /// Returns whether it was believable.
    pub(super) fn on_dsack(&mut self, now: Instant, d: Range, ack: &Ack) -> bool {
        self.stats.dsack_recv += 1;
        // Linux `tcp_check_dsack`: a DSACK longer than the largest window, or more DSACKs
        // than retransmissions, is dubious and ignored.
        let dubious = d.len() > self.peer.max_window.max(self.mss)
            || self.stats.dsack_recv > self.stats.retrans_segs;
        if dubious {
            self.stats.dsack_ignored_dubious += 1;
        }
        self.emit(
            now,
            EventKind::Dsack {
                start: d.start,
                end: d.end,
                dubious,
            },
        );
        if !dubious {
            // A DSACK of a tail loss probe says the probe was redundant, not that the
            // network reordered anything (Linux FLAG_DSACK_TLP is kept out of reordering).
            let probe = self.dsack_for_probe(d);
            // A rescue retransmission (RFC 6675 NextSeg rule 4) is sent without loss
            // evidence: its duplicate, like a probe's, says nothing about reordering
            // (RFC 3708 infers reordering only from a retransmission sent on a loss
            // inference). The DSACK lies within the space the rescue occupied — with
            // the FIN's octet when it carried the FIN (RFC 2883 §4).
            let rescue = self.core.sb.rescued().is_some_and(|r| r.covers(&d));
            if !probe && !rescue {
                self.note_spurious(now, d, ReorderSignal::Dsack);
            }
            self.spurious_on_dsack(now, d, probe, ack);
        }
        !dubious
    }

    /// The DSACK reports the outstanding loss probe's retransmission (a single segment
    /// ending at TLP.end_seq / TLPHighRxt, or exactly the draft's probed range).
    fn dsack_for_probe(&self, d: Range) -> bool {
        let one_segment = d.len() <= self.mss;
        let rfc = self.core.tlp.is_retrans && self.core.tlp.end_seq == Some(d.end);
        let draft = self.core.tlp_draft.probe == Some((d.start, d.end))
            || self.core.tlp_draft.tlp_high_rxt == Some(d.end);
        one_segment && (rfc || draft)
    }

    /// RFC 3522 §2 (Eifel detection): an ACK that acknowledges retransmitted data but
    /// echoes a timestamp older than the retransmission was sent for the original.
    pub(super) fn check_timestamp_spurious(
        &mut self,
        now: Instant,
        ack: &Ack,
        acked: &Acked,
        prior_una: u64,
    ) {
        let (Some(rexmit_sent), Some(ts)) = (acked.oldest_retrans_sent, ack.ts) else {
            return;
        };
        // Older than the episode's first retransmission too (RFC 3522 RetransmitTS, Linux
        // `tcp_packet_delayed`'s `retrans_stamp`): an ACK ending inside a segment makes
        // NewReno resend the rest of a segment the receiver holds (RFC 6582 §3.2 step 5),
        // and the next slice's echo, older than that resend, proves nothing about the path.
        let first = self.core.evidence.undo.retrans_ts.unwrap_or(u64::MAX);
        let older = ts.ecr < transmit::ts_clock(rexmit_sent) && ts.ecr < first;
        if self.ts_ok && ts.ecr != 0 && older {
            self.stats.ts_reorder += 1;
            let range = Range::new(prior_una, self.core.sb.snd_una());
            self.note_spurious(now, range, ReorderSignal::Timestamp);
            // Linux `tcp_try_undo_partial`: in recovery this is reordering, measured from
            // the prior SND.UNA (`tcp_check_sack_reordering(sk, prior_snd_una, 1)`).
            let in_recovery = matches!(self.core.ca, Ca::Recovery { .. });
            if in_recovery && self.alg.rules.timestamp_undo_is_reordering {
                self.reordering_from(now, prior_una, ReorderSignal::Timestamp);
            }
        }
    }
}

//! Taking back the last transmission the scoreboard recorded, when it never left the host
//! (Linux: `tcp_transmit_skb` failed under `tcp_write_xmit` or `__tcp_retransmit_skb`;
//! see `sender::failed`). Recorded only once [`Scoreboard::record_sends`] asked for it,
//! so that a connection whose transmissions cannot fail pays nothing.

use super::{Scoreboard, SentSeg};
use crate::cc::rate::TxState;

/// What the last transmission changed, kept until the next one.
#[derive(Copy, Clone, Debug, Default)]
pub(super) struct LastSend {
    /// A transmission is recorded and not yet taken back.
    valid: bool,
    /// The segment as it was before a retransmission; `None` for new data.
    before: Option<Before>,
    high_rxt: u64,
    lost_retrans_low: u64,
}

/// The fields of a segment a retransmission changes and a failure restores.
#[derive(Copy, Clone, Debug, Default)]
struct Before {
    start: u64,
    rexmit_nxt: u64,
    tx: TxState,
    xmit_count: u32,
    retrans: bool,
}

impl Scoreboard {
    /// From now on, keep what taking back the last transmission needs.
    pub fn record_sends(&mut self) {
        self.last_send.get_or_insert_with(Box::default);
    }

    /// A transmission is about to be recorded: `before` is the retransmitted segment as it
    /// was (`None` for new data).
    pub(super) fn note_send(&mut self, before: Option<SentSeg>) {
        let (high_rxt, lost_retrans_low) = (self.high_rxt, self.lost_retrans_low);
        let Some(l) = self.last_send.as_deref_mut() else {
            return;
        };
        *l = LastSend {
            valid: true,
            before: before.map(|s| Before {
                start: s.start,
                rexmit_nxt: s.rexmit_nxt,
                tx: s.tx,
                xmit_count: s.xmit_count,
                retrans: s.retrans,
            }),
            high_rxt,
            lost_retrans_low,
        };
    }

    /// The last transmission recorded did not leave the host. New data is unsent again
    /// (SND.NXT moves back; Linux's skb stays on the write queue). A retransmission is
    /// no longer outstanding: a lost segment awaits retransmission again, out of the pipe
    /// and RACK's time order (Linux leaves `TCPCB_SACKED_RETRANS` clear); it keeps
    /// `ever_retrans` (Karn's rule: Linux sets `TCPCB_EVER_RETRANS` so that no RTT sample
    /// comes from a transmit that never happened) and the attempt's time (Linux stamps
    /// the skb before handing it down). Call before anything else changes the
    /// scoreboard; returns false when there is nothing to take back.
    pub fn undo_last_send(&mut self) -> bool {
        let Some(l) = self.last_send.as_deref_mut().map(core::mem::take) else {
            return false;
        };
        if !l.valid {
            return false;
        }
        match l.before {
            None => {
                let Some(i) = self.segs.len().checked_sub(1) else {
                    return false;
                };
                if self.segs[i].end != self.snd_nxt {
                    return false;
                }
                self.unlink(i);
                let s = self.segs.pop_back().expect("segment i is the last");
                self.snd_nxt = s.start;
                // A packet that carried the segments before this one ended with them.
                if let Some(p) = self.segs.back_mut() {
                    p.packet_end = true;
                }
            }
            Some(b) => {
                let Some(i) = self.index_of(b.start) else {
                    return false;
                };
                let s = &mut self.segs[i];
                let len = s.end - s.start;
                if s.retrans && !b.retrans {
                    // What `on_retransmit` added.
                    self.count.retrans_bytes -= len;
                    if s.lost {
                        self.count.lost_pending_bytes += len;
                    }
                }
                s.retrans = b.retrans;
                s.rexmit_nxt = b.rexmit_nxt;
                s.xmit_count = b.xmit_count;
                s.tx = b.tx; // Linux `tcp_rate_skb_sent` runs only for what left
                let out_of_order = !s.in_time_order();
                self.high_rxt = l.high_rxt;
                self.lost_retrans_low = l.lost_retrans_low;
                if out_of_order {
                    self.unlink(i);
                }
            }
        }
        true
    }
}

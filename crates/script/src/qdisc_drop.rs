//! A root qdisc that drops every packet the stack sends (`tc qdisc … limit 0`): each of
//! the engine's transmissions fails locally and the engine is told at once
//! (`Sender::transmit_failed`, as `tcp_transmit_skb` returns the qdisc's drop to Linux);
//! the receiver's ACKs are dropped too (Linux counts them sent). Nothing reaches the
//! script's `>` lines; the verbose log shows each one.

use crate::runner::Runner;
use crate::wire::{Seen, Sent};
use lossrec::{Instant, Transmit};

impl Runner<'_> {
    /// Logs the transmissions that failed (`failed`) and drops what else was about to
    /// leave (`sent`: the receiver's ACKs) while the qdisc drops everything.
    pub(crate) fn log_local_drops(
        &mut self,
        now: Instant,
        ack: u32,
        failed: Vec<Transmit>,
        sent: &mut Vec<Sent>,
    ) {
        if !self.local_drop {
            return;
        }
        for x in sent.drain(..) {
            let text = Seen::of(&x, self.passive, self.local_isn).render();
            self.report
                .log
                .push(format!("{text}  [dropped by the qdisc]"));
        }
        for t in failed {
            let why = t.why.name();
            let x = Sent {
                at: now,
                t,
                ack,
                sack: Vec::new(),
                why,
                seq_bump: 0,
            };
            let text = Seen::of(&x, self.passive, self.local_isn).render();
            self.report
                .log
                .push(format!("{text}  [failed: the qdisc drops it]"));
        }
    }
}

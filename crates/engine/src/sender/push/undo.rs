//! Taking back the last segment [`Push`] handed out, when its transmission never left the
//! host (`sender::failed`): the skbs it used up return to the front of the unsent queue
//! and the packet under way is as before it. Kept inline (no allocation): a segment uses
//! up at most a few skbs, and beyond `KEPT` (RFC flavour, many writes shorter than a
//! segment) only the last ones are restored — the ones whose ends can fall at a segment's
//! end when it is cut again from the same place.

use super::{Packet, Push, Skb};

const KEPT: usize = 4;

/// What the last segment changed in [`Push`].
#[derive(Copy, Clone, Debug, Default)]
pub(in crate::sender) struct PushUndo {
    packet: Option<Packet>,
    /// The skbs it used up (their raw words), oldest first.
    popped: [u64; KEPT],
    n: u8,
}

impl Push {
    /// A segment is about to be handed out.
    pub(in crate::sender) fn undo_begin(&mut self) {
        self.undo = PushUndo {
            packet: self.packet,
            ..PushUndo::default()
        };
    }

    /// The segment used up `skb`.
    pub(super) fn undo_popped(&mut self, skb: Skb) {
        let u = &mut self.undo;
        if usize::from(u.n) == KEPT {
            u.popped.rotate_left(1);
            u.n -= 1;
        }
        u.popped[usize::from(u.n)] = skb.0;
        u.n += 1;
    }

    /// The last segment handed out did not leave.
    pub(in crate::sender) fn undo_last(&mut self) {
        let u = core::mem::take(&mut self.undo);
        for &raw in u.popped[..usize::from(u.n)].iter().rev() {
            self.skbs.push_front(Skb(raw));
        }
        self.packet = u.packet;
    }
}

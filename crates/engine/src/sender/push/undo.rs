//! Taking back the last segment [`Push`] handed out, when its transmission never left the
//! host (`sender::failed`): the skbs it used up return to the front of the unsent queue
//! and the packet under way is as before it. Recorded only once `record` asked (one small
//! allocation); a segment uses up at most a few skbs, and beyond `KEPT` (RFC flavour, many
//! writes shorter than a segment) only the last ones are restored — the ones whose ends
//! can fall at a segment's end when it is cut again from the same place.

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
    /// From now on, keep what taking back the last segment needs.
    pub(in crate::sender) fn record(&mut self) {
        self.undo.get_or_insert_with(Box::default);
    }

    /// A segment is about to be handed out.
    pub(in crate::sender) fn undo_begin(&mut self) {
        let packet = self.packet;
        if let Some(u) = self.undo.as_deref_mut() {
            *u = PushUndo {
                packet,
                ..PushUndo::default()
            };
        }
    }

    /// The segment used up `skb`.
    pub(super) fn undo_popped(&mut self, skb: Skb) {
        let Some(u) = self.undo.as_deref_mut() else {
            return;
        };
        if usize::from(u.n) == KEPT {
            u.popped.rotate_left(1);
            u.n -= 1;
        }
        u.popped[usize::from(u.n)] = skb.0;
        u.n += 1;
    }

    /// The last segment handed out did not leave.
    pub(in crate::sender) fn undo_last(&mut self) {
        let Some(u) = self.undo.as_deref_mut().map(core::mem::take) else {
            return;
        };
        for &raw in u.popped[..usize::from(u.n)].iter().rev() {
            self.skbs.push_front(Skb(raw));
        }
        self.packet = u.packet;
    }
}

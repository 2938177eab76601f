//! What the sender keeps to judge its own retransmissions (`sender::spurious`) and to
//! respond to a verdict (`sender::response`): the one undo value, F-RTO, RFC 4015's
//! pending RTO adaptation, and whether a believable DSACK was seen.

use crate::rto::{eifel, frto, undo};

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

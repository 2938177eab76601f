//! What goes out next whatever the window says (DESIGN.md: "What to send next is one
//! value"): the SYN, the handshake ACK, a tail loss probe, the head's forced
//! retransmission, F-RTO's new data. One value instead of a set of flags; the transitions
//! that create each are named below and in the modules that own them.

use crate::packet::{ProbeKind, Why};

/// The next forced transmission, if any.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Pending {
    #[default]
    Nothing,
    /// Our SYN (active open) or SYN-ACK (passive open), first or again after a timeout.
    Syn,
    /// The ACK that completes our active open (again, when the peer repeats its SYN-ACK).
    HandshakeAck,
    /// A tail loss probe (TLP draft §2.1 (3), RFC 8985 §7.3).
    Probe(ProbeKind),
    /// The head's retransmission, out regardless of cwnd and the reducer's quota: the
    /// fast retransmit (RFC 6675 §5 step 4.3, RFC 6582 §3.2 steps 2 and 5, RFC 5827, RFC
    /// 9937 §6.3; `why` says which) or the timeout's (RFC 6298 §5.4).
    Head(Why),
    /// F-RTO step 2b (RFC 5682): new data before any retransmission.
    FrtoNew(FrtoNew),
    /// A zero-window probe (RFC 9293 §3.8.6.1), when the persist timer fired.
    WindowProbe,
}

/// How much new data F-RTO's step 2b sends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FrtoNew {
    /// RFC 5682: this many more new segments, whatever cwnd says.
    Segments(u32),
    /// Linux (`REXMIT_NEW` in `tcp_process_loss`): as much as cwnd allows on this ACK.
    CwndAllows,
}

impl Pending {
    /// F-RTO's new data is waiting.
    pub fn frto_new(self) -> Option<FrtoNew> {
        match self {
            Pending::FrtoNew(n) => Some(n),
            _ => None,
        }
    }
}

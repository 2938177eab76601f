//! What a driver or an observer reads from the [`Receiver`]: delivery, the FIN, the window
//! and the options in use. Nothing here changes state.

use super::{Receiver, ReceiverStats};
use crate::packet::Range;

impl Receiver {
    /// Bytes delivered in order to the application (RCV.NXT as a stream offset, less the
    /// FIN's sequence number once it is in).
    pub fn delivered(&self) -> u64 {
        let nxt = self.data.rcv_nxt();
        self.fin_at.map_or(nxt, |f| nxt.min(f))
    }

    /// The receiver's counters.
    pub fn stats(&self) -> &ReceiverStats {
        &self.stats
    }

    /// The FIN's sequence number (the stream offset after the last byte), once one
    /// arrived — in order or held above a hole.
    pub fn fin_seq(&self) -> Option<u64> {
        self.fin_at
    }

    /// True once a FIN arrived and every byte before it was delivered.
    pub fn fin_received(&self) -> bool {
        self.fin_at.is_some_and(|f| self.data.rcv_nxt() > f)
    }

    /// The receive window last offered (right edge − RCV.NXT), in bytes.
    pub fn window(&self) -> u64 {
        let nxt = self.data.rcv_nxt();
        self.win.right_edge(nxt) - nxt
    }

    /// Whether SACK (and so DSACK, if configured) is in use on this connection.
    pub fn sack_in_use(&self) -> bool {
        self.sack_ok
    }

    /// Whether timestamps are in use on this connection.
    pub fn timestamps_in_use(&self) -> bool {
        self.ts_ok
    }

    /// Whether ECN is in use on this connection (RFC 3168 §6.1.1).
    pub fn ecn_in_use(&self) -> bool {
        self.ecn.ok
    }

    /// ECE is owed on what this endpoint sends (a CE arrived, no CWR since: RFC 3168
    /// §6.1.3); a caller that piggybacks ACKs on its own data sets ECE there too.
    pub fn ecn_echo(&self) -> bool {
        self.ecn.ece()
    }

    /// Out-of-order blocks held above RCV.NXT, in sequence order.
    pub fn out_of_order(&self) -> impl Iterator<Item = Range> + '_ {
        self.data.blocks()
    }

    /// Largest segment size seen, which defines a full-sized segment for delayed ACKs.
    pub fn rcv_mss(&self) -> u64 {
        self.rcv_mss
    }
}

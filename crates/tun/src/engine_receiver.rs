//! The engine's `Receiver` answering a Linux sender: a [`lossrec_tcp::Endpoint`] opened
//! passively. The client's segments become the engine's [`lossrec::Segment`]s, its ACKs
//! real segments; when the client's FIN has arrived in order, the ACK acknowledges it and
//! we close our side with a FIN of our own, so the client's socket finishes as it would
//! against a server that closes after reading. The acceptance checks (RFC 5961), the
//! window and timestamps live in `lossrec-tcp`. Deviation: Linux answers a SYN with
//! another ISN in SYN-RECEIVED from its request socket (`tcp_check_req`); we challenge it
//! as in ESTABLISHED.

use std::net::SocketAddrV4;

use lossrec::{Instant, Receiver, ReceiverConfig};
use lossrec_tcp::accept::AcceptStats;
use lossrec_tcp::{Endpoint, EndpointConfig};
use lossrec_wire::TcpSegment;

/// One connection of the engine receiver.
pub struct EngineReceiver {
    ep: Endpoint,
}

impl EngineReceiver {
    /// A server at `local` for the client at `peer`; `isn` is its SYN-ACK's sequence number.
    pub fn new(
        cfg: ReceiverConfig,
        now: Instant,
        local: SocketAddrV4,
        peer: SocketAddrV4,
        isn: u32,
        ep: EndpointConfig,
    ) -> Self {
        let receiver = Receiver::new(cfg, now);
        EngineReceiver {
            ep: Endpoint::server(receiver, ep, local, peer, isn),
        }
    }

    /// The engine's receiver.
    pub fn receiver(&self) -> &Receiver {
        self.ep
            .receiver
            .as_ref()
            .expect("a server endpoint has a receiver")
    }

    /// The engine's receiver, to feed.
    pub fn receiver_mut(&mut self) -> &mut Receiver {
        self.ep
            .receiver
            .as_mut()
            .expect("a server endpoint has a receiver")
    }

    /// The client's address.
    pub fn peer(&self) -> SocketAddrV4 {
        self.ep.remote()
    }

    /// What the acceptance checks did on this connection.
    pub fn accept_stats(&self) -> &AcceptStats {
        self.ep.accept_stats()
    }

    /// The peer reset the connection with an acceptable RST (RFC 5961 §3.2).
    pub fn is_reset(&self) -> bool {
        self.ep.is_reset()
    }

    /// A segment from the client.
    pub fn input(&mut self, now: Instant, seg: &TcpSegment<'_>) {
        self.ep.input(now, seg);
    }

    /// Encodes every ACK the receiver has queued (and our FIN once theirs is in), after
    /// the replies to invalid segments, one IPv4 packet per `Vec`.
    pub fn output(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.ep.poll_acks(now, out);
    }
}

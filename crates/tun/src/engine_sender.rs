//! The engine's `Sender` as a user-space TCP client: a [`lossrec_tcp::Endpoint`] opened
//! actively, whose transmissions become real segments and whose peer's segments become the
//! engine's ACKs (ISN and wrap, options, window scaling, ECN, the acceptance checks of RFC
//! 5961, the millisecond TSval clock and the one TS.Recent all live in `lossrec-tcp`). The
//! peer's FIN (the server closing after reading everything) is acknowledged here: the
//! sender only sends.

use std::net::SocketAddrV4;

use lossrec::{Config, Instant, Sender, Transmit};
use lossrec_tcp::accept::AcceptStats;
use lossrec_tcp::{Endpoint, EndpointConfig, Input};
use lossrec_wire::TcpSegment;

/// One engine connection (the client side).
pub struct EngineSender {
    ep: Endpoint,
}

impl EngineSender {
    /// A connection from `local` to `remote` with initial sequence number `isn`, its
    /// endpoint configured by `ep` (the TSval clock, the window it announces).
    pub fn new(
        cfg: Config,
        now: Instant,
        local: SocketAddrV4,
        remote: SocketAddrV4,
        isn: u32,
        ep: EndpointConfig,
    ) -> Result<EngineSender, lossrec::ConfigError> {
        let sender = Sender::new(cfg, now)?;
        Ok(EngineSender {
            ep: Endpoint::client(sender, ep, local, remote, isn),
        })
    }

    /// The engine's sender.
    pub fn sender(&self) -> &Sender {
        self.ep
            .sender
            .as_ref()
            .expect("a client endpoint has a sender")
    }

    /// The engine's sender, to feed.
    pub fn sender_mut(&mut self) -> &mut Sender {
        self.ep
            .sender
            .as_mut()
            .expect("a client endpoint has a sender")
    }

    /// The TCP endpoint.
    pub fn endpoint(&self) -> &Endpoint {
        &self.ep
    }

    /// Our address.
    pub fn local(&self) -> SocketAddrV4 {
        self.ep.local()
    }

    /// What the acceptance checks did on this connection.
    pub fn accept_stats(&self) -> &AcceptStats {
        self.ep.accept_stats()
    }

    /// The peer reset the connection with an acceptable RST (RFC 5961 §3.2).
    pub fn is_reset(&self) -> bool {
        self.ep.is_reset()
    }

    /// Moves the ACKs answering invalid segments (challenge and duplicate ACKs) to `out`.
    pub fn take_replies(&mut self, out: &mut Vec<Vec<u8>>) {
        self.ep.take_replies(out);
    }

    /// Encodes one transmission sent at `now`, appending the IPv4 packet to `out`.
    pub fn encode(&mut self, now: Instant, tx: &Transmit, out: &mut Vec<u8>) {
        self.ep.encode_transmit(now, tx, out);
    }

    /// A segment from the peer: checked, and its ACK given to the sender
    /// ([`Endpoint::input`]).
    pub fn input(&mut self, now: Instant, seg: &TcpSegment<'_>) -> Input {
        self.ep.input(now, seg)
    }

    /// A pure ACK of the peer's FIN (the engine has no receive side).
    pub fn fin_ack(&mut self, now: Instant, out: &mut Vec<u8>) {
        self.ep.ack_now(now, out);
    }
}

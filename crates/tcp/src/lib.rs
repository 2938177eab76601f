//! `lossrec-tcp`: the engine's [`lossrec::Sender`] and [`lossrec::Receiver`] as a TCP
//! endpoint speaking real segments through [`lossrec_wire`]. Every driver that meets real
//! segments — the TUN endpoints, the simulator's pcap writer, the script runner, an
//! embedder, a capture reader — maps them here.
//!
//! Inside the engine a byte's position is a `u64` stream offset and time is an
//! [`lossrec::Instant`]; on the wire there are ISNs and 32-bit sequence numbers, option
//! negotiation, window scaling, ECN marks, RSTs and timestamps. This crate is the only
//! place between the two:
//!
//! - [`map`]: pure functions, segment ↔ engine: an incoming segment's ACK side as the
//!   engine's [`lossrec::Ack`] (the SYN-ACK as an `Ack` with `syn`), its data side as a
//!   [`lossrec::Segment`] (also the description of a captured transmission), MSS with and
//!   without timestamps, SACK blocks, ECN marks.
//! - [`ts`]: the Timestamps option of a connection: a TSval clock in milliseconds by
//!   default, as Linux's `tcp_time_stamp` (configurable), **one TS.Recent** for both
//!   directions (RFC 7323 §4.3), and echoes mapped back into the engine's clock.
//! - [`accept`]: which segments a synchronised connection takes (RFC 793 §3.3 as RFC 5961
//!   hardens it, Linux `tcp_validate_incoming`), with the reply rate limit and counters.
//! - [`Endpoint`]: one connection over the engine, using all of the above; see its module
//!   for the call order (the engine's driver contract).
//!
//! ```
//! use lossrec::{Config, Instant, Receiver, ReceiverConfig, Sender};
//! use lossrec_tcp::{Endpoint, EndpointConfig};
//! use lossrec_wire::{decode_ipv4, TcpFlags};
//!
//! let t0 = Instant::from_millis(0);
//! let (a, b) = ("10.0.0.1:4000".parse().unwrap(), "10.0.0.2:80".parse().unwrap());
//! let sender = Sender::new(Config::preset("linux").unwrap(), t0).unwrap();
//! let mut client = Endpoint::client(sender, EndpointConfig::default(), a, b, 1_000);
//! let receiver = Receiver::new(ReceiverConfig::default(), t0);
//! let mut server = Endpoint::server(receiver, EndpointConfig::default(), b, a, 9_000);
//!
//! // The client's SYN reaches the server, whose SYN-ACK reaches the client.
//! let mut wire = Vec::new();
//! let s = client.sender.as_mut().unwrap();
//! s.write(t0, 10_000);
//! let syn = s.poll_transmit(t0).unwrap();
//! client.encode_transmit(t0, &syn, &mut wire);
//! server.input(t0, &decode_ipv4(&wire).unwrap());
//! let mut acks = Vec::new();
//! server.poll_acks(t0, &mut acks);
//! let syn_ack = decode_ipv4(&acks[0]).unwrap();
//! assert!(syn_ack.flags.contains(TcpFlags::SYN | TcpFlags::ACK));
//! let t1 = Instant::from_millis(20);
//! let got = client.input(t1, &syn_ack);
//! assert!(got.ack.unwrap().syn.is_some());
//! // Both TSvals tick in milliseconds; the client echoes the server's.
//! let ts = syn_ack.options.timestamps.unwrap();
//! assert_eq!(client.timestamps().recent(), Some(ts.val));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod accept;
mod endpoint;
pub mod map;
pub mod ts;

pub use endpoint::{Endpoint, EndpointConfig, Input, PayloadError};

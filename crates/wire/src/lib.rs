//! `lossrec-wire`: TCP/IPv4 segments on the wire, for pcap output and for
//! talking to real stacks through a TUN device.
//!
//! This crate is generic packet-format code and knows nothing of the engine:
//! the simulator and the TUN endpoint convert engine types into
//! [`TcpSegment`]s.
//!
//! # Sequence numbers
//!
//! Inside lossrec a byte's position is a `u64` stream offset that never
//! wraps. On the wire it is a 32-bit sequence number (RFC 9293 §3.4). With
//! initial sequence number ISN, the SYN takes ISN itself and
//! **stream offset 0 is ISN + 1**; offset `x` is `ISN + 1 + x (mod 2^32)`.
//! [`seq::wrap`] and [`seq::unwrap`] convert; unwrap needs a nearby offset as
//! reference since one 32-bit value stands for offsets 2^32 apart.
//!
//! # Modules
//!
//! - [`seq`]: 32-bit wrap (RFC 9293 §3.4, formerly RFC 793 §3.3).
//! - [`TcpSegment`] and its options ([`segment`] module): header fields of
//!   RFC 9293 §3.1 and RFC 791; MSS (RFC 9293 §3.7.1), SACK-Permitted and SACK
//!   (RFC 2018; DSACK RFC 2883 is just a first block), Window Scale and
//!   Timestamps (RFC 7323).
//! - [`encode_frame_into`], [`encode_ipv4_into`]: headers via `etherparse`,
//!   RFC 1071 checksums, options laid out with NOPs the way Linux does.
//! - [`decode_ipv4`], [`decode_frame`]: the reverse; garbage gives a
//!   [`WireError`], never a panic.
//! - [`pcap`]: classic pcap writer, Ethernet link type, microsecond stamps.
//!
//! ```
//! use lossrec_wire::{decode_frame, encode_frame, seq, Payload, TcpFlags, TcpSegment};
//! use std::net::SocketAddrV4;
//!
//! let isn = 1_000;
//! let mut seg = TcpSegment::new(
//!     SocketAddrV4::new([10, 0, 0, 1].into(), 40000),
//!     SocketAddrV4::new([10, 0, 0, 2].into(), 80),
//!     seq::wrap(isn, 0),
//! );
//! seg.flags = TcpFlags::PSH;
//! seg.ack = Some(77);
//! seg.window = 512;
//! seg.payload = Payload::Zeros(1448);
//! let frame = encode_frame(&seg).unwrap();
//! let back = decode_frame(&frame).unwrap();
//! assert_eq!(back.seq, 1_001);
//! assert_eq!(back.payload.len(), 1448);
//! assert_eq!(back.flags, TcpFlags::PSH | TcpFlags::ACK);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod decode;
mod encode;
mod error;
mod options;
pub mod pcap;
pub mod segment;
pub mod seq;

pub use decode::{decode_frame, decode_frame_with, decode_ipv4, decode_ipv4_with, Checksums};
pub use encode::{
    encode_frame, encode_frame_into, encode_ipv4, encode_ipv4_into, ipv4_len, ETHERNET_HEADER_LEN,
    IPV4_HEADER_LEN, TCP_HEADER_LEN,
};
pub use error::{Layer, WireError};
pub use options::parse as decode_tcp_options;
pub use pcap::{PcapError, PcapWriter};
pub use segment::{
    dummy_mac, Payload, SackBlock, SackList, TcpFlags, TcpOptions, TcpSegment, Timestamps, ECN_CE,
    ECN_ECT0, ECN_ECT1, ECN_NOT_ECT,
};

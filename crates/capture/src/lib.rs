//! `lossrec-capture`: read a pcap/pcapng capture of TCP connections and explain every
//! transmission of each with the lossrec engine.
//!
//! Three layers, each streaming (one frame in memory at a time):
//!
//! - [`source`]: frames out of classic pcap or pcapng ([`FrameSource`]).
//! - [`decode`](mod@decode): a frame → a [`TcpPacket`] (Ethernet with VLAN tags, Linux cooked,
//!   raw IP, loopback; IPv4 and IPv6), or the [`Skip`] reason, counted.
//! - [`conn`]: packets → per-connection records in stream offsets: the sender's
//!   transmissions (TSO/GSO super-packets split by MSS) and the ACK stream it received,
//!   the handshake's options, what a capture that starts mid-connection cannot know, and
//!   capture drops (data the ACKs prove was sent that the capture never showed).
//! - [`index`]: the first pass: the connections, who sends in each, what was skipped.
//! - [`shadow`]: the engine run against one connection's captured ACKs, each captured
//!   transmission labelled with the engine's cause or the divergence ([`Row`]).
//! - [`reorder`]: the reordering the ACK stream proves, and packets it reads two ways.
//! - [`explain`]: both passes end to end ([`explain_path`]); [`json`] for the CLI.
//!
//! Garbage in gives an error value or a skipped packet, never a panic.

// One `unsafe` block, reviewed: the memory map of a capture file (`mapped`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod conn;
pub mod decode;
pub mod explain;
pub mod index;
pub mod json;
mod mapped;
pub mod records;
pub mod reorder;
pub mod shadow;
pub mod source;

pub use decode::{decode, Skip, TcpPacket};
pub use explain::{explain_path, explain_sources, AppMode, ConnReport, Options, Point, Report};
pub use index::{scan, scan_path, ConnInfo, Index};
pub use shadow::{Row, Summary, Verdict};
pub use source::{Frame, FrameSource, SourceError};

//! Errors for decoding (and the few ways encoding can fail).

use std::fmt;

/// The protocol layer an error was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layer {
    /// Ethernet II header.
    Ethernet,
    /// IPv4 header or packet.
    Ipv4,
    /// TCP header.
    Tcp,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Layer::Ethernet => "Ethernet",
            Layer::Ipv4 => "IPv4",
            Layer::Tcp => "TCP",
        })
    }
}

/// Why a packet could not be decoded or encoded. Every variant names what is
/// wrong; decoding garbage returns one of these and never panics.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum WireError {
    /// Fewer bytes than the header or length field requires.
    Truncated {
        /// Where the bytes ran out.
        layer: Layer,
        /// Bytes needed.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// Ethernet frame does not carry IPv4 (EtherType ≠ 0x0800).
    NotIpv4 {
        /// The EtherType found.
        ether_type: u16,
    },
    /// IP version field is not 4.
    BadIpVersion(u8),
    /// IPv4 IHL below 5 (header shorter than 20 bytes).
    BadIpHeaderLen(u8),
    /// IPv4 total length smaller than its own header.
    BadIpTotalLen {
        /// Total length field.
        total_len: u16,
        /// Header length from the IHL field.
        header_len: usize,
    },
    /// IPv4 header checksum (RFC 791, RFC 1071) does not match.
    BadIpChecksum {
        /// Checksum in the packet.
        found: u16,
        /// Checksum computed over the header.
        expected: u16,
    },
    /// A fragment (MF set or offset ≠ 0); TCP cannot be decoded from it.
    Fragmented,
    /// IPv4 protocol is not TCP (6).
    NotTcp {
        /// Protocol number found.
        protocol: u8,
    },
    /// TCP data offset below 5 words.
    BadDataOffset(u8),
    /// TCP checksum (pseudo-header + segment, RFC 9293 §3.1) does not match.
    BadTcpChecksum {
        /// Checksum in the segment.
        found: u16,
        /// Checksum computed.
        expected: u16,
    },
    /// A TCP option's length byte is missing or the option runs past the header.
    TruncatedOption {
        /// Option kind.
        kind: u8,
    },
    /// A TCP option has a length its kind does not allow (RFC 9293 §3.2,
    /// RFC 2018 §3, RFC 7323 §2.2 and §3.2).
    BadOptionLen {
        /// Option kind.
        kind: u8,
        /// Length byte found.
        len: u8,
    },
    /// Encoding: the payload does not fit into one IPv4 packet.
    PayloadTooLarge {
        /// Payload length asked for.
        len: usize,
        /// Largest payload that fits with these headers.
        max: usize,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated { layer, need, have } => {
                write!(f, "truncated {layer}: need {need} bytes, have {have}")
            }
            WireError::NotIpv4 { ether_type } => {
                write!(f, "not IPv4: EtherType {ether_type:#06x}")
            }
            WireError::BadIpVersion(v) => write!(f, "bad IP version {v} (expected 4)"),
            WireError::BadIpHeaderLen(ihl) => write!(f, "bad IPv4 header length: IHL {ihl} < 5"),
            WireError::BadIpTotalLen {
                total_len,
                header_len,
            } => write!(
                f,
                "bad IPv4 total length {total_len} (header alone is {header_len} bytes)"
            ),
            WireError::BadIpChecksum { found, expected } => write!(
                f,
                "bad IPv4 header checksum {found:#06x} (expected {expected:#06x})"
            ),
            WireError::Fragmented => f.write_str("IPv4 fragment: cannot decode TCP from it"),
            WireError::NotTcp { protocol } => write!(f, "not TCP: IP protocol {protocol}"),
            WireError::BadDataOffset(d) => write!(f, "bad TCP data offset {d} (< 5 words)"),
            WireError::BadTcpChecksum { found, expected } => write!(
                f,
                "bad TCP checksum {found:#06x} (expected {expected:#06x})"
            ),
            WireError::TruncatedOption { kind } => {
                write!(f, "TCP option kind {kind} runs past the end of the header")
            }
            WireError::BadOptionLen { kind, len } => {
                write!(f, "bad TCP option length {len} for kind {kind}")
            }
            WireError::PayloadTooLarge { len, max } => {
                write!(
                    f,
                    "payload of {len} bytes too large for one IPv4 packet (max {max})"
                )
            }
        }
    }
}

impl std::error::Error for WireError {}

//! Decoding IPv4/TCP packets (bare, as a TUN device gives them, or inside an
//! Ethernet II frame) into [`TcpSegment`]s.
//!
//! Header fields are read with `etherparse`'s slice types; checksums are
//! verified with the RFC 1071 Internet checksum (RFC 791 §3.1 for the IPv4
//! header, RFC 9293 §3.1 for TCP's pseudo-header checksum). Options are parsed
//! here because RFC 9293 §3.1 requires skipping unknown ones. Any garbage gives
//! a [`WireError`] naming the problem; nothing panics.
//!
//! Bytes after the IPv4 total length (Ethernet padding to 60 bytes, for one)
//! are ignored. IP options are skipped. Fragments are refused.

use std::net::SocketAddrV4;

use etherparse::checksum::Sum16BitWords;
use etherparse::err::ipv4::{HeaderError, HeaderSliceError};
use etherparse::err::tcp::{HeaderError as TcpHeaderError, HeaderSliceError as TcpSliceError};
use etherparse::err::LenError;
use etherparse::{EtherType, Ethernet2HeaderSlice, IpNumber, Ipv4HeaderSlice, TcpHeaderSlice};

use crate::encode::ETHERNET_HEADER_LEN;
use crate::error::{Layer, WireError};
use crate::options;
use crate::segment::{Payload, TcpFlags, TcpSegment};

/// Whether decode verifies the IPv4 and TCP checksums.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Checksums {
    /// Reject packets whose checksums are wrong.
    #[default]
    Verify,
    /// Accept them (for captures taken with checksum offload).
    Ignore,
}

/// Decodes an Ethernet II frame carrying IPv4/TCP, verifying checksums.
pub fn decode_frame(frame: &[u8]) -> Result<TcpSegment<'_>, WireError> {
    decode_frame_with(frame, Checksums::Verify)
}

/// Decodes an Ethernet II frame carrying IPv4/TCP.
pub fn decode_frame_with(frame: &[u8], checksums: Checksums) -> Result<TcpSegment<'_>, WireError> {
    let eth =
        Ethernet2HeaderSlice::from_slice(frame).map_err(|e| len_error(Layer::Ethernet, &e))?;
    let ether_type = eth.ether_type();
    if ether_type != EtherType::IPV4 {
        return Err(WireError::NotIpv4 {
            ether_type: ether_type.0,
        });
    }
    decode_ipv4_with(&frame[ETHERNET_HEADER_LEN..], checksums)
}

/// Decodes a bare IPv4 packet carrying TCP, verifying checksums.
pub fn decode_ipv4(packet: &[u8]) -> Result<TcpSegment<'_>, WireError> {
    decode_ipv4_with(packet, Checksums::Verify)
}

/// Decodes a bare IPv4 packet carrying TCP.
pub fn decode_ipv4_with(packet: &[u8], checksums: Checksums) -> Result<TcpSegment<'_>, WireError> {
    let ip = Ipv4HeaderSlice::from_slice(packet).map_err(|e| match e {
        HeaderSliceError::Len(e) => len_error(Layer::Ipv4, &e),
        HeaderSliceError::Content(HeaderError::UnexpectedVersion { version_number }) => {
            WireError::BadIpVersion(version_number)
        }
        HeaderSliceError::Content(HeaderError::HeaderLengthSmallerThanHeader { ihl }) => {
            WireError::BadIpHeaderLen(ihl)
        }
    })?;
    let header_len = ip.slice().len();
    let total_len = usize::from(ip.total_len());
    if total_len < header_len {
        return Err(WireError::BadIpTotalLen {
            total_len: ip.total_len(),
            header_len,
        });
    }
    if packet.len() < total_len {
        return Err(WireError::Truncated {
            layer: Layer::Ipv4,
            need: total_len,
            have: packet.len(),
        });
    }
    if checksums == Checksums::Verify {
        let h = ip.slice();
        if Sum16BitWords::new().add_slice(h).ones_complement() != 0 {
            return Err(WireError::BadIpChecksum {
                found: ip.header_checksum(),
                expected: Sum16BitWords::new()
                    .add_slice(&h[..10])
                    .add_slice(&h[12..])
                    .ones_complement()
                    .to_be(),
            });
        }
    }
    if ip.is_fragmenting_payload() {
        return Err(WireError::Fragmented);
    }
    if ip.protocol() != IpNumber::TCP {
        return Err(WireError::NotTcp {
            protocol: ip.protocol().0,
        });
    }

    let segment = &packet[header_len..total_len];
    let tcp = TcpHeaderSlice::from_slice(segment).map_err(|e| match e {
        TcpSliceError::Len(e) => len_error(Layer::Tcp, &e),
        TcpSliceError::Content(TcpHeaderError::DataOffsetTooSmall { data_offset }) => {
            WireError::BadDataOffset(data_offset)
        }
    })?;
    let tcp_header_len = tcp.slice().len();
    let src_ip = ip.source();
    let dst_ip = ip.destination();
    if checksums == Checksums::Verify {
        let pseudo = Sum16BitWords::new()
            .add_4bytes(src_ip)
            .add_4bytes(dst_ip)
            .add_2bytes([0, IpNumber::TCP.0])
            .add_2bytes((segment.len() as u16).to_be_bytes());
        if pseudo.clone().add_slice(segment).ones_complement() != 0 {
            return Err(WireError::BadTcpChecksum {
                found: tcp.checksum(),
                expected: pseudo
                    .add_slice(&segment[..16])
                    .add_slice(&segment[18..])
                    .ones_complement()
                    .to_be(),
            });
        }
    }
    let options = options::parse(tcp.options())?;

    let flags = TcpFlags::from_bits(segment[13]);
    let tos = packet[1];
    Ok(TcpSegment {
        src: SocketAddrV4::new(src_ip.into(), tcp.source_port()),
        dst: SocketAddrV4::new(dst_ip.into(), tcp.destination_port()),
        seq: tcp.sequence_number(),
        ack: flags
            .contains(TcpFlags::ACK)
            .then(|| tcp.acknowledgment_number()),
        flags,
        window: tcp.window_size(),
        options,
        payload: Payload::Bytes(&segment[tcp_header_len..]),
        ttl: ip.ttl(),
        ip_id: ip.identification(),
        dont_fragment: ip.dont_fragment(),
        tos,
    })
}

fn len_error(layer: Layer, e: &LenError) -> WireError {
    WireError::Truncated {
        layer,
        need: e.required_len,
        have: e.len,
    }
}

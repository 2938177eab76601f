//! Encoding a [`TcpSegment`] into an IPv4 packet or an Ethernet II frame.
//!
//! Headers are built with `etherparse`; checksums are the RFC 1071 Internet
//! checksum: the IPv4 header checksum over the header (RFC 791 §3.1) and the
//! TCP checksum over the pseudo-header, TCP header and payload (RFC 9293
//! §3.1). Zero payloads ([`Payload::Zeros`]) add nothing to a ones'-complement
//! sum, so they are counted in the length only and never summed.
//!
//! The `_into` functions append to a caller's buffer and allocate nothing
//! else, so a simulator can reuse one buffer for millions of packets.

use etherparse::checksum::Sum16BitWords;
use etherparse::{EtherType, Ethernet2Header, IpDscp, IpEcn, IpNumber, Ipv4Header, TcpHeader};

use crate::error::WireError;
use crate::options;
use crate::segment::{dummy_mac, Payload, TcpFlags, TcpSegment};

/// Ethernet II header length.
pub const ETHERNET_HEADER_LEN: usize = 14;
/// IPv4 header length without options (encode never writes IP options).
pub const IPV4_HEADER_LEN: usize = 20;
/// TCP header length without options.
pub const TCP_HEADER_LEN: usize = 20;

/// The IPv4 packet length `seg` encodes to (without Ethernet).
pub fn ipv4_len(seg: &TcpSegment<'_>) -> usize {
    IPV4_HEADER_LEN + TCP_HEADER_LEN + seg.options.encoded_len() + seg.payload.len()
}

/// Encodes `seg` as an Ethernet II frame (dummy MACs from [`dummy_mac`]).
pub fn encode_frame(seg: &TcpSegment<'_>) -> Result<Vec<u8>, WireError> {
    let mut out = Vec::with_capacity(ETHERNET_HEADER_LEN + ipv4_len(seg));
    encode_frame_into(seg, &mut out)?;
    Ok(out)
}

/// Appends `seg` as an Ethernet II frame to `out`. On error `out` is unchanged.
pub fn encode_frame_into(seg: &TcpSegment<'_>, out: &mut Vec<u8>) -> Result<(), WireError> {
    let headers = Headers::build(seg)?;
    out.reserve(ETHERNET_HEADER_LEN + headers.total_len());
    let eth = Ethernet2Header {
        source: dummy_mac(*seg.src.ip()),
        destination: dummy_mac(*seg.dst.ip()),
        ether_type: EtherType::IPV4,
    };
    out.extend_from_slice(&eth.to_bytes());
    headers.write(seg, out);
    Ok(())
}

/// Encodes `seg` as a bare IPv4 packet (what a TUN device takes).
pub fn encode_ipv4(seg: &TcpSegment<'_>) -> Result<Vec<u8>, WireError> {
    let mut out = Vec::with_capacity(ipv4_len(seg));
    encode_ipv4_into(seg, &mut out)?;
    Ok(out)
}

/// Appends `seg` as a bare IPv4 packet to `out`. On error `out` is unchanged.
pub fn encode_ipv4_into(seg: &TcpSegment<'_>, out: &mut Vec<u8>) -> Result<(), WireError> {
    let headers = Headers::build(seg)?;
    out.reserve(headers.total_len());
    headers.write(seg, out);
    Ok(())
}

/// IPv4 and TCP headers with their checksums filled in.
struct Headers {
    ip: Ipv4Header,
    tcp: TcpHeader,
}

impl Headers {
    fn build(seg: &TcpSegment<'_>) -> Result<Headers, WireError> {
        let mut opt_buf = [0u8; options::MAX_LEN];
        let opt_len = options::write(&seg.options, &mut opt_buf);

        let mut tcp = TcpHeader::new(seg.src.port(), seg.dst.port(), seg.seq, seg.window);
        tcp.acknowledgment_number = seg.ack.unwrap_or(0);
        let f = seg.wire_flags();
        tcp.fin = f.contains(TcpFlags::FIN);
        tcp.syn = f.contains(TcpFlags::SYN);
        tcp.rst = f.contains(TcpFlags::RST);
        tcp.psh = f.contains(TcpFlags::PSH);
        tcp.ack = f.contains(TcpFlags::ACK);
        tcp.urg = f.contains(TcpFlags::URG);
        tcp.ece = f.contains(TcpFlags::ECE);
        tcp.cwr = f.contains(TcpFlags::CWR);
        tcp.set_options_raw(&opt_buf[..opt_len])
            .expect("options::write yields at most 40 bytes, a multiple of 4");

        let tcp_len = tcp.header_len() + seg.payload.len();
        let max = usize::from(u16::MAX) - IPV4_HEADER_LEN - tcp.header_len();
        if seg.payload.len() > max {
            return Err(WireError::PayloadTooLarge {
                len: seg.payload.len(),
                max,
            });
        }

        let src = seg.src.ip().octets();
        let dst = seg.dst.ip().octets();
        let mut ip =
            Ipv4Header::new(tcp_len as u16, seg.ttl, IpNumber::TCP, src, dst).map_err(|_| {
                WireError::PayloadTooLarge {
                    len: seg.payload.len(),
                    max,
                }
            })?;
        ip.identification = seg.ip_id;
        ip.dont_fragment = seg.dont_fragment;
        // Both fit by construction: 6 and 2 bits.
        ip.dscp = IpDscp::try_new(seg.tos >> 2).unwrap_or(IpDscp::ZERO);
        ip.ecn = IpEcn::try_new(seg.tos & 0b11).unwrap_or(IpEcn::ZERO);
        ip.header_checksum = ip.calc_header_checksum();

        // RFC 9293 §3.1 pseudo-header: src, dst, zero, protocol, TCP length.
        let mut sum = Sum16BitWords::new()
            .add_4bytes(src)
            .add_4bytes(dst)
            .add_2bytes([0, IpNumber::TCP.0])
            .add_2bytes((tcp_len as u16).to_be_bytes())
            .add_slice(&tcp.to_bytes());
        if let Payload::Bytes(b) = seg.payload {
            sum = sum.add_slice(b);
        }
        tcp.checksum = sum.ones_complement().to_be();
        Ok(Headers { ip, tcp })
    }

    fn total_len(&self) -> usize {
        usize::from(self.ip.total_len)
    }

    fn write(&self, seg: &TcpSegment<'_>, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.ip.to_bytes());
        out.extend_from_slice(&self.tcp.to_bytes());
        match seg.payload {
            Payload::Zeros(n) => out.resize(out.len() + n, 0),
            Payload::Bytes(b) => out.extend_from_slice(b),
        }
    }
}

//! A captured frame → the TCP header facts explain needs, or the reason it is skipped.
//!
//! Link layers: Ethernet II with any number of 802.1Q/802.1ad VLAN tags (LINKTYPE 1),
//! Linux cooked capture v1 and v2 (113, 276: `tcpdump -i any`), raw IP (101, 12, 14, and
//! 228/229), BSD loopback (0, 108). Network: IPv4 and IPv6 with extension headers, sliced
//! by `etherparse` in its lax mode so a snaplen-cut packet still gives its headers. TCP
//! options are read by `lossrec_wire::decode_tcp_options` (the same parser the TUN
//! driver uses).
//!
//! The payload length comes from the IP header's length field, not from the bytes
//! captured: explain needs sequence ranges, never payload bytes, so a packet cut by the
//! snapshot length is complete for it as long as its TCP header was captured (counted as
//! `snaplen_cut`). A fragment, a packet whose TCP header was cut, and anything not TCP are
//! skipped and counted by [`Skip`]. Checksums are not verified: captures taken at a
//! sender with checksum offload carry wrong ones on every packet.

use std::net::{IpAddr, SocketAddr};

use etherparse::{EtherType, IpNumber, LaxNetSlice, LaxSlicedPacket, TcpHeaderSlice};
use lossrec_wire::{TcpFlags, TcpOptions};

use crate::source::Frame;

/// One TCP segment as captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpPacket {
    /// Capture time, nanoseconds since the Unix epoch.
    pub ts_ns: u64,
    /// Source address and port.
    pub src: SocketAddr,
    /// Destination address and port.
    pub dst: SocketAddr,
    /// Sequence number.
    pub seq: u32,
    /// Acknowledgment number when the ACK flag is set.
    pub ack: Option<u32>,
    /// Control bits.
    pub flags: TcpFlags,
    /// Window field as sent (unscaled).
    pub window: u16,
    /// Options.
    pub options: TcpOptions,
    /// Payload bytes per the IP length (not the bytes captured).
    pub payload_len: u32,
    /// The IP ECN field (low two bits of the TOS / traffic class).
    pub ecn: u8,
    /// The snapshot length cut the packet after its TCP header.
    pub cut: bool,
}

/// Why a frame gives no TCP segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Skip {
    /// A link type this reader does not know.
    LinkType(u32),
    /// Not IP (ARP, LLDP …).
    NotIp,
    /// IP, but not TCP (UDP, ICMP …).
    NotTcp,
    /// An IP fragment (TCP over fragments is not reassembled).
    Fragment,
    /// The frame ends before the end of the TCP header (snaplen, or garbage).
    Truncated,
    /// Headers that do not parse (bad version, lengths, options).
    Malformed,
}

impl Skip {
    /// Name used in counters and reports.
    pub fn name(self) -> &'static str {
        match self {
            Skip::LinkType(_) => "unknown_linktype",
            Skip::NotIp => "not_ip",
            Skip::NotTcp => "not_tcp",
            Skip::Fragment => "fragment",
            Skip::Truncated => "truncated",
            Skip::Malformed => "malformed",
        }
    }
}

/// Slices the link layer off: the network layer's packet and its EtherType.
fn link<'a>(frame: &'a Frame<'_>) -> Result<LaxSlicedPacket<'a>, Skip> {
    let d = &frame.data[..];
    match frame.linktype {
        1 => LaxSlicedPacket::from_ethernet(d).map_err(|_| Skip::Truncated),
        // Raw IP: the version nibble tells v4 from v6.
        101 | 12 | 14 | 228 | 229 => LaxSlicedPacket::from_ip(d).map_err(|_| Skip::Malformed),
        // Linux cooked v1: 16-byte header, protocol (EtherType) at bytes 14-15.
        113 => {
            let t = d.get(14..16).ok_or(Skip::Truncated)?;
            Ok(by_type(u16::from_be_bytes([t[0], t[1]]), &d[16..]))
        }
        // Linux cooked v2: 20-byte header, protocol at bytes 0-1.
        276 => {
            let t = d.get(0..2).ok_or(Skip::Truncated)?;
            let rest = d.get(20..).ok_or(Skip::Truncated)?;
            Ok(by_type(u16::from_be_bytes([t[0], t[1]]), rest))
        }
        // BSD loopback: a 4-byte address family in host order; the IP version decides.
        0 | 108 => {
            let rest = d.get(4..).ok_or(Skip::Truncated)?;
            LaxSlicedPacket::from_ip(rest).map_err(|_| Skip::NotIp)
        }
        other => Err(Skip::LinkType(other)),
    }
}

fn by_type(t: u16, rest: &[u8]) -> LaxSlicedPacket<'_> {
    LaxSlicedPacket::from_ether_type(EtherType(t), rest)
}

/// Decodes one frame.
pub fn decode(frame: &Frame<'_>) -> Result<TcpPacket, Skip> {
    let sliced = link(frame)?;
    let (src, dst, ecn, payload, full_len) = match &sliced.net {
        Some(LaxNetSlice::Ipv4(v4)) => {
            let h = v4.header();
            let p = v4.payload();
            if p.fragmented {
                return Err(Skip::Fragment);
            }
            if p.ip_number != IpNumber::TCP {
                return Err(Skip::NotTcp);
            }
            let full = usize::from(h.total_len()).saturating_sub(h.slice().len());
            let ip = IpAddr::from(h.source_addr());
            let dp = IpAddr::from(h.destination_addr());
            (ip, dp, h.ecn().value(), p.payload, full)
        }
        Some(LaxNetSlice::Ipv6(v6)) => {
            let h = v6.header();
            let p = v6.payload();
            if p.fragmented {
                return Err(Skip::Fragment);
            }
            if p.ip_number != IpNumber::TCP {
                return Err(Skip::NotTcp);
            }
            let ext = v6.extensions().slice().len();
            let full = usize::from(h.payload_length()).saturating_sub(ext);
            let ip = IpAddr::from(h.source_addr());
            let dp = IpAddr::from(h.destination_addr());
            (ip, dp, h.traffic_class() & 0b11, p.payload, full)
        }
        Some(LaxNetSlice::Arp(_)) | None => {
            return Err(match sliced.stop_err {
                Some(_) if sliced.net.is_none() && is_ip_type(&sliced) => Skip::Truncated,
                _ => Skip::NotIp,
            })
        }
    };
    let tcp = TcpHeaderSlice::from_slice(payload).map_err(|e| match e {
        etherparse::err::tcp::HeaderSliceError::Len(_) => Skip::Truncated,
        etherparse::err::tcp::HeaderSliceError::Content(_) => Skip::Malformed,
    })?;
    let hlen = tcp.slice().len();
    let options = lossrec_wire::decode_tcp_options(tcp.options()).map_err(|_| Skip::Malformed)?;
    let flags = TcpFlags::from_bits(tcp.slice()[13]);
    let payload_len = full_len.saturating_sub(hlen);
    Ok(TcpPacket {
        ts_ns: frame.ts_ns,
        src: SocketAddr::new(src, tcp.source_port()),
        dst: SocketAddr::new(dst, tcp.destination_port()),
        seq: tcp.sequence_number(),
        ack: flags
            .contains(TcpFlags::ACK)
            .then(|| tcp.acknowledgment_number()),
        flags,
        window: tcp.window_size(),
        options,
        payload_len: u32::try_from(payload_len).unwrap_or(u32::MAX),
        ecn,
        cut: payload.len() < full_len,
    })
}

/// The link layer announced IPv4 or IPv6 but the network header did not slice.
fn is_ip_type(sliced: &LaxSlicedPacket<'_>) -> bool {
    use etherparse::LinkSlice;
    let t = sliced
        .link_exts
        .last()
        .and_then(|e| match e {
            etherparse::LaxLinkExtSlice::Vlan(v) => Some(v.ether_type()),
            _ => None,
        })
        .or(match &sliced.link {
            Some(LinkSlice::Ethernet2(e)) => Some(e.ether_type()),
            Some(LinkSlice::EtherPayload(p)) => Some(p.ether_type),
            _ => None,
        });
    matches!(t, Some(EtherType::IPV4) | Some(EtherType::IPV6)) || sliced.link.is_none()
}

//! Hand-built captures for the reader tests: classic pcap with any link type, pcapng with
//! several interfaces, and frames built with etherparse's PacketBuilder.
#![allow(dead_code)]

use etherparse::{PacketBuilder, TcpOptionElement};

/// A classic little-endian microsecond pcap with `linktype`, records `(ts_us, data, orig_len)`.
pub fn pcap(linktype: u32, records: &[(u64, Vec<u8>, u32)]) -> Vec<u8> {
    let mut v = Vec::new();
    v.extend_from_slice(&0xa1b2c3d4u32.to_le_bytes());
    v.extend_from_slice(&2u16.to_le_bytes());
    v.extend_from_slice(&4u16.to_le_bytes());
    v.extend_from_slice(&[0; 8]);
    v.extend_from_slice(&65535u32.to_le_bytes());
    v.extend_from_slice(&linktype.to_le_bytes());
    for (ts, data, orig) in records {
        v.extend_from_slice(&((ts / 1_000_000) as u32).to_le_bytes());
        v.extend_from_slice(&((ts % 1_000_000) as u32).to_le_bytes());
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        let orig = if *orig == 0 { data.len() as u32 } else { *orig };
        v.extend_from_slice(&orig.to_le_bytes());
        v.extend_from_slice(data);
    }
    v
}

fn block(kind: u32, body: &[u8]) -> Vec<u8> {
    let mut b = body.to_vec();
    while !b.len().is_multiple_of(4) {
        b.push(0);
    }
    let len = (b.len() + 12) as u32;
    let mut v = Vec::new();
    v.extend_from_slice(&kind.to_le_bytes());
    v.extend_from_slice(&len.to_le_bytes());
    v.extend_from_slice(&b);
    v.extend_from_slice(&len.to_le_bytes());
    v
}

/// A pcapng: interfaces `(linktype, if_tsresol)`, packets `(iface, ticks, data)`.
pub fn pcapng(ifaces: &[(u16, u8)], packets: &[(u32, u64, Vec<u8>)]) -> Vec<u8> {
    let mut shb = Vec::new();
    shb.extend_from_slice(&0x1a2b3c4du32.to_le_bytes());
    shb.extend_from_slice(&1u16.to_le_bytes());
    shb.extend_from_slice(&0u16.to_le_bytes());
    shb.extend_from_slice(&(-1i64).to_le_bytes());
    let mut v = block(0x0a0d0d0a, &shb);
    for &(lt, res) in ifaces {
        let mut idb = Vec::new();
        idb.extend_from_slice(&lt.to_le_bytes());
        idb.extend_from_slice(&0u16.to_le_bytes());
        idb.extend_from_slice(&65535u32.to_le_bytes());
        // if_tsresol (code 9, length 1), then opt_endofopt.
        idb.extend_from_slice(&9u16.to_le_bytes());
        idb.extend_from_slice(&1u16.to_le_bytes());
        idb.extend_from_slice(&[res, 0, 0, 0]);
        idb.extend_from_slice(&[0; 4]);
        v.extend(block(1, &idb));
    }
    for (iface, ticks, data) in packets {
        let mut epb = Vec::new();
        epb.extend_from_slice(&iface.to_le_bytes());
        epb.extend_from_slice(&((ticks >> 32) as u32).to_le_bytes());
        epb.extend_from_slice(&(*ticks as u32).to_le_bytes());
        epb.extend_from_slice(&(data.len() as u32).to_le_bytes());
        epb.extend_from_slice(&(data.len() as u32).to_le_bytes());
        epb.extend_from_slice(data);
        while !epb.len().is_multiple_of(4) {
            epb.push(0);
        }
        v.extend(block(6, &epb));
    }
    v
}

/// TCP segment description for the builders.
#[derive(Clone, Debug, Default)]
pub struct Seg {
    pub sport: u16,
    pub dport: u16,
    pub seq: u32,
    pub ack: Option<u32>,
    pub syn: bool,
    pub fin: bool,
    pub window: u16,
    pub payload: usize,
    pub options: Vec<TcpOptionElement>,
}

fn tcp_step(
    b: etherparse::PacketBuilderStep<etherparse::IpHeaders>,
    s: &Seg,
) -> etherparse::PacketBuilderStep<etherparse::TcpHeader> {
    let mut t = b.tcp(s.sport, s.dport, s.seq, s.window);
    if let Some(a) = s.ack {
        t = t.ack(a);
    }
    if s.syn {
        t = t.syn();
    }
    if s.fin {
        t = t.fin();
    }
    if !s.options.is_empty() {
        t = t.options(&s.options).unwrap();
    }
    t
}

/// Ethernet/IPv4 frame 10.0.0.1 ↔ 10.0.0.2 (`forward`: from .1).
pub fn eth_v4(s: &Seg, forward: bool) -> Vec<u8> {
    let (a, b) = if forward {
        ([10, 0, 0, 1], [10, 0, 0, 2])
    } else {
        ([10, 0, 0, 2], [10, 0, 0, 1])
    };
    let builder = PacketBuilder::ethernet2([2; 6], [4; 6]).ipv4(a, b, 64);
    let t = tcp_step(builder, s);
    let mut v = Vec::new();
    t.write(&mut v, &vec![0u8; s.payload]).unwrap();
    v
}

/// Ethernet + 802.1Q VLAN + IPv6 frame.
pub fn vlan_v6(s: &Seg) -> Vec<u8> {
    let mut a = [0u8; 16];
    a[0] = 0xfd;
    a[15] = 1;
    let mut b = a;
    b[15] = 2;
    let builder = PacketBuilder::ethernet2([2; 6], [4; 6])
        .single_vlan(etherparse::VlanId::try_new(7).unwrap())
        .ipv6(a, b, 64);
    let t = tcp_step(builder, s);
    let mut v = Vec::new();
    t.write(&mut v, &vec![0u8; s.payload]).unwrap();
    v
}

/// Bare IPv6 packet (raw IP link type).
pub fn raw_v6(s: &Seg) -> Vec<u8> {
    let builder = PacketBuilder::ipv6([0xfd; 16], [0xfe; 16], 64);
    let t = tcp_step(builder, s);
    let mut v = Vec::new();
    t.write(&mut v, &vec![0u8; s.payload]).unwrap();
    v
}

/// Ethernet/IPv4/UDP frame.
pub fn eth_udp() -> Vec<u8> {
    let b = PacketBuilder::ethernet2([2; 6], [4; 6])
        .ipv4([10, 0, 0, 1], [10, 0, 0, 3], 64)
        .udp(53, 53);
    let mut v = Vec::new();
    b.write(&mut v, &[1, 2, 3]).unwrap();
    v
}

/// Linux cooked (SLL v1) header in front of an IPv4 packet.
pub fn sll_v4(s: &Seg) -> Vec<u8> {
    let eth = eth_v4(s, true);
    let mut v = vec![0, 0, 0, 1, 0, 6, 2, 2, 2, 2, 2, 2, 0, 0, 0x08, 0x00];
    v.extend_from_slice(&eth[14..]);
    v
}

/// The capture `lossrec run --pcap` writes for the scenario `toml`, in a temporary file.
pub fn simulated_capture(toml: &str) -> tempfile::NamedTempFile {
    use std::io::Write;
    let sc = lossrec_sim::Scenario::from_toml_str(toml, "test.toml").unwrap();
    let opts = lossrec_sim::RunOptions {
        pcap: true,
        ..lossrec_sim::RunOptions::default()
    };
    let out = lossrec_sim::run(&sc, &opts).unwrap();
    let mut f = tempfile::NamedTempFile::new().unwrap();
    f.write_all(out.pcap.as_ref().unwrap()).unwrap();
    f.flush().unwrap();
    f
}

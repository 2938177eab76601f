//! The path emulator without devices (no root needed): garbage and foreign packets are
//! dropped and counted, the loss model sees stream offsets from the SYN's ISN, and the
//! link's timing is the simulator's.

use std::net::SocketAddrV4;

use lossrec_sim::Scenario;
use lossrec_tun::path::{Dir, Fate, Path};
use lossrec_wire::{encode_ipv4, seq, Payload, TcpFlags, TcpSegment};

const MSS: u64 = 1448;

fn sc(extra: &str) -> Scenario {
    let text = format!("[path]\nrtt_ms = 20\nrate_mbps = 100\n{extra}\n[workload]\nsegments = 4\n");
    Scenario::from_toml_str(&text, "<path>").unwrap()
}

fn addr(last: u8, port: u16) -> SocketAddrV4 {
    SocketAddrV4::new([10, 9, 0, last].into(), port)
}

fn pkt(src: SocketAddrV4, dst: SocketAddrV4, seqno: u32, flags: TcpFlags, len: usize) -> Vec<u8> {
    let mut s = TcpSegment::new(src, dst, seqno);
    s.flags = flags;
    s.payload = Payload::Zeros(len);
    encode_ipv4(&s).unwrap()
}

#[test]
fn garbage_and_foreign_packets_are_dropped_and_counted() {
    let mut p = Path::new(&sc(""), 1, vec![4 * MSS]);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for n in 0..2000 {
        // Random bytes of random length: never a panic, always garbage.
        let bytes: Vec<u8> = (0..(n % 97))
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        assert_eq!(p.offer(0, Dir::Data, &bytes).0, Fate::Garbage);
    }
    let mut bad = pkt(addr(1, 1), addr(2, 5001), 7, TcpFlags::SYN, 0);
    bad[30] ^= 0xff; // checksum no longer matches
    assert_eq!(p.offer(0, Dir::Data, &bad).0, Fate::Garbage);
    // Valid TCP of no connection (no SYN seen), either way.
    let stray = pkt(addr(1, 1), addr(2, 5001), 7, TcpFlags::ACK, 100);
    assert_eq!(p.offer(0, Dir::Data, &stray).0, Fate::Foreign);
    assert_eq!(p.offer(0, Dir::Ack, &stray).0, Fate::Foreign);
    assert_eq!((p.stats.garbage, p.stats.foreign), (2001, 2));
    assert!(p.conns.is_empty());
}

#[test]
fn tail_loss_sees_stream_offsets_and_link_timing_is_the_simulators() {
    let mut p = Path::new(&sc("[path.loss]\nmodel = \"tail\""), 1, vec![4 * MSS]);
    let (c, s) = (addr(1, 40000), addr(2, 5001));
    let isn = u32::MAX - 2000; // the stream wraps the 32-bit space
    let syn = pkt(c, s, isn, TcpFlags::SYN, 0);
    let Fate::Arrive(t) = p.offer(0, Dir::Data, &syn).0 else {
        panic!("SYN lost")
    };
    assert_eq!(t, 10_003_200); // 40 bytes at 100 Mb/s (3.2 µs), then 10 ms one way
    let mut fates = Vec::new();
    for i in 0..4 {
        let d = pkt(c, s, seq::wrap(isn, i * MSS), TcpFlags::ACK, MSS as usize);
        fates.push(p.offer(1_000_000, Dir::Data, &d).0);
    }
    assert!(fates[..3].iter().all(|f| matches!(f, Fate::Arrive(_))));
    assert_eq!(fates[3], Fate::Lost);
    // The retransmission gets through and is recognised as one.
    let d = pkt(c, s, seq::wrap(isn, 3 * MSS), TcpFlags::ACK, MSS as usize);
    let (f, seen) = p.offer(2_000_000, Dir::Data, &d);
    assert!(matches!(f, Fate::Arrive(_)) && seen.retransmission);
    assert_eq!(seen.range.start, 3 * MSS);
    assert_eq!((p.conns[0].data_packets, p.conns[0].retransmits), (5, 1));
}

/// A SYN with a fresh ISN on a 4-tuple whose connection is open (a forged SYN, RFC 5961
/// §4) is carried to the endpoint as part of that connection, which challenges it; it
/// opens no second connection (that would shift every later flow's result and start the
/// next application). Once both FINs have passed, the 4-tuple may open a new one.
#[test]
fn a_syn_on_an_open_four_tuple_opens_no_second_connection() {
    let mut p = Path::new(&sc(""), 1, vec![4 * MSS]);
    let (c, s) = (addr(1, 40000), addr(2, 5001));
    let syn = pkt(c, s, 1000, TcpFlags::SYN, 0);
    assert!(matches!(p.offer(0, Dir::Data, &syn).0, Fate::Arrive(_)));
    let forged = pkt(c, s, 0xdead_beef, TcpFlags::SYN, 0);
    let (f, seen) = p.offer(1_000, Dir::Data, &forged);
    assert!(matches!(f, Fate::Arrive(_)));
    assert_eq!((seen.conn, p.conns.len()), (Some(0), 1));
    assert_eq!(p.conns[0].isn, 1000);
    assert_eq!(p.stats.syns_on_open_connections, 1);
    // Both ends close: the 4-tuple is free again.
    let fin = pkt(c, s, 1001, TcpFlags::FIN.with(TcpFlags::ACK), 0);
    p.offer(2_000, Dir::Data, &fin);
    let fin_back = pkt(s, c, 9001, TcpFlags::FIN.with(TcpFlags::ACK), 0);
    p.offer(3_000, Dir::Ack, &fin_back);
    let again = pkt(c, s, 77_777, TcpFlags::SYN, 0);
    let (_, seen) = p.offer(4_000, Dir::Data, &again);
    assert_eq!((seen.conn, p.conns.len()), (Some(1), 2));
    assert_eq!(p.stats.syns_on_open_connections, 1);
}

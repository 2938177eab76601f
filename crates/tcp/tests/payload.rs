//! An embedder that holds the application's bytes sends them: the transmission's range of
//! the stream goes out as the segment's payload, byte for byte (the engine counts bytes and
//! never holds them; the adapter takes them from the caller).

use std::net::{Ipv4Addr, SocketAddrV4};

use lossrec::{Config, Instant, Sender};
use lossrec_tcp::{Endpoint, EndpointConfig, PayloadError};
use lossrec_wire::{decode_ipv4, Payload, TcpFlags, TcpSegment};

const A: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 40_000);
const B: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 2), 80);

#[test]
fn a_data_segment_carries_the_bytes_of_its_range() {
    let t0 = Instant::from_millis(0);
    let data: Vec<u8> = (0..10_000u32).map(|i| (i * 7 + 3) as u8).collect();
    let mut c = Endpoint::client(
        Sender::new(Config::preset("linux").unwrap(), t0).unwrap(),
        EndpointConfig::default(),
        A,
        B,
        0xffff_fff0,
    );
    let s = c.sender.as_mut().unwrap();
    s.write(t0, data.len() as u64);
    let syn = s.poll_transmit(t0).unwrap();
    let mut b = Vec::new();
    c.encode_transmit_bytes(t0, &syn, &data, &mut b).unwrap();
    // The SYN-ACK, so data may flow.
    let mut peer = TcpSegment::new(B, A, 77);
    peer.flags = TcpFlags::SYN;
    peer.ack = Some(0xffff_fff1);
    peer.window = 65_535;
    peer.options.mss = Some(1460);
    let t1 = Instant::from_millis(10);
    let _ = c.input(t1, &peer);
    let s = c.sender.as_mut().unwrap();
    // The handshake's last ACK may come first; the first data segment follows.
    let tx = std::iter::from_fn(|| s.poll_transmit(t1))
        .find(|t| !t.range.is_empty())
        .expect("data after the handshake");
    let mut b = Vec::new();
    c.encode_transmit_bytes(t1, &tx, &data, &mut b).unwrap();
    let seg = decode_ipv4(&b).unwrap();
    let (x, y) = (tx.range.start as usize, tx.range.end as usize);
    match seg.payload {
        Payload::Bytes(p) => assert_eq!(p, &data[x..y]),
        Payload::Zeros(_) => panic!("zeros on the wire"),
    }
    // Bytes the caller does not hold are an error naming the range, not a panic.
    let short = &data[..x + 10];
    let mut b = Vec::new();
    let e: PayloadError = c.encode_transmit_bytes(t1, &tx, short, &mut b).unwrap_err();
    assert!(e.to_string().contains(&format!("{x}..{y}")), "{e}");
    assert!(b.is_empty());
}

//! The Timestamps option of an [`Endpoint`] (RFC 7323): TSval ticks in milliseconds as
//! Linux's `tcp_time_stamp` by default, and every segment the connection sends — the
//! engine half's own segments, its pure ACKs, its challenge ACKs — echoes the one
//! TS.Recent, which follows RFC 7323 §4.3.

use std::net::{Ipv4Addr, SocketAddrV4};

use lossrec::{Config, Instant, Receiver, ReceiverConfig, Sender};
use lossrec_tcp::ts::{TsClock, TsUnit};
use lossrec_tcp::{Endpoint, EndpointConfig};
use lossrec_wire::{decode_ipv4, Payload, TcpFlags, TcpSegment, Timestamps};

const CLIENT: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 9, 0, 1), 40_000);
const SERVER: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 9, 0, 4), 5001);
const ISS: u32 = 1000;
const CISN: u32 = 7000;

fn us(u: u64) -> Instant {
    Instant::from_micros(u)
}

fn cseg(seq: u32, ack: Option<u32>, flags: TcpFlags, len: usize, val: u32) -> TcpSegment<'static> {
    let mut s = TcpSegment::new(CLIENT, SERVER, seq);
    s.ack = ack;
    s.flags = flags;
    s.window = 65_535;
    s.payload = Payload::Zeros(len);
    s.options.timestamps = Some(Timestamps { val, ecr: 0 });
    s
}

fn packets(r: &mut Endpoint, now: Instant) -> Vec<TcpSegment<'static>> {
    let mut out = Vec::new();
    r.poll_acks(now, &mut out);
    out.iter()
        .map(|b| {
            let d = decode_ipv4(b).unwrap();
            TcpSegment {
                payload: Payload::Zeros(d.payload.len()),
                ..d
            }
        })
        .collect()
}

fn server() -> Endpoint {
    let cfg = ReceiverConfig {
        delayed_ack: None,
        ..ReceiverConfig::default()
    };
    let mut syn = cseg(CISN, None, TcpFlags::SYN, 0, 50);
    syn.options.sack_permitted = true;
    syn.options.mss = Some(1012);
    let rcv = Receiver::new(cfg, us(0));
    let mut r = Endpoint::server(rcv, EndpointConfig::default(), SERVER, CLIENT, ISS);
    r.input(us(0), &syn);
    let sa = packets(&mut r, us(0));
    let ts = sa[0]
        .options
        .timestamps
        .expect("the SYN-ACK carries timestamps");
    assert_eq!(ts.ecr, 50);
    r
}

#[test]
fn tsval_ticks_in_milliseconds_by_default() {
    let cfg = Config {
        timestamps: true,
        ..Config::default()
    };
    let mut s = Endpoint::client(
        Sender::new(cfg.clone(), us(0)).unwrap(),
        EndpointConfig::default(),
        CLIENT,
        SERVER,
        ISS,
    );
    let syn = s
        .sender
        .as_mut()
        .unwrap()
        .poll_transmit(us(41_999))
        .unwrap();
    let mut b = Vec::new();
    s.encode_transmit(us(41_999), &syn, &mut b);
    let ts = decode_ipv4(&b).unwrap().options.timestamps.unwrap();
    // 41 ms, plus the default offset 1 (an echo of 0 means none).
    assert_eq!((ts.val, ts.ecr), (42, 0));
    // Configurable: microseconds.
    let micros = EndpointConfig {
        ts_clock: TsClock {
            unit: TsUnit::Micros,
            offset: 0,
        },
        ..EndpointConfig::default()
    };
    let mut s = Endpoint::client(
        Sender::new(cfg, us(0)).unwrap(),
        micros,
        CLIENT,
        SERVER,
        ISS,
    );
    let syn = s
        .sender
        .as_mut()
        .unwrap()
        .poll_transmit(us(41_999))
        .unwrap();
    b.clear();
    s.encode_transmit(us(41_999), &syn, &mut b);
    assert_eq!(
        decode_ipv4(&b).unwrap().options.timestamps.unwrap().val,
        41_999
    );
}

/// RFC 7323 §4.3: a segment beyond Last.ACK.sent (after a hole) does not update
/// TS.Recent; and the receiver's ACKs and the challenge ACK the endpoint builds echo the
/// same value (they kept two TS.Recent before: the engine receiver's, and the TUN
/// endpoint's, taken from every acceptable segment).
#[test]
fn one_ts_recent_for_every_segment_sent() {
    let mut r = server();
    r.input(
        us(40_000),
        &cseg(CISN + 1, Some(ISS + 1), TcpFlags::empty(), 1000, 100),
    );
    let a = packets(&mut r, us(40_000));
    assert_eq!(a.last().unwrap().options.timestamps.unwrap().ecr, 100);
    // Out of order, past a hole: its TSval is not taken.
    r.input(
        us(41_000),
        &cseg(CISN + 2001, Some(ISS + 1), TcpFlags::empty(), 1000, 300),
    );
    let dup = packets(&mut r, us(41_000));
    assert_eq!(dup.last().unwrap().ack, Some(CISN + 1001));
    assert_eq!(dup.last().unwrap().options.timestamps.unwrap().ecr, 100);
    // An RST in the window but off RCV.NXT: a challenge ACK, echoing the same TS.Recent.
    r.input(us(42_000), &cseg(CISN + 1500, None, TcpFlags::RST, 0, 400));
    let ch = packets(&mut r, us(42_000));
    assert_eq!(ch.len(), 1, "{ch:?}");
    assert_eq!(ch[0].ack, Some(CISN + 1001));
    assert_eq!(ch[0].options.timestamps.unwrap().ecr, 100);
    assert_eq!(r.timestamps().recent(), Some(100));
    // The hole filled (at Last.ACK.sent): taken.
    r.input(
        us(43_000),
        &cseg(CISN + 1001, Some(ISS + 1), TcpFlags::empty(), 1000, 500),
    );
    let a = packets(&mut r, us(43_000));
    assert_eq!(a.last().unwrap().ack, Some(CISN + 3001));
    assert_eq!(a.last().unwrap().options.timestamps.unwrap().ecr, 500);
}

/// A sending endpoint's pure ACK (of the peer's FIN) carries timestamps once negotiated
/// (RFC 7323 §3.2: on every segment but an RST) and echoes TS.Recent, as its data does.
#[test]
fn a_senders_pure_ack_echoes_ts_recent_too() {
    let cfg = Config {
        timestamps: true,
        ..Config::default()
    };
    let mut s = Endpoint::client(
        Sender::new(cfg, us(0)).unwrap(),
        EndpointConfig::default(),
        CLIENT,
        SERVER,
        ISS,
    );
    s.sender.as_mut().unwrap().write(us(0), 1000);
    let syn = s.sender.as_mut().unwrap().poll_transmit(us(0)).unwrap();
    let mut b = Vec::new();
    s.encode_transmit(us(0), &syn, &mut b);
    let mut sa = TcpSegment::new(SERVER, CLIENT, CISN);
    sa.flags = TcpFlags::SYN;
    sa.ack = Some(ISS + 1);
    sa.window = 65_535;
    sa.options.mss = Some(1012);
    sa.options.timestamps = Some(Timestamps { val: 77, ecr: 1 });
    assert!(s.input(us(20_000), &sa).ack.unwrap().syn.is_some());
    let mut fin = TcpSegment::new(SERVER, CLIENT, CISN + 1);
    fin.flags = TcpFlags::FIN;
    fin.ack = Some(ISS + 1);
    fin.window = 65_535;
    fin.options.timestamps = Some(Timestamps { val: 90, ecr: 1 });
    assert!(s.input(us(30_000), &fin).fin);
    b.clear();
    s.ack_now(us(30_000), &mut b);
    let ack = decode_ipv4(&b).unwrap();
    assert_eq!(ack.ack, Some(CISN + 2));
    let ts = ack.options.timestamps.expect("timestamps on the pure ACK");
    assert_eq!((ts.val, ts.ecr), (31, 90));
}

/// Data both ways: a client whose sender sends and whose receiver takes the peer's data.
/// Its pure ACKs (the receiver's) and its data segments (the sender's) echo the same
/// TS.Recent, which a segment past a hole does not move (RFC 7323 §4.3). The engine's
/// halves each keep their own (the sender's would be the newest TSval of any ACK: 700).
#[test]
fn data_both_ways_echoes_one_ts_recent() {
    let cfg = Config {
        timestamps: true,
        ..Config::default()
    };
    let rcfg = ReceiverConfig {
        delayed_ack: None,
        timestamps: true,
        sack: true,
        ..ReceiverConfig::default()
    };
    let mut c = Endpoint::client(
        Sender::new(cfg, us(0)).unwrap(),
        EndpointConfig::default(),
        CLIENT,
        SERVER,
        ISS,
    )
    .with_receiver(Receiver::new(rcfg, us(0)));
    let syn = c.sender.as_mut().unwrap().poll_transmit(us(0)).unwrap();
    let mut b = Vec::new();
    c.encode_transmit(us(0), &syn, &mut b);
    let peer = |seq: u32, len: usize, flags: TcpFlags, val: u32| {
        let mut s = TcpSegment::new(SERVER, CLIENT, seq);
        s.flags = flags;
        s.ack = Some(ISS + 1);
        s.window = 65_535;
        s.payload = Payload::Zeros(len);
        s.options.timestamps = Some(Timestamps { val, ecr: 1 });
        s
    };
    let mut sa = peer(CISN, 0, TcpFlags::SYN, 500);
    sa.options.mss = Some(1012);
    sa.options.sack_permitted = true;
    assert!(c.input(us(20_000), &sa).ack.unwrap().syn.is_some());
    // The handshake's ACK.
    while let Some(tx) = c.sender.as_mut().unwrap().poll_transmit(us(20_000)) {
        b.clear();
        c.encode_transmit(us(20_000), &tx, &mut b);
    }
    // The peer's data, in order, then past a hole.
    let got = c.input(us(40_000), &peer(CISN + 1, 1000, TcpFlags::empty(), 600));
    assert_eq!(got.segment.unwrap().range.len(), 1000);
    let mut acks = Vec::new();
    c.poll_acks(us(40_000), &mut acks);
    let a = decode_ipv4(acks.last().unwrap()).unwrap();
    assert_eq!(a.ack, Some(CISN + 1001));
    assert_eq!(a.options.timestamps.unwrap().ecr, 600);
    c.input(us(41_000), &peer(CISN + 2001, 1000, TcpFlags::empty(), 700));
    acks.clear();
    c.poll_acks(us(41_000), &mut acks);
    let dup = decode_ipv4(acks.last().unwrap()).unwrap();
    assert_eq!(dup.ack, Some(CISN + 1001));
    assert_eq!(dup.options.sack.len(), 1);
    assert_eq!(dup.options.timestamps.unwrap().ecr, 600);
    // Our data now: it acknowledges what the receiver took and echoes the same TS.Recent.
    c.sender.as_mut().unwrap().write(us(42_000), 1000);
    let tx = c
        .sender
        .as_mut()
        .unwrap()
        .poll_transmit(us(42_000))
        .unwrap();
    assert!(!tx.range.is_empty());
    b.clear();
    c.encode_transmit(us(42_000), &tx, &mut b);
    let d = decode_ipv4(&b).unwrap();
    assert_eq!(d.payload.len(), 1000);
    assert_eq!(d.ack, Some(CISN + 1001));
    assert_eq!(d.options.timestamps.unwrap().ecr, 600);
    assert_eq!(c.timestamps().recent(), Some(600));
}

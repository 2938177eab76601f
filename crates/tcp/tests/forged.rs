//! Forged segments fed straight to [`Endpoint`]s (no device, no root; moved here from
//! crates/tun with the endpoints, assertions unchanged): a
//! synchronised connection takes nothing from a SYN or SYN-ACK with another ISN, an RST off
//! RCV.NXT or an ACK of data never sent (RFC 5961 §3-5, Linux `tcp_validate_incoming`),
//! and counts each; an RST exactly at RCV.NXT resets it.

use std::net::{Ipv4Addr, SocketAddrV4};

use lossrec::{Config, Instant, Receiver, ReceiverConfig, Sender};
use lossrec_tcp::{Endpoint, EndpointConfig};
use lossrec_wire::{decode_ipv4, Payload, TcpFlags, TcpSegment};

const ME: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 9, 0, 3), 10_000);
const PEER: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 9, 0, 2), 5001);
const ISS: u32 = 1000;
const IRS: u32 = 5000;

fn ms(m: u64) -> Instant {
    Instant::from_nanos(m * 1_000_000)
}

fn seg(seq: u32, ack: Option<u32>, flags: TcpFlags) -> TcpSegment<'static> {
    let mut s = TcpSegment::new(PEER, ME, seq);
    s.ack = ack;
    s.flags = flags;
    s.window = 65_535;
    s
}

/// The endpoint's engine sender.
fn snd(s: &mut Endpoint) -> &mut Sender {
    s.sender.as_mut().unwrap()
}

/// Drains the sender, returning (seq, ack) of every segment it sent.
fn sent(s: &mut Endpoint, now: Instant) -> Vec<(u32, Option<u32>)> {
    let mut out = Vec::new();
    while let Some(tx) = snd(s).poll_transmit(now) {
        let mut b = Vec::new();
        s.encode_transmit(now, &tx, &mut b);
        let d = decode_ipv4(&b).unwrap();
        out.push((d.seq, d.ack));
    }
    out
}

/// One segment in (the endpoint hands its ACK to the sender).
fn feed(s: &mut Endpoint, now: Instant, g: &TcpSegment<'_>) {
    s.input(now, g);
}

/// An engine sender with 20 segments written, its handshake done and the first flight
/// (10 segments) out.
fn established() -> Endpoint {
    let sender = Sender::new(Config::default(), ms(0)).unwrap();
    let mut s = Endpoint::client(sender, EndpointConfig::default(), ME, PEER, ISS);
    snd(&mut s).write(ms(0), 20 * 1000);
    assert_eq!(sent(&mut s, ms(0)).len(), 1, "the SYN");
    let mut sa = seg(IRS, Some(ISS + 1), TcpFlags::SYN);
    sa.options.mss = Some(1000);
    feed(&mut s, ms(40), &sa);
    let first = sent(&mut s, ms(40));
    assert!(!first.is_empty());
    assert!(first.iter().all(|(_, a)| *a == Some(IRS + 1)));
    s
}

#[test]
fn engine_sender_ignores_forged_syn_syn_ack_rst_and_ack() {
    let mut s = established();
    let (una, nxt) = (snd(&mut s).snd_una(), snd(&mut s).snd_nxt());
    let far = IRS.wrapping_add(1 << 31);
    let forged = [
        seg(0xdead_beef, Some(ISS + 1), TcpFlags::SYN),
        seg(0xdead_beef, None, TcpFlags::SYN),
        seg(IRS + 2, Some(ISS + 1), TcpFlags::RST),
        seg(far, Some(ISS + 1), TcpFlags::RST),
        seg(IRS + 1, Some(ISS + 1 + (1 << 30)), TcpFlags::empty()),
        seg(
            IRS + 1,
            Some((ISS + 1).wrapping_sub(1 << 30)),
            TcpFlags::empty(),
        ),
        seg(far, Some(ISS + 1 + 2000), TcpFlags::empty()),
    ];
    for (i, f) in forged.iter().enumerate() {
        feed(&mut s, ms(50 + i as u64), f);
    }
    assert_eq!((snd(&mut s).snd_una(), snd(&mut s).snd_nxt()), (una, nxt));
    // The real ACK of two segments still moves the connection, and what it sends next
    // acknowledges the real ISN.
    feed(
        &mut s,
        ms(80),
        &seg(IRS + 1, Some(ISS + 1 + 2000), TcpFlags::empty()),
    );
    assert_eq!(snd(&mut s).snd_una(), una + 2000);
    let next = sent(&mut s, ms(80));
    assert!(!next.is_empty());
    assert!(next.iter().all(|(_, a)| *a == Some(IRS + 1)), "{next:?}");
    let st = s.accept_stats();
    assert_eq!(st.syn_challenge, 2);
    assert_eq!(st.rst_in_window, 1);
    assert_eq!(st.rst_out_of_window, 1);
    assert_eq!(st.ack_unsent, 1);
    assert_eq!(st.ack_too_old, 1);
    assert_eq!(st.out_of_window, 1);
    assert_eq!(st.resets, 0);
    // Four challenges (two SYNs, the RST in the window, the old ACK) within 500 ms: one
    // goes, the rest are withheld; the out-of-window pure ACK's duplicate ACK too.
    assert_eq!(
        (st.challenge_acks, st.challenge_skipped, st.seq_skipped),
        (1, 3, 1)
    );
    assert!(!s.is_reset());
}

#[test]
fn engine_sender_answers_a_forged_syn_ack_with_a_challenge_ack() {
    let mut s = established();
    let nxt = snd(&mut s).snd_nxt();
    let f = seg(0xdead_beef, Some(ISS + 1), TcpFlags::SYN);
    assert!(s.input(ms(50), &f).ack.is_none());
    let mut out = Vec::new();
    s.take_replies(&mut out);
    assert_eq!(out.len(), 1);
    let c = decode_ipv4(&out[0]).unwrap();
    // RFC 5961 §4.2: <SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>.
    assert_eq!((c.seq, c.ack), (ISS + 1 + nxt as u32, Some(IRS + 1)));
    assert!(!c.flags.contains(TcpFlags::SYN) && !c.flags.contains(TcpFlags::RST));
}

#[test]
fn engine_sender_is_reset_by_an_rst_at_rcv_nxt() {
    let mut s = established();
    feed(&mut s, ms(50), &seg(IRS + 1, None, TcpFlags::RST));
    assert!(s.is_reset());
    assert_eq!(s.accept_stats().resets, 1);
}

#[test]
fn engine_sender_still_takes_a_retransmitted_syn_ack() {
    let mut s = established();
    let sa = seg(IRS, Some(ISS + 1), TcpFlags::SYN);
    // Handled as before: the engine sees it as the handshake again.
    let a = s
        .input(ms(50), &sa)
        .ack
        .expect("a SYN-ACK with the same ISN");
    assert!(a.syn.is_some());
    assert_eq!(s.accept_stats().syn_challenge, 0);
}

const CLIENT: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 9, 0, 1), 40_000);
const SERVER: SocketAddrV4 = SocketAddrV4::new(Ipv4Addr::new(10, 9, 0, 4), 5001);

fn cseg(seq: u32, ack: Option<u32>, flags: TcpFlags, len: usize) -> TcpSegment<'static> {
    let mut s = TcpSegment::new(CLIENT, SERVER, seq);
    s.ack = ack;
    s.flags = flags;
    s.window = 65_535;
    s.payload = Payload::Zeros(len);
    s
}

fn acks(r: &mut Endpoint, now: Instant) -> Vec<(u32, Option<u32>, TcpFlags)> {
    let mut out = Vec::new();
    r.poll_acks(now, &mut out);
    out.iter()
        .map(|b| {
            let d = decode_ipv4(b).unwrap();
            (d.seq, d.ack, d.flags)
        })
        .collect()
}

#[test]
fn engine_receiver_ignores_forged_syn_rst_and_ack() {
    const CISN: u32 = 7000;
    let cfg = ReceiverConfig {
        delayed_ack: None,
        ..ReceiverConfig::default()
    };
    let rcv = Receiver::new(cfg, ms(0));
    let mut r = Endpoint::server(rcv, EndpointConfig::default(), SERVER, CLIENT, ISS);
    r.input(ms(0), &cseg(CISN, None, TcpFlags::SYN, 0));
    let sa = acks(&mut r, ms(0));
    assert_eq!(sa.len(), 1);
    assert_eq!(sa[0].1, Some(CISN + 1));
    r.input(
        ms(40),
        &cseg(CISN + 1, Some(ISS + 1), TcpFlags::empty(), 1000),
    );
    assert_eq!(acks(&mut r, ms(40)).last().unwrap().1, Some(CISN + 1001));
    let far = CISN.wrapping_add(1 << 31);
    let forged = [
        cseg(0xdead_beef, None, TcpFlags::SYN, 0),
        cseg(0xdead_beef, Some(ISS + 1), TcpFlags::SYN, 0),
        cseg(CISN + 1002, Some(ISS + 1), TcpFlags::RST, 0),
        cseg(far, Some(ISS + 1), TcpFlags::RST, 0),
        cseg(
            CISN + 1001,
            Some(ISS + 1 + (1 << 30)),
            TcpFlags::empty(),
            500,
        ),
        cseg(
            CISN + 1001,
            Some((ISS + 1).wrapping_sub(1 << 30)),
            TcpFlags::empty(),
            500,
        ),
    ];
    let mut answers = Vec::new();
    for (i, f) in forged.iter().enumerate() {
        r.input(ms(50 + i as u64), f);
        answers.extend(acks(&mut r, ms(50 + i as u64)));
    }
    // Nothing taken: no forged byte acknowledged, no SYN-ACK for the forged SYN, and
    // every answer acknowledges the real stream.
    assert!(
        answers.iter().all(|a| a.1 == Some(CISN + 1001)),
        "{answers:?}"
    );
    assert!(
        answers.iter().all(|a| !a.2.contains(TcpFlags::SYN)),
        "{answers:?}"
    );
    assert_eq!(r.receiver.as_ref().unwrap().delivered(), 1000);
    r.input(
        ms(90),
        &cseg(CISN + 1001, Some(ISS + 1), TcpFlags::empty(), 1000),
    );
    assert_eq!(acks(&mut r, ms(90)).last().unwrap().1, Some(CISN + 2001));
    let st = r.accept_stats();
    assert_eq!(st.syn_challenge, 2);
    assert_eq!((st.rst_in_window, st.rst_out_of_window), (1, 1));
    assert_eq!((st.ack_unsent, st.ack_too_old), (1, 1));
    assert_eq!((st.challenge_acks, st.challenge_skipped), (1, 3));
    assert_eq!(st.resets, 0);
}

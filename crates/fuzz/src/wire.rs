//! The wire decoder (`lossrec_wire::decode_*`, what `crates/tun` reads off its TUN devices)
//! and `crates/tun`'s translation of decoded segments into the engine's ACKs and segments.
//!
//! The input is a sequence of packets, each prefixed by its length (two bytes, big-endian;
//! 0xffff takes the rest): the format [`frame`] writes and the seeds use. Every packet is decoded as a bare IPv4 packet, checksums verified and
//! ignored, and as an Ethernet frame: nothing may panic. Every packet is offered to the
//! real-time path emulator (`lossrec_tun::path::Path::offer`, which reads every packet
//! the TUN devices carry) in both directions. A decoded segment must survive a round
//! trip (encode, decode with checksums verified, same segment). Then it goes to an
//! [`EngineSender`] (as the peer's ACK) or an [`EngineReceiver`] (as the client's data),
//! whichever it is addressed to, whose answers are encoded and must decode again.

use std::net::{Ipv4Addr, SocketAddrV4};

use std::sync::OnceLock;

use lossrec::{Config, Instant, ReceiverConfig};
use lossrec_sim::Scenario;
use lossrec_tcp::EndpointConfig;
use lossrec_tun::engine_receiver::EngineReceiver;
use lossrec_tun::engine_sender::EngineSender;
use lossrec_tun::path::{Dir, Path};
use lossrec_wire::{
    decode_frame_with, decode_ipv4, decode_ipv4_with, encode_ipv4, Checksums, TcpSegment,
};

/// Packets per input at most.
const MAX_PACKETS: usize = 256;

/// The fuzz target.
pub fn run(data: &[u8]) {
    let now = Instant::from_millis(1);
    let Some((mut tx, mut rx)) = endpoints(now) else {
        return;
    };
    let mut out = Vec::new();
    // The SYN, so that a SYN-ACK in the input completes the handshake.
    while let Some(t) = tx.sender_mut().poll_transmit(now) {
        tx.encode(now, &t, &mut out);
    }
    check_own(&out);
    let mut path = Path::new(path_scenario(), 1, vec![100_000]);
    let mut rest = data;
    for i in 0..MAX_PACKETS {
        let [hi, lo, tail @ ..] = rest else {
            break;
        };
        let len = match u16::from_be_bytes([*hi, *lo]) {
            0xffff => tail.len(),
            n => usize::from(n).min(tail.len()),
        };
        let (pkt, tail) = tail.split_at(len);
        rest = tail;
        let now = Instant::from_millis(2 + i as u64);
        path.offer(now.as_nanos(), Dir::Data, pkt);
        path.offer(now.as_nanos(), Dir::Ack, pkt);
        let _ = decode_ipv4(pkt);
        let _ = decode_frame_with(pkt, Checksums::Ignore);
        let Ok(seg) = decode_ipv4_with(pkt, Checksums::Ignore) else {
            continue;
        };
        round_trip(&seg);
        // To whichever endpoint it is addressed (captures replay as they ran).
        if seg.dst == tx.local() {
            to_sender(&mut tx, now, &seg, &mut out);
        } else {
            rx.input(now, &seg);
            let mut answers = Vec::new();
            rx.output(now, &mut answers);
            for p in &answers {
                check_own(p);
            }
        }
    }
}

/// A lossy, reordering path for the emulator, parsed once.
fn path_scenario() -> &'static Scenario {
    static SC: OnceLock<Scenario> = OnceLock::new();
    SC.get_or_init(|| {
        let text = "[path]\nrtt_ms = 20\nrate_mbps = 10\nqueue_packets = 8\n\
                    [path.loss]\nmodel = \"bernoulli\"\np = 0.2\n\
                    [path.reorder]\nfraction = 0.2\ndelay_ms = 5\n";
        Scenario::from_toml_str(text, "<fuzz:path>").expect("the fuzz path parses")
    })
}

/// The peer's segment to the engine's sender; what it sends in answer must decode.
fn to_sender(tx: &mut EngineSender, now: Instant, seg: &TcpSegment<'_>, out: &mut Vec<u8>) {
    // The endpoint hands the ACK to the sender itself.
    let fin = tx.input(now, seg).fin;
    out.clear();
    if fin {
        tx.fin_ack(now, out);
    }
    // Challenge and duplicate ACKs answering segments the acceptance checks refused.
    let mut replies = Vec::new();
    tx.take_replies(&mut replies);
    for r in &replies {
        check_own(r);
    }
    while let Some(t) = tx.sender_mut().poll_transmit(now) {
        tx.encode(now, &t, out);
    }
    check_own(out);
}

/// The client (the engine's sender) and the server (the engine's receiver), as
/// `crates/tun` runs them.
pub fn endpoints(now: Instant) -> Option<(EngineSender, EngineReceiver)> {
    let a = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 1), 40_000);
    let b = SocketAddrV4::new(Ipv4Addr::new(10, 0, 0, 2), 8_080);
    let mut cfg = Config::linux();
    cfg.timestamps = true;
    cfg.handshake = true;
    let ep = EndpointConfig::default();
    let tx = EngineSender::new(cfg, now, a, b, 0x1234_5678, ep).ok()?;
    let rx = EngineReceiver::new(ReceiverConfig::default(), now, b, a, 0x9abc_def0, ep);
    Some((tx, rx))
}

/// Appends `packet` to `out` in the input format.
pub fn frame(packet: &[u8], out: &mut Vec<u8>) {
    let len = u16::try_from(packet.len()).unwrap_or(0xfffe).min(0xfffe);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(&packet[..usize::from(len)]);
}

/// Encoding a decoded segment and decoding it again gives the same segment.
fn round_trip(seg: &TcpSegment<'_>) {
    let Ok(bytes) = encode_ipv4(seg) else { return };
    let again = decode_ipv4(&bytes)
        .unwrap_or_else(|e| panic!("our encoding of {seg:?} does not decode: {e}"));
    assert_eq!(&again, seg, "round trip changed the segment");
}

/// Packets we encoded ourselves (concatenated) decode with checksums verified.
fn check_own(mut packets: &[u8]) {
    while !packets.is_empty() {
        let seg = decode_ipv4(packets)
            .unwrap_or_else(|e| panic!("our own packet does not decode: {e}: {packets:02x?}"));
        let len = lossrec_wire::ipv4_len(&seg);
        packets = &packets[len.min(packets.len())..];
    }
}

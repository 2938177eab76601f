//! Encode/decode round trips, checksum cross-checks, error cases and a
//! garbage-never-panics property.

use std::net::SocketAddrV4;

use etherparse::{IpNumber, Ipv4Header, TcpHeader};
use lossrec_wire::*;
use proptest::prelude::*;

fn addr(last: u8, port: u16) -> SocketAddrV4 {
    SocketAddrV4::new([192, 0, 2, last].into(), port)
}

fn blocks(b: &[(u32, u32)]) -> SackList {
    SackList::from_slice(
        &b.iter()
            .map(|&(l, r)| SackBlock::new(l, r))
            .collect::<Vec<_>>(),
    )
}

fn data_seg<'a>(seq: u32, payload: Payload<'a>) -> TcpSegment<'a> {
    TcpSegment {
        ack: Some(0x0102_0304),
        flags: TcpFlags::PSH,
        window: 502,
        payload,
        ip_id: 0xbeef,
        options: TcpOptions {
            timestamps: Some(Timestamps {
                val: 0xdead_beef,
                ecr: 7,
            }),
            ..Default::default()
        },
        ..TcpSegment::new(addr(1, 40000), addr(2, 5001), seq)
    }
}

fn syn() -> TcpSegment<'static> {
    TcpSegment {
        flags: TcpFlags::SYN,
        window: 64240,
        options: TcpOptions {
            mss: Some(1448),
            window_scale: Some(7),
            sack_permitted: true,
            timestamps: Some(Timestamps { val: 1, ecr: 0 }),
            ..Default::default()
        },
        ..TcpSegment::new(addr(1, 40000), addr(2, 5001), u32::MAX)
    }
}

/// A decoded segment carries `Payload::Bytes`; compare the rest.
fn same_headers(a: &TcpSegment<'_>, b: &TcpSegment<'_>) {
    assert_eq!(a.src, b.src);
    assert_eq!(a.dst, b.dst);
    assert_eq!(a.seq, b.seq);
    assert_eq!(a.ack, b.ack);
    assert_eq!(a.wire_flags(), b.flags);
    assert_eq!(a.window, b.window);
    assert_eq!(a.options, b.options);
    assert_eq!(a.payload.len(), b.payload.len());
    assert_eq!(
        (a.ttl, a.ip_id, a.dont_fragment, a.tos),
        (b.ttl, b.ip_id, b.dont_fragment, b.tos)
    );
}

#[test]
fn syn_round_trip_and_layout() {
    let s = syn();
    let frame = encode_frame(&s).unwrap();
    // 14 Ethernet + 20 IP + 20 TCP + 20 options.
    assert_eq!(frame.len(), 74);
    assert_eq!(&frame[0..6], &dummy_mac([192, 0, 2, 2].into()));
    assert_eq!(&frame[12..14], &[0x08, 0x00]);
    let tcp = &frame[34..];
    assert_eq!(tcp[12] >> 4, 10, "data offset in words");
    assert_eq!(tcp[13], 0x02, "SYN only");
    assert_eq!(
        &tcp[20..40],
        &[2, 4, 0x05, 0xa8, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7]
    );
    let back = decode_frame(&frame).unwrap();
    same_headers(&s, &back);
    assert_eq!(back.ack, None);
    assert_eq!(back.seq_len(), 1);
}

#[test]
fn zeros_and_bytes_payload_encode_identically() {
    let zeros = [0u8; 1448];
    let a = encode_ipv4(&data_seg(5, Payload::Zeros(1448))).unwrap();
    let b = encode_ipv4(&data_seg(5, Payload::Bytes(&zeros))).unwrap();
    assert_eq!(a, b);
}

#[test]
fn checksums_match_etherparse_reference() {
    for payload in [&b""[..], b"x", b"hello world!", &[0xffu8; 1001][..]] {
        let seg = data_seg(0x8000_0000, Payload::Bytes(payload));
        let pkt = encode_ipv4(&seg).unwrap();
        let (ip, rest) = Ipv4Header::from_slice(&pkt).unwrap();
        assert_eq!(ip.header_checksum, ip.calc_header_checksum());
        assert_eq!(ip.protocol, IpNumber::TCP);
        let (tcp, data) = TcpHeader::from_slice(rest).unwrap();
        assert_eq!(data, payload);
        assert_eq!(tcp.checksum, tcp.calc_checksum_ipv4(&ip, data).unwrap());
        let back = decode_ipv4(&pkt).unwrap();
        assert_eq!(back.payload, Payload::Bytes(payload));
        same_headers(&seg, &back);
    }
}

#[test]
fn sack_blocks_and_dsack_round_trip() {
    let mut seg = data_seg(9, Payload::Zeros(0));
    seg.options.sack = blocks(&[(100, 200), (300, 400), (500, 600)]);
    let pkt = encode_ipv4(&seg).unwrap();
    // nop,nop,TS + nop,nop,sack(3 blocks) = 12 + 28 = 40 option bytes.
    assert_eq!(pkt.len(), 20 + 60);
    let back = decode_ipv4(&pkt).unwrap();
    assert_eq!(back.options.sack, seg.options.sack);
    // A fourth block does not fit beside timestamps and is dropped.
    seg.options.sack = blocks(&[(1, 2), (3, 4), (5, 6), (7, 8)]);
    let back_pkt = encode_ipv4(&seg).unwrap();
    let back = decode_ipv4(&back_pkt).unwrap();
    assert_eq!(back.options.sack, blocks(&[(1, 2), (3, 4), (5, 6)]));
}

#[test]
fn encode_into_appends_without_touching_earlier_bytes() {
    let mut buf = vec![0xaa; 3];
    encode_frame_into(&syn(), &mut buf).unwrap();
    assert_eq!(&buf[..3], &[0xaa; 3]);
    assert_eq!(&buf[3..], &encode_frame(&syn()).unwrap()[..]);
    let cap = buf.capacity();
    buf.clear();
    encode_frame_into(&syn(), &mut buf).unwrap();
    assert_eq!(buf.capacity(), cap, "reused buffer does not grow");
}

#[test]
fn payload_too_large_is_an_error_and_leaves_buffer_alone() {
    let seg = data_seg(0, Payload::Zeros(65_535));
    let mut buf = vec![1, 2, 3];
    let err = encode_frame_into(&seg, &mut buf).unwrap_err();
    // 65535 - 20 (IP) - 32 (TCP with nop,nop,TS).
    assert_eq!(
        err,
        WireError::PayloadTooLarge {
            len: 65_535,
            max: 65_483
        }
    );
    assert_eq!(buf, [1, 2, 3]);
    assert!(encode_ipv4(&data_seg(0, Payload::Zeros(65_483))).is_ok());
}

#[test]
fn ack_flag_follows_ack_field() {
    let mut s = syn();
    s.ack = Some(42);
    let pkt = encode_ipv4(&s).unwrap();
    let back = decode_ipv4(&pkt).unwrap();
    assert_eq!(back.flags, TcpFlags::SYN | TcpFlags::ACK);
    assert_eq!(back.ack, Some(42));
}

#[test]
fn ethernet_padding_is_ignored() {
    let mut seg = data_seg(1, Payload::Zeros(0));
    seg.options = TcpOptions::default();
    let mut frame = encode_frame(&seg).unwrap();
    assert_eq!(frame.len(), 54);
    frame.resize(60, 0);
    let back = decode_frame(&frame).unwrap();
    assert!(back.payload.is_empty());
}

#[test]
fn decode_errors_name_the_problem() {
    let good = encode_ipv4(&data_seg(1, Payload::Bytes(b"abc"))).unwrap();
    let with = |i: usize, v: u8| {
        let mut p = good.clone();
        p[i] = v;
        p
    };
    use WireError::*;
    assert!(matches!(
        decode_ipv4(&good[..10]),
        Err(Truncated {
            layer: Layer::Ipv4,
            need: 20,
            have: 10
        })
    ));
    assert_eq!(decode_ipv4(&with(0, 0x65)), Err(BadIpVersion(6)));
    assert_eq!(decode_ipv4(&with(0, 0x44)), Err(BadIpHeaderLen(4)));
    assert!(matches!(
        decode_ipv4(&good[..good.len() - 1]),
        Err(Truncated {
            layer: Layer::Ipv4,
            ..
        })
    ));
    assert!(matches!(
        decode_ipv4(&with(8, 1)),
        Err(BadIpChecksum { .. })
    ));
    assert!(matches!(
        decode_ipv4(&with(40, b'x')),
        Err(BadTcpChecksum { .. })
    ));
    // Checksums::Ignore lets a corrupted payload through.
    assert!(decode_ipv4_with(&with(52, b'x'), Checksums::Ignore).is_ok());
    assert_eq!(
        decode_ipv4_with(&with(9, 17), Checksums::Ignore),
        Err(NotTcp { protocol: 17 })
    );
    assert_eq!(
        decode_ipv4_with(&with(6, 0x20), Checksums::Ignore),
        Err(Fragmented)
    );
    assert_eq!(
        decode_ipv4_with(&with(32, 0x40), Checksums::Ignore),
        Err(BadDataOffset(4))
    );
    // Timestamp option length 10 -> 9.
    assert_eq!(
        decode_ipv4_with(&with(43, 9), Checksums::Ignore),
        Err(BadOptionLen { kind: 8, len: 9 })
    );
    let mut frame = encode_frame(&syn()).unwrap();
    frame[12] = 0x86;
    frame[13] = 0xdd;
    assert_eq!(decode_frame(&frame), Err(NotIpv4 { ether_type: 0x86dd }));
    assert!(matches!(
        decode_frame(&frame[..5]),
        Err(Truncated {
            layer: Layer::Ethernet,
            ..
        })
    ));
    // Errors print what is wrong.
    let msg = decode_ipv4(&with(8, 1)).unwrap_err().to_string();
    assert!(msg.contains("IPv4 header checksum"), "{msg}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        let _ = decode_ipv4(&bytes);
        let _ = decode_frame(&bytes);
        let _ = decode_ipv4_with(&bytes, Checksums::Ignore);
    }

    /// Valid headers with random tails, mutated bytes and random lengths:
    /// exercises the option parser and length checks past the IP header.
    #[test]
    fn mutated_packets_never_panic(
        seed_opts in proptest::collection::vec(any::<u8>(), 0..40),
        flips in proptest::collection::vec((0usize..100, any::<u8>()), 0..6),
        cut in 0usize..110,
    ) {
        let mut pkt = encode_ipv4(&data_seg(1, Payload::Zeros(20))).unwrap();
        // Overwrite the options area (offset 40..72) with random bytes.
        for (i, b) in seed_opts.iter().enumerate().take(32) {
            pkt[40 + i] = *b;
        }
        for (i, b) in flips {
            if let Some(x) = pkt.get_mut(i) { *x = b; }
        }
        pkt.truncate(cut.max(1));
        let _ = decode_ipv4_with(&pkt, Checksums::Ignore);
        let _ = decode_ipv4(&pkt);
    }

    #[test]
    fn encode_decode_round_trip(
        seq: u32, ack: Option<u32>, flag_bits: u8, window: u16, ttl: u8, ip_id: u16,
        tos: u8, df: bool,
        mss: Option<u16>, ws: Option<u8>, sack_ok: bool,
        ts: Option<(u32, u32)>,
        sack in proptest::collection::vec((any::<u32>(), any::<u32>()), 0..=4),
        payload in proptest::collection::vec(any::<u8>(), 0..64),
    ) {
        let seg = TcpSegment {
            ack, flags: TcpFlags::from_bits(flag_bits), window, ttl, ip_id, tos,
            dont_fragment: df,
            options: TcpOptions {
                mss, window_scale: ws, sack_permitted: sack_ok,
                timestamps: ts.map(|(val, ecr)| Timestamps { val, ecr }),
                sack: blocks(&sack),
            },
            payload: Payload::Bytes(&payload),
            ..TcpSegment::new(addr(7, 1), addr(8, 2), seq)
        };
        let frame = encode_frame(&seg).unwrap();
        prop_assert_eq!(frame.len(), ETHERNET_HEADER_LEN + ipv4_len(&seg));
        let back = decode_frame(&frame).unwrap();
        prop_assert_eq!(back.payload, Payload::Bytes(&payload));
        prop_assert_eq!(back.ack, if back.flags.contains(TcpFlags::ACK) {
            Some(ack.unwrap_or(0))
        } else {
            None
        });
        let n = seg.options.max_sack_blocks().min(sack.len());
        prop_assert_eq!(back.options.sack, blocks(&sack[..n]));
        let mut expect = seg.options;
        expect.sack = blocks(&sack[..n]);
        prop_assert_eq!(back.options, expect);
        prop_assert_eq!((back.seq, back.window, back.ttl, back.ip_id, back.tos, back.dont_fragment),
            (seq, window, ttl, ip_id, tos, df));
        prop_assert_eq!(back.flags, seg.wire_flags());
    }
}

/// RFC 3168 §5, §6.1: the ECN field sits in the TOS byte's low bits (DSCP untouched) and
/// ECE/CWR in the flag byte; both survive a round trip, checked against etherparse's own
/// reading of the bytes.
#[test]
fn ecn_codepoint_and_flags_round_trip() {
    for cp in [ECN_NOT_ECT, ECN_ECT1, ECN_ECT0, ECN_CE] {
        let mut s = data_seg(1000, Payload::Zeros(100));
        s.tos = 0b1011_1000; // DSCP 46 (EF)
        s.set_ecn(cp);
        s.flags |= TcpFlags::ECE | TcpFlags::CWR;
        let bytes = encode_ipv4(&s).unwrap();
        let (ip, _) = Ipv4Header::from_slice(&bytes).unwrap();
        assert_eq!(ip.ecn.value(), cp);
        assert_eq!(ip.dscp.value(), 46);
        let (tcp, _) = TcpHeader::from_slice(&bytes[ip.header_len()..]).unwrap();
        assert!(tcp.ece && tcp.cwr);
        let back = decode_ipv4(&bytes).unwrap();
        assert_eq!(back.ecn(), cp);
        assert_eq!(back.tos >> 2, 46);
        assert!(back.flags.contains(TcpFlags::ECE | TcpFlags::CWR));
    }
}

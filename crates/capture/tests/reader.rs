//! The reader against hand-built captures: link types, IPv6, VLAN, snaplen, truncation,
//! pcapng with two interfaces, garbage.

mod common;
use common::*;
use etherparse::TcpOptionElement;
use lossrec_capture::{decode, scan, FrameSource, Skip, SourceError};

fn data_seg(seq: u32, payload: usize) -> Seg {
    Seg {
        sport: 40000,
        dport: 80,
        seq,
        ack: Some(1),
        window: 100,
        payload,
        ..Seg::default()
    }
}

fn frames(bytes: Vec<u8>) -> Vec<Result<lossrec_capture::Frame<'static>, SourceError>> {
    FrameSource::new(std::io::Cursor::new(bytes))
        .unwrap()
        .collect()
}

#[test]
fn ethernet_ipv4_with_options() {
    let mut s = data_seg(1001, 1448);
    s.options = vec![
        TcpOptionElement::Noop,
        TcpOptionElement::Noop,
        TcpOptionElement::Timestamp(7, 9),
    ];
    let f = frames(pcap(1, &[(1_500_000, eth_v4(&s, true), 0)]));
    let f = f[0].as_ref().unwrap();
    assert_eq!(f.ts_ns, 1_500_000_000);
    let p = decode(f).unwrap();
    assert_eq!(p.seq, 1001);
    assert_eq!(p.payload_len, 1448);
    assert_eq!(p.options.timestamps.map(|t| (t.val, t.ecr)), Some((7, 9)));
    assert_eq!(p.src.to_string(), "10.0.0.1:40000");
    assert!(!p.cut);
}

#[test]
fn vlan_ipv6_and_raw_ipv6_and_linux_cooked() {
    let s = data_seg(5, 100);
    let f = &frames(pcap(1, &[(0, vlan_v6(&s), 0)]))[0];
    let p = decode(f.as_ref().unwrap()).unwrap();
    assert_eq!(p.payload_len, 100);
    assert_eq!(p.src.to_string(), "[fd00::1]:40000");
    let f = &frames(pcap(101, &[(0, raw_v6(&s), 0)]))[0];
    assert_eq!(decode(f.as_ref().unwrap()).unwrap().seq, 5);
    let f = &frames(pcap(113, &[(0, sll_v4(&s), 0)]))[0];
    assert_eq!(decode(f.as_ref().unwrap()).unwrap().payload_len, 100);
}

#[test]
fn non_tcp_and_unknown_link_are_counted() {
    let s = data_seg(5, 10);
    let bytes = pcap(
        1,
        &[
            (0, eth_udp(), 0),
            (1, eth_v4(&s, true), 0),
            (2, vec![0xff; 60], 0),
        ],
    );
    let idx = scan(FrameSource::new(std::io::Cursor::new(bytes)).unwrap());
    assert_eq!(idx.frames, 3);
    assert_eq!(idx.skipped.get("not_tcp"), Some(&1));
    assert_eq!(idx.skipped.get("not_ip"), Some(&1));
    assert_eq!(idx.conns.len(), 1);
    let f = &frames(pcap(147, &[(0, vec![1, 2, 3], 0)]))[0];
    assert_eq!(decode(f.as_ref().unwrap()), Err(Skip::LinkType(147)));
}

#[test]
fn snaplen_cut_keeps_lengths_from_the_ip_header() {
    let s = data_seg(5, 1448);
    let full = eth_v4(&s, true);
    let orig = full.len() as u32;
    // Cut after the TCP header (14 + 20 + 20): usable, lengths from IP.
    let cut = full[..54 + 10].to_vec();
    let f = &frames(pcap(1, &[(0, cut, orig)]))[0];
    let p = decode(f.as_ref().unwrap()).unwrap();
    assert_eq!(p.payload_len, 1448);
    assert!(p.cut);
    // Cut inside the TCP header: skipped as truncated.
    let f = &frames(pcap(1, &[(0, full[..40].to_vec(), orig)]))[0];
    assert_eq!(decode(f.as_ref().unwrap()), Err(Skip::Truncated));
}

#[test]
fn truncated_file_gives_the_records_before_the_cut() {
    let s = data_seg(5, 100);
    let mut bytes = pcap(1, &[(0, eth_v4(&s, true), 0), (1, eth_v4(&s, true), 0)]);
    bytes.truncate(bytes.len() - 30);
    let f = frames(bytes);
    assert_eq!(f.len(), 2);
    assert!(f[0].is_ok());
    let e = f[1].as_ref().unwrap_err();
    assert!(matches!(e, SourceError::Truncated { records: 1 }), "{e}");
    assert!(e.to_string().contains("truncated"));
    // Header only, cut.
    assert!(FrameSource::new(std::io::Cursor::new(vec![0xd4, 0xc3, 0xb2, 0xa1, 2])).is_err());
}

#[test]
fn pcapng_two_interfaces_with_their_own_clocks() {
    let s = data_seg(5, 100);
    // Interface 0: Ethernet, microseconds; interface 1: raw IP, nanoseconds.
    let bytes = pcapng(
        &[(1, 6), (101, 9)],
        &[
            (0, 2_000_000, eth_v4(&s, true)),
            (1, 3_000_000_123, raw_v6(&s)),
        ],
    );
    let f: Vec<_> = frames(bytes).into_iter().map(|f| f.unwrap()).collect();
    assert_eq!(f.len(), 2);
    assert_eq!(
        (f[0].ts_ns, f[0].linktype, f[0].interface),
        (2_000_000_000, 1, 0)
    );
    assert_eq!(
        (f[1].ts_ns, f[1].linktype, f[1].interface),
        (3_000_000_123, 101, 1)
    );
    assert!(decode(&f[0]).is_ok() && decode(&f[1]).is_ok());
}

#[test]
fn garbage_never_panics() {
    let e = FrameSource::new(std::io::Cursor::new(b"hello world".to_vec())).unwrap_err();
    assert!(e.to_string().contains("not a pcap"), "{e}");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let s = data_seg(5, 100);
    let good = pcap(1, &[(0, eth_v4(&s, true), 0), (1, vlan_v6(&s), 0)]);
    let good_ng = pcapng(&[(1, 6)], &[(0, 1, eth_v4(&s, true))]);
    for round in 0..3000 {
        let base = if round % 2 == 0 { &good } else { &good_ng };
        let mut b = base.clone();
        for _ in 0..(next() % 8 + 1) {
            let i = (next() as usize) % b.len();
            b[i] = next() as u8;
        }
        b.truncate((next() as usize) % (b.len() + 1));
        if let Ok(src) = FrameSource::new(std::io::Cursor::new(b)) {
            for f in src.take(10).flatten() {
                let _ = decode(&f);
            }
        }
    }
}

/// Each frame or error of a source, as comparable text.
fn outline(src: FrameSource) -> Vec<String> {
    src.take(50)
        .map(|f| match f {
            Ok(f) => format!(
                "{} {} {} {} {:?}",
                f.ts_ns, f.linktype, f.interface, f.orig_len, f.data
            ),
            Err(e) => format!("error: {e}"),
        })
        .collect()
}

/// A regular file is read through a memory map (`FrameSource::open`); it must give the
/// frames and errors the streaming reader gives for the same bytes: whole captures of
/// both formats, cut ones, corrupted ones, an empty file.
#[test]
fn mapped_file_reads_as_the_stream_does() {
    use std::io::Write;
    let s = data_seg(5, 100);
    let good = pcap(1, &[(0, eth_v4(&s, true), 0), (1, vlan_v6(&s), 0)]);
    let good_ng = pcapng(
        &[(1, 6), (101, 9)],
        &[
            (0, 2_000_000, eth_v4(&s, true)),
            (1, 3_000_000_123, raw_v6(&s)),
        ],
    );
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut cases = vec![Vec::new(), good.clone(), good_ng.clone()];
    for round in 0..400 {
        let mut b = if round % 2 == 0 {
            good.clone()
        } else {
            good_ng.clone()
        };
        if round % 3 != 0 {
            let i = 4 + (next() as usize) % (b.len() - 4);
            b[i] = next() as u8;
        }
        b.truncate((next() as usize) % (b.len() + 1));
        cases.push(b);
    }
    for (i, b) in cases.into_iter().enumerate() {
        let mut t = tempfile::NamedTempFile::new().unwrap();
        t.write_all(&b).unwrap();
        t.flush().unwrap();
        let streamed = FrameSource::new(std::io::Cursor::new(b.clone())).map(outline);
        let mapped = FrameSource::open(t.path()).map(outline);
        match (streamed, mapped) {
            (Ok(a), Ok(m)) => assert_eq!(a, m, "case {i}: {b:02x?}"),
            (Err(a), Err(m)) => assert_eq!(a.to_string(), m.to_string(), "case {i}"),
            (a, m) => panic!("case {i}: streamed {a:?}, mapped {m:?}"),
        }
    }
}

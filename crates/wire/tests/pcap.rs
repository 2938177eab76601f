//! The pcap writer's bytes, checked by hand and read back with `pcap-file`.

use std::net::SocketAddrV4;
use std::time::Duration;

use lossrec_wire::*;
use pcap_file::pcap::PcapReader;
use pcap_file::{DataLink, TsResolution};

fn seg(seq: u32, len: usize) -> TcpSegment<'static> {
    TcpSegment {
        ack: Some(1),
        payload: Payload::Zeros(len),
        window: 100,
        ..TcpSegment::new(
            SocketAddrV4::new([10, 0, 0, 1].into(), 1234),
            SocketAddrV4::new([10, 0, 0, 2].into(), 80),
            seq,
        )
    }
}

#[test]
fn global_and_record_headers() {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    w.write_frame(1_234_567_891_999, &[0xab; 3]).unwrap();
    let out = w.into_inner();
    assert_eq!(
        &out[..24],
        &[
            0xd4, 0xc3, 0xb2, 0xa1, // magic, little-endian, microseconds
            2, 0, 4, 0, // version 2.4
            0, 0, 0, 0, 0, 0, 0, 0, // thiszone, sigfigs
            0, 0, 4, 0, // snaplen 262144
            1, 0, 0, 0, // LINKTYPE_ETHERNET
        ]
    );
    assert_eq!(
        &out[24..],
        &[
            0xd2, 0x04, 0, 0, // 1234 s
            0x53, 0xaa, 0x08, 0, // 567891 µs (ns truncated)
            3, 0, 0, 0, 3, 0, 0, 0, // incl_len, orig_len
            0xab, 0xab, 0xab,
        ]
    );
}

#[test]
fn read_back_with_pcap_file() {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    let times = [0u64, 1_500, 2_000_000_000, 3_000_000_999];
    for (i, t) in times.iter().enumerate() {
        w.write_segment(*t, &seg(i as u32 * 100, 100)).unwrap();
    }
    w.flush().unwrap();
    let bytes = w.into_inner();
    let mut r = PcapReader::new(&bytes[..]).unwrap();
    let h = r.header();
    assert_eq!(h.datalink, DataLink::ETHERNET);
    assert_eq!(h.ts_resolution, TsResolution::MicroSecond);
    let mut n = 0;
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        let t = times[n];
        assert_eq!(p.timestamp, Duration::from_micros(t / 1000));
        let s = decode_frame(&p.data).unwrap();
        assert_eq!(s.seq, n as u32 * 100);
        assert_eq!(p.orig_len as usize, p.data.len());
        n += 1;
    }
    assert_eq!(n, times.len());
}

#[test]
fn errors_are_reported_not_panics() {
    let mut w = PcapWriter::new(Vec::new()).unwrap();
    let too_late = (u64::from(u32::MAX) + 1) * 1_000_000_000;
    assert!(matches!(
        w.write_frame(too_late, &[1]),
        Err(PcapError::TimestampOutOfRange(_))
    ));
    assert!(matches!(
        w.write_segment(0, &seg(0, 70_000)),
        Err(PcapError::Encode(WireError::PayloadTooLarge { .. }))
    ));
    // Nothing was written for the failed records.
    assert_eq!(w.get_ref().len(), 24);
}

//! The pcap capture: every traced send and every ACK reaching the sender, as decodable
//! Ethernet/IPv4/TCP frames with consistent 32-bit sequence numbers.

mod common;
use common::*;
use lossrec_sim::{run, RunOptions};
use lossrec_wire::{decode_frame, seq, TcpFlags};

/// `(timestamp µs, frame)` records of a classic pcap file.
fn records(pcap: &[u8]) -> Vec<(u64, Vec<u8>)> {
    assert_eq!(&pcap[..4], &0xa1b2_c3d4u32.to_le_bytes());
    let mut out = Vec::new();
    let mut at = 24;
    while at < pcap.len() {
        let u32_at = |i: usize| u32::from_le_bytes(pcap[i..i + 4].try_into().unwrap());
        let t = u64::from(u32_at(at)) * 1_000_000 + u64::from(u32_at(at + 4));
        let len = u32_at(at + 8) as usize;
        out.push((t, pcap[at + 16..at + 16 + len].to_vec()));
        at += 16 + len;
    }
    out
}

#[test]
fn capture_matches_the_trace() {
    let text = "[path]\nrtt_ms = 30\n[path.loss]\nmodel = \"bernoulli\"\np = 0.05\n[path.ack_loss]\nmodel = \"bernoulli\"\np = 0.05\n[workload]\nflows = 3\nsegments = 40\narrival = \"concurrent\"\n";
    let out = run(
        &scenario(text),
        &RunOptions {
            trace: true,
            pcap: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    let l = lines(&out);
    let recs = records(out.pcap.as_ref().unwrap());
    let sends = kind(&l, "send");
    let acks = kind(&l, "ack");
    assert_eq!(recs.len(), sends.len() + acks.len());
    for flow in 0..3u16 {
        let segs: Vec<_> = recs
            .iter()
            .map(|(t, f)| (*t, decode_frame(f).unwrap()))
            .filter(|(_, s)| s.src.port() == 10_000 + flow || s.dst.port() == 10_000 + flow)
            .collect();
        let (_, syn) = &segs[0];
        assert_eq!(syn.flags, TcpFlags::SYN);
        // The SYN offers Linux's advmss (1460 on a 1500-byte MTU): the 1448-byte payload plus the
        // timestamp option.
        assert_eq!(syn.options.mss, Some(1460));
        assert!(syn.options.sack_permitted && syn.options.timestamps.is_some());
        let isn_s = syn.seq;
        let (_, synack) = segs
            .iter()
            .find(|(_, s)| s.flags.contains(TcpFlags::SYN | TcpFlags::ACK))
            .unwrap();
        assert_eq!(synack.ack, Some(isn_s.wrapping_add(1)));
        // Data frames in capture order are the trace's data sends of this flow.
        let data: Vec<(u64, u32, usize)> = segs
            .iter()
            .filter(|(_, s)| s.src.port() == 10_000 + flow && !s.payload.is_empty())
            .map(|(t, s)| (*t, s.seq, s.payload.len()))
            .collect();
        let traced: Vec<(u64, u32, usize)> = data_sends(&l)
            .iter()
            .filter(|s| s["flow"] == u64::from(flow))
            .map(|s| {
                let (a, b) = seq(s);
                (
                    s["t_us"].as_u64().unwrap(),
                    seq::wrap(isn_s, a),
                    (b - a) as usize,
                )
            })
            .collect();
        assert_eq!(data, traced);
        // The last ACK acknowledges the FIN too.
        let (_, last) = segs
            .iter()
            .rev()
            .find(|(_, s)| s.dst.port() == 10_000 + flow)
            .unwrap();
        assert_eq!(last.ack, Some(seq::wrap(isn_s, 40 * 1448).wrapping_add(1)));
        let fins = segs
            .iter()
            .filter(|(_, s)| s.flags.contains(TcpFlags::FIN))
            .count();
        assert!(fins >= 1);
    }
}

#[test]
fn sack_blocks_are_in_sequence_space() {
    let text = "[path.loss]\nmodel = \"drop-list\"\npackets = [1]\n[workload]\nsegments = 6\n";
    let out = run(
        &scenario(text),
        &RunOptions {
            pcap: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    let segs: Vec<_> = records(out.pcap.as_ref().unwrap())
        .iter()
        .map(|(_, f)| decode_frame(f).unwrap().to_owned_parts())
        .collect();
    let isn_s = segs[0].0;
    let sacked: Vec<(u32, u32)> = segs.iter().flat_map(|s| s.1.clone()).collect();
    assert!(!sacked.is_empty());
    // Segment 1 was lost: the first SACK block starts at segment 2.
    assert_eq!(sacked[0].0, seq::wrap(isn_s, 2 * 1448));
}

trait Parts {
    fn to_owned_parts(&self) -> (u32, Vec<(u32, u32)>);
}
impl Parts for lossrec_wire::TcpSegment<'_> {
    fn to_owned_parts(&self) -> (u32, Vec<(u32, u32)>) {
        (
            self.seq,
            self.options
                .sack
                .as_slice()
                .iter()
                .map(|b| (b.left, b.right))
                .collect(),
        )
    }
}

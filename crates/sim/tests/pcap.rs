//! The pcap capture: every traced send and every ACK reaching the sender, as decodable
//! Ethernet/IPv4/TCP frames with consistent 32-bit sequence numbers.

mod common;
use common::*;
use lossrec_sim::pcap::EPOCH_NS;
use lossrec_sim::{run, RunOptions};
use lossrec_wire::{decode_frame, seq, TcpFlags};

/// `(timestamp µs since the run started, frame)` records of a classic pcap file, whose
/// timestamps start at [`EPOCH_NS`] (2026), not 1970.
fn records(pcap: &[u8]) -> Vec<(u64, Vec<u8>)> {
    assert_eq!(&pcap[..4], &0xa1b2_c3d4u32.to_le_bytes());
    let mut out = Vec::new();
    let mut at = 24;
    while at < pcap.len() {
        let u32_at = |i: usize| u32::from_le_bytes(pcap[i..i + 4].try_into().unwrap());
        let t = u64::from(u32_at(at)) * 1_000_000 + u64::from(u32_at(at + 4));
        assert!(t >= EPOCH_NS / 1_000, "timestamp {t} µs is before 2026");
        let t = t - EPOCH_NS / 1_000;
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
    // Every send and ACK, plus each flow's closing ACK of the receiver's FIN.
    assert_eq!(recs.len(), sends.len() + acks.len() + 3);
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
        let fins = |port: u16| {
            segs.iter()
                .filter(|(_, s)| s.src.port() == port && s.flags.contains(TcpFlags::FIN))
                .count()
        };
        assert!(
            fins(10_000 + flow) >= 1,
            "the sender's FIN (maybe retransmitted)"
        );
        assert_eq!(fins(80), 1, "the receiver's FIN, once");
        // The connection closes: the receiver's FIN, then the sender's ACK of it.
        let (_, fin_ack) = segs
            .iter()
            .find(|(_, s)| s.dst.port() == 10_000 + flow && s.flags.contains(TcpFlags::FIN))
            .unwrap();
        let (_, close) = segs.last().unwrap();
        assert_eq!(close.src.port(), 10_000 + flow);
        assert_eq!(close.ack, Some(fin_ack.seq.wrapping_add(1)));
        assert_eq!(close.seq, seq::wrap(isn_s, 40 * 1448).wrapping_add(1));
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

/// A writer the test reads back after the run.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
impl std::io::Write for Shared {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn streamed_outputs_equal_the_in_memory_ones_and_the_receiver_sees_arrivals() {
    let text = "[path]\nrtt_ms = 30\n[path.loss]\nmodel = \"bernoulli\"\np = 0.05\n[path.ack_loss]\nmodel = \"bernoulli\"\np = 0.05\n[workload]\nsegments = 60\n";
    let opts = RunOptions {
        trace: true,
        pcap: true,
        ..RunOptions::default()
    };
    let memory = run(&scenario(text), &opts).unwrap();
    let (t, p, r) = (Shared::default(), Shared::default(), Shared::default());
    let sinks = lossrec_sim::Sinks {
        trace: Some(Box::new(t.clone())),
        pcap: Some(Box::new(p.clone())),
        pcap_receiver: Some(Box::new(r.clone())),
    };
    let streamed = lossrec_sim::run_to(&scenario(text), &opts, sinks).unwrap();
    assert!(streamed.trace.is_none() && streamed.pcap.is_none());
    assert_eq!(
        memory.trace.as_deref().unwrap().as_bytes(),
        &t.0.lock().unwrap()[..]
    );
    assert_eq!(memory.pcap.as_deref().unwrap(), &p.0.lock().unwrap()[..]);
    assert_eq!(streamed.outputs.trace_lines, memory.outputs.trace_lines);
    assert_eq!(streamed.outputs.error, None);

    // At the receiver: data as it arrived (the trace's recv lines), ACKs as sent (those
    // that reached the sender plus those the path dropped), and the closing ACK.
    let l = lines(&memory);
    let rx = records(&r.0.lock().unwrap());
    let data_in = rx
        .iter()
        .filter(|(_, f)| decode_frame(f).unwrap().dst.port() == 80)
        .count();
    assert_eq!(data_in, kind(&l, "recv").len() + 1);
    let acks_out = rx.len() - data_in;
    assert_eq!(acks_out, kind(&l, "ack").len() + ack_drops(&l).len());
    assert_eq!(streamed.outputs.pcap_receiver_records, rx.len() as u64);
}

/// The capture shows the TSval clock a TCP endpoint puts on the wire (`lossrec-tcp`'s
/// default, milliseconds as Linux's `tcp_time_stamp`, offset 1), each host's own, and
/// every echo names a TSval the other host sent (RFC 7323 §3.2). It used to carry the
/// engine's microsecond values.
#[test]
fn timestamps_tick_in_milliseconds() {
    let text = "[path]\nrtt_ms = 30\n[path.loss]\nmodel = \"bernoulli\"\np = 0.05\n[workload]\nsegments = 40\n";
    let opts = RunOptions {
        pcap: true,
        ..RunOptions::default()
    };
    let out = run(&scenario(text), &opts).unwrap();
    let recs = records(out.pcap.as_ref().unwrap());
    let (mut sent_by_client, mut sent_by_server) = (Vec::new(), Vec::new());
    for (t_us, f) in &recs {
        let s = decode_frame(f).unwrap();
        let Some(ts) = s.options.timestamps else {
            continue;
        };
        let client = s.src.port() == 10_000;
        if client {
            // Stamped as the sender emits it: the capture's time is the send time.
            assert_eq!(ts.val, (t_us / 1000) as u32 + 1, "{s:?} at {t_us} µs");
        } else {
            // ACKs are captured on arrival, a one-way delay (15 ms) after they were sent.
            assert!(ts.val <= (t_us / 1000) as u32 + 1, "{s:?} at {t_us} µs");
            assert!(ts.val + 15 >= (t_us / 1000) as u32, "{s:?} at {t_us} µs");
        }
        let (own, other) = if client {
            (&mut sent_by_client, &sent_by_server)
        } else {
            (&mut sent_by_server, &sent_by_client)
        };
        own.push(ts.val);
        if ts.ecr != 0 && !other.is_empty() {
            // The other side's sends are captured late or not at all (the capture point is
            // the sender's host), so an echo is at most one of its values seen or newer.
            assert!(
                ts.ecr <= (t_us / 1000) as u32 + 1,
                "echo {} in the future",
                ts.ecr
            );
        }
    }
    assert!(sent_by_client.len() > 40 && !sent_by_server.is_empty());
    // The receiver echoes values the client sent.
    let client_vals: std::collections::BTreeSet<u32> = sent_by_client.iter().copied().collect();
    for (_, f) in &recs {
        let s = decode_frame(f).unwrap();
        if let (Some(ts), true) = (s.options.timestamps, s.src.port() != 10_000) {
            assert!(
                ts.ecr == 0 || client_vals.contains(&ts.ecr),
                "echo {} never sent",
                ts.ecr
            );
        }
    }
}

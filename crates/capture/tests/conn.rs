//! Reconstruction: offsets across the 32-bit wrap, TSO splitting, SACK/DSACK, window
//! scale, capture drops, a mid-connection start.

use lossrec_capture::conn::{Reconstructor, Record, MID_BASE};
use lossrec_capture::TcpPacket;
use lossrec_wire::{SackBlock, TcpFlags, TcpOptions, Timestamps};

const S: &str = "10.0.0.1:40000";
const R: &str = "10.0.0.2:80";

fn pkt(from_sender: bool, seq: u32, ack: Option<u32>, flags: TcpFlags, len: u32) -> TcpPacket {
    let (src, dst) = if from_sender { (S, R) } else { (R, S) };
    TcpPacket {
        ts_ns: 0,
        src: src.parse().unwrap(),
        dst: dst.parse().unwrap(),
        seq,
        ack,
        flags: if ack.is_some() {
            flags | TcpFlags::ACK
        } else {
            flags
        },
        window: 100,
        options: TcpOptions::default(),
        payload_len: len,
        ecn: 0,
        cut: false,
    }
}

fn handshake(rec: &mut Reconstructor, isn: u32, ts: bool) {
    let mut syn = pkt(true, isn, None, TcpFlags::SYN, 0);
    syn.options.mss = Some(1460);
    syn.options.window_scale = Some(7);
    syn.options.sack_permitted = true;
    let mut sa = pkt(false, 9, Some(isn.wrapping_add(1)), TcpFlags::SYN, 0);
    sa.options.mss = Some(1460);
    sa.options.window_scale = Some(3);
    sa.options.sack_permitted = true;
    if ts {
        syn.options.timestamps = Some(Timestamps { val: 1, ecr: 0 });
        sa.options.timestamps = Some(Timestamps { val: 5, ecr: 1 });
    }
    rec.push(&syn).count();
    rec.push(&sa).count();
}

#[test]
fn wrap_tso_split_sack_dsack_and_window_scale() {
    let isn = u32::MAX - 1000;
    let mut rec = Reconstructor::new(S.parse().unwrap(), R.parse().unwrap(), 1000);
    handshake(&mut rec, isn, true);
    assert_eq!(rec.mss, 1448);
    // A 3-MSS super-packet starting just before the wrap.
    let d: Vec<Record> = rec
        .push(&pkt(
            true,
            isn.wrapping_add(1),
            Some(10),
            TcpFlags::PSH,
            3 * 1448,
        ))
        .collect();
    let pieces: Vec<(u64, u64, bool)> = d
        .iter()
        .filter_map(|r| match r {
            Record::Data(t) => Some((t.start, t.end, t.psh)),
            _ => None,
        })
        .collect();
    assert_eq!(
        pieces,
        vec![(0, 1448, false), (1448, 2896, false), (2896, 4344, true)]
    );
    assert_eq!(rec.stats.super_packets, 1);
    // An ACK past the wrap with a SACK block and a DSACK below it.
    let mut a = pkt(
        false,
        10,
        Some(isn.wrapping_add(1 + 1448)),
        TcpFlags::empty(),
        0,
    );
    a.options.sack.push(SackBlock::new(
        isn.wrapping_add(1),
        isn.wrapping_add(1 + 1448),
    ));
    a.options.sack.push(SackBlock::new(
        isn.wrapping_add(1 + 2896),
        isn.wrapping_add(1 + 4344),
    ));
    a.window = 1000;
    let r: Vec<Record> = rec.push(&a).collect();
    let Record::Ack(ack) = r[0] else {
        panic!("{r:?}")
    };
    assert_eq!(ack.cumulative, 1448);
    assert_eq!(ack.sack_blocks(), &[(0, 1448), (2896, 4344)]);
    assert_eq!(ack.window, 8000, "scaled by the SYN-ACK's shift 3");
}

#[test]
fn capture_drops_are_proven_by_acks() {
    let mut rec = Reconstructor::new(S.parse().unwrap(), R.parse().unwrap(), 1000);
    handshake(&mut rec, 100, false);
    assert_eq!(rec.mss, 1460);
    rec.push(&pkt(true, 101, Some(10), TcpFlags::empty(), 1460))
        .count();
    // The capture misses [1460, 2920) and shows [2920, 4380).
    rec.push(&pkt(true, 101 + 2920, Some(10), TcpFlags::empty(), 1460))
        .count();
    let r: Vec<Record> = rec
        .push(&pkt(false, 10, Some(101 + 4380), TcpFlags::empty(), 0))
        .collect();
    assert!(
        r.contains(&Record::CaptureDrop {
            ts_ns: 0,
            start: 1460,
            end: 2920
        }),
        "{r:?}"
    );
    assert_eq!(rec.stats.capture_drop_bytes, 1460);
    // An ACK beyond anything captured proves the rest.
    let r: Vec<Record> = rec
        .push(&pkt(false, 10, Some(101 + 5000), TcpFlags::empty(), 0))
        .collect();
    assert!(r.iter().any(|x| matches!(
        x,
        Record::CaptureDrop {
            start: 4380,
            end: 5000,
            ..
        }
    )));
}

#[test]
fn mid_connection_start_keeps_earlier_retransmissions() {
    let mut rec = Reconstructor::new(S.parse().unwrap(), R.parse().unwrap(), 1448);
    let r: Vec<Record> = rec
        .push(&pkt(true, 5_000_000, Some(10), TcpFlags::empty(), 1448))
        .collect();
    assert!(rec.mid_connection);
    let Record::Data(t) = r[0] else { panic!() };
    assert_eq!(t.start, MID_BASE);
    // A retransmission of earlier data maps below the base.
    let r: Vec<Record> = rec
        .push(&pkt(
            true,
            5_000_000 - 1448,
            Some(10),
            TcpFlags::empty(),
            1448,
        ))
        .collect();
    let Record::Data(t) = r[0] else { panic!() };
    assert_eq!(t.start, MID_BASE - 1448);
    let r: Vec<Record> = rec
        .push(&pkt(false, 10, Some(5_000_000), TcpFlags::empty(), 0))
        .collect();
    let Record::Ack(a) = r[0] else { panic!() };
    assert_eq!(a.cumulative, MID_BASE);
    assert_eq!(a.window, u64::MAX, "unknown scale: not a limit");
}

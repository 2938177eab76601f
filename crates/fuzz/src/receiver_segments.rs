//! The receiver fed arbitrary segments (a hostile or broken sender): SYNs at any time,
//! data anywhere in the sequence space, inverted ranges, FINs, timestamps of any value.
//!
//! Checked on every ACK it returns: the cumulative ACK never moves back and never passes
//! what was delivered; at most 4 SACK blocks (3 with timestamps, RFC 2018 §3), none empty,
//! those after a DSACK (RFC 2883 §4) above the cumulative ACK and disjoint; the right edge
//! of the window never recedes once established (RFC 9293 §3.8.6: a receiver should not
//! shrink it); the delayed-ACK deadline lies within 500 ms (RFC 1122 §4.2.3.2); and the
//! byte accounting adds up (delivered + held out of order = new bytes received).

use crate::sender_ops::ReceiverTweaks;
use arbitrary::{Arbitrary, Unstructured};
use lossrec::receiver::WindowModel;
use lossrec::{Ack, Duration, Instant, Range, Receiver, ReceiverConfig, Segment, SynOptions};

/// Operations run at most per input.
const MAX_OPS: usize = 4096;

#[derive(Arbitrary, Debug)]
pub struct Input {
    /// The same settings as the sender target's receiver (decoded from the same bytes as
    /// when they were listed here one by one, so the seeds keep their meaning).
    pub receiver: ReceiverTweaks,
    pub linux_window: bool,
    pub quickack_segments: u8,
    pub ops: Vec<Op>,
}

#[derive(Arbitrary, Debug)]
pub enum Op {
    Segment(ArbSegment),
    /// Time passes (units of 100 µs).
    Advance(u16),
    /// Time jumps to the delayed-ACK deadline, which fires.
    Timeout,
}

#[derive(Arbitrary, Debug)]
pub struct ArbSegment {
    pub start: Seq,
    pub len: u16,
    /// A raw end instead of `start + len` (inverted ranges included).
    pub raw_end: Option<u64>,
    pub syn: Option<(u16, bool, bool, Option<u8>)>,
    pub fin: bool,
    pub psh: bool,
    pub ts: Option<(u64, u64)>,
}

#[derive(Arbitrary, Debug, Clone, Copy)]
pub enum Seq {
    /// RCV.NXT plus this many bytes.
    Nxt(i16),
    /// RCV.NXT plus this many MSS.
    NxtSegs(i8),
    Raw(u64),
}

/// The fuzz target.
pub fn run(data: &[u8]) {
    if let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(data)) {
        run_input(&input);
    }
}

/// Runs one input and returns what its ACKs showed; panics when an invariant breaks.
pub fn run_input(input: &Input) -> Seen {
    let cfg = ReceiverConfig {
        window_model: if input.linux_window {
            WindowModel::Linux
        } else {
            WindowModel::Fixed
        },
        quickack_segments: u32::from(input.quickack_segments),
        ..input.receiver.config()
    };
    let mss = u64::from(cfg.mss.max(1));
    let mut now = Instant::from_millis(1);
    let mut rx = Receiver::new(cfg, now);
    let mut seen = Seen::default();
    for op in input.ops.iter().take(MAX_OPS) {
        match op {
            Op::Segment(s) => {
                let seg = segment(&rx, mss, s);
                rx.on_segment(now, &seg);
            }
            Op::Advance(n) => now += Duration::from_micros(u64::from(*n) * 100),
            Op::Timeout => {
                if let Some(t) = rx.poll_timeout() {
                    now = now.max(t);
                    rx.on_timeout(now);
                }
            }
        }
        if let Some(t) = rx.poll_timeout() {
            assert!(
                t <= now + Duration::from_millis(500),
                "delayed-ACK deadline {t} more than 500 ms after {now}"
            );
        }
        while let Some(a) = rx.poll_ack(now) {
            seen.check(&rx, &a);
        }
        // An out-of-order FIN is held with its sequence number (`tcp_data_queue_ofo`),
        // which is not a byte of data.
        let fin_held = rx.fin_seq().is_some() && !rx.fin_received();
        seen.fin_held_out_of_order |= fin_held;
        let held: u64 = rx.out_of_order().map(|r| r.len()).sum::<u64>() - u64::from(fin_held);
        assert_eq!(
            rx.delivered() + held,
            rx.stats().bytes_in,
            "delivered {} + out of order {held} != new bytes received",
            rx.delivered()
        );
    }
    seen
}

fn segment(rx: &Receiver, mss: u64, s: &ArbSegment) -> Segment {
    let nxt = rx.delivered();
    let start = match s.start {
        Seq::Nxt(k) => nxt.saturating_add_signed(i64::from(k)),
        Seq::NxtSegs(k) => nxt.saturating_add_signed(i64::from(k).saturating_mul(mss as i64)),
        Seq::Raw(v) => v,
    };
    let end = s
        .raw_end
        .unwrap_or_else(|| start.saturating_add(u64::from(s.len)));
    Segment {
        ecn: Default::default(),
        range: Range::new(start, end),
        syn: s.syn.map(|(mss, sack, ts, ws)| SynOptions {
            ecn: false,
            mss,
            sack_permitted: sack,
            timestamps: ts,
            window_scale: ws,
        }),
        fin: s.fin,
        psh: s.psh,
        ts: s.ts.map(|(val, ecr)| lossrec::Timestamps { val, ecr }),
    }
}

/// What the ACKs so far showed, and what the regression seeds' tests ask
/// (`tests/regression_seeds.rs`).
#[derive(Debug, Default)]
pub struct Seen {
    cumulative: u64,
    right_edge: u64,
    /// An ACK acknowledged a FIN: its cumulative ACK is one past the data.
    pub fin_acked: bool,
    /// A FIN was held above a hole (out of order, `tcp_data_queue_ofo`).
    pub fin_held_out_of_order: bool,
}

impl Seen {
    fn check(&mut self, rx: &Receiver, a: &Ack) {
        assert!(
            a.cumulative >= self.cumulative,
            "cumulative ACK moved back: {} -> {}",
            self.cumulative,
            a.cumulative
        );
        // RCV.NXT: what was delivered, and the FIN's sequence number once it is in.
        let rcv_nxt = rx.delivered() + u64::from(rx.fin_received());
        assert!(
            a.cumulative <= rcv_nxt,
            "ACK {a:?} beyond RCV.NXT {rcv_nxt}"
        );
        self.cumulative = a.cumulative;
        self.fin_acked |= rx.fin_received() && a.cumulative == rx.delivered() + 1;
        let max = if a.ts.is_some() { 3 } else { 4 };
        assert!(a.sack.len() <= max, "{} SACK blocks in {a:?}", a.sack.len());
        for b in a.sack.iter() {
            assert!(!b.is_empty(), "empty SACK block in {a:?}");
        }
        let blocks = a.sack_blocks();
        for (i, b) in blocks.iter().enumerate() {
            assert!(b.start > a.cumulative, "SACK block {b:?} at or below {a:?}");
            for c in &blocks[i + 1..] {
                assert!(!b.overlaps(c), "overlapping SACK blocks in {a:?}");
            }
        }
        if a.syn.is_none() {
            let edge = a.cumulative.saturating_add(a.window);
            assert!(
                edge >= self.right_edge,
                "window right edge receded: {} -> {edge} in {a:?}",
                self.right_edge
            );
            self.right_edge = edge;
        }
    }
}

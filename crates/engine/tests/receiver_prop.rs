//! Property tests: any permutation and duplication of a stream's segments is delivered in
//! full, and every ACK obeys RFC 2018 / RFC 2883 against a byte-level model of what was
//! received. Hostile input never panics.

use lossrec::Timestamps;
use lossrec::{Ack, Duration, Instant, Range, Receiver, ReceiverConfig, Segment, SynOptions};
use proptest::prelude::*;

fn seg(a: u64, b: u64) -> Segment {
    Segment {
        range: Range::new(a, b),
        ..Segment::default()
    }
}

/// Which bytes of `[0, n)` have arrived.
struct Model {
    got: Vec<bool>,
}
impl Model {
    fn has(&self, i: u64) -> bool {
        self.got.get(i as usize).copied().unwrap_or(false)
    }
    fn all(&self, r: Range) -> bool {
        (r.start..r.end).all(|i| self.has(i))
    }
    fn rcv_nxt(&self) -> u64 {
        self.got.iter().position(|b| !b).unwrap_or(self.got.len()) as u64
    }
    fn add(&mut self, r: Range) {
        for i in r.start..r.end {
            self.got[i as usize] = true;
        }
    }
}

/// Invariants every ACK must meet, whatever triggered it.
fn check_blocks(ack: &Ack, max: usize) -> Result<(), TestCaseError> {
    let blocks = ack.sack.as_slice();
    prop_assert!(
        blocks.len() <= max,
        "{} blocks > {max}: {ack:?}",
        blocks.len()
    );
    let plain = ack.sack_blocks();
    for (i, b) in plain.iter().enumerate() {
        prop_assert!(!b.is_empty());
        prop_assert!(
            b.start > ack.cumulative,
            "block {b:?} not above {}",
            ack.cumulative
        );
        for c in &plain[i + 1..] {
            prop_assert!(
                !b.overlaps(c) && b.end != c.start && c.end != b.start,
                "{ack:?}"
            );
        }
    }
    if let Some(d) = ack.dsack() {
        prop_assert!(!d.is_empty());
    }
    Ok(())
}

fn config() -> impl Strategy<Value = ReceiverConfig> {
    (
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(1u64..300),
        0u32..20,
    )
        .prop_map(|(sack, dsack, timestamps, delack, quick)| ReceiverConfig {
            delayed_ack: delack.map(Duration::from_millis),
            sack,
            dsack,
            timestamps,
            quickack_segments: quick,
            window_model: lossrec::receiver::WindowModel::Fixed,
            ..ReceiverConfig::default()
        })
}

/// A stream cut into segments, plus duplicates and arbitrary overlapping ranges, shuffled.
fn stream() -> impl Strategy<Value = (u64, Vec<Range>)> {
    prop::collection::vec(1u64..2000, 1..40)
        .prop_flat_map(|lens| {
            let mut cuts = Vec::new();
            let mut at = 0;
            for l in lens {
                cuts.push(Range::new(at, at + l));
                at += l;
            }
            let n = at;
            let extra = prop::collection::vec((0..n, 1u64..3000), 0..20).prop_map(move |v| {
                v.into_iter()
                    .map(|(s, l)| Range::new(s, (s + l).min(n)))
                    .collect::<Vec<_>>()
            });
            let dups = prop::sample::subsequence(cuts.clone(), 0..=cuts.len());
            (Just(n), Just(cuts), dups, extra)
        })
        .prop_flat_map(|(n, mut cuts, dups, extra)| {
            cuts.extend(dups);
            cuts.extend(extra);
            (Just(n), Just(cuts).prop_shuffle())
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn any_arrival_order_delivers_everything((n, segs) in stream(), cfg in config()) {
        let max = if cfg.timestamps { 3 } else { 4 };
        let delayed = cfg.delayed_ack.is_some();
        let mut rx = Receiver::new(cfg.clone(), Instant::ZERO);
        let mut model = Model { got: vec![false; n as usize] };
        let mut last_cum = 0;
        let mut last_ack = None;
        for (k, r) in segs.iter().enumerate() {
            let now = Instant::from_millis(k as u64 + 1);
            if rx.poll_timeout().is_some_and(|t| t <= now) {
                rx.on_timeout(now);
                while let Some(a) = rx.poll_ack(now) {
                    check_blocks(&a, max)?;
                    last_ack = Some(a);
                }
            }
            let before = Model { got: model.got.clone() };
            rx.on_segment(now, &Segment { ts: Some(Timestamps { val: k as u64, ecr: 0 }), ..seg(r.start, r.end) });
            model.add(*r);
            let acks: Vec<Ack> = std::iter::from_fn(|| rx.poll_ack(now)).collect();
            prop_assert!(acks.len() <= 1);
            if !delayed {
                prop_assert_eq!(acks.len(), 1, "ACK every segment");
            }
            prop_assert_eq!(rx.delivered(), model.rcv_nxt());
            for a in &acks {
                check_blocks(a, max)?;
                prop_assert_eq!(a.cumulative, model.rcv_nxt());
                prop_assert!(a.cumulative >= last_cum);
                last_cum = a.cumulative;
                if !cfg.sack {
                    prop_assert!(a.sack.is_empty());
                    continue;
                }
                // Every reported block is a maximal run of received bytes.
                for b in a.sack_blocks() {
                    prop_assert!(model.all(*b) && !model.has(b.end) && !model.has(b.start - 1));
                }
                // A D-SACK reports bytes of this segment that had arrived before.
                let d = a.dsack();
                prop_assert!(cfg.dsack || d.is_none());
                if let Some(d) = d {
                    prop_assert!(r.covers(&d) && before.all(d), "dsack {d:?} for {r:?}");
                } else if cfg.dsack {
                    prop_assert!((r.start..r.end).all(|i| !before.has(i)), "missing dsack");
                }
                // RFC 2018 §4: the first block holds this segment, unless it was cumulatively ACKed.
                if r.end > a.cumulative {
                    let first = a.sack_blocks().first().copied();
                    let part = Range::new(r.start.max(a.cumulative), r.end);
                    prop_assert!(first.is_some_and(|f| f.covers(&part)), "{a:?} for {r:?}");
                }
            }
            if let Some(a) = acks.last() {
                last_ack = Some(*a);
            }
        }
        // Let any delayed ACK go.
        if let Some(t) = rx.poll_timeout() {
            rx.on_timeout(t);
            while let Some(a) = rx.poll_ack(t) {
                last_ack = Some(a);
            }
        }
        prop_assert_eq!(rx.poll_timeout(), None);
        prop_assert_eq!(rx.delivered(), n);
        let last = last_ack.expect("some ACK");
        prop_assert_eq!(last.cumulative, n);
        prop_assert!(last.sack_blocks().is_empty());
    }

    #[test]
    fn hostile_input_never_panics(
        cfg in config(),
        input in prop::collection::vec(
            (any::<u64>(), any::<u64>(), 0u8..8, any::<bool>(), prop::option::of(any::<u64>()), 0u64..5),
            1..60,
        ),
    ) {
        let mut rx = Receiver::new(cfg, Instant::ZERO);
        let mut now = Instant::ZERO;
        let mut rcv_nxt: u64 = 0;
        for (k, (a, len, kind, fin, ts, dt)) in input.into_iter().enumerate() {
            now += Duration::from_millis(dt);
            // Mix of wild offsets, offsets near the stream, and inverted ranges.
            let (start, end) = match kind {
                0 => (a, len),
                1 => (a, a.saturating_add(len % 3000)),
                2 => (u64::MAX - (a % 10), u64::MAX),
                _ => {
                    let s = rcv_nxt.saturating_sub(2000).saturating_add(a % 8000);
                    (s, s.saturating_add(len % 3000))
                }
            };
            let syn = (kind == 7 && k % 2 == 0).then_some(SynOptions { ecn: false,
                mss: (a % 2000) as u16,
                sack_permitted: fin,
                timestamps: ts.is_some(),
                window_scale: fin.then_some(14),
            });
            let s = Segment { ecn: Default::default(),
                range: Range { start, end },
                syn,
                fin,
                psh: false,
                ts: ts.map(|val| Timestamps { val, ecr: 0 }),
            };
            rx.on_segment(now, &s);
            if rx.poll_timeout().is_some_and(|t| t <= now) {
                rx.on_timeout(now);
            }
            // 3 blocks beside timestamps, if the handshake agreed them.
            let max = if rx.timestamps_in_use() { 3 } else { 4 };
            while let Some(ack) = rx.poll_ack(now) {
                check_blocks(&ack, max)?;
                prop_assert!(ack.cumulative >= rcv_nxt || ack.syn.is_some());
            }
            prop_assert!(rx.delivered() >= rcv_nxt);
            rcv_nxt = rx.delivered();
            prop_assert!(rx.out_of_order().all(|b| b.start > rcv_nxt && b.end <= rcv_nxt + rx.window()));
        }
    }
}

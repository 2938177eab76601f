//! The optimistic-ACK defence (`optack_defence = skip-segment`, `detect::optack`; Savage
//! et al. 1999 §4.3): an honest receiver costs nothing — no retransmission, no recovery,
//! no reordering inferred, the same completion time — a peer that covers a segment not yet
//! sent stops the sender at once, and hostile ACKs never panic it.

mod common;
use common::*;
use lossrec::{
    Ack, Config, Duration, EventKind, Instant, Receiver, ReceiverConfig, Sender, PRESETS,
};
use lossrec_testkit::rng::Stream;

fn defended(mut c: Config, interval: u32) -> Config {
    c.set("optack_defence", "skip-segment").unwrap();
    c.set("optack_skip_interval", &interval.to_string())
        .unwrap();
    c
}

/// What an honest, lossless transfer of `segments` did: (completion, sender, events).
fn honest(c: Config, sack: bool, segments: u64) -> (Instant, Sender, Vec<EventKind>) {
    let mut c = c;
    c.mss = MSS as u16;
    c.handshake = false;
    c.sack = sack;
    let rcfg = ReceiverConfig {
        sack,
        dsack: sack,
        timestamps: c.timestamps,
        mss: MSS as u16,
        ..ReceiverConfig::default()
    };
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.set_seed(42);
    s.write(ms(0), segments * MSS);
    s.close(ms(0));
    let mut r = Receiver::new(rcfg, ms(0));
    let delay = Duration::from_millis(20);
    // (arrival, order) → data segment or ACK
    let mut q = std::collections::BTreeMap::new();
    let (mut now, mut n, mut events) = (ms(0), 0u64, Vec::new());
    while !s.is_finished() {
        while let Some(t) = s.poll_transmit(now) {
            n += 1;
            q.insert((now + delay, n), Err(t.segment()));
        }
        while let Some(a) = r.poll_ack(now) {
            n += 1;
            q.insert((now + delay, n), Ok(a));
        }
        events.extend(std::iter::from_fn(|| s.poll_event()).map(|e| e.kind));
        let next = q.keys().next().map(|k| k.0);
        let t = [next, s.poll_timeout(), r.poll_timeout()]
            .into_iter()
            .flatten()
            .min()
            .expect("something pending until finished");
        assert!(t < ms(600_000), "stuck");
        now = t;
        if next == Some(t) {
            let k = *q.keys().next().unwrap();
            match q.remove(&k).unwrap() {
                Err(seg) => r.on_segment(now, &seg),
                Ok(a) => s.on_ack(now, &a),
            }
        } else if s.poll_timeout() == Some(t) {
            s.on_timeout(now);
        } else {
            r.on_timeout(now);
        }
    }
    (now, s, events)
}

/// Every preset, SACK on and off, a held segment every 8 on average: the held segments
/// cause no retransmission, no recovery, no reordering verdict and no strike, and the
/// transfer ends when it does without the defence (at most 1 % later).
#[test]
fn honest_transfers_pay_nothing() {
    for p in PRESETS {
        for sack in [true, false] {
            let what = format!("{} sack={sack}", p.name);
            let (t_off, _, _) = honest(p.config(), sack, 1200);
            let (t_on, s, events) = honest(defended(p.config(), 8), sack, 1200);
            let st = s.stats();
            // At most one per round trip (one check open at a time).
            assert!(st.optack_skips >= 4, "{what}: {st:?}");
            assert_eq!(st.optack_strikes, 0, "{what}");
            assert_eq!(st.retrans_segs, 0, "{what}: {events:?}");
            assert!(!s.optack_detected(), "{what}");
            let bad = events.iter().find(|e| {
                matches!(
                    e,
                    EventKind::EnterRecovery { .. }
                        | EventKind::Reordering { .. }
                        | EventKind::MarkLost { .. }
                        | EventKind::Rto { .. }
                )
            });
            assert_eq!(bad, None, "{what}");
            let ratio = (t_on - ms(0)).as_secs_f64() / (t_off - ms(0)).as_secs_f64();
            assert!(ratio <= 1.01, "{what}: {ratio}");
        }
    }
}

/// The held segment and the one sent in its place: the next call returns the held one.
/// An ACK covering it in between — which no honest peer can send — stops the sender.
#[test]
fn acknowledging_the_held_segment_before_it_left_stops_the_sender() {
    let mut c = defended(cfg(), 4);
    c.initial_cwnd = 40;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.set_seed(1);
    s.write(ms(0), 100 * MSS);
    let mut high = 0;
    let held = loop {
        let t = s.poll_transmit(ms(0)).expect("a skip within 40 segments");
        if t.range.start > high {
            break high; // the segment at `high` is held
        }
        high = t.range.end;
    };
    s.on_ack(ms(10), &ack(held + MSS));
    assert!(s.optack_detected());
    assert_eq!(s.stats().optack_detected, 1);
    assert_eq!(s.poll_transmit(ms(10)), None);
    assert_eq!(s.poll_timeout(), None);
    let ev: Vec<_> = std::iter::from_fn(|| s.poll_event()).collect();
    assert!(ev.iter().any(|e| e.kind
        == EventKind::OptAckDetected {
            start: held,
            end: held + MSS
        }));
    // Everything after is ignored.
    s.on_ack(ms(20), &ack(held + 2 * MSS));
    s.on_timeout(ms(5_000));
    assert_eq!(s.poll_transmit(ms(5_000)), None);
}

/// Random ACKs (cumulative anywhere up to SND.NXT and beyond, random SACK blocks,
/// duplicates) and timeouts against every preset with the defence on: no panic (the debug
/// invariants run after every call), and nothing sent once stopped.
#[test]
fn hostile_acks_never_panic_the_defence() {
    for (k, p) in PRESETS.iter().enumerate() {
        let mut c = defended(p.config(), 4);
        c.mss = MSS as u16;
        c.handshake = false;
        let mut rng = Stream::new(7, k as u64);
        let mut s = Sender::new(c, ms(0)).unwrap();
        s.set_seed(rng.next_u64());
        s.write(ms(0), 1 << 30);
        let mut now = ms(0);
        for _ in 0..3000 {
            now += Duration::from_millis(1 + rng.next_u64() % 20);
            while s.poll_transmit(now).is_some() {}
            let nxt = s.snd_nxt();
            let una = s.snd_una();
            let span = (nxt - una + 2 * MSS).max(1);
            let cum = una + rng.next_u64() % span;
            let blocks: Vec<_> = (0..rng.next_u64() % 4)
                .map(|_| {
                    let a = una + rng.next_u64() % span;
                    r(a, a + 1 + rng.next_u64() % (4 * MSS))
                })
                .collect();
            let a = Ack::cumulative(cum).with_sack(&blocks);
            s.on_ack(now, &a);
            if rng.chance(0.05) {
                if let Some(t) = s.poll_timeout() {
                    now = now.max(t);
                    s.on_timeout(now);
                }
            }
            if s.optack_detected() {
                assert_eq!(s.poll_transmit(now), None);
                break;
            }
        }
    }
}

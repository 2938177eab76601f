//! Property tests: no ACK stream, however hostile, panics the sender or breaks its
//! invariants (checked by the debug assertions at the end of every handler), and the
//! sender never sends unsent data as a retransmission.

mod common;
use common::*;
use lossrec::config::{EarlyRetransmit, LossDetection, Probe, Reduction};
use lossrec::{Ack, Instant, Range, SackBlocks, Sender};
use proptest::prelude::*;

fn arb_ack(max: u64) -> impl Strategy<Value = Ack> {
    let range = (0..max, 0..max).prop_map(|(a, b)| Range::new(a.min(b), a.max(b)));
    (0..max, prop::collection::vec(range, 0..5), any::<u32>()).prop_map(|(cum, blocks, win)| {
        let mut a = Ack::cumulative(cum);
        a.sack = SackBlocks::from_slice(&blocks);
        a.window = u64::from(win % 100_000);
        a
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_ack_stream_is_safe(
        acks in prop::collection::vec((arb_ack(40_000), 0u64..50, any::<bool>()), 1..60),
        sack in any::<bool>(),
        reduction in prop::sample::select(Reduction::NAMES.to_vec()),
        detection in prop::sample::select(LossDetection::NAMES.to_vec()),
        er in prop::sample::select(EarlyRetransmit::NAMES.to_vec()),
        probe in prop::sample::select(Probe::NAMES.to_vec()),
        bits in any::<u8>(),
    ) {
        let mut c = cfg();
        c.sack = sack;
        c.reduction = reduction.parse().unwrap();
        c.loss_detection = detection.parse().unwrap();
        c.early_retransmit = er.parse().unwrap();
        c.er_delayed = bits & 1 != 0;
        c.er_disable_on_reordering = bits & 2 != 0;
        c.adaptive_reordering = bits & 4 != 0;
        c.rescue_retransmit = bits & 8 != 0;
        c.probe = probe.parse().unwrap();
        c.tlp_max_probes = if bits & 16 != 0 { 2 } else { 1 };
        c.tlp_in_recovery = bits & 32 != 0;
        c.rack_no_dupthresh = bits & 64 != 0;
        let mut s = Sender::new(c, ms(0)).unwrap();
        s.write(ms(0), 30 * MSS);
        s.close(ms(0));
        let mut now = ms(0);
        let mut sent_high = 0u64;
        for (a, dt, fire) in acks {
            now += std::time::Duration::from_millis(dt);
            s.on_ack(now, &a);
            if fire {
                if let Some(t) = s.poll_timeout() {
                    now = now.max(t);
                    s.on_timeout(now);
                }
            }
            while let Some(t) = s.poll_transmit(now) {
                if t.why.is_retransmission() {
                    prop_assert!(t.range.end <= sent_high, "retransmitted unsent data {:?}", t);
                } else if !t.range.is_empty() {
                    prop_assert_eq!(t.range.start, sent_high);
                    sent_high = t.range.end;
                }
                prop_assert!(t.range.len() <= MSS);
            }
            prop_assert!(s.cwnd() >= s.mss());
            prop_assert!(s.snd_una() <= s.snd_nxt());
        }
    }
}

/// Time may also be given out of order by a careless caller: no panic, with any
/// detector and probe.
#[test]
fn time_going_backwards_is_harmless() {
    for (d, p) in [
        ("dupthresh", "none"),
        ("rack", "tlp"),
        ("rack-linux", "tlp-linux"),
        ("fack", "tlp-draft"),
    ] {
        let mut c = cfg();
        c.loss_detection = d.parse().unwrap();
        c.probe = p.parse().unwrap();
        let mut s = sender_with(c, 8);
        drain(&mut s, ms(100));
        s.on_ack(ms(200), &sack(0, &[(5 * MSS, 6 * MSS)]));
        drain(&mut s, ms(200));
        s.on_ack(ms(50), &ack(MSS));
        s.on_timeout(Instant::ZERO);
        drain(&mut s, ms(10));
        if let Some(t) = s.poll_timeout() {
            s.on_timeout(t);
        }
        drain(&mut s, ms(5));
    }
    let mut s = sender_with(cfg(), 5);
    drain(&mut s, ms(100));
    s.on_ack(ms(50), &ack(MSS));
    s.on_timeout(Instant::ZERO);
    drain(&mut s, ms(10));
}

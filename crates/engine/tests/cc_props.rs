//! Invariants of the congestion controllers under arbitrary (also absurd) inputs: no panic,
//! on_ack never shrinks cwnd, ssthresh ≥ 2·SMSS, undo never shrinks cwnd, so a sender
//! using these APIs never goes below 1 SMSS.

use lossrec::cc::{Checkpoint, CongestionController, ConnInfo, Controller, Window};
use lossrec::config::CongestionControl;
use lossrec::{Duration, Instant};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Ack {
        dt_us: u64,
        acked: u64,
        srtt_us: Option<u64>,
    },
    Loss {
        flight: u64,
    },
    Timeout,
    Undo,
}

fn op() -> impl Strategy<Value = Op> {
    let big = prop_oneof![0..10_000u64, 0..10_000_000u64, any::<u64>()];
    prop_oneof![
        6 => (prop_oneof![0..200_000u64, any::<u64>()], big.clone(),
              proptest::option::of(prop_oneof![1..1_000_000u64, any::<u64>()]))
            .prop_map(|(dt_us, acked, srtt_us)| Op::Ack { dt_us, acked, srtt_us }),
        1 => big.prop_map(|flight| Op::Loss { flight }),
        1 => Just(Op::Timeout),
        1 => Just(Op::Undo),
    ]
}

fn run(kind: CongestionControl, mss: u64, init: u64, ops: &[Op]) -> Result<(), TestCaseError> {
    let mut cc = Controller::new(kind);
    let smss = mss.max(1);
    let mut w = Window {
        cwnd: init.max(smss),
        ssthresh: u64::MAX,
        mss,
    };
    let mut now = Instant::ZERO;
    let mut checkpoint: Option<(Checkpoint, Window)> = None;
    for op in ops {
        match *op {
            Op::Ack {
                dt_us,
                acked,
                srtt_us,
            } => {
                now += Duration::from_micros(dt_us);
                let before = w.cwnd;
                cc.on_ack(now, &mut w, acked, srtt_us.map(Duration::from_micros));
                prop_assert!(w.cwnd >= before, "on_ack shrank cwnd {before} → {}", w.cwnd);
            }
            Op::Loss { flight } => {
                let s = cc.ssthresh(now, &w, flight);
                prop_assert!(s >= smss.saturating_mul(2), "ssthresh {s} < 2·SMSS");
                checkpoint.get_or_insert((cc.checkpoint(), w));
                cc.on_congestion_event(now, &w);
                w.ssthresh = s;
                w.cwnd = s;
            }
            Op::Timeout => {
                let s = cc.ssthresh(now, &w, w.cwnd);
                prop_assert!(s >= smss.saturating_mul(2));
                checkpoint.get_or_insert((cc.checkpoint(), w));
                cc.on_congestion_event(now, &w);
                cc.on_timeout(now, &ConnInfo::new(now, w));
                w.ssthresh = s;
                w.cwnd = smss;
            }
            Op::Undo => {
                // The sender's undo: the checkpoint back, cwnd = max(cwnd, prior_cwnd).
                if let Some((c, prior)) = checkpoint.take() {
                    cc.restore(&c);
                    w.cwnd = w.cwnd.max(prior.cwnd);
                    w.ssthresh = w.ssthresh.max(prior.ssthresh);
                }
            }
        }
        prop_assert!(w.cwnd >= smss);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn reno_invariants(mss in prop_oneof![Just(0u64), 1..70_000u64, any::<u64>()],
                       init in any::<u64>(), ops in proptest::collection::vec(op(), 0..60)) {
        run(CongestionControl::Reno, mss, init, &ops)?;
    }

    #[test]
    fn cubic_invariants(mss in prop_oneof![Just(0u64), 1..70_000u64, any::<u64>()],
                        init in prop_oneof![0..1_000_000u64, any::<u64>()],
                        ops in proptest::collection::vec(op(), 0..60)) {
        run(CongestionControl::Cubic, mss, init, &ops)?;
    }

    /// Realistic sizes: CUBIC's growth per window of ACKs stays within the 1.5·cwnd cap.
    #[test]
    fn cubic_growth_per_window_is_capped(
        segs in 2..2_000u64, rtt_ms in 1..2_000u64, gaps in proptest::collection::vec(0..5_000u64, 1..40)
    ) {
        let mss = 1448;
        let mut cc = Controller::new(CongestionControl::Cubic);
        let mut w = Window { cwnd: segs * mss, ssthresh: u64::MAX, mss };
        w.ssthresh = cc.ssthresh(Instant::ZERO, &w, w.cwnd);
        cc.on_congestion_event(Instant::ZERO, &w);
        w.cwnd = w.ssthresh;
        let mut now = Instant::ZERO;
        for g in gaps {
            now += Duration::from_millis(g);
            let before = w.cwnd;
            cc.on_ack(now, &mut w, before, Some(Duration::from_millis(rtt_ms)));
            prop_assert!(w.cwnd >= before && w.cwnd <= before + before / 2 + mss,
                "{before} → {}", w.cwnd);
        }
    }
}

//! CUBIC (RFC 9438): K, W_cubic(t), regions, multiplicative decrease, fast convergence,
//! timeout and undo, with a worked example W_max = 100 segments, β = 0.7.

use lossrec::cc::cubic::{cbrt, Cubic, ALPHA, BETA, C};
use lossrec::cc::{CongestionController, ConnInfo, Controller, Window};
use lossrec::config::CongestionControl;
use lossrec::{Duration, Instant};

const MSS: u64 = 1448;
fn seg(n: u64) -> u64 {
    n * MSS
}
fn win(cwnd: u64, ssthresh: u64) -> Window {
    Window {
        cwnd,
        ssthresh,
        mss: MSS,
    }
}
fn at(ms: u64) -> Instant {
    Instant::from_millis(ms)
}
fn segs(w: &Window) -> f64 {
    w.cwnd as f64 / MSS as f64
}
/// One round trip from `t0`: one MSS-sized ACK per segment of cwnd (as at its start),
/// spread evenly over `rtt`.
fn round(c: &mut Cubic, w: &mut Window, t0: Instant, rtt: Duration) {
    let n = (w.cwnd / MSS).max(1);
    for i in 0..n {
        c.on_ack(t0 + rtt * i as u32 / n as u32, w, MSS, Some(rtt));
    }
}
/// A loss at `cwnd` segments with the sender setting cwnd = ssthresh.
fn loss(c: &mut Cubic, w: &mut Window, now: Instant) {
    w.ssthresh = c.ssthresh(now, w, w.cwnd);
    c.on_congestion_event(now, w);
    w.cwnd = w.ssthresh;
}

#[test]
fn constants() {
    assert_eq!((C, BETA), (0.4, 0.7));
    assert!((ALPHA - 0.529_411_764_705_882_4).abs() < 1e-15, "3·0.3/1.7");
}

#[test]
fn cube_root_is_accurate() {
    assert_eq!(cbrt(27.0), 3.0);
    assert_eq!(cbrt(1000.0), 10.0);
    assert_eq!(cbrt(0.0), 0.0);
    assert_eq!(cbrt(-8.0), 0.0);
    assert_eq!(cbrt(f64::NAN), 0.0);
    assert_eq!(cbrt(f64::INFINITY), f64::INFINITY);
    let mut x = 1e-300;
    while x < 1e300 {
        let (a, b) = (cbrt(x), x.cbrt());
        assert!((a - b).abs() <= b * 4e-16, "{x}: {a} vs {b}");
        x *= 3.7;
    }
    assert!(cbrt(5e-324) > 0.0);
}

#[test]
fn multiplicative_decrease_uses_beta_on_cwnd() {
    let c = Cubic::default();
    // Linux cwnd*717 >> 10 and RFC β = 0.7 agree: 10 → 7, 20 → 14 segments.
    assert_eq!(c.ssthresh(at(0), &win(seg(10), u64::MAX), 0), seg(7));
    assert_eq!(c.ssthresh(at(0), &win(seg(20), u64::MAX), 0), seg(14));
    // Floor 2·SMSS.
    assert_eq!(c.ssthresh(at(0), &win(seg(2), u64::MAX), 0), seg(2));
    assert_eq!(c.ssthresh(at(0), &win(0, u64::MAX), 0), seg(2));
    // From cwnd, not FlightSize (as Linux).
    assert_eq!(
        c.ssthresh(at(0), &win(seg(100), u64::MAX), seg(10)),
        seg(70)
    );
}

#[test]
fn k_and_w_cubic_worked_example() {
    // W_max = 100, cwnd after the reduction 70: K = ∛((100 − 70)/0.4) = ∛75 = 4.2172 s.
    let mut c = Cubic::default();
    let mut w = win(seg(100), u64::MAX);
    loss(&mut c, &mut w, at(0));
    assert_eq!(w.cwnd, seg(70));
    assert_eq!(c.w_max(), 100.0);
    assert_eq!(c.cwnd_prior(), 100.0);
    assert!(
        (c.k() - 4.217_163_326_508_746).abs() < 1e-12,
        "K at the event: {}",
        c.k()
    );
    assert_eq!(c.epoch_start(), None);
    // First ACK in congestion avoidance starts the epoch from the actual cwnd.
    c.on_ack(at(1000), &mut w, MSS, Some(Duration::from_millis(100)));
    assert_eq!(c.epoch_start(), Some(at(1000)));
    assert_eq!(c.cwnd_epoch(), 70.0);
    assert_eq!(c.origin(), 100.0);
    assert!((c.k() - 4.217_163_326_508_746).abs() < 1e-12);
    // W_cubic(t) = 0.4·(t − K)³ + 100 (python: 0.4*(t-75**(1/3))**3+100).
    for (t, want) in [
        (0.0, 70.0),
        (1.0, 86.680_763_835_129_88),
        (2.0, 95.640_335_686_638_78),
        (3.0, 99.278_715_554_526_67),
        (4.0, 99.995_903_438_793_58),
        (c.k(), 100.0),
        (5.0, 100.191_899_339_439_5),
        (6.0, 102.266_703_256_464_42),
    ] {
        assert!(
            (c.w_cubic(t) - want).abs() < 1e-9,
            "W({t}) = {}",
            c.w_cubic(t)
        );
    }
}

#[test]
fn first_acks_of_an_epoch_are_reno_friendly() {
    // At t = 0, W_cubic = cwnd_epoch and W_est already grew: cwnd = W_est.
    let mut c = Cubic::default();
    let mut w = win(seg(100), u64::MAX);
    loss(&mut c, &mut w, at(0));
    c.on_ack(at(0), &mut w, MSS, Some(Duration::from_millis(100)));
    // W_est = 70 + α·1448/101360 = 70.007563; in bytes ⌊101370.95⌋.
    assert!((c.w_est() - (70.0 + ALPHA / 70.0)).abs() < 1e-12);
    assert_eq!(w.cwnd, 101_370);
}

#[test]
fn concave_growth_per_ack() {
    // t = 1 s into the epoch, RTT 100 ms: target = W_cubic(1.1) = 87.8846 segments (python),
    // ⌊87.8846·1448⌋ = 127_256 bytes; one ACK of MSS with cwnd 70 segments adds
    // (127256 − 101360)·1448 / 101360 = 369.94 → 369 bytes, remainder 95568 carried.
    let mut c = Cubic::default();
    let mut w = win(seg(100), u64::MAX);
    loss(&mut c, &mut w, at(0));
    c.on_ack(at(0), &mut w, 0, Some(Duration::from_millis(100)));
    assert_eq!(w.cwnd, seg(70));
    let target = c.w_cubic(1.1);
    assert!((target - 87.884_574_659_543_72).abs() < 1e-9, "{target}");
    let tb = (target * MSS as f64) as u64;
    assert_eq!(tb, 127_256);
    c.on_ack(at(1000), &mut w, MSS, Some(Duration::from_millis(100)));
    assert_eq!(w.cwnd, seg(70) + 369);
    // The next ACK adds ((127256 − 101729)·1448 + 95568) / 101729, the remainder included.
    let rem = (127_256u128 - 101_360) * 1448 % 101_360;
    assert_eq!(rem, 95_568);
    let next = ((tb - w.cwnd) as u128 * 1448 + rem) / w.cwnd as u128;
    let before = w.cwnd;
    c.on_ack(at(1000), &mut w, MSS, Some(Duration::from_millis(100)));
    assert_eq!(w.cwnd - before, next as u64);
}

#[test]
fn concave_growth_reaches_w_max_near_k() {
    let rtt = Duration::from_millis(100);
    let mut c = Cubic::default();
    let mut w = win(seg(100), u64::MAX);
    loss(&mut c, &mut w, at(0));
    let k = c.k();
    let mut t = at(0);
    let mut prev = segs(&w);
    let mut trace = vec![];
    while t.as_secs_f64() < k {
        round(&mut c, &mut w, t, rtt);
        t += rtt;
        assert!(segs(&w) >= prev, "cwnd never shrinks");
        // Concave: each round adds no more than the previous one (within a segment).
        trace.push(segs(&w));
        prev = segs(&w);
    }
    // cwnd tracks W_cubic(t + RTT): at t ≈ K it sits at the plateau W_max = 100.
    assert!(
        (99.0..=100.5).contains(&segs(&w)),
        "cwnd at K: {}",
        segs(&w)
    );
    // Concave: increments shrink toward K.
    let incs: Vec<f64> = trace.windows(2).map(|p| p[1] - p[0]).collect();
    assert!(incs[5] > incs[incs.len() - 1] * 3.0, "{incs:?}");
    // Then past W_max growth speeds up again: convex region, or Reno-friendly once W_est
    // (α = 1 after reaching cwnd_prior = 100) overtakes the flat part of the curve.
    let at_k = segs(&w);
    for _ in 0..20 {
        round(&mut c, &mut w, t, rtt);
        t += rtt;
    }
    let t_s = t.as_secs_f64();
    assert!(segs(&w) > at_k + 2.0);
    let want = c.w_cubic(t_s + 0.1).max(c.w_est());
    assert!((segs(&w) - want).abs() < 1.0, "{} vs {want}", segs(&w));
    // Far into the convex region the cubic curve dominates and accelerates.
    for _ in 0..20 {
        round(&mut c, &mut w, t, rtt);
        t += rtt;
    }
    let t_s = t.as_secs_f64();
    assert!(c.w_cubic(t_s) > c.w_est());
    // Each round closes most of the gap to W_cubic(t + RTT): cwnd sits between W_cubic(t)
    // and W_cubic(t + RTT).
    let (lo, hi) = (c.w_cubic(t_s), c.w_cubic(t_s + 0.1));
    assert!(
        lo - 0.5 <= segs(&w) && segs(&w) <= hi,
        "{lo} ≤ {} ≤ {hi}",
        segs(&w)
    );
}

#[test]
fn target_is_capped_at_one_and_a_half_cwnd() {
    // After a timeout K = 0, so far into the epoch W_cubic(t) is huge; one window of
    // ACKs grows cwnd by at most cwnd/2.
    let mut c = Cubic::default();
    let mut w = win(seg(20), u64::MAX);
    loss(&mut c, &mut w, at(0));
    c.on_timeout(at(0), &ConnInfo::new(at(0), w));
    w = win(seg(10), seg(10));
    c.on_ack(at(0), &mut w, 0, Some(Duration::from_millis(100)));
    assert_eq!((c.k(), c.w_max(), c.origin()), (0.0, 10.0, 10.0));
    c.on_ack(
        at(100_000),
        &mut w,
        seg(10),
        Some(Duration::from_millis(100)),
    );
    assert_eq!(w.cwnd, seg(15));
}

#[test]
fn fast_convergence_lowers_w_max() {
    let mut c = Cubic::default();
    let mut w = win(seg(100), u64::MAX);
    loss(&mut c, &mut w, at(0));
    assert_eq!(c.w_max(), 100.0);
    // Next loss below W_max: W_max = 80·(1 + 0.7)/2 = 68.
    w.cwnd = seg(80);
    loss(&mut c, &mut w, at(5000));
    assert!((c.w_max() - 68.0).abs() < 1e-12);
    assert_eq!(w.cwnd, seg(56));
    assert_eq!(c.cwnd_prior(), 80.0);
    // Loss above W_max: W_max = cwnd.
    w.cwnd = seg(90);
    loss(&mut c, &mut w, at(9000));
    assert_eq!(c.w_max(), 90.0);
    // Without fast convergence W_max is the cwnd at the loss.
    let mut c = Cubic::default();
    c.set_fast_convergence(false);
    let mut w = win(seg(100), u64::MAX);
    loss(&mut c, &mut w, at(0));
    w.cwnd = seg(80);
    loss(&mut c, &mut w, at(5000));
    assert_eq!(c.w_max(), 80.0);
}

#[test]
fn reno_friendly_region_with_short_rtt() {
    // Small W_max and 10 ms RTT: Reno's AIMD(α, β) outgrows the cubic curve.
    let rtt = Duration::from_millis(10);
    let mut c = Cubic::default();
    let mut w = win(seg(10), u64::MAX);
    loss(&mut c, &mut w, at(0));
    assert_eq!(w.cwnd, seg(7));
    let mut t = at(0);
    let mut rounds = 0;
    while c.alpha() < 1.0 {
        round(&mut c, &mut w, t, rtt);
        t += rtt;
        rounds += 1;
        // cwnd follows W_est, which outgrows the cubic curve.
        assert!(c.w_cubic(t.as_secs_f64()) < c.w_est());
        assert_eq!(w.cwnd, (c.w_est() * MSS as f64) as u64);
    }
    // About (10 − 7)/α ≈ 5.7 rounds (a little more: W_est += α·acked/cwnd with a growing
    // cwnd) until W_est reaches cwnd_prior = 10 and α becomes 1.
    assert_eq!(rounds, 7);
    assert!((10.0..11.0).contains(&c.w_est()), "{}", c.w_est());
    // Afterwards W_est += acked/cwnd per ACK: one segment per window acknowledged, as Reno.
    let (before, cwnd) = (c.w_est(), w.cwnd);
    c.on_ack(t, &mut w, MSS, Some(rtt));
    assert!((c.w_est() - before - MSS as f64 / cwnd as f64).abs() < 1e-12);
    let before = c.w_est();
    for _ in 0..10 {
        round(&mut c, &mut w, t, rtt);
        t += rtt;
    }
    // `round` acks ⌊cwnd⌋ segments of a fractional cwnd: a little under 1 per round.
    assert!(
        (8.5..10.0).contains(&(c.w_est() - before)),
        "{}",
        c.w_est() - before
    );
    assert!(c.w_cubic(t.as_secs_f64()) < c.w_est());
}

#[test]
fn slow_start_below_ssthresh_is_reno() {
    let mut c = Cubic::default();
    let mut w = win(seg(10), u64::MAX);
    c.on_ack(at(0), &mut w, 3 * MSS, Some(Duration::from_millis(100)));
    assert_eq!(w.cwnd, seg(12), "ABC L = 2");
    assert_eq!(c.epoch_start(), None);
}

#[test]
fn without_srtt_congestion_avoidance_is_reno() {
    let mut c = Cubic::default();
    let mut w = win(10_000, 10_000);
    w.mss = 1000;
    for _ in 0..10 {
        c.on_ack(at(0), &mut w, 1000, None);
    }
    assert_eq!(w.cwnd, 11_000);
}

#[test]
fn timeout_restarts_the_curve_at_its_plateau() {
    // RFC 9438 §4.8: after an RTO, K = 0 and W_max = cwnd at the start of the next
    // congestion-avoidance stage; W_est starts there too.
    let rtt = Duration::from_millis(100);
    let mut c = Cubic::default();
    let mut w = win(seg(100), u64::MAX);
    w.ssthresh = c.ssthresh(at(0), &w, w.cwnd);
    c.on_congestion_event(at(0), &w);
    c.on_timeout(at(0), &ConnInfo::new(at(0), w));
    w.cwnd = MSS;
    // Slow start back to ssthresh (70 segments).
    let mut t = at(0);
    while w.cwnd < w.ssthresh {
        c.on_ack(t, &mut w, MSS, Some(rtt));
        t += Duration::from_millis(1);
    }
    assert_eq!(c.epoch_start(), None);
    let cwnd = segs(&w);
    c.on_ack(t, &mut w, 0, Some(rtt));
    assert_eq!(c.epoch_start(), Some(t));
    assert_eq!(
        (c.k(), c.w_max(), c.origin(), c.w_est()),
        (0.0, cwnd, cwnd, cwnd)
    );
}

/// RFC 9438 §4.9: a spurious event rolls CUBIC back. The checkpoint is a copy of the
/// algorithm taken before the event (the sender's one undo value); restoring it restores
/// W_max, K, the epoch and W_est exactly.
#[test]
fn undo_restores_the_state_before_the_event() {
    let rtt = Duration::from_millis(100);
    let mut c = Cubic::default();
    let mut w = win(seg(100), u64::MAX);
    loss(&mut c, &mut w, at(0));
    let mut t = at(0);
    for _ in 0..10 {
        round(&mut c, &mut w, t, rtt);
        t += rtt;
    }
    let (w_max, k, epoch, w_est) = (c.w_max(), c.k(), c.epoch_start(), c.w_est());
    let checkpoint = c;
    loss(&mut c, &mut w, t);
    assert!(c.w_max() < w_max, "fast convergence");
    assert_ne!(c.epoch_start(), epoch);
    c = checkpoint;
    assert_eq!(
        (c.w_max(), c.k(), c.epoch_start(), c.w_est()),
        (w_max, k, epoch, w_est)
    );
}

#[test]
fn enum_dispatches_to_cubic() {
    let mut cc = Controller::new(CongestionControl::Cubic);
    assert_eq!(cc.kind(), Some(CongestionControl::Cubic));
    let w = win(seg(10), u64::MAX);
    assert_eq!(cc.ssthresh(at(0), &w, 0), seg(7));
    assert_eq!(
        cc.ssthresh(at(0), &w, 0),
        seg(7),
        "asking twice changes nothing"
    );
    cc.on_congestion_event(at(0), &w);
    let Controller::Cubic(c) = cc else { panic!() };
    assert_eq!(c.w_max(), 10.0);
}

/// Linux's CUBIC counts packets acknowledged (`tcp_cong_avoid_ai`, `acked` from
/// `tcp_clean_rtx_queue`): eight ACKs each covering an eighth of a segment are worth one
/// packet, not eight — an ACK-dividing receiver gains nothing (issue 13 item 3).
#[test]
fn cubic_linux_counts_whole_packets_under_ack_division() {
    let run = |slices: u64| {
        let mut c = Cubic::linux();
        let mut w = win(seg(40), seg(20));
        let mut t = 1000;
        for _ in 0..200 {
            for _ in 0..slices {
                c.on_ack(at(t), &mut w, MSS / slices, Some(Duration::from_millis(50)));
            }
            t += 5;
        }
        w.cwnd
    };
    assert_eq!(run(8), run(1));
}

/// Linux `tcp_init_cwnd_reduction` (and `tcp_enter_loss`) zero `snd_cwnd_cnt`: ACKs
/// counted toward the next increment before a loss are not spent after it, so the first
/// increment after a recovery takes as many ACKs whatever came before the loss (issue 23
/// item 2F: the engine grew one segment early after a recovery).
#[test]
fn cubic_linux_loss_forgets_the_ack_count() {
    let acks_to_grow = |before: u64| {
        let mut c = Cubic::linux();
        let mut w = win(seg(40), seg(20));
        let rtt = Some(Duration::from_millis(100));
        for i in 0..before {
            c.on_ack(at(1000 + i), &mut w, MSS, rtt);
        }
        assert_eq!(w.cwnd, seg(40), "no increment before the loss");
        loss(&mut c, &mut w, at(1100));
        let cwnd = w.cwnd;
        let mut n = 0;
        while w.cwnd == cwnd {
            n += 1;
            c.on_ack(at(1200 + n), &mut w, MSS, rtt);
        }
        n
    };
    assert_eq!(acks_to_grow(5), acks_to_grow(0));
}

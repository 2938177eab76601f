//! Windowed min RTT (Linux lib/win_minmax.c `minmax_running_min`).

use lossrec::config::RttEstimator;
use lossrec::rtt::{Rtt, WindowedMin, INITIAL_RTO, MIN_RTT_WINDOW};
use lossrec::{Duration, Instant};

fn s(v: u64) -> Instant {
    Instant::from_millis(v * 1000)
}
fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}
/// The kept (time s, value ms) triples.
fn kept(m: &WindowedMin) -> Vec<(u64, u64)> {
    let s = m.samples().unwrap();
    s.iter()
        .map(|(t, v)| (t.as_millis() / 1000, v.as_millis() as u64))
        .collect()
}

#[test]
fn nichols_filter_step_by_step() {
    let win = Duration::from_secs(100);
    let mut m = WindowedMin::new();
    assert_eq!(m.get(), None);
    assert_eq!(m.update(win, s(0), ms(50)), ms(50));
    assert_eq!(kept(&m), [(0, 50), (0, 50), (0, 50)]);
    // Larger, within the first quarter: nothing kept.
    assert_eq!(m.update(win, s(10), ms(60)), ms(50));
    assert_eq!(kept(&m), [(0, 50), (0, 50), (0, 50)]);
    // A quarter window passed: a 2nd (and 3rd) choice from now.
    assert_eq!(m.update(win, s(30), ms(70)), ms(50));
    assert_eq!(kept(&m), [(0, 50), (30, 70), (30, 70)]);
    // Better 2nd choice.
    m.update(win, s(40), ms(65));
    assert_eq!(kept(&m), [(0, 50), (40, 65), (40, 65)]);
    // Half a window passed: a 3rd choice.
    m.update(win, s(60), ms(80));
    assert_eq!(kept(&m), [(0, 50), (40, 65), (60, 80)]);
    let at60 = m;
    // The best aged out: promote.
    assert_eq!(m.update(win, s(101), ms(90)), ms(65));
    assert_eq!(kept(&m), [(40, 65), (60, 80), (101, 90)]);
    assert_eq!(m.update(win, s(150), ms(95)), ms(80));
    assert_eq!(kept(&m), [(60, 80), (101, 90), (150, 95)]);
    // Nothing left in the window: reset.
    assert_eq!(m.update(win, s(261), ms(99)), ms(99));
    assert_eq!(kept(&m), [(261, 99), (261, 99), (261, 99)]);
    // New min: reset.
    assert_eq!(m.update(win, s(262), ms(10)), ms(10));
    // Double promotion: from the t = 60 state, a sample at 145 s ages out 0 s and 40 s.
    let mut m = at60;
    assert_eq!(m.update(win, s(145), ms(90)), ms(80));
    assert_eq!(kept(&m), [(60, 80), (145, 90), (145, 90)]);
}

#[test]
fn equal_value_refreshes_the_min() {
    let win = Duration::from_secs(10);
    let mut m = WindowedMin::new();
    m.update(win, s(0), ms(5));
    m.update(win, s(9), ms(5));
    assert_eq!(kept(&m), [(9, 5), (9, 5), (9, 5)]);
    assert_eq!(m.update(win, s(15), ms(7)), ms(5));
}

#[test]
fn time_going_backwards_does_not_panic() {
    let win = Duration::from_secs(10);
    let mut m = WindowedMin::new();
    m.update(win, s(100), ms(5));
    assert_eq!(m.update(win, s(1), ms(9)), ms(5));
    m.update(win, Instant::MAX, Duration::MAX);
    m.update(win, Instant::ZERO, Duration::ZERO);
    assert_eq!(m.get(), Some(Duration::ZERO));
}

#[test]
fn rtt_tracks_min_over_300_s() {
    assert_eq!(MIN_RTT_WINDOW, Duration::from_secs(300));
    let mut r = Rtt::new(RttEstimator::Linux, INITIAL_RTO, ms(200), ms(120_000));
    assert_eq!(r.min_rtt(), None);
    r.on_sample(s(0), ms(50), 0, 0);
    r.on_sample(s(200), ms(80), 0, 0);
    assert_eq!(r.min_rtt(), Some(ms(50)));
    r.on_sample(s(301), ms(90), 0, 0);
    assert_eq!(
        r.min_rtt(),
        Some(ms(80)),
        "the 50 ms sample left the window"
    );
    // A shorter window, and a sample that only feeds the filter.
    r.set_min_rtt_window(Duration::from_secs(10));
    assert_eq!(r.update_min_rtt(s(400), ms(120)), ms(120));
    assert_eq!(r.min_rtt(), Some(ms(120)));
    assert_eq!(r.latest(), Some(ms(90)));
    assert_eq!(
        r.update_min_rtt(s(401), Duration::ZERO),
        Duration::from_micros(1)
    );
}

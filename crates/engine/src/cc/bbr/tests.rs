//! BBR v1 vectors: the constants and formulas of Linux 4.9 `tcp_bbr.c` with exact numbers,
//! and the mode machine driven by rate samples of a steady path.

use super::*;

fn ms(v: u64) -> Instant {
    Instant::from_millis(v)
}

/// A path delivering `rate` segments per ms with a 100 ms min RTT, one ACK per ms; keeps
/// the connection's counters as Linux would.
struct Path {
    now_ms: u64,
    delivered: u64,
    lost: u64,
    cwnd: u64,
    in_flight: u64,
    ca: CaState,
}

impl Path {
    fn new() -> Path {
        Path {
            now_ms: 0,
            delivered: 0,
            lost: 0,
            cwnd: 10,
            in_flight: 10,
            ca: CaState::Open,
        }
    }
    fn conn(&self) -> Conn {
        Conn {
            now: ms(self.now_ms),
            mss: 1000,
            cwnd: self.cwnd,
            in_flight: self.in_flight,
            delivered: self.delivered,
            delivered_time: ms(self.now_ms),
            lost: self.lost,
            ca: self.ca,
            srtt: Some(Duration::from_millis(100)),
        }
    }
    /// One ACK delivering `n` segments, each sent 100 ms earlier when `prior` had been
    /// delivered; the sample is `n_interval` segments over 100 ms.
    fn ack(&mut self, b: &mut Bbr, n: u64, rate_per_100ms: u64, losses: u64) -> Decision {
        self.now_ms += 1;
        self.delivered += n;
        self.lost += losses;
        let rs = RateSample {
            prior_delivered: Some(self.delivered.saturating_sub(rate_per_100ms)),
            prior_time: ms(self.now_ms.saturating_sub(100)),
            delivered: Some(rate_per_100ms),
            interval: Some(Duration::from_millis(100)),
            acked_sacked: n,
            losses,
            is_app_limited: false,
            rtt: Some(Duration::from_millis(100)),
            prior_in_flight: self.in_flight,
            ..RateSample::default()
        };
        let d = b.on_ack(&rs, &self.conn());
        self.cwnd = d.cwnd;
        d
    }
}

#[test]
fn gains_are_linux_fixed_point() {
    assert_eq!(HIGH_GAIN, 739, "256 · 2885/1000 + 1");
    assert_eq!(DRAIN_GAIN, 88, "256 · 1000/2885");
    assert_eq!(CWND_GAIN, 512);
    assert_eq!(PACING_GAIN[0], 320);
    assert_eq!(PACING_GAIN[1], 192);
}

/// bw 1 segment/ms (2^24/1000 = 16777 in BW units), min_rtt 100 ms, gain 2:
/// ⌈16777 · 100000 · 2 / 2^24⌉ = 200, + 3 · tso_segs_goal (2) = 206.
#[test]
fn target_cwnd_is_bdp_times_gain_plus_tso_budget() {
    let mut b = Bbr::new(ms(0), 1000, 10, None);
    assert_eq!(
        b.target_cwnd(16_777, CWND_GAIN),
        INIT_CWND,
        "no RTT sample yet"
    );
    b.min_rtt = Some(Duration::from_millis(100));
    b.tso_segs_goal = 2;
    assert_eq!(b.target_cwnd(16_777, CWND_GAIN), 206);
    assert_eq!(b.target_cwnd(16_777, BBR_UNIT), 106);
}

/// `bbr_init_pacing_rate_from_rtt`: 2.885 · 10 segments / 1 ms nominal RTT.
#[test]
fn initial_pacing_rate() {
    // bw = 10 · 2^24 / 1000 µs = 167,772; (167,772 · 1000 B · 739) >> 8 = 484,310,578;
    // · 10^6 >> 24 = 28,867,159 B/s.
    let b = Bbr::new(ms(0), 1000, 10, None);
    assert_eq!(b.pacing_rate(), 28_867_159);
    // SRTT 100 ms: bw = 1,677, so 288,547 B/s.
    let b = Bbr::new(ms(0), 1000, 10, Some(Duration::from_millis(100)));
    assert_eq!(b.pacing_rate(), 288_547);
}

/// A steady 100 segments per RTT: STARTUP grows cwnd by what is ACKed, the bw stops
/// growing, three rounds later the pipe is full, DRAIN sets ssthresh to one BDP and hands
/// over to PROBE_BW once the flight is down to it; PROBE_BW then cycles its gains.
#[test]
fn startup_drain_probe_bw() {
    let mut p = Path::new();
    let mut b = Bbr::new(ms(0), 1000, 10, Some(Duration::from_millis(100)));
    assert_eq!(b.mode(), Mode::Startup);
    let d = p.ack(&mut b, 1, 100, 0);
    assert_eq!(d.cwnd, 11, "slow start: cwnd + acked below the target");
    let mut ssthresh = None;
    for _ in 0..2000 {
        p.in_flight = 250; // STARTUP's queue: more in flight than one BDP
        let d = p.ack(&mut b, 1, 100, 0);
        ssthresh = ssthresh.or(d.ssthresh);
        if b.mode() != Mode::Startup {
            break;
        }
    }
    assert!(b.full_bw_reached());
    assert_eq!(b.mode(), Mode::Drain);
    // One BDP: 100 segments + 3 · tso_segs_goal (2), even.
    assert_eq!(ssthresh, Some(106));
    p.in_flight = 100;
    p.ack(&mut b, 1, 100, 0);
    assert_eq!(b.mode(), Mode::ProbeBw);
    // cwnd converges to 2 · BDP + budget = 206 and the pacing gain cycles.
    let mut gains = Vec::new();
    for _ in 0..3000 {
        // Probing at 5/4 raises the flight above 1.25 BDP; otherwise it sits at one BDP.
        p.in_flight = if b.pacing_gain() > 256 { 140 } else { 100 };
        p.ack(&mut b, 1, 100, 0);
        if gains.last() != Some(&b.pacing_gain()) {
            gains.push(b.pacing_gain());
        }
    }
    assert!(p.cwnd <= 206, "{}", p.cwnd);
    assert!(gains.contains(&320) && gains.contains(&192) && gains.contains(&256));
    let i = gains.iter().position(|&g| g == 320).unwrap();
    assert_eq!(gains.get(i + 1), Some(&192), "5/4 is followed by 3/4");
}

/// Recovery's first round conserves packets: cwnd = in flight + acked; leaving recovery
/// restores the cwnd saved when it started (`bbr_ssthresh` → `bbr_save_cwnd`).
#[test]
fn packet_conservation_then_restore() {
    let mut p = Path::new();
    let mut b = Bbr::new(ms(0), 1000, 10, Some(Duration::from_millis(100)));
    for _ in 0..50 {
        p.ack(&mut b, 1, 100, 0);
    }
    let before = p.cwnd;
    b.on_congestion_event(before);
    p.ca = CaState::Recovery;
    p.in_flight = 30;
    let d = p.ack(&mut b, 2, 100, 1);
    assert_eq!(d.cwnd, 32, "in flight 30 + acked 2");
    p.ca = CaState::Open;
    let d = p.ack(&mut b, 1, 100, 0);
    assert!(d.cwnd >= before, "{} restored to ≥ {before}", d.cwnd);
}

/// Ten seconds without an RTT sample at or below min_rtt: PROBE_RTT caps cwnd at 4 for
/// 200 ms and a round, then restores the saved cwnd.
#[test]
fn probe_rtt_every_ten_seconds() {
    let mut p = Path::new();
    let mut b = Bbr::new(ms(0), 1000, 10, Some(Duration::from_millis(100)));
    b.min_rtt = Some(Duration::from_millis(50));
    for _ in 0..10_001 {
        p.in_flight = p.cwnd.min(100);
        p.ack(&mut b, 1, 100, 0);
        if b.mode() == Mode::ProbeRtt {
            break;
        }
    }
    assert_eq!(b.mode(), Mode::ProbeRtt);
    assert_eq!(
        b.min_rtt(),
        Some(Duration::from_millis(100)),
        "the expired min is replaced"
    );
    let entered = p.now_ms;
    let d = p.ack(&mut b, 1, 100, 0);
    assert_eq!(d.cwnd, 4);
    assert!(
        d.app_limited,
        "samples in PROBE_RTT are application-limited"
    );
    while b.mode() == Mode::ProbeRtt {
        p.in_flight = 4;
        p.ack(&mut b, 1, 100, 0);
    }
    assert!(p.now_ms - entered >= 200, "{} ms", p.now_ms - entered);
    assert!(p.cwnd > 4);
}

#[test]
fn max_filter_keeps_the_window_max() {
    let mut f = MaxFilter::default();
    f.update(10, 1, 50);
    f.update(10, 5, 40); // a quarter window later: the second choice
    assert_eq!(f.get(), 50);
    f.update(10, 12, 30);
    assert_eq!(
        f.get(),
        40,
        "the 50 of round 1 aged out; the 40 of round 5 is the max"
    );
    f.update(10, 30, 20);
    assert_eq!(f.get(), 20);
}

//! A user's own congestion controller through the seam (`cc::CongestionController`,
//! selected by `Config::controller`): a fixed window of 20 segments that sets cwnd itself
//! on every ACK's rate sample (as Linux's `cong_control` does), driving whole transfers
//! through the seeded test path — every moment of the trait reached, the window held,
//! every byte delivered.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use lossrec::cc::rate::RateSample;
use lossrec::cc::{
    CongestionController, ConnInfo, ControllerFactory, CustomController, Init, RateVerdict,
    SentInfo, Window,
};
use lossrec::config::CongestionControl;
use lossrec::{Config, Duration, Instant, ReceiverConfig, Sender};
use lossrec_testkit::pair::{transfer, RandomPath};

const MSS: u64 = 1448;
const FIXED_SEGS: u64 = 20;

/// How often each moment was called, shared by every copy of the controller.
#[derive(Debug, Default)]
struct Calls {
    sent: AtomicU64,
    samples: AtomicU64,
    events: AtomicU64,
    timeouts: AtomicU64,
}

#[derive(Clone, Debug)]
struct Fixed {
    calls: Arc<Calls>,
}

impl Fixed {
    fn window(w: &Window) -> u64 {
        FIXED_SEGS * w.smss()
    }
}

impl CongestionController for Fixed {
    fn on_ack(&mut self, _now: Instant, _w: &mut Window, _acked: u64, _srtt: Option<Duration>) {
        unreachable!("a controller that sets cwnd itself is not asked to grow it");
    }
    fn ssthresh(&self, _now: Instant, w: &Window, _flight_size: u64) -> u64 {
        Fixed::window(w)
    }
    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(self.clone())
    }
    fn on_congestion_event(&mut self, _now: Instant, _w: &Window) {
        self.calls.events.fetch_add(1, Ordering::Relaxed);
    }
    fn on_timeout(&mut self, _now: Instant, _c: &ConnInfo) {
        self.calls.timeouts.fetch_add(1, Ordering::Relaxed);
    }
    fn on_packet_sent(&mut self, _now: Instant, sent: &SentInfo) {
        assert!(sent.bytes > 0);
        self.calls.sent.fetch_add(1, Ordering::Relaxed);
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn sets_cwnd(&self) -> bool {
        true
    }
    fn on_rate_sample(
        &mut self,
        _now: Instant,
        _rs: &RateSample,
        _c: &ConnInfo,
        w: &mut Window,
    ) -> RateVerdict {
        self.calls.samples.fetch_add(1, Ordering::Relaxed);
        w.cwnd = Fixed::window(w);
        RateVerdict::default()
    }
}

#[derive(Debug)]
struct Factory {
    calls: Arc<Calls>,
}

impl ControllerFactory for Factory {
    fn build(&self, _now: Instant, init: &Init) -> Box<dyn CongestionController> {
        assert_eq!(init.mss, MSS);
        Box::new(Fixed {
            calls: self.calls.clone(),
        })
    }
}

/// `linux` with the fixed controller in place of the `cc` axis's (left at BBR, which it
/// overrides).
fn config(calls: &Arc<Calls>) -> Config {
    let mut c = Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.cc = CongestionControl::Bbr;
    c.controller = Some(CustomController::new(Arc::new(Factory {
        calls: calls.clone(),
    })));
    c
}

/// Without loss the window is the controller's: no new data leaves beyond the latest
/// cumulative ACK plus 20 segments, and a megabyte takes one round per window.
#[test]
fn fixed_window_rules_a_lossless_transfer() {
    let calls = Arc::new(Calls::default());
    let delay = Duration::from_millis(25);
    let bytes = 1_000_000;
    let out = transfer(
        config(&calls),
        ReceiverConfig::default(),
        bytes,
        &RandomPath::lossy(0.0, delay),
        1,
    );
    assert_eq!(out.delivered, bytes);
    for &(at, range, _, _) in &out.sent {
        let una = out
            .acks
            .iter()
            .filter(|(t, _)| *t <= at)
            .map(|(_, a)| a.cumulative)
            .max()
            .unwrap_or(0);
        assert!(
            range.end <= una + FIXED_SEGS * MSS,
            "{range:?} sent at {at:?} beyond SND.UNA {una} + the fixed window"
        );
    }
    // 691 segments at 20 a round trip of 50 ms: at least 34 rounds.
    let rounds = bytes.div_ceil(MSS).div_ceil(FIXED_SEGS);
    assert!(out.finish >= Instant::ZERO + delay * 2 * (rounds as u32 - 1));
    assert!(out.finish <= Instant::ZERO + delay * 2 * (rounds as u32 + 2));
    assert_eq!(calls.sent.load(Ordering::Relaxed), out.sent.len() as u64);
    assert_eq!(calls.samples.load(Ordering::Relaxed), out.acks.len() as u64);
    assert_eq!(calls.events.load(Ordering::Relaxed), 0);
}

/// With 3 % of the data lost the transfer completes through fast recovery and timeouts,
/// which reach the controller's congestion-event and timeout moments.
#[test]
fn fixed_window_recovers_from_loss() {
    let calls = Arc::new(Calls::default());
    let path = RandomPath::lossy(0.03, Duration::from_millis(10));
    for seed in 1..=5 {
        let out = transfer(
            config(&calls),
            ReceiverConfig::default(),
            300_000,
            &path,
            seed,
        );
        assert_eq!(out.delivered, 300_000, "seed {seed}");
    }
    assert!(calls.events.load(Ordering::Relaxed) > 0);
    assert!(calls.sent.load(Ordering::Relaxed) > 5 * 300_000 / MSS);
}

/// A sender with a user's controller is `Clone` (`clone_box`), and the configuration
/// compares equal only with the same factory.
#[test]
fn custom_controller_clones_and_compares() {
    let calls = Arc::new(Calls::default());
    let c = config(&calls);
    assert_eq!(c, c.clone());
    assert_ne!(c, config(&calls), "another factory");
    let mut s = Sender::new(c, Instant::ZERO).unwrap();
    s.write(Instant::ZERO, 10 * MSS);
    let t = s.clone();
    assert_eq!(t.cwnd(), s.cwnd());
    while s.poll_transmit(Instant::ZERO).is_some() {}
    assert_eq!(calls.sent.load(Ordering::Relaxed), 10);
}

/// A controller that asks for nothing: cwnd 0 on every ACK and ssthresh 0. The sender
/// keeps its floor (cwnd ≥ 1 SMSS, ssthresh ≥ 2 SMSS; checked after every input under
/// debug assertions) and the transfer still completes, one segment at a time — whether
/// the controller sets cwnd itself (`Zero(true)`) or leaves it to growth and PRR.
#[derive(Clone, Debug)]
struct Zero(bool);

impl CongestionController for Zero {
    fn on_ack(&mut self, _now: Instant, w: &mut Window, _acked: u64, _srtt: Option<Duration>) {
        w.cwnd = 0;
    }
    fn ssthresh(&self, _now: Instant, _w: &Window, _flight_size: u64) -> u64 {
        0
    }
    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(self.clone())
    }
    fn wants_rate_samples(&self) -> bool {
        true
    }
    fn on_rate_sample(
        &mut self,
        _now: Instant,
        _rs: &RateSample,
        _c: &ConnInfo,
        w: &mut Window,
    ) -> RateVerdict {
        w.cwnd = 0;
        w.ssthresh = 0;
        RateVerdict { app_limited: true }
    }
    fn sets_cwnd(&self) -> bool {
        self.0
    }
    fn undo_cwnd(&self, _cwnd: u64, _restored: u64) -> u64 {
        0
    }
}

#[derive(Debug)]
struct ZeroFactory(bool);

impl ControllerFactory for ZeroFactory {
    fn build(&self, _now: Instant, _init: &Init) -> Box<dyn CongestionController> {
        Box::new(Zero(self.0))
    }
}

#[test]
fn zero_windows_are_floored() {
    let path = RandomPath::lossy(0.05, Duration::from_millis(5));
    for (own, seed) in [false, true]
        .into_iter()
        .flat_map(|o| (1..=3).map(move |s| (o, s)))
    {
        let mut c = Config::linux();
        c.handshake = false;
        c.controller = Some(CustomController::new(Arc::new(ZeroFactory(own))));
        let out = transfer(c, ReceiverConfig::default(), 50_000, &path, seed);
        assert_eq!(out.delivered, 50_000, "sets cwnd {own}, seed {seed}");
    }
}

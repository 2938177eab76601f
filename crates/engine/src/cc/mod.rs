//! Congestion control behind one trait ([`CongestionController`], `controller`), which
//! Reno, CUBIC, CUBIC as Linux computes it and BBR implement and an embedder's own
//! controller can too; [`Controller`] holds the connection's: the built-ins by value
//! (static dispatch, a `match` the compiler inlines) and a user's boxed.
//!
//! The sender owns cwnd and ssthresh (in bytes) and hands them to the controller as a
//! [`Window`]; the controller decides growth, the reduction target, the undo value and —
//! if it wants — cwnd on every ACK from rate samples and the pacing rate. The sender has
//! no branch on which controller it runs.

pub mod bbr;
pub mod bictcp;
mod controller;
pub mod cubic;
pub mod cwnd_limited;
pub mod hystart;
pub mod rate;
pub mod reno;

pub use controller::{
    Checkpoint, CongestionController, ConnInfo, ControllerFactory, CustomController, Init,
    RateVerdict, SentInfo,
};

use crate::config::{Algorithms, Config, CongestionControl};
use crate::time::{Duration, Instant};
use rate::RateSample;

/// The window the algorithm acts on. Bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Window {
    /// The congestion window (RFC 5681 cwnd).
    pub cwnd: u64,
    /// The slow-start threshold (RFC 5681 ssthresh; `u64::MAX` before any reduction).
    pub ssthresh: u64,
    /// The sender's maximum segment size (RFC 5681 SMSS).
    pub mss: u64,
}

impl Window {
    /// SMSS, never zero (so impossible inputs cannot divide by zero).
    pub fn smss(&self) -> u64 {
        self.mss.max(1)
    }
    /// True while cwnd < ssthresh (RFC 5681 §3.1: slow start).
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// A connection's congestion controller: a built-in by value, or a user's boxed.
#[derive(Debug)]
pub enum Controller {
    /// RFC 5681 Reno with RFC 3465 byte counting (`reno`), or Linux's (`reno-linux`).
    Reno(reno::Reno),
    /// RFC 9438 CUBIC (`cubic`), or as Linux computes it (`cubic-linux`, `bictcp`).
    Cubic(cubic::Cubic),
    /// BBR v1 as Linux 4.9 (`bbr`); boxed, so the other arms stay small.
    Bbr(Box<bbr::Bbr>),
    /// An embedder's own ([`Config::controller`]).
    Custom(Box<dyn CongestionController>),
}

impl Clone for Controller {
    fn clone(&self) -> Self {
        match self {
            Controller::Reno(r) => Controller::Reno(*r),
            Controller::Cubic(c) => Controller::Cubic(*c),
            Controller::Bbr(b) => Controller::Bbr(b.clone()),
            Controller::Custom(c) => Controller::Custom(c.clone_box()),
        }
    }
}

impl Controller {
    /// The built-in controller `kind` names, with RFC 3465 slow start and no HyStart.
    pub fn new(kind: CongestionControl) -> Controller {
        match kind {
            CongestionControl::Reno => Controller::Reno(reno::Reno::default()),
            CongestionControl::RenoLinux => Controller::Reno(reno::Reno::linux()),
            CongestionControl::Cubic => Controller::Cubic(cubic::Cubic::default()),
            CongestionControl::CubicLinux => Controller::Cubic(cubic::Cubic::linux()),
            CongestionControl::Bbr => Controller::Bbr(Box::new(bbr::Bbr::new(
                Instant::ZERO,
                u64::from(Config::default().mss),
                u64::from(Config::default().initial_cwnd),
                None,
            ))),
        }
    }

    /// The controller a connection created at `now` runs: the user's
    /// ([`Config::controller`]) if set, else the built-in the `cc` axis names with the
    /// resolved slow start (`alg.rules.growth_by_delivered`: Linux's `tcp_slow_start`, else
    /// RFC 3465). Read once, at construction; HyStart is set by the sender afterwards
    /// ([`Controller::set_hystart`]) from its resolved rules.
    pub fn for_config(cfg: &Config, alg: &Algorithms, now: Instant) -> Controller {
        let (mss, iw) = (u64::from(alg.shell.mss), u64::from(alg.shell.initial_cwnd));
        if let Some(custom) = &cfg.controller {
            let init = Init {
                mss,
                initial_cwnd: iw,
            };
            return Controller::Custom(custom.build(now, &init));
        }
        let rule = if alg.rules.growth_by_delivered {
            reno::SlowStart::Linux
        } else {
            reno::SlowStart::Abc
        };
        match Controller::new(cfg.cc) {
            Controller::Reno(mut r) => {
                r.set_slow_start(rule);
                Controller::Reno(r)
            }
            Controller::Cubic(mut c) => {
                c.reno_mut().set_slow_start(rule);
                Controller::Cubic(c)
            }
            // `bbr_init` when the socket is created.
            Controller::Bbr(_) => Controller::Bbr(Box::new(bbr::Bbr::new(now, mss, iw, None))),
            c @ Controller::Custom(_) => c,
        }
    }

    /// HyStart for a CUBIC controller (Linux `bictcp`'s `hystart_detect`); the other
    /// controllers have none and ignore it.
    pub fn set_hystart(&mut self, h: hystart::HyStart) {
        if let Controller::Cubic(c) = self {
            c.set_hystart(h);
        }
    }

    /// The `cc` axis value of a built-in; `None` for a user's controller.
    pub fn kind(&self) -> Option<CongestionControl> {
        Some(match self {
            Controller::Reno(r) if r.halves_cwnd() => CongestionControl::RenoLinux,
            Controller::Reno(_) => CongestionControl::Reno,
            Controller::Cubic(c) if c.is_linux() => CongestionControl::CubicLinux,
            Controller::Cubic(_) => CongestionControl::Cubic,
            Controller::Bbr(_) => CongestionControl::Bbr,
            Controller::Custom(_) => return None,
        })
    }
}

/// Calls a trait method on whichever controller this is, statically for the built-ins.
macro_rules! dispatch {
    ($self:ident, $as:ident, $m:ident($($a:expr),*)) => {
        match $self {
            Controller::Reno(c) => CongestionController::$m(c, $($a),*),
            Controller::Cubic(c) => CongestionController::$m(c, $($a),*),
            Controller::Bbr(c) => CongestionController::$m(c.$as(), $($a),*),
            Controller::Custom(c) => c.$m($($a),*),
        }
    };
}

impl CongestionController for Controller {
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>) {
        dispatch!(self, as_mut, on_ack(now, w, acked, srtt))
    }
    fn ssthresh(&self, now: Instant, w: &Window, flight_size: u64) -> u64 {
        dispatch!(self, as_ref, ssthresh(now, w, flight_size))
    }
    fn clone_box(&self) -> Box<dyn CongestionController> {
        Box::new(self.clone())
    }
    fn on_congestion_event(&mut self, now: Instant, w: &Window) {
        dispatch!(self, as_mut, on_congestion_event(now, w))
    }
    fn on_timeout(&mut self, now: Instant, c: &ConnInfo) {
        dispatch!(self, as_mut, on_timeout(now, c))
    }
    fn on_packet_sent(&mut self, now: Instant, sent: &SentInfo) {
        dispatch!(self, as_mut, on_packet_sent(now, sent))
    }
    fn on_slow_start_sample(&mut self, s: &hystart::Sample) -> bool {
        dispatch!(self, as_mut, on_slow_start_sample(s))
    }
    fn wants_rate_samples(&self) -> bool {
        dispatch!(self, as_ref, wants_rate_samples())
    }
    fn on_rate_sample(
        &mut self,
        now: Instant,
        rs: &RateSample,
        c: &ConnInfo,
        w: &mut Window,
    ) -> RateVerdict {
        dispatch!(self, as_mut, on_rate_sample(now, rs, c, w))
    }
    fn sets_cwnd(&self) -> bool {
        dispatch!(self, as_ref, sets_cwnd())
    }
    fn on_tx_start(&mut self, now: Instant, idle: Option<Duration>, c: &ConnInfo) {
        dispatch!(self, as_mut, on_tx_start(now, idle, c))
    }
    fn on_mss(&mut self, mss: u64) {
        dispatch!(self, as_mut, on_mss(mss))
    }
    fn needs_pacing(&self) -> bool {
        dispatch!(self, as_ref, needs_pacing())
    }
    fn pacing_rate(&self) -> Option<u64> {
        dispatch!(self, as_ref, pacing_rate())
    }
    fn undo_cwnd(&self, cwnd: u64, restored: u64) -> u64 {
        dispatch!(self, as_ref, undo_cwnd(cwnd, restored))
    }
    fn checkpoint(&self) -> Checkpoint {
        dispatch!(self, as_ref, checkpoint())
    }
    fn restore(&mut self, c: &Checkpoint) {
        dispatch!(self, as_mut, restore(c))
    }
}

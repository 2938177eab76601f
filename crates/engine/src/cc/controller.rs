//! The congestion-control seam: one trait every controller implements — Reno, CUBIC,
//! CUBIC as Linux computes it (`bictcp`), BBR, and an embedder's own — in the shape of
//! quinn-proto's `congestion::Controller` and s2n-quic's `CongestionController`, with
//! Linux's `tcp_congestion_ops` as the list of moments (`ssthresh`, `cong_avoid`,
//! `cong_control`, `pkts_acked`, `cwnd_event`, `set_state`, `undo_cwnd`).
//!
//! The window is the connection's: the sender owns cwnd and ssthresh (recovery's reducer,
//! undo, ECN and F-RTO write them too, as Linux's `tp->snd_cwnd`) and hands them to the
//! controller as a [`Window`] at each moment — s2n-quic's "manager given its parts".
//! What a controller decides about the window it writes there.
//!
//! The moments, in the order the sender calls them on one ACK (Linux `tcp_ack`):
//! 1. [`on_slow_start_sample`](CongestionController::on_slow_start_sample) while the
//!    cumulative part is processed (`pkts_acked`);
//! 2. [`on_ack`](CongestionController::on_ack) outside recovery, for growth
//!    (`cong_avoid`); or, on a congestion event, [`ssthresh`](CongestionController::ssthresh)
//!    then [`on_congestion_event`](CongestionController::on_congestion_event), after which
//!    recovery's reducer (PRR) sets cwnd — unless the controller
//!    [sets cwnd itself](CongestionController::sets_cwnd);
//! 3. [`on_rate_sample`](CongestionController::on_rate_sample) with the ACK's delivery-rate
//!    sample, for controllers that [want one](CongestionController::wants_rate_samples)
//!    (`cong_control`).
//!
//! Undo is a value: at the first reduction of an episode the sender keeps the controller's
//! [`Checkpoint`] (a `Copy` value) with cwnd and ssthresh, and hands it back to
//! [`restore`](CongestionController::restore) when the reduction proves spurious (quiche's
//! `checkpoint`/`rollback`, quinn's `pre_congestion_state`, RFC 9438 §4.9).

use core::fmt;
use std::sync::Arc;

use super::hystart;
use super::rate::RateSample;
use super::Window;
use crate::sender::RecoveryState;
use crate::time::{Duration, Instant};

/// A congestion controller: how cwnd grows, what a congestion event does to it, and at
/// what rate the connection paces.
///
/// Only growth, the ssthresh of a congestion event and `clone_box` must be written; every
/// other moment has a default that does nothing, as Linux's optional `tcp_congestion_ops`
/// members.
///
/// A fixed window of 20 segments, selected through the configuration:
///
/// ```
/// use std::sync::Arc;
/// use lossrec::cc::{CongestionController, ControllerFactory, CustomController, Init, Window};
/// use lossrec::{Config, Duration, Instant, Sender};
///
/// #[derive(Clone, Debug)]
/// struct Fixed;
///
/// impl CongestionController for Fixed {
///     fn on_ack(&mut self, _now: Instant, w: &mut Window, _acked: u64, _srtt: Option<Duration>) {
///         w.cwnd = 20 * w.smss();
///     }
///     fn ssthresh(&self, _now: Instant, w: &Window, _flight_size: u64) -> u64 {
///         20 * w.smss()
///     }
///     fn clone_box(&self) -> Box<dyn CongestionController> {
///         Box::new(self.clone())
///     }
/// }
///
/// #[derive(Debug)]
/// struct FixedFactory;
///
/// impl ControllerFactory for FixedFactory {
///     fn build(&self, _now: Instant, _init: &Init) -> Box<dyn CongestionController> {
///         Box::new(Fixed)
///     }
/// }
///
/// let mut config = Config::linux();
/// config.controller = Some(CustomController::new(Arc::new(FixedFactory)));
/// let sender = Sender::new(config, Instant::ZERO).unwrap();
/// assert!(sender.cwnd() > 0);
/// ```
pub trait CongestionController: fmt::Debug + Send + Sync {
    /// `acked` bytes were newly delivered while not in recovery and while the window was
    /// in use (Linux `cong_avoid`, RFC 5681 §3.1): grow `w.cwnd`. Not called when the
    /// controller [sets cwnd itself](Self::sets_cwnd).
    fn on_ack(&mut self, now: Instant, w: &mut Window, acked: u64, srtt: Option<Duration>);

    /// The ssthresh a congestion event now would set (fast retransmit or timeout; Linux
    /// `ssthresh`). The sender keeps at least 2·SMSS. No side effect.
    fn ssthresh(&self, now: Instant, w: &Window, flight_size: u64) -> u64;

    /// A copy of this controller (the sender is `Clone`; quinn's `Controller::clone_box`).
    fn clone_box(&self) -> Box<dyn CongestionController>;

    /// A congestion event happened: called after [`ssthresh`](Self::ssthresh) was asked,
    /// with the window before the sender cuts it (RFC 9438 §4.6-4.7; `bbr_ssthresh`
    /// remembers cwnd).
    fn on_congestion_event(&mut self, now: Instant, w: &Window) {
        let _ = (now, w);
    }

    /// A retransmission timeout (Linux `tcp_enter_loss` → `set_state(TCP_CA_Loss)`),
    /// after the sender set the loss window.
    fn on_timeout(&mut self, now: Instant, c: &ConnInfo) {
        let _ = (now, c);
    }

    /// A transmission of data left at `now` (Linux `tcp_event_data_sent`).
    fn on_packet_sent(&mut self, now: Instant, sent: &SentInfo) {
        let _ = (now, sent);
    }

    /// An RTT sample taken from this ACK (Linux `pkts_acked` for HyStart): true when it
    /// ends slow start now (the sender then sets ssthresh = cwnd). The sender passes
    /// samples of segments never retransmitted, under the Linux flavour.
    fn on_slow_start_sample(&mut self, s: &hystart::Sample) -> bool {
        let _ = s;
        false
    }

    /// The controller takes the delivery-rate sample of every ACK
    /// ([`on_rate_sample`](Self::on_rate_sample)); the sender then stamps its
    /// transmissions for rate estimation (Linux `tcp_rate_skb_sent`).
    fn wants_rate_samples(&self) -> bool {
        false
    }

    /// One ACK's delivery-rate sample, after the recovery state machine (Linux
    /// `tcp_cong_control` → `cong_control`). A controller that
    /// [sets cwnd itself](Self::sets_cwnd) writes `w` here.
    fn on_rate_sample(
        &mut self,
        now: Instant,
        rs: &RateSample,
        c: &ConnInfo,
        w: &mut Window,
    ) -> RateVerdict {
        let _ = (now, rs, c, w);
        RateVerdict::default()
    }

    /// The cwnd override: true when the controller sets cwnd itself on every ACK (Linux
    /// `cong_control`, as BBR), so recovery's reducer (PRR) only counts and never sets
    /// cwnd, and growth is not asked for; false when PRR's cwnd overrides the
    /// controller's during a reduction (`tcp_cwnd_reduction`).
    fn sets_cwnd(&self) -> bool {
        false
    }

    /// Data leaves with nothing in flight (Linux `CA_EVENT_TX_START`). `idle` is the time
    /// since data last left, when the sender reports it (the Linux flavour).
    fn on_tx_start(&mut self, now: Instant, idle: Option<Duration>, c: &ConnInfo) {
        let _ = (now, idle, c);
    }

    /// The handshake settled the segment size.
    fn on_mss(&mut self, mss: u64) {
        let _ = mss;
    }

    /// The controller needs pacing even when the configuration does not ask for it (Linux
    /// `SK_PACING_NEEDED`): the sender then paces on its own timer.
    fn needs_pacing(&self) -> bool {
        false
    }

    /// The pacing rate, bytes per second, if the controller sets it; `None`: the sender's
    /// (Linux `tcp_update_pacing_rate` from cwnd and SRTT). The sender's pacer turns the
    /// rate into each packet's earliest departure time.
    fn pacing_rate(&self) -> Option<u64> {
        None
    }

    /// The cwnd a spurious reduction's undo sets (Linux `undo_cwnd`), given the current
    /// cwnd and the one the sender would restore (`tcp_reno_undo_cwnd`); by default the
    /// latter. BBR keeps cwnd as it is (`bbr_undo_cwnd`).
    fn undo_cwnd(&self, cwnd: u64, restored: u64) -> u64 {
        let _ = cwnd;
        restored
    }

    /// The controller's own state for undo (its curve), taken at the first reduction of
    /// an episode. By default nothing.
    fn checkpoint(&self) -> Checkpoint {
        Checkpoint::default()
    }

    /// Rolls back to a [`checkpoint`](Self::checkpoint) this controller took.
    fn restore(&mut self, c: &Checkpoint) {
        let _ = c;
    }
}

/// Builds a connection's controller (quinn's `ControllerFactory`): one factory serves
/// every connection made from a [`Config`](crate::Config).
pub trait ControllerFactory: fmt::Debug + Send + Sync {
    /// A new controller for a connection created at `now`.
    fn build(&self, now: Instant, init: &Init) -> Box<dyn CongestionController>;
}

/// What a new connection's controller starts from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Init {
    /// The segment size before the handshake, bytes.
    pub mss: u64,
    /// The initial window, segments.
    pub initial_cwnd: u64,
}

/// A user's controller in the configuration ([`Config::controller`](crate::Config)): it
/// takes the place of the built-in one the `cc` axis names. Two configurations are equal
/// when they hold the same factory.
#[derive(Clone, Debug)]
pub struct CustomController(Arc<dyn ControllerFactory>);

impl CustomController {
    /// Wraps a factory.
    pub fn new(factory: Arc<dyn ControllerFactory>) -> CustomController {
        CustomController(factory)
    }
    /// A controller for a connection created at `now`.
    pub fn build(&self, now: Instant, init: &Init) -> Box<dyn CongestionController> {
        self.0.build(now, init)
    }
}

impl PartialEq for CustomController {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The connection as a controller sees it at a moment (Linux `tcp_sock` fields).
#[derive(Copy, Clone, Debug)]
#[non_exhaustive]
pub struct ConnInfo {
    /// cwnd, ssthresh and SMSS, bytes.
    pub window: Window,
    /// Bytes in flight (RFC 6675 pipe, Linux `tcp_packets_in_flight`).
    pub pipe: u64,
    /// Segments delivered so far and when the last were (`tp->delivered`,
    /// `delivered_mstamp`); zero when nothing samples rates.
    pub delivered: u64,
    /// When `delivered` last grew.
    pub delivered_time: Instant,
    /// Segments ever marked lost (`tp->lost`).
    pub lost: u64,
    /// Rate samples are application-limited now (`tp->app_limited`).
    pub app_limited: bool,
    /// The recovery state (`icsk_ca_state`).
    pub state: RecoveryState,
    /// The smoothed RTT, once measured.
    pub srtt: Option<Duration>,
}

impl ConnInfo {
    /// A connection with this window and nothing else known: nothing in flight or
    /// delivered, Open, no SRTT (for tests of a controller on its own).
    pub fn new(now: Instant, window: Window) -> ConnInfo {
        ConnInfo {
            window,
            pipe: 0,
            delivered: 0,
            delivered_time: now,
            lost: 0,
            app_limited: false,
            state: RecoveryState::Open,
            srtt: None,
        }
    }
}

/// A data transmission as it leaves.
#[derive(Copy, Clone, Debug)]
#[non_exhaustive]
pub struct SentInfo {
    /// Payload bytes.
    pub bytes: u64,
    /// A retransmission (of any kind) rather than new data.
    pub retransmission: bool,
}

/// What a controller asks of the sender after a rate sample.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RateVerdict {
    /// Samples are application-limited until what is in flight is delivered (BBR's
    /// PROBE_RTT: `tp->app_limited = delivered + in_flight`).
    pub app_limited: bool,
}

/// A controller's state for undo, copied at the first reduction of an episode. Built-in
/// controllers keep their whole curve; a user's can keep four words.
#[derive(Copy, Clone, Debug, Default)]
pub struct Checkpoint(pub(crate) Saved);

/// What a [`Checkpoint`] holds.
#[derive(Copy, Clone, Debug, Default)]
pub(crate) enum Saved {
    #[default]
    Nothing,
    Reno(super::reno::Reno),
    Cubic(super::cubic::Cubic),
    Words([u64; 4]),
}

impl Checkpoint {
    /// A user controller's state in four words.
    pub fn from_words(words: [u64; 4]) -> Checkpoint {
        Checkpoint(Saved::Words(words))
    }
    /// The words of [`from_words`](Self::from_words), if that is what this holds.
    pub fn words(&self) -> Option<[u64; 4]> {
        match self.0 {
            Saved::Words(w) => Some(w),
            _ => None,
        }
    }
}

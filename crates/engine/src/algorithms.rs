//! The pure, reusable parts of the engine, for a transport that wants one rule without the
//! TCP sender around it (a QUIC-like stack keeps its own packet numbers and ACK frames and
//! takes the arithmetic from here). Each item is a value in and a value out — no clock, no
//! I/O, no state the caller must set up first — and documented with the RFC section or
//! Linux function it implements.
//!
//! | part | here | source |
//! |---|---|---|
//! | PRR, its variants and bounds | [`Prr`], [`PrrVariant`], [`RecoveryEntry`], [`RecoveryAck`] | RFC 6937 §3, RFC 9937 §6, Linux `tcp_cwnd_reduction` |
//! | RFC 6675 reduction (the pipe rule) | [`rfc6675_quota`] | RFC 6675 §5 |
//! | RACK's rules: send order, RACK.* state, reordering window, timers | [`rack_sent_after`], [`Rack`], [`RackVariant`], [`ReoInputs`] | RFC 8985 §6, Linux `tcp_recovery.c` |
//! | RTT estimator and RTO | [`Rtt`], [`RttEstimator`], [`WindowedMin`] | RFC 6298 §2, Linux `tcp_rtt_estimator` |
//! | CUBIC | [`Cubic`] | RFC 9438 §4 |
//! | Reno with ABC | [`Reno`] | RFC 5681 §3.1, RFC 3465 |
//! | Linux's pacing rate | [`tcp_pacing_rate`], [`PacingInputs`] | Linux `tcp_update_pacing_rate` |
//!
//! Linux's pacing rate for a 10-segment window of 1448-byte segments and a 20 ms RTT,
//! in congestion avoidance (`tcp_pacing_ca_ratio` = 120 %):
//!
//! ```
//! use lossrec::algorithms::{tcp_pacing_rate, PacingInputs};
//! let rate = tcp_pacing_rate(&PacingInputs {
//!     mss: 1448,
//!     cwnd: 10,
//!     ssthresh: 10,
//!     packets_out: 10,
//!     srtt_us: 8 * 20_000, // Linux keeps 8 × SRTT
//!     ss_ratio: 200,
//!     ca_ratio: 120,
//! });
//! assert_eq!(rate, 1448 * 10 * 1_000_000 / 20_000 * 120 / 100); // bytes/s
//! ```
//!
//! RACK's order of transmissions (RFC 8985 §6.2 step 2): equal send times are ordered by
//! end sequence.
//!
//! ```
//! use lossrec::{algorithms::rack_sent_after, Instant};
//! let t = Instant::from_millis(5);
//! assert!(rack_sent_after(t, 3000, t, 2000));
//! assert!(!rack_sent_after(Instant::from_millis(4), 9000, t, 2000));
//! ```
//!
//! The RTT estimator (RFC 6298 §2.2: the first sample R gives SRTT = R, RTTVAR = R/2,
//! RTO = SRTT + max(G, 4·RTTVAR), here floored at a 200 ms min RTO):
//!
//! ```
//! use lossrec::algorithms::{Rtt, RttEstimator};
//! use lossrec::{Duration, Instant};
//! let mut rtt = Rtt::new(
//!     RttEstimator::Rfc6298,
//!     Duration::from_secs(1),
//!     Duration::from_millis(200),
//!     Duration::from_secs(60),
//! );
//! rtt.on_sample(Instant::from_millis(100), Duration::from_millis(100), 1448, 1448);
//! assert_eq!(rtt.srtt(), Some(Duration::from_millis(100)));
//! assert_eq!(rtt.rto(), Duration::from_millis(300));
//! ```

pub use crate::cc::cubic::Cubic;
pub use crate::cc::reno::Reno;
pub use crate::config::RttEstimator;
pub use crate::detect::rack::{
    sent_after as rack_sent_after, Rack, ReoInputs, Variant as RackVariant,
};
pub use crate::pacing::{tcp_pacing_rate, RateInputs as PacingInputs};
pub use crate::reduce::prr::{Prr, Variant as PrrVariant};
pub use crate::reduce::rfc6675::quota as rfc6675_quota;
pub use crate::reduce::{Entry as RecoveryEntry, RecoveryAck};
pub use crate::rtt::{Rtt, WindowedMin};

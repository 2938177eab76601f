//! # lossrec — a sans-IO TCP loss-recovery engine
//!
//! One TCP sender whose loss detection, tail probing, rate reduction, RTO management,
//! spurious-timeout handling and congestion control are chosen per connection by
//! [`Config`], and the matching [`Receiver`]. Nothing here reads a clock, sleeps, touches a
//! socket or draws a random number: time and packets go in as arguments, decisions come out
//! by polling, and what randomness a defence needs comes from the caller
//! ([`Sender::set_seed`]).
//!
//! ## The I/O contract
//!
//! - [`Sender::new(config, now)`](Sender::new); [`write(now, bytes)`](Sender::write) makes
//!   more application data available; [`close(now)`](Sender::close) says no more will come.
//! - [`on_ack(now, &Ack)`](Sender::on_ack) for every ACK, in stream offsets;
//!   [`on_timeout(now)`](Sender::on_timeout) once [`poll_timeout()`](Sender::poll_timeout)
//!   has passed (`now` = the deadline).
//! - [`poll_transmit(now)`](Sender::poll_transmit) → [`Transmit`] `{ range, why, … }`; call
//!   until `None` after every input. A transmission that could not leave the host (a
//!   dropping queue, ENOBUFS) is reported at once with
//!   [`transmit_failed(now, &t)`](Sender::transmit_failed): the sender takes it back as
//!   Linux does when `tcp_transmit_skb` fails, and sends nothing more until the next input
//!   (a caller whose sends can fail says so once with
//!   [`allow_transmit_failures()`](Sender::allow_transmit_failures)).
//! - [`poll_event()`](Sender::poll_event), [`stats()`](Sender::stats), and
//!   [`cwnd()`](Sender::cwnd), [`pipe()`](Sender::pipe), [`state()`](Sender::state) for
//!   observation.
//! - [`set_seed(u64)`](Sender::set_seed) once after `new`, with a secret random value, if
//!   `optack_defence` may be on: which segments it holds back ([`detect::optack`]). A
//!   sender that found its peer acknowledging data it never received
//!   ([`is_stopped()`](Sender::is_stopped), with an
//!   [`OptAckDetected`](EventKind::OptAckDetected) event) stops: `poll_transmit` and
//!   `poll_timeout` return `None`, and the caller ends the connection. An ACK the sender
//!   drops (one acknowledging data not yet sent) is an
//!   [`AckRejected`](EventKind::AckRejected) event as well as a counter.
//! - The [`Receiver`] mirrors it: [`on_segment`](Receiver::on_segment),
//!   [`poll_ack`](Receiver::poll_ack), [`poll_timeout`](Receiver::poll_timeout).
//!
//! Sequence numbers are `u64` stream offsets from the first byte written; 32-bit wrapping
//! exists only in `crates/wire` and the TCP adapter `crates/tcp`. Timestamp values are the
//! engine's own clock (the sender's µs + 1, the receiver's µs); what goes on the wire — a
//! TSval clock in milliseconds as Linux's `tcp_time_stamp`, and one TS.Recent per
//! connection for both directions (RFC 7323 §4.3) — is the adapter's (`lossrec_tcp::ts`),
//! which maps echoes back into the engine's clock. A decision always uses the time of the
//! event being processed: an ACK at its arrival, a timer at its deadline.
//!
//! ## The driver contract
//!
//! How a driver (the simulator, the real wire, the script runner, an embedder) interleaves
//! inputs and polls. Linux runs `tcp_ack` and then `tcp_data_snd_check` for each incoming
//! segment (`tcp_rcv_established`), one segment at a time, so what an ACK allows is sent
//! before the next ACK is looked at:
//!
//! 1. Hand the sender **one input**: one ACK (`on_ack`) or one timeout (`on_timeout`).
//! 2. **Drain** [`poll_transmit(now)`](Sender::poll_transmit) until `None` (and
//!    [`poll_event`](Sender::poll_event), if the driver records events), and put what it
//!    returned on the wire in that order.
//! 3. Only then the next input. A burst of ACKs read together (one `recvmmsg`, one turn of
//!    an event loop) is fed one ACK at a time, in arrival order, each followed by step 2;
//!    never all ACKs first and one drain after them. Inputs due at the same instant are
//!    taken in the order they became due; a timer whose deadline precedes an ACK's
//!    arrival is taken before that ACK.
//! 4. Before sleeping, read [`poll_timeout()`](Sender::poll_timeout) again: every input
//!    may move it.
//!
//! Given the same inputs at the same times, every driver that follows this gets the same
//! transmissions; `crates/tun/tests/driver_contract.rs` holds the simulator and the real
//! wire to it (the same scenarios, the same transmission sequences).
//!
//! ## Glossary: RFC variable → field
//!
//! | RFC | here |
//! |---|---|
//! | SND.UNA / HighACK (RFC 793, 6675) | [`Sender::snd_una`] |
//! | SND.NXT / HighData | [`Sender::snd_nxt`] |
//! | cwnd, ssthresh (RFC 5681), bytes | [`Sender::cwnd`], [`Sender::ssthresh`] |
//! | pipe (RFC 6675 §4 SetPipe), bytes | [`Sender::pipe`] |
//! | FlightSize (RFC 5681) | [`Sender::flight_size`] |
//! | HighRxt, RescueRxt, RecoveryPoint (RFC 6675) | `Scoreboard::high_rxt`, `rescue_rxt`, `Sender::recovery_point` |
//! | DupAcks (RFC 6675) | `Sender::dupacks` |
//! | SRTT, RTTVAR, RTO (RFC 6298) | [`rtt::Rtt::srtt`], [`rtt::Rtt::rttvar`], [`rtt::Rtt::rto`] |
//! | recover (RFC 6582) | `Sender::recovery_point` |
//! | SND.FACK (FACK; TLP draft §2.2) | [`scoreboard::Scoreboard::high_sacked`] |
//! | DeliveredData (RFC 6937 §2) | computed per ACK by the sender, passed in [`reduce::RecoveryAck`] |
//! | prr_delivered, prr_out, RecoverFS, SndCnt (RFC 6937 §3, RFC 9937 §6) | [`reduce::prr::Prr`] accessors, via [`Sender::reducer`] |
//! | inflight (RFC 9937) | [`Sender::recovery_pipe`] (RFC 6675 pipe with SACK) |
//! | `tp->reordering` (Linux) | [`Sender::reordering`] |
//! | oseg, ownd, ER_thresh (RFC 5827) | [`detect::early_retransmit`] |
//! | RACK.xmit_ts, RACK.end_seq, RACK.rtt, RACK.reordering_seen, RACK.reo_wnd, RACK.reo_wnd_mult, RACK.reo_wnd_persist, RACK.dsack_round (RFC 8985 §5.3) | [`detect::rack::Rack`] (`segment`, `rtt`, …), via [`Sender::rack`] |
//! | Segment.xmit_ts, Segment.lost, Segment.retransmitted (RFC 8985 §5.2) | [`scoreboard::SentSeg`] `last_sent`, `lost`, `ever_retrans`; transmit-time order in [`scoreboard::timeorder`] |
//! | RACK.min_RTT | [`rtt::Rtt::min_rtt`] |
//! | TLP.end_seq, TLP.is_retrans (RFC 8985 §7.1; Linux `tlp_high_seq`) | [`probe::tlp::Episode`], via [`Sender::tlp_episode`] |
//! | TLPRtxOut, TLPHighRxt (TLP draft §3.2) | [`probe::tlp_draft::Episode`], via [`Sender::tlp_draft_episode`] |
//! | PTO, WCDelAckT / TLP.max_ack_delay | [`probe::pto`], `resolved::Probing::Tlp { max_ack_delay }` |
//! | rrthresh, prevunsnt, T_earliest (RFC 7765 §4) | `resolved::RtoRearm::Restart { rrthresh }`, [`rto::restart`] |
//! | recover / RecoveryPoint of F-RTO (RFC 5682) | [`rto::frto::Frto`] `recover`, via [`Sender::frto`] |
//! | SpuriousRecovery, RetransmitTS (RFC 3522 §3.2) | [`rto::eifel::SpuriousRecovery`], [`rto::undo::Undo`] `retrans_ts` |
//! | pipe_prev, SRTT_prev, RTTVAR_prev, G (RFC 4015 §3.1) | [`rto::eifel::Prev`], `Config::clock_granularity` |
//! | undo_marker, prior_cwnd, prior_ssthresh (Linux) | [`rto::undo::Snapshot`] `una`, `cwnd`, `ssthresh`, via [`Sender::undo_snapshot`] |
//! | undo_retrans, retrans_stamp (Linux) | [`rto::undo::Undo`], [`Sender::undo_retrans`] |
//! | the original of a retransmitted range was shown to arrive, so its DSACK counts (beyond Linux, `dsack_proof`) | [`scoreboard::SentSeg`] `orig_proven`, the acknowledged-retransmission ring's top bit ([`scoreboard::proof`]) |
//! | `pushed_seq`, the unsent skbs and their PSH marks (Linux `tcp_sendmsg_locked`) | `sender::push::Push` |
//! | `lsndtime` (Linux) | `Sender::last_data_sent` (`sender::idle`) |
//! | `round_start`, `end_seq`, `curr_rtt`, `sample_cnt`, `delay_min` (Linux HyStart) | [`cc::hystart::HyStart`] |
//! | `sk_pacing_rate` (Linux `tcp_update_pacing_rate`), bytes/s | [`Sender::pacing_rate`]; the formula [`pacing::tcp_pacing_rate`] |
//! | `tcp_wstamp_ns`, a packet's departure stamp (`skb_mstamp_ns`), `sk_pacing_status` | [`pacing::Edt`], `sender::pacing::Pacer` (present when something paces) |
//! | `cnt`, `last_max_cwnd`, `bic_K`, `bic_origin_point`, `tcp_cwnd`, `snd_cwnd_cnt` (Linux CUBIC) | [`cc::bictcp::Bictcp`] |
//! | `icsk_ca_ops` and its private area (Linux `tcp_congestion_ops`) | [`CongestionController`], `Sender::cc` ([`cc::Controller`]) |
//! | `tp->delivered`, `delivered_mstamp`, `first_tx_mstamp`, `app_limited` (Linux `tcp_rate.c`) | [`cc::rate::Rate`] in `sender::cc::RateSampler` (only for a controller that wants rate samples) |
//! | `sacked_out` of a non-SACK flow (Linux `tcp_add_reno_sack`, `tcp_limit_reno_sacked`) | `Sender::reno_sacked` (credited); every duplicate, for `tcp_check_reno_reordering`, `Sender::reno_dupacks`; the episode's cap at RecoverFS (RFC 9937 §6) `Sender::reno_budget` |
//! | `tp->delivered` moving only when an skb completes (Linux `tcp_clean_rtx_queue`: a partly acknowledged one-segment skb delivers nothing) | `Sender::held_partial` (`sender::reno::hold_partial`) |
//! | what the duplicates reported delivered before a timeout, and the answer to its retransmission (RFC 3465 §2.3 growth against ACK division) | `sender::state::Ca::Loss` `reported`, `hole`, `answered` (`sender::growth`) |
//! | ACKs a receiver can have sent (one per segment, RFC 9293 §3.10.7.4) | [`detect::ack_budget::AckBudget`], `Sender::ack_budget` |
//! | `TCPCB_SACKED_RETRANS` cleared, `TCPRetransFail` after a local send failure (Linux `tcp_retransmit_skb`) | `Sender::transmit_failed` (`sender::failed`), [`scoreboard::Scoreboard::undo_last_send`] |
//! | randomly skipped segment, its check and the verdict (Savage et al. 1999 §4.3; Sherwood et al. 2005 §5) | [`detect::optack::SkipSegment`], `Sender::optack` |
//! | persist timer, `icsk_backoff` while probing (RFC 9293 §3.8.6.1; Linux `ICSK_TIME_PROBE0`) | [`timer::TimerKind::Persist`], `Sender::persist_backoff` |
//! | ECN codepoint, ECE, CWR (RFC 3168 §5, §6.1) | [`packet::IpEcn`], [`packet::EcnMarks`] on `Transmit`, `Segment`, `Ack`; set-up [`SynOptions::ecn`] |
//! | `TCP_ECN_OK`, `TCP_ECN_QUEUE_CWR` (Linux, sending side) | `Sender::ecn` (`sender::ecn`) |
//! | CWR state and its `high_seq` (RFC 3168 §6.1.2; Linux `TCP_CA_CWR`) | `Ca::Cwr { high_seq }` (`sender::state`); PRR counters in the reducer |
//! | `TCP_ECN_DEMAND_CWR`, `TCP_ECN_SEEN` (Linux, receiving side) | `Receiver::ecn` (`receiver::ecn`), [`Receiver::ecn_echo`] |
//!
//! ## The façade
//!
//! The crate root exports the I/O types; [`algorithms`] re-exports the pure parts (PRR,
//! RACK's rules, the RTT estimator, CUBIC, Reno, Linux's pacing rate) for a transport
//! that takes one rule on its own. The internal modules (`detect`, `scoreboard`, `rtt`,
//! `rto`, `probe`, `reduce`, `pacing`, `timer`) are public only with the cargo feature
//! `introspect`, which the simulator, script runner, test kit, wire driver and Python
//! lab enable to observe the engine. [`EventKind`], [`Why`], [`ConfigError`] and the
//! configuration axes are `#[non_exhaustive]`: they grow.
//!
//! ## Worked examples
//!
//! The RFC and seed worked examples are regenerated from a real [`Sender`] by the
//! `lossrec-testkit` crate (`crates/testkit`), which also holds the test harnesses: this
//! crate is only the engine.

#![deny(missing_docs)]
// The glossary and module docs link internals for maintainers; those links resolve when
// the internals are public (`--features introspect`).
#![cfg_attr(not(feature = "introspect"), allow(rustdoc::private_intra_doc_links))]

/// Declares an internal module: public with the `introspect` feature (for the simulator,
/// script runner, test kit, wire driver and Python lab, which observe the engine's
/// internals), crate-private otherwise, so an embedder sees the façade (the root's
/// re-exports and [`algorithms`]) and nothing it could come to depend on by accident.
macro_rules! introspect_mod {
    ($name:ident) => {
        #[cfg(feature = "introspect")]
        pub mod $name;
        #[cfg(not(feature = "introspect"))]
        pub(crate) mod $name;
    };
}

pub mod algorithms;
pub mod cc;
pub mod config;
introspect_mod!(detect);
pub mod event;
pub mod info;
introspect_mod!(pacing);
pub mod packet;
introspect_mod!(probe);
pub mod receiver;
introspect_mod!(reduce);
introspect_mod!(rto);
introspect_mod!(rtt);
introspect_mod!(scoreboard);
pub mod sender;
pub mod stats;
mod status;
pub mod time;
introspect_mod!(timer);

pub use cc::{CongestionController, ControllerFactory, CustomController};
pub use config::{Config, ConfigError, PRESETS};
pub use event::{Event, EventKind, LossDetector, ReorderSignal, SpuriousSignal};
pub use info::TcpInfo;
pub use packet::{
    Ack, EcnMarks, IpEcn, ProbeKind, Range, SackBlocks, Segment, SynOptions, Timestamps, Transmit,
    Why,
};
pub use receiver::{Receiver, ReceiverConfig};
pub use sender::{RecoveryState, Sender};
pub use stats::Stats;
pub use time::{Duration, Instant};

/// The README's embedding snippet, compiled and run as a doctest so it stays correct.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctest;

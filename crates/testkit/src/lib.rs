//! What lossrec's tests, studies and simulator share around the engine, kept out of the
//! engine crate (which is only the engine):
//!
//! - [`vectors`]: the worked examples of the RFCs and seeds regenerated from a real
//!   [`lossrec::Sender`] — the per-ACK tables of RFC 6937 §3.1, RFC 9937 §8 and the PRR
//!   paper (seed 003) beside the published ones; the tail-loss examples (the TLP draft's
//!   §2.1 example and §4.2 taxonomy, RFC 8985's Figure 1, §3.5 and §9.3, seed 001's
//!   timelines); the timeout examples (RFC 7765, RFC 5682, RFC 3522, RFC 4015, seed 002
//!   and 004, Linux's F-RTO after a DSACKed TLP);
//! - [`vectors::path`]: the scripted `Path` harness (one sender, one receiver, exact
//!   drops, delays and ACK holds) those examples run on;
//! - [`pair`]: a sender and receiver over a seeded random path (loss, reordering, ACK
//!   spikes) for property tests;
//! - [`rng`]: the one seeded RNG every component draws from.

pub mod attack;
pub mod pair;
pub mod rng;
pub mod vectors;

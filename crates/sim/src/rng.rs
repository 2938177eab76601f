//! Seeded randomness: one stream per component, derived from the run's seed — the one
//! seeded RNG of `lossrec-testkit`, with the simulator's component ids.
//!
//! Every random decision (a link's loss model, reordering, workload arrivals) draws from its
//! own [`Stream`], seeded from `(seed, component id)`. Adding a component, or a component
//! drawing more numbers, therefore never shifts another component's draws: a scenario with
//! data loss gives the same losses whether or not ACK loss is also enabled.

/// Component ids: the second half of every stream's seed.
pub mod component {
    pub const DATA_LOSS: u64 = 1;
    pub const ACK_LOSS: u64 = 2;
    pub const DATA_REORDER: u64 = 3;
    pub const ACK_REORDER: u64 = 4;
    pub const WORKLOAD: u64 = 5;
    pub const ISN: u64 = 6;
    pub const SPIKES: u64 = 7;
    pub const DATA_JITTER: u64 = 8;
    pub const ACK_JITTER: u64 = 9;
    /// Each sender's own randomness (`Sender::set_seed`: the optimistic-ACK defence's
    /// skip positions), per connection.
    pub const SENDER: u64 = 10;
}

/// The seed a connection's sender gets (`Sender::set_seed`): from the run's seed and the
/// connection's index, independent of every other component.
pub fn sender_seed(seed: u64, conn: u64) -> u64 {
    mix64(mix64(seed ^ (component::SENDER << 56)) ^ mix64(conn))
}

pub use lossrec_testkit::rng::{mix64, Stream};

//! Loss detection, one module per algorithm.
pub mod ack_budget;
pub mod dupthresh;
pub mod early_retransmit;
pub mod fack;
pub mod newreno;
pub mod optack;
pub mod rack;
pub mod reordering;

//! Loss detection, one module per algorithm.
pub mod dupthresh;
pub mod newreno;

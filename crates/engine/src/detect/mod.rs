//! Loss detection algorithms, one module each.
pub mod dupthresh;

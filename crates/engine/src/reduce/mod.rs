//! Rate reduction in fast recovery, one module per algorithm.
pub mod rfc6675;

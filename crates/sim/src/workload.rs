//! Workloads: what the applications write, and when connections start.
//!
//! - `flows`: `flows` connections of `bytes` each (or `segments` · MSS); each writes all its
//!   bytes when it starts, then closes. Arrivals are `sequential` (the next starts the moment
//!   the previous sender has every byte acknowledged), `concurrent` (all at t = 0), or
//!   `poisson` (flow 0 at t = 0, then exponential gaps of mean 1 / `rate_per_s`).
//! - `request-response`: one connection carries `requests` responses. The first request is
//!   sent with the connection (the response is written at once); after each response has fully
//!   arrived, the client thinks `think_ms`, then its request takes one reverse-path
//!   propagation delay to reach the server (it is not queued or lost), which then writes the
//!   next response. The connection closes after the last response is written.
//! - `bulk`: `flows` long-lived transfers starting at t = 0 and measured for `duration_s`.

use crate::rng::Stream;

/// Bytes a bulk sender is given: more than any link can carry in any simulated duration.
pub const BULK_BYTES: u64 = 1 << 50;

/// A size given in segments (of the sender's MSS) or bytes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Size {
    Segments(u64),
    Bytes(u64),
}

impl Size {
    pub fn bytes(self, mss: u64) -> u64 {
        match self {
            Size::Segments(n) => n.saturating_mul(mss),
            Size::Bytes(b) => b,
        }
    }
}

/// When flows of the `flows` workload start.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Arrival {
    Sequential,
    Concurrent,
    Poisson { rate_per_s: f64 },
}

/// A workload's parameters.
#[derive(Clone, Debug, PartialEq)]
pub enum Workload {
    Flows {
        flows: u64,
        size: Size,
        arrival: Arrival,
    },
    RequestResponse {
        requests: u64,
        response: Size,
        think_ns: u64,
    },
    Bulk {
        flows: u64,
        duration_ns: u64,
    },
}

impl Workload {
    /// Connections this workload opens.
    pub fn connections(&self) -> u64 {
        match *self {
            Workload::Flows { flows, .. } | Workload::Bulk { flows, .. } => flows,
            Workload::RequestResponse { .. } => 1,
        }
    }
    /// Bytes the application writes when a connection starts (and per response).
    pub fn first_write(&self, mss: u64) -> u64 {
        match *self {
            Workload::Flows { size, .. } => size.bytes(mss),
            Workload::RequestResponse { response, .. } => response.bytes(mss),
            Workload::Bulk { .. } => BULK_BYTES,
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            Workload::Flows { .. } => "flows",
            Workload::RequestResponse { .. } => "request-response",
            Workload::Bulk { .. } => "bulk",
        }
    }
}

/// Gap in nanoseconds until the next Poisson arrival.
pub fn poisson_gap(rng: &mut Stream, rate_per_s: f64) -> u64 {
    let s = rng.exponential(1.0 / rate_per_s);
    (s * 1e9).round().clamp(0.0, 1e18) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn poisson_mean_gap() {
        let mut r = Stream::new(9, 5);
        let n = 20_000;
        let mean = (0..n).map(|_| poisson_gap(&mut r, 100.0)).sum::<u64>() as f64 / n as f64;
        assert!((mean - 1e7).abs() < 3e5, "{mean}");
    }

    #[test]
    fn connections_and_writes() {
        let w = Workload::RequestResponse {
            requests: 5,
            response: Size::Segments(2),
            think_ns: 0,
        };
        assert_eq!(
            (w.connections(), w.first_write(1000), w.kind()),
            (1, 2000, "request-response")
        );
        let w = Workload::Bulk {
            flows: 2,
            duration_ns: 1,
        };
        assert_eq!((w.connections(), w.first_write(1000)), (2, BULK_BYTES));
    }
}

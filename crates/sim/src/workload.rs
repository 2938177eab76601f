//! Workloads: what the applications write, and when connections start.
//!
//! - `flows`: `flows` connections of `bytes` each (or `segments` · MSS); each writes all its
//!   bytes when it starts, then closes. Arrivals are `sequential` (the next starts the moment
//!   the previous sender has every byte acknowledged), `concurrent` (all at t = 0), or
//!   `poisson` (flow 0 at t = 0, then exponential gaps of mean 1 / `rate_per_s`).
//! - `request-response`: `connections` connections (arriving as `flows` do) each carry
//!   `requests` responses. The first request is sent with the connection (the response is
//!   written at once); after each response has fully arrived, the client thinks `think_ms`,
//!   then its request takes one reverse-path propagation delay to reach the server (it is
//!   not queued or lost), which then writes the next response. The connection closes after
//!   its last response is written. Response sizes are `fixed` or drawn from an
//!   `exponential` or `lognormal` distribution of the given mean (see [`SizeDist`]).
//! - `writes`: `connections` connections (default 1, arriving as `flows` do) whose
//!   application writes `bytes` at each of the given times (ms after the connection
//!   starts, i.e. after its first SYN), then closes: an application that pauses and
//!   resumes (the PRR paper's examples), or a server sending a video in timed chunks.
//! - `bulk`: `flows` long-lived transfers starting at t = 0 and measured for `duration_s`.

use crate::rng::{mix64, Stream};

/// Bytes a bulk sender is given: more than any link can carry in any simulated duration.
pub const BULK_BYTES: u64 = 1 << 50;

/// Base of the random-stream ids of response sizes: connection `c` draws its sizes from
/// stream `RESPONSE_SIZES + c` (the other components are small ids, [`crate::rng::component`]).
/// The sizes depend only on the seed, the connection and the response index — not on
/// the order events happen in — so arms run with the same seed get the same responses.
pub const RESPONSE_SIZES: u64 = 1 << 32;

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

/// When connections of the `flows` and `request-response` workloads start.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Arrival {
    Sequential,
    Concurrent,
    Poisson { rate_per_s: f64 },
}

/// How response sizes are drawn around their mean.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every response has the mean size.
    Fixed,
    /// Exponential with the mean.
    Exponential,
    /// Lognormal with the mean and the given σ of the underlying normal (μ = ln mean −
    /// σ²/2); web object sizes are commonly modelled so.
    Lognormal { sigma: f64 },
}

impl SizeDist {
    /// One size in bytes (at least 1) with mean `mean` bytes, capped at `max` bytes.
    pub fn draw(self, mean: u64, max: u64, rng: &mut Stream) -> u64 {
        let m = mean as f64;
        let x = match self {
            SizeDist::Fixed => return mean.clamp(1, max.max(1)),
            SizeDist::Exponential => rng.exponential(m),
            SizeDist::Lognormal { sigma } => {
                let mu = m.ln() - sigma * sigma / 2.0;
                (mu + sigma * standard_normal(rng)).exp()
            }
        };
        (x.round().clamp(1.0, 1e15) as u64).clamp(1, max.max(1))
    }

    pub fn name(self) -> &'static str {
        match self {
            SizeDist::Fixed => "fixed",
            SizeDist::Exponential => "exponential",
            SizeDist::Lognormal { .. } => "lognormal",
        }
    }
}

/// A standard normal deviate (Box-Muller; one of the pair is discarded, which keeps the
/// stream's use per draw fixed at two numbers).
fn standard_normal(rng: &mut Stream) -> f64 {
    let u1 = 1.0 - rng.unit(); // (0, 1]: ln never sees zero
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// The size stream of connection `conn` in a run seeded with `seed`.
pub fn response_stream(seed: u64, conn: u64) -> Stream {
    Stream::new(mix64(seed), RESPONSE_SIZES.wrapping_add(conn))
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
        connections: u64,
        arrival: Arrival,
        requests: u64,
        /// The mean response size.
        response: Size,
        dist: SizeDist,
        /// Largest response drawn, bytes.
        max_bytes: u64,
        think_ns: u64,
    },
    /// `(time after the connection's start in ns, bytes)`, sorted by time.
    Writes {
        writes: Vec<(u64, u64)>,
        connections: u64,
        arrival: Arrival,
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
            Workload::RequestResponse { connections, .. } => connections,
            Workload::Writes { connections, .. } => connections,
        }
    }
    /// Per-flow results the run reports: one per connection, or one per response.
    pub fn results(&self) -> u64 {
        match *self {
            Workload::RequestResponse {
                connections,
                requests,
                ..
            } => connections.saturating_mul(requests),
            _ => self.connections(),
        }
    }
    /// Bytes the application writes when a connection starts (the mean response size for
    /// request-response; the writes due at t = 0 for `writes`).
    pub fn first_write(&self, mss: u64) -> u64 {
        match self {
            Workload::Flows { size, .. } => size.bytes(mss),
            Workload::RequestResponse { response, .. } => response.bytes(mss),
            Workload::Writes { writes, .. } => writes
                .iter()
                .take_while(|(t, _)| *t == 0)
                .map(|(_, b)| b)
                .sum(),
            Workload::Bulk { .. } => BULK_BYTES,
        }
    }
    /// How connections arrive (`writes` has one, bulk starts all at once).
    pub fn arrival(&self) -> Arrival {
        match *self {
            Workload::Flows { arrival, .. }
            | Workload::RequestResponse { arrival, .. }
            | Workload::Writes { arrival, .. } => arrival,
            Workload::Bulk { .. } => Arrival::Concurrent,
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            Workload::Flows { .. } => "flows",
            Workload::RequestResponse { .. } => "request-response",
            Workload::Writes { .. } => "writes",
            Workload::Bulk { .. } => "bulk",
        }
    }
}

/// Simulator memory a run may plan for: a workload whose [`Workload::memory_estimate`] is
/// larger is refused when the scenario is read (a fixed figure, so that whether a
/// scenario is valid does not depend on the machine).
pub const MEMORY_BUDGET: u64 = 2_000_000_000;
/// An open flow: endpoints and simulator state are under 4 KB (`tests/memory.rs`), plus
/// room for a scoreboard and packets in flight.
pub const OPEN_FLOW_BYTES: u64 = 8 << 10;
/// One result: the record, its preset name, and the connection's slot.
pub const RESULT_BYTES: u64 = std::mem::size_of::<crate::FlowResult>() as u64 + 64 + 8;

impl Workload {
    /// Connections open at once at most, where the workload fixes it: all of them for
    /// concurrent arrivals and bulk, one for sequential ones (Poisson arrivals overlap by
    /// chance; counted as one).
    pub fn peak_open(&self) -> u64 {
        match self.arrival() {
            Arrival::Concurrent => self.connections(),
            _ => 1,
        }
    }
    /// Bytes the simulator needs for this workload: every result, and the flows open at
    /// once.
    pub fn memory_estimate(&self) -> u64 {
        self.results()
            .saturating_mul(RESULT_BYTES)
            .saturating_add(self.peak_open().saturating_mul(OPEN_FLOW_BYTES))
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

    fn rr(connections: u64, requests: u64, dist: SizeDist) -> Workload {
        Workload::RequestResponse {
            connections,
            arrival: Arrival::Sequential,
            requests,
            response: Size::Segments(2),
            dist,
            max_bytes: u64::MAX,
            think_ns: 0,
        }
    }

    #[test]
    fn connections_and_writes() {
        let w = rr(1, 5, SizeDist::Fixed);
        assert_eq!(
            (w.connections(), w.results(), w.first_write(1000), w.kind()),
            (1, 5, 2000, "request-response")
        );
        assert_eq!(rr(4, 3, SizeDist::Fixed).results(), 12);
        let w = Workload::Bulk {
            flows: 2,
            duration_ns: 1,
        };
        assert_eq!((w.connections(), w.first_write(1000)), (2, BULK_BYTES));
        let w = Workload::Writes {
            writes: vec![(0, 20_000), (0, 5), (500_000_000, 10_000)],
            connections: 1,
            arrival: Arrival::Sequential,
        };
        assert_eq!(
            (w.connections(), w.results(), w.first_write(1000), w.kind()),
            (1, 1, 20_005, "writes")
        );
    }

    fn mean_of(dist: SizeDist, n: u64) -> f64 {
        let mut r = response_stream(3, 0);
        (0..n)
            .map(|_| dist.draw(7500, u64::MAX, &mut r))
            .sum::<u64>() as f64
            / n as f64
    }

    #[test]
    fn size_distributions_have_their_mean() {
        assert_eq!(mean_of(SizeDist::Fixed, 10), 7500.0);
        let e = mean_of(SizeDist::Exponential, 100_000);
        assert!((e - 7500.0).abs() < 100.0, "{e}");
        let l = mean_of(SizeDist::Lognormal { sigma: 1.0 }, 200_000);
        assert!((l - 7500.0).abs() < 150.0, "{l}");
    }

    #[test]
    fn sizes_are_at_least_one_byte_and_capped() {
        let mut r = response_stream(1, 2);
        for _ in 0..10_000 {
            let s = SizeDist::Lognormal { sigma: 2.5 }.draw(100, 5_000, &mut r);
            assert!((1..=5_000).contains(&s));
        }
        assert_eq!(SizeDist::Fixed.draw(0, 10, &mut r), 1);
    }

    #[test]
    fn size_streams_depend_on_seed_and_connection_only() {
        let d = SizeDist::Exponential;
        let draw = |seed, conn| d.draw(7500, u64::MAX, &mut response_stream(seed, conn));
        assert_eq!(draw(5, 1), draw(5, 1));
        assert_ne!(draw(5, 1), draw(5, 2));
        assert_ne!(draw(5, 1), draw(6, 1));
    }
}

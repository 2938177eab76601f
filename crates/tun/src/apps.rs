//! The applications on the wire: what each connection writes and when, for both senders
//! alike, as the simulator's `sim/apps.rs` does it for the same `[workload]`.
//!
//! - `flows`: each connection writes its bytes when it starts.
//! - `bulk`: one connection writes without end.
//! - `request-response`: the first response is written when the connection starts; once
//!   a response's last byte has reached the receiver (seen at the emulator), the client
//!   thinks `think_ms` and its request takes one reverse-path propagation delay to reach
//!   the server, which writes the next response. The request is not a packet (the
//!   simulator's rule: it is neither queued nor lost), so both senders get the same
//!   schedule; response sizes are drawn from the same per-connection stream as the
//!   simulator's ([`response_stream`]), so the engine, Linux and the simulator carry the
//!   same responses.
//! - `writes`: each write is due its time after the connection's first SYN.
//!
//! The application closes after its last write (as [`crate::Close`] says: once every
//! byte is acknowledged, or right after the write). Connections follow one another
//! (`arrival = "sequential"`); the connection index is the path's (SYN order).

use std::io;

use lossrec_sim::rng::Stream;
use lossrec_sim::workload::{response_stream, Arrival, SizeDist, Workload, BULK_BYTES};
use lossrec_sim::Scenario;

/// One write the application makes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub bytes: u64,
    /// Nothing follows it: the application closes.
    pub last: bool,
    /// It starts a new message (a response), with a result of its own.
    pub new_message: bool,
}

#[derive(Clone, Debug)]
enum Kind {
    Flows {
        bytes: u64,
    },
    Bulk,
    Responses {
        requests: u64,
        mean: u64,
        dist: SizeDist,
        max_bytes: u64,
        /// Think time plus the request's trip (reverse-path propagation delay), ns.
        turn_ns: u64,
    },
    Writes {
        writes: Vec<(u64, u64)>,
    },
}

/// Per connection: what is still to come.
#[derive(Clone, Debug)]
struct Conn {
    sizes: Option<Stream>,
    /// Responses still to be written after the current one.
    left: u64,
    next_write: usize,
    start_ns: u64,
    /// When the next write is due (emulator ns).
    due: Option<u64>,
}

impl Conn {
    fn new(start_ns: u64) -> Conn {
        Conn {
            sizes: None,
            left: 0,
            next_write: 0,
            start_ns,
            due: None,
        }
    }
}

/// One response size, drawn as the simulator draws it (`sim/apps.rs`): the mean when
/// fixed, else from the connection's size stream.
fn draw(kind: &Kind, rng: &mut Stream) -> u64 {
    match *kind {
        Kind::Responses {
            mean,
            dist,
            max_bytes,
            ..
        } if dist != SizeDist::Fixed => dist.draw(mean, max_bytes, rng),
        Kind::Responses { mean, .. } => mean,
        _ => 0,
    }
}

/// The workload's applications.
#[derive(Clone, Debug)]
pub struct Apps {
    kind: Kind,
    seed: u64,
    connections: u64,
    conns: Vec<Conn>,
}

fn bad(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg.to_string())
}

impl Apps {
    /// The applications of `sc`'s workload, seeded with `seed`.
    pub fn new(sc: &Scenario, seed: u64) -> io::Result<Apps> {
        let mss = u64::from(sc.sender_config().mss);
        let w = sc.workload();
        if sc.start_ns() != 0 {
            return Err(bad(
                "workload.start_ms: the wire starts its first connection at once (start_ms is \
                 the simulator's clock phase; the kernel's clock has its own)",
            ));
        }
        if w.arrival() != Arrival::Sequential && !matches!(w, Workload::Bulk { .. }) {
            return Err(bad(
                "workload.arrival: the wire runs connections one after another (sequential) only",
            ));
        }
        let kind = match w {
            Workload::Flows { size, .. } => Kind::Flows {
                bytes: size.bytes(mss),
            },
            Workload::Bulk { flows, .. } if *flows != 1 => {
                return Err(bad("workload.flows: the wire's bulk workload has one flow"))
            }
            Workload::Bulk { .. } => Kind::Bulk,
            Workload::RequestResponse {
                requests,
                response,
                dist,
                max_bytes,
                think_ns,
                ..
            } => Kind::Responses {
                requests: (*requests).max(1),
                mean: response.bytes(mss),
                dist: *dist,
                max_bytes: *max_bytes,
                turn_ns: think_ns.saturating_add(sc.reverse().delay_ns),
            },
            Workload::Writes { writes, .. } => Kind::Writes {
                writes: writes.clone(),
            },
        };
        Ok(Apps {
            kind,
            seed,
            connections: w.connections(),
            conns: Vec::new(),
        })
    }

    /// Connections opened so far.
    pub fn opened(&self) -> u64 {
        self.conns.len() as u64
    }

    /// Connections the workload opens.
    pub fn connections(&self) -> u64 {
        self.connections
    }

    /// Results the run reports: one per response, else one per connection.
    pub fn results(&self) -> u64 {
        match self.kind {
            Kind::Responses { requests, .. } => self.connections.saturating_mul(requests),
            _ => self.connections,
        }
    }

    /// Responses per connection (1 for other workloads): result `c × this + k`.
    pub fn per_connection(&self) -> u64 {
        match self.kind {
            Kind::Responses { requests, .. } => requests,
            _ => 1,
        }
    }

    pub fn is_bulk(&self) -> bool {
        matches!(self.kind, Kind::Bulk)
    }

    /// Whether writes follow the first one (the Linux client then waits for them).
    pub fn has_later_writes(&self) -> bool {
        match &self.kind {
            Kind::Responses { requests, .. } => *requests > 1,
            Kind::Writes { writes } => writes.iter().any(|(t, _)| *t > 0),
            _ => false,
        }
    }

    /// The first message's bytes of connection `c` (what the path's completion time and
    /// loss models follow): the first response, all the writes, or the flow.
    pub fn first_message(&self, c: u64) -> u64 {
        match &self.kind {
            Kind::Flows { bytes } => *bytes,
            Kind::Bulk => BULK_BYTES,
            Kind::Responses { .. } => draw(&self.kind, &mut self.fresh_sizes(c)),
            Kind::Writes { writes } => writes.iter().map(|(_, b)| b).sum(),
        }
    }

    /// What connection `c`'s application writes when it starts (for `writes`, the writes
    /// due at once; else the first message).
    pub fn first_write(&self, c: u64) -> u64 {
        match &self.kind {
            Kind::Writes { writes } => writes
                .iter()
                .take_while(|(t, _)| *t == 0)
                .map(|(_, b)| b)
                .sum(),
            _ => self.first_message(c),
        }
    }

    fn fresh_sizes(&self, c: u64) -> Stream {
        response_stream(self.seed, c)
    }

    /// Connection `c` starts (its first SYN at `now`): what it writes at once.
    pub fn open(&mut self, c: u64, now: u64) -> Write {
        let mut conn = Conn::new(now);
        let first = match &self.kind {
            Kind::Flows { bytes } => *bytes,
            Kind::Bulk => BULK_BYTES,
            Kind::Responses { requests, .. } => {
                let mut rng = self.fresh_sizes(c);
                let b = draw(&self.kind, &mut rng);
                conn.sizes = Some(rng);
                conn.left = requests - 1;
                b
            }
            Kind::Writes { writes } => {
                conn.next_write = writes.iter().take_while(|(t, _)| *t == 0).count();
                conn.due = writes
                    .get(conn.next_write)
                    .map(|(t, _)| now.saturating_add(*t));
                writes[..conn.next_write].iter().map(|(_, b)| b).sum()
            }
        };
        let last = conn.left == 0 && conn.due.is_none() && !self.is_bulk();
        let i = c as usize;
        if self.conns.len() <= i {
            self.conns.resize_with(i + 1, || Conn::new(0));
        }
        self.conns[i] = conn;
        Write {
            bytes: first,
            last,
            new_message: true,
        }
    }

    /// Connection `c`'s current message has fully arrived at `now`: the next request
    /// is on its way.
    pub fn message_arrived(&mut self, c: u64, now: u64) {
        let Kind::Responses { turn_ns, .. } = self.kind else {
            return;
        };
        if let Some(conn) = self.conns.get_mut(c as usize) {
            if conn.left > 0 && conn.due.is_none() {
                conn.due = Some(now.saturating_add(turn_ns));
            }
        }
    }

    /// The earliest write due, over every connection.
    pub fn next_due(&self) -> Option<u64> {
        self.conns.iter().filter_map(|c| c.due).min()
    }

    /// A write of connection `c` due at `now`, if any.
    pub fn poll(&mut self, c: u64, now: u64) -> Option<Write> {
        let conn = self.conns.get_mut(c as usize)?;
        if conn.due.is_none_or(|d| d > now) {
            return None;
        }
        conn.due = None;
        match &self.kind {
            Kind::Responses { .. } => {
                let bytes = conn.sizes.as_mut().map_or(0, |r| draw(&self.kind, r));
                conn.left -= 1;
                Some(Write {
                    bytes,
                    last: conn.left == 0,
                    new_message: true,
                })
            }
            Kind::Writes { writes } => {
                let elapsed = now.saturating_sub(conn.start_ns);
                let mut bytes = 0;
                while let Some(&(_, b)) = writes.get(conn.next_write).filter(|w| w.0 <= elapsed) {
                    bytes += b;
                    conn.next_write += 1;
                }
                conn.due = writes
                    .get(conn.next_write)
                    .map(|(t, _)| conn.start_ns.saturating_add(*t));
                Some(Write {
                    bytes,
                    last: conn.due.is_none(),
                    new_message: false,
                })
            }
            _ => None,
        }
    }
}

//! The engine sender's connections, one after another: each opens with what its
//! application writes at once ([`crate::apps`]), takes later writes as the driver hands
//! them over, closes as [`Close`] says, and leaves one result per message (per response
//! for request-response, else per connection).

use std::net::SocketAddrV4;

use lossrec::Instant;
use lossrec_sim::episodes::Counters;
use lossrec_sim::trace::Trace;
use lossrec_sim::FlowResult;

use crate::apps::{Apps, Write};
use crate::clock::Lateness;
use crate::engine_sender::EngineSender;
use crate::linux::Close;
use crate::path::{Conn, Message, Path};
use crate::topology::ENGINE_CLIENT;
use lossrec_tcp::accept::AcceptStats;

/// The engine sender's connections.
pub struct EngineFlows {
    pub cfg: lossrec::Config,
    /// Connections to open.
    pub flows: u64,
    pub seed: u64,
    /// The receiver it connects to (the Linux server, or the engine's receiver).
    pub remote: SocketAddrV4,
    pub current: Option<(EngineSender, Counters)>,
    /// The application made its last write and is to close as `close` says, like the
    /// Linux client: once every byte is acknowledged, or once the write has been handed
    /// over and the first burst sent (`write` returns, then `shutdown`: a FIN goes on a
    /// segment still queued, or alone when everything was already sent).
    pub close_pending: bool,
    pub close: Close,
    pub next: u64,
    pub results: Vec<FlowResult>,
    /// Results per connection (responses per connection, else 1).
    pub per: u64,
    /// The current connection's results when its current message began, and how many
    /// of its messages are done.
    msg_start: Option<FlowResult>,
    msg_done: u64,
    /// Thread CPU time spent inside the engine and packets it handled.
    pub cpu_ns: u64,
    pub packets: u64,
    /// The acceptance checks' counters of the connections that ended.
    pub accept: AcceptStats,
    /// How each connection's TCP endpoint is set up (the TSval clock).
    pub endpoint: lossrec_tcp::EndpointConfig,
}

impl EngineFlows {
    pub fn new(cfg: lossrec::Config, apps: &Apps, seed: u64, remote: SocketAddrV4) -> Self {
        EngineFlows {
            cfg,
            flows: apps.connections(),
            seed,
            remote,
            current: None,
            close_pending: false,
            close: Close::default(),
            next: 0,
            results: Vec::new(),
            per: apps.per_connection(),
            msg_start: None,
            msg_done: 0,
            cpu_ns: 0,
            packets: 0,
            accept: AcceptStats::default(),
            endpoint: lossrec_tcp::EndpointConfig::default(),
        }
    }

    /// The current message ends (a response is followed by the next, or the connection
    /// finished or was cut short): its result, from `conn` as the path saw it.
    pub fn end_message(&mut self, conn: Option<&Conn>) {
        let Some((s, c)) = self.current.as_ref() else {
            return;
        };
        let id = self.next.saturating_sub(1);
        let now = crate::results::engine(id, s.sender(), conn, c);
        let m = conn.map_or(
            Message {
                bytes: 0,
                fct_ms: None,
                lost_retransmits: 0,
                tail_drops: 0,
            },
            Conn::current,
        );
        let slot = id * self.per + self.msg_done;
        self.results.push(crate::results::message(
            &now,
            self.msg_start.as_ref(),
            slot,
            &m,
        ));
        self.msg_start = Some(now);
        self.msg_done += 1;
    }

    /// A later write of the current connection's application.
    pub fn write(&mut self, now: u64, w: Write) {
        if let Some((s, _)) = self.current.as_mut() {
            s.sender_mut().write(Instant::from_nanos(now), w.bytes);
            self.close_pending |= w.last;
        }
    }
}

/// Advances the engine sender: starts the next connection, fires its timer, sends,
/// closes, finishes.
pub fn engine_step(
    e: &mut EngineFlows,
    apps: &mut Apps,
    now: u64,
    late: &mut Lateness,
    path: &Path,
    trace: Option<&mut Trace>,
    out: &mut Vec<Vec<u8>>,
) {
    let t = Instant::from_nanos(now);
    if e.current.is_none() && e.next < e.flows {
        let local = SocketAddrV4::new(ENGINE_CLIENT, 10_000u16.wrapping_add(e.next as u16));
        let isn = lossrec_sim::rng::mix64(e.seed ^ lossrec_sim::rng::mix64(e.next)) as u32;
        let Ok(mut s) = EngineSender::new(e.cfg.clone(), t, local, e.remote, isn, e.endpoint)
        else {
            e.next = e.flows;
            return;
        };
        s.sender_mut()
            .set_seed(lossrec_sim::rng::sender_seed(e.seed, e.next));
        let w = apps.open(e.next, now);
        s.sender_mut().write(t, w.bytes);
        e.close_pending = w.last;
        e.current = Some((s, Counters::default()));
        (e.msg_start, e.msg_done) = (None, 0);
        e.next += 1;
    }
    if e.current.as_ref().is_some_and(|(s, _)| s.is_reset()) {
        // RFC 9293 §3.10.7.4: a reset connection sends nothing more.
        end_connection(e, path);
        return;
    }
    let Some((s, c)) = e.current.as_mut() else {
        return;
    };
    if let Some(d) = s.sender_mut().poll_timeout() {
        if d.as_nanos() <= now {
            late.record(d.as_nanos(), now);
            let (state, before) = (s.sender_mut().state(), s.sender_mut().stats().timeouts);
            s.sender_mut().on_timeout(t);
            c.count(state, before, s.sender_mut().stats().timeouts);
        }
    }
    after_input(e, now, path, trace, out);
}

/// Fires the engine sender's timer if its deadline is before `at` (a packet arriving
/// then): the driver contract takes inputs in the order they became due, so a timeout
/// that came first is handled, with its transmissions, before that packet.
pub fn timer_before(
    e: &mut EngineFlows,
    at: u64,
    now: u64,
    late: &mut Lateness,
    path: &Path,
    trace: Option<&mut Trace>,
    out: &mut Vec<Vec<u8>>,
) {
    let Some((s, c)) = e.current.as_mut() else {
        return;
    };
    let Some(d) = s.sender_mut().poll_timeout().filter(|d| d.as_nanos() < at) else {
        return;
    };
    late.record(d.as_nanos(), now);
    let (state, before) = (s.sender_mut().state(), s.sender_mut().stats().timeouts);
    s.sender_mut().on_timeout(Instant::from_nanos(now));
    c.count(state, before, s.sender_mut().stats().timeouts);
    after_input(e, now, path, trace, out);
}

/// Step 2 of the engine's driver contract (`lossrec` crate doc), after one input (an ACK,
/// a timeout, a write): the events into the trace, then every transmission the sender
/// has now, encoded into `out` in order (Linux `tcp_data_snd_check` after `tcp_ack`); the
/// close once due; the connection's end once finished.
pub fn after_input(
    e: &mut EngineFlows,
    now: u64,
    path: &Path,
    mut trace: Option<&mut Trace>,
    out: &mut Vec<Vec<u8>>,
) {
    let t = Instant::from_nanos(now);
    let id = e.next.saturating_sub(1) as u32;
    let Some((s, _)) = e.current.as_mut() else {
        return;
    };
    while let Some(ev) = s.sender_mut().poll_event() {
        if let Some(tr) = trace.as_deref_mut() {
            tr.event(id, &ev);
        }
    }
    for pass in 0..2 {
        while let Some(tx) = s.sender_mut().poll_transmit(t) {
            // As the simulator: a decision's events before the segments it caused.
            while let Some(ev) = s.sender_mut().poll_event() {
                if let Some(tr) = trace.as_deref_mut() {
                    tr.event(id, &ev);
                }
            }
            if let Some(tr) = trace.as_deref_mut() {
                tr.send(now, id, &tx);
            }
            let mut b = Vec::with_capacity(tx.range.len() as usize + 80);
            s.encode(t, &tx, &mut b);
            out.push(b);
            e.packets += 1;
        }
        let due = match e.close {
            Close::AfterWrite => s.sender_mut().snd_nxt() > 0,
            Close::AfterAck => s.sender_mut().snd_una() >= s.sender_mut().bytes_written(),
        };
        if pass == 0 && e.close_pending && due {
            e.close_pending = false;
            s.sender_mut().close(t);
        }
    }
    if s.sender_mut().is_finished() {
        end_connection(e, path);
    }
}

/// The current connection is over (finished, or reset by the peer): its last result, and
/// its acceptance counters into the run's.
fn end_connection(e: &mut EngineFlows, path: &Path) {
    let Some(local) = e.current.as_ref().map(|(s, _)| s.local()) else {
        return;
    };
    e.end_message(path.conns.iter().rev().find(|k| k.client == local));
    if let Some((s, _)) = e.current.take() {
        e.accept.add(s.accept_stats());
    }
}

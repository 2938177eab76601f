//! The real-time loop: one thread owns both TUN devices, the emulated [`Path`], and the
//! engine's endpoints.
//!
//! Each turn reads every packet waiting on either device (the Linux client's data, the
//! Linux server's ACKs) and offers it to the path, hands packets whose arrival time has
//! come to their destination (a device, or an engine endpoint, whose answer goes onto the
//! path before the next packet is handed over: the engine's driver contract,
//! `driver/engine.rs`), fires due engine timers, lets the engine send, then sleeps until
//! the next deadline or a readable device. The
//! engine sees `now` as the emulator clock's value when it is called, so its segments
//! enter the path at the moment it produced them. Every packet the path carries is also
//! written, as it enters the path, to the pcap (both directions, real bytes).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io;
use std::net::Ipv4Addr;
use std::sync::mpsc::Sender;

use lossrec::{Instant, Range};
use lossrec_sim::trace::{DropCause, Trace};
use lossrec_wire::{decode_ipv4, PcapWriter};

use crate::apps::{Apps, Write};
use crate::clock::{self, Clock, Lateness};
use crate::engine_flows::EngineFlows;

mod engine;
use crate::engine_receiver::EngineReceiver;
use crate::path::{Dir, Fate, Path, Seen};
use crate::topology::{Topology, ENGINE_CLIENT, ENGINE_SERVER, LINUX_CLIENT, LINUX_SERVER};

/// A packet held by the path until it arrives.
struct Held {
    at: u64,
    seq: u64,
    dir: Dir,
    conn: Option<u32>,
    range: Range,
    pkt: Vec<u8>,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.at, self.seq) == (o.at, o.seq)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.at, self.seq).cmp(&(o.at, o.seq))
    }
}

/// State of one run's loop.
pub struct Driver<'a> {
    pub clock: Clock,
    pub path: Path,
    pub topo: &'a mut Topology,
    held: BinaryHeap<Reverse<Held>>,
    seq: u64,
    /// Every deadline handled (packet arrivals, engine timers): includes the loop's
    /// backlog when it is saturated.
    pub lateness: Lateness,
    /// Deadlines the loop went to sleep for: how precisely it wakes (timer precision).
    pub wakeups: Lateness,
    /// The deadline the last sleep aimed at.
    waiting_for: Option<u64>,
    /// The emulator's capture, kept in memory or streamed.
    pub pcap: Option<PcapWriter<lossrec_sim::sink::Sink>>,
    /// The first error writing the capture (a streamed one: disk full, closed pipe).
    pub pcap_error: Option<String>,
    pub trace: Option<Trace>,
    pub engine: Option<EngineFlows>,
    /// What the applications write and when (both senders).
    pub apps: Apps,
    /// Later writes for Linux's client thread (request-response, timed writes).
    pub app_tx: Option<Sender<Write>>,
    pub receivers: Vec<EngineReceiver>,
    pub rcv_cfg: lossrec::ReceiverConfig,
    /// How the engine receiver's TCP endpoints are set up (the TSval clock).
    pub endpoint: lossrec_tcp::EndpointConfig,
    buf: Vec<u8>,
    out: Vec<Vec<u8>>,
    /// The first connection's SYN-ACK left the emulator this long after its SYN entered
    /// it (ns; [`crate::startup`]).
    pub handshake_ns: Option<u64>,
}

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

impl<'a> Driver<'a> {
    pub fn new(
        path: Path,
        topo: &'a mut Topology,
        rcv_cfg: lossrec::ReceiverConfig,
        apps: Apps,
    ) -> Self {
        Driver {
            clock: Clock::start(),
            path,
            topo,
            held: BinaryHeap::new(),
            seq: 0,
            lateness: Lateness::default(),
            wakeups: Lateness::default(),
            waiting_for: None,
            pcap: None,
            pcap_error: None,
            trace: None,
            engine: None,
            apps,
            app_tx: None,
            receivers: Vec::new(),
            rcv_cfg,
            endpoint: lossrec_tcp::EndpointConfig::default(),
            buf: vec![0u8; 65_536],
            out: Vec::new(),
            handshake_ns: None,
        }
    }

    fn inst(now: u64) -> Instant {
        Instant::from_nanos(now)
    }

    /// Offers a packet to the path at `now`.
    fn offer(&mut self, now: u64, dir: Dir, pkt: Vec<u8>) {
        let (fate, seen) = self.path.offer(now, dir, &pkt);
        if let (Some(p), true) = (self.pcap.as_mut(), seen.conn.is_some()) {
            let mut frame = Vec::with_capacity(14 + pkt.len());
            frame.extend_from_slice(&[0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00]);
            frame.extend_from_slice(&pkt);
            if let (Err(e), None) = (p.write_frame(now, &frame), &self.pcap_error) {
                self.pcap_error = Some(e.to_string());
            }
        }
        self.note_fate(now, dir, fate, &seen);
        // Linux's client opened a connection: its application's schedule starts with the
        // SYN (the engine's starts when the engine opens it).
        if let (Some(c), true, None) = (seen.conn, seen.syn && dir == Dir::Data, &self.engine) {
            if u64::from(c) >= self.apps.opened() {
                self.apps.open(u64::from(c), now);
            }
        }
        if let (Some(t), Some(c), Dir::Data) = (self.trace.as_mut(), seen.conn, dir) {
            if !seen.range.is_empty() && src_ip(&pkt) == Some(LINUX_CLIENT) {
                t.send_observed(now, c, seen.range, seen.retransmission);
            }
        }
        if let Fate::Arrive(at) = fate {
            self.seq += 1;
            self.held.push(Reverse(Held {
                at,
                seq: self.seq,
                dir,
                conn: seen.conn,
                range: seen.range,
                pkt,
            }));
        }
    }

    fn note_fate(&mut self, now: u64, dir: Dir, fate: Fate, seen: &Seen) {
        let lost = matches!(fate, Fate::Lost | Fate::QueueFull);
        if let (Some(t), Some(c), true) = (self.trace.as_mut(), seen.conn, lost) {
            let cause = if fate == Fate::Lost {
                DropCause::Loss
            } else {
                DropCause::Queue
            };
            if dir == Dir::Data {
                t.drop_data(now, c, seen.range, cause);
            }
        }
        if lost && dir == Dir::Data && seen.retransmission {
            if let Some((s, c)) = self.engine.as_mut().and_then(|e| e.current.as_mut()) {
                if s.sender().state() == lossrec::RecoveryState::Recovery {
                    c.lost_fast_retransmits += 1;
                }
            }
        }
    }

    /// Delivers every held packet whose time has come.
    fn deliver_due(&mut self, now: u64) -> io::Result<()> {
        while self.held.peek().is_some_and(|h| h.0.at <= now) {
            let Reverse(h) = self.held.pop().expect("peeked");
            self.lateness.record(h.at, now);
            let dst = dst_ip(&h.pkt);
            if let Some(c) = h.conn {
                self.trace_arrival(now, c, &h, dst);
                self.note_handshake(now, c, &h);
            }
            match dst {
                Some(ip) if ip == LINUX_CLIENT => self.topo.tun_s.send(&h.pkt)?,
                Some(ip) if ip == LINUX_SERVER => self.topo.tun_r.send(&h.pkt)?,
                Some(ip) if ip == ENGINE_CLIENT => {
                    self.engine_timer_before(now, h.at);
                    self.deliver_to_engine_sender(now, &h.pkt);
                }
                Some(ip) if ip == ENGINE_SERVER => self.deliver_to_engine_receiver(now, &h.pkt),
                _ => {}
            }
        }
        Ok(())
    }

    /// Records an arrival: in-order progress for completion times, and the trace's `recv`
    /// (data) and, for the kernel's sender, `ack` lines (the engine traces its own ACKs).
    fn trace_arrival(&mut self, now: u64, c: u32, h: &Held, dst: Option<Ipv4Addr>) {
        if h.dir == Dir::Data {
            let done = |p: &Path| {
                p.conns
                    .get(c as usize)
                    .is_some_and(|k| k.completed_ns.is_some())
            };
            let before = done(&self.path);
            self.path.arrived(c, h.range, now);
            if !before && done(&self.path) {
                self.apps.message_arrived(u64::from(c), now);
            }
        }
        let Some(t) = self.trace.as_mut() else { return };
        let Ok(seg) = decode_ipv4(&h.pkt) else { return };
        let syn = seg.flags.contains(lossrec_wire::TcpFlags::SYN);
        match h.dir {
            Dir::Data if !h.range.is_empty() || syn => {
                let s = lossrec::Segment {
                    range: h.range,
                    fin: seg.flags.contains(lossrec_wire::TcpFlags::FIN),
                    ..lossrec::Segment::default()
                };
                t.recv(now, c, &s);
            }
            Dir::Ack if dst == Some(LINUX_CLIENT) => {
                if let Some(conn) = self.path.conns.get(c as usize) {
                    t.ack(now, c, &conn.ack_of(&seg), None);
                }
            }
            _ => {}
        }
    }

    /// Times the first connection's handshake: its SYN-ACK leaves for the sender now.
    fn note_handshake(&mut self, now: u64, c: u32, h: &Held) {
        if self.handshake_ns.is_some() || c != 0 || h.dir != Dir::Ack {
            return;
        }
        let syn = decode_ipv4(&h.pkt).is_ok_and(|s| s.flags.contains(lossrec_wire::TcpFlags::SYN));
        if let (true, Some(k)) = (syn, self.path.conns.first()) {
            self.handshake_ns = Some(now.saturating_sub(k.syn_ns));
        }
    }

    /// Hands the applications' writes that are due to their sender: a new response ends
    /// the current message (its result) and starts the next on the path.
    fn apps_turn(&mut self, now: u64) {
        let Some(c) = self.apps.opened().checked_sub(1) else {
            return;
        };
        while let Some(w) = self.apps.poll(c, now) {
            if w.new_message {
                if let Some(e) = self.engine.as_mut() {
                    e.end_message(self.path.conns.get(c as usize));
                }
                if let Some(conn) = self.path.conns.get_mut(c as usize) {
                    conn.next_message(w.bytes, now);
                }
            }
            match (self.engine.as_mut(), self.app_tx.as_ref()) {
                (Some(e), _) => e.write(now, w),
                (None, Some(tx)) => {
                    let _ = tx.send(w); // a client that gave up has dropped its end
                }
                (None, None) => {}
            }
        }
    }

    /// Reads everything waiting on both devices into the path.
    fn read_devices(&mut self, now: u64) -> io::Result<()> {
        for _ in 0..512 {
            let mut any = false;
            if let Some(n) = self.topo.tun_s.recv(&mut self.buf)? {
                let pkt = self.buf[..n].to_vec();
                self.offer(now, Dir::Data, pkt);
                any = true;
            }
            if let Some(n) = self.topo.tun_r.recv(&mut self.buf)? {
                let pkt = self.buf[..n].to_vec();
                self.offer(now, Dir::Ack, pkt);
                any = true;
            }
            if !any {
                break;
            }
        }
        Ok(())
    }

    /// The next deadline: a held packet's arrival or an engine timer.
    fn next_deadline(&self) -> Option<u64> {
        let mut d = self.held.peek().map(|h| h.0.at);
        if let Some(a) = self.apps.next_due() {
            d = Some(d.map_or(a, |d| d.min(a)));
        }
        let mut min = |x: Option<Instant>| {
            if let Some(x) = x {
                d = Some(d.map_or(x.as_nanos(), |d| d.min(x.as_nanos())));
            }
        };
        if let Some((s, _)) = self.engine.as_ref().and_then(|e| e.current.as_ref()) {
            min(s.sender().poll_timeout());
        }
        for r in &self.receivers {
            min(r.receiver().poll_timeout());
        }
        d
    }

    /// One turn of the loop; `idle_ns` caps the sleep.
    pub fn turn(&mut self, idle_ns: u64) -> io::Result<()> {
        let now = self.clock.now();
        self.read_devices(now)?;
        let now = self.clock.now();
        if let Some(d) = self.waiting_for.filter(|&d| d <= now) {
            self.wakeups.record(d, now);
            self.waiting_for = None;
        }
        self.deliver_due(now)?;
        self.apps_turn(now);
        self.engine_turn(now);
        let now = self.clock.now();
        let next = self.next_deadline();
        if let Some(d) = next.filter(|&d| d > now) {
            self.waiting_for = Some(d);
        }
        let wait = next.map_or(idle_ns, |d| d.saturating_sub(now)).min(idle_ns);
        if wait > clock::SPIN_NS {
            clock::wait(
                &[self.topo.tun_s.fd(), self.topo.tun_r.fd()],
                wait - clock::SPIN_NS,
            );
        }
        Ok(())
    }

    /// Pushes what a streamed trace and capture hold to their writers, so that their
    /// files follow the run.
    pub fn flush_outputs(&mut self) -> io::Result<()> {
        if let Some(t) = self.trace.as_mut() {
            t.flush()?;
        }
        if let Some(p) = self.pcap.as_mut() {
            p.flush().map_err(|e| io::Error::other(e.to_string()))?;
        }
        Ok(())
    }

    /// The engine's flows are all done (or there is no engine sender).
    pub fn engine_done(&self) -> bool {
        self.engine
            .as_ref()
            .is_none_or(|e| e.current.is_none() && e.next >= e.flows)
    }
}

fn dst_ip(pkt: &[u8]) -> Option<Ipv4Addr> {
    (pkt.len() >= 20).then(|| Ipv4Addr::new(pkt[16], pkt[17], pkt[18], pkt[19]))
}

fn src_ip(pkt: &[u8]) -> Option<Ipv4Addr> {
    (pkt.len() >= 20).then(|| Ipv4Addr::new(pkt[12], pkt[13], pkt[14], pkt[15]))
}

//! The receiving side: ACK generation with cumulative ACK, SACK (RFC 2018 §4), DSACK
//! (RFC 2883 §4), delayed ACK (RFC 5681 §4.2, RFC 1122 §4.2.3.2), Linux-style quick ACKs
//! (tcp_input.c `tcp_incr_quickack`, `__tcp_ack_snd_check`) and timestamp echo
//! (RFC 7323 §4.3).
//!
//! # How the receiver answers
//!
//! - Every ACK is built when the segment (or the delayed-ACK timer) that triggers it is
//!   processed and queued; [`Receiver::poll_ack`] hands them out one per call, oldest
//!   first. Separate segments that each need an immediate ACK get separate ACKs, as the
//!   sender counts them as duplicate ACKs.
//! - `Ack::cumulative` is RCV.NXT; `Ack::window` is the receive window in bytes, constant
//!   for the connection (the application is assumed to read at once): `cfg.window`, clamped
//!   to what the header can carry (65 535 « 7 with window scaling, 65 535 without; the
//!   SYN-ACK's window is never scaled, RFC 7323 §2.2). Data beyond RCV.NXT + window is
//!   trimmed or dropped.
//! - With timestamps, `ts.val` is the receiver's clock (`now` in µs at `poll_ack`) and
//!   `ts.ecr` is TS.Recent.
//! - A FIN in order is acknowledged as data is, delayed unless another rule asks for an
//!   ACK now, and it ends quick ACKs (Linux `tcp_fin` in ESTABLISHED: schedule the ACK and
//!   enter pingpong mode); RFC 9293 asks for no immediate ACK of a FIN.

mod config;
mod ecn;
mod observe;
mod options;
mod reassembly;
mod window;

use std::collections::VecDeque;

use crate::packet::{Ack, EcnMarks, Range, SackBlocks, Segment, SynOptions};
use crate::time::{Duration, Instant};
pub use config::{ReceiverConfig, ReceiverStats};
use reassembly::{Arrival, Reassembly};
use window::Window;
pub use window::{WindowModel, LINUX_INITIAL_CLAMP};

/// Linux's initial `rcv_mss` estimate, before any segment was measured (TCP_MSS_DEFAULT).
const INITIAL_RCV_MSS: u64 = 536;
/// Out-of-order blocks held at most; a new block past this drops the segment.
pub const MAX_OOO_BLOCKS: usize = 1 << 16;
/// ACKs held for the caller at most; older ones are discarded past this.
pub const MAX_QUEUED_ACKS: usize = 1024;
const DELACK_MIN: Duration = Duration::from_millis(1);
const DELACK_MAX: Duration = Duration::from_millis(500);

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Handshake {
    /// Nothing received yet.
    Listen,
    /// SYN received and answered; the peer has not yet shown it saw the SYN-ACK.
    SynReceived,
    Established,
}

#[derive(Copy, Clone, Debug)]
struct Queued {
    ack: Ack,
    dsack: bool,
}

/// The receiving endpoint of one connection: segments in, ACKs out (with SACK, DSACK and
/// delayed ACKs as configured).
///
/// ```
/// use lossrec::{Instant, Range, Receiver, ReceiverConfig, Segment};
/// let now = Instant::ZERO;
/// let mut r = Receiver::new(ReceiverConfig::default(), now);
/// // The second segment arrives first: an immediate duplicate ACK with a SACK block.
/// r.on_segment(now, &Segment { range: Range::new(1448, 2896), ..Segment::default() });
/// let a = r.poll_ack(now).expect("out of order: ACK at once");
/// assert_eq!(a.cumulative, 0);
/// assert_eq!(a.sack.as_slice(), &[Range::new(1448, 2896)]);
/// ```
#[derive(Clone, Debug)]
pub struct Receiver {
    cfg: ReceiverConfig,
    handshake: Handshake,
    /// Options answered on the SYN-ACK (kept for duplicate SYNs).
    syn_ack: Option<SynOptions>,
    sack_ok: bool,
    ts_ok: bool,
    /// Receive window (RCV.WND) and its right edge.
    win: Window,
    data: Reassembly,
    /// RFC 7323 §4.3 TS.Recent.
    ts_recent: Option<u64>,
    /// RFC 7323 §4.3 Last.ACK.sent: the cumulative ACK of the latest ACK built.
    last_ack_sent: u64,
    /// Largest segment seen (Linux `icsk_ack.rcv_mss`): what counts as full-sized.
    rcv_mss: u64,
    /// Quick ACKs left (Linux `icsk_ack.quick`).
    quick: u32,
    /// Delayed-ACK deadline while an ACK is owed.
    delack_at: Option<Instant>,
    /// Stream offset of the FIN, once one arrived in the window.
    fin_at: Option<u64>,
    /// ECN agreed, and ECE owed until CWR (`ecn`).
    ecn: ecn::EcnEcho,
    queue: VecDeque<Queued>,
    stats: ReceiverStats,
}

impl Receiver {
    /// A receiver waiting for a SYN (or for data, if the sender skips the handshake).
    /// Impossible parameters are clamped: the delayed-ACK timer into 1 ms..=500 ms, `mss`
    /// to at least 1, `window` to at least `mss`.
    pub fn new(cfg: ReceiverConfig, _now: Instant) -> Self {
        let mut cfg = cfg;
        cfg.delayed_ack = cfg.delayed_ack.map(|t| t.clamp(DELACK_MIN, DELACK_MAX));
        cfg.mss = cfg.mss.max(1);
        cfg.window = cfg.window.max(u64::from(cfg.mss));
        Receiver {
            handshake: Handshake::Listen,
            syn_ack: None,
            sack_ok: cfg.sack,
            ts_ok: cfg.timestamps,
            win: Window::new(
                cfg.window_model,
                cfg.window,
                u64::from(cfg.mss),
                None,
                false,
            ),
            data: Reassembly::new(MAX_OOO_BLOCKS),
            ts_recent: None,
            last_ack_sent: 0,
            rcv_mss: INITIAL_RCV_MSS.min(u64::from(cfg.mss)),
            quick: cfg.quickack_segments,
            delack_at: None,
            fin_at: None,
            ecn: ecn::EcnEcho::default(),
            queue: VecDeque::new(),
            stats: ReceiverStats::default(),
            cfg,
        }
    }

    /// Replaces this receiver by `Receiver::new(cfg, now)`, keeping the capacity of its ACK
    /// queue and nothing else (a driver of many sequential connections reuses a finished
    /// one's memory; see `Sender::recycle`).
    pub fn recycle(&mut self, cfg: ReceiverConfig, now: Instant) {
        let mut queue = core::mem::take(&mut self.queue);
        queue.clear();
        *self = Receiver::new(cfg, now);
        self.queue = queue;
    }

    /// A segment arrived (SYN, handshake ACK or data).
    pub fn on_segment(&mut self, now: Instant, seg: &Segment) {
        self.stats.segments_in += 1;
        if seg.range.start > seg.range.end {
            self.stats.dropped_malformed += 1;
            return;
        }
        if let Some(opts) = seg.syn {
            if !self.on_syn(opts, seg.ts) || (seg.range.is_empty() && !seg.fin) {
                return;
            }
        }
        let pure_ack = seg.range.is_empty() && !seg.fin;
        match self.handshake {
            // A pure ACK before any SYN has nothing to acknowledge.
            Handshake::Listen if pure_ack => return,
            // Data without a handshake: act as if cfg's options were agreed.
            Handshake::Listen => {
                self.handshake = Handshake::Established;
                self.ecn.ok = self.cfg.ecn;
            }
            // The handshake ACK or the first data: the peer saw our SYN-ACK.
            Handshake::SynReceived => self.handshake = Handshake::Established,
            Handshake::Established => {}
        }
        if pure_ack && seg.range.start < self.data.rcv_nxt() {
            // RFC 9293 §3.10.7.4: a segment below RCV.NXT is unacceptable and answered
            // with an ACK — a zero-window probe (Linux `tcp_xmit_probe_skb`) relies on it.
            self.stats.dropped_out_of_window += 1;
            self.queue_ack(None);
            return;
        }
        if pure_ack {
            // Carries nothing to acknowledge; answering it could start an ACK ping-pong.
            // Its timestamp still counts (rule 2 only takes it at or below Last.ACK.sent).
            self.update_ts_recent(seg);
            return;
        }
        let right_edge = self.win.right_edge(self.data.rcv_nxt());
        if seg.range.start > right_edge || (seg.range.start == right_edge && !seg.range.is_empty())
        {
            // RFC 9293 §3.10.7.4: an unacceptable segment is answered with an ACK.
            self.stats.dropped_out_of_window += 1;
            self.queue_ack(None);
            return;
        }
        self.update_ts_recent(seg);
        if let (true, Some(t)) = (self.ts_ok, seg.ts) {
            if seg.range.end > self.data.rcv_nxt() {
                self.win.on_ts_echo(now, t.ecr);
            }
        }
        let mut range = seg.range;
        let mut fin = seg.fin;
        if range.end > right_edge {
            range.end = right_edge;
            fin = false; // the FIN lay beyond the window too
            self.stats.trimmed_to_window += 1;
        }
        match self.fin_at {
            // Nothing follows the FIN: bytes beyond it are not the stream's, and a FIN
            // elsewhere is not this stream's FIN.
            Some(f) => {
                range.end = range.end.min(f).max(range.start.min(f));
                range.start = range.start.min(range.end);
                fin &= range.end == f;
            }
            // A first FIN below bytes already held (or at the end of the offset space)
            // cannot end the stream: the segment counts as data only.
            None => fin &= range.end >= self.data.highest() && range.end < u64::MAX,
        }
        self.on_data(now, range, fin, seg.ecn);
    }

    /// The next ACK to send now, if any (call until `None`).
    #[must_use = "an ACK not sent is lost"]
    pub fn poll_ack(&mut self, now: Instant) -> Option<Ack> {
        let Queued { mut ack, dsack } = self.queue.pop_front()?;
        if let Some(ts) = ack.ts.as_mut() {
            ts.val = now.as_micros();
        }
        self.stats.acks_out += 1;
        self.stats.dsacks_out += u64::from(dsack);
        self.stats.syn_acks_out += u64::from(ack.syn.is_some());
        Some(ack)
    }

    /// When the delayed-ACK timer fires.
    #[must_use]
    pub fn poll_timeout(&self) -> Option<Instant> {
        self.delack_at
    }

    /// The delayed-ACK timer fired: the owed ACK becomes available from `poll_ack`.
    /// Early calls (`now` before the deadline) do nothing.
    pub fn on_timeout(&mut self, now: Instant) {
        if self.delack_at.is_some_and(|at| at <= now) {
            self.stats.delayed_acks += 1;
            self.queue_ack(None);
        }
    }

    /// Data, and the FIN as the sequence number after it: Linux's `end_seq` counts the
    /// FIN (`tcp_v4_fill_cb`), so an in-order FIN moves RCV.NXT past it (`tcp_data_queue`
    /// → `tcp_fin`) and one above a hole is SACKed with it, alone or with the data it rides
    /// on (`tcp_data_queue_ofo` → `tcp_sack_new_ofo_skb(sk, seq, end_seq)`); a repeated
    /// FIN is D-SACKed (`tcp_dsack_set(seq, end_seq)`).
    fn on_data(&mut self, now: Instant, range: Range, fin: bool, marks: EcnMarks) {
        let had_ooo = self.data.has_out_of_order();
        let fin_was_in = self.fin_received();
        let from = self.data.rcv_nxt();
        let out_of_order = range.start > self.data.rcv_nxt();
        let seq = Range::new(range.start, range.end + u64::from(fin));
        let fin_held = fin && self.fin_at.is_some();
        let arrival = match self.data.insert(seq) {
            Ok(a) => a,
            Err(_) => {
                self.stats.dropped_too_many_blocks += 1;
                self.queue_ack(None);
                return;
            }
        };
        if fin && self.fin_at.is_none() {
            self.fin_at = Some(range.end);
        }
        let to = self.data.rcv_nxt();
        self.win.on_in_order(now, from, to, range.len(), self.ts_ok);
        // Byte counters count bytes: the FIN's sequence number is new or a duplicate once.
        let fin_new = u64::from(fin && !fin_held);
        self.stats.bytes_in += arrival.new_bytes.saturating_sub(fin_new);
        self.stats.dup_bytes += arrival.dup_bytes.saturating_sub(u64::from(fin_held));
        self.stats.out_of_order_segments += u64::from(out_of_order);
        let dup = arrival.dup_bytes > 0;
        if dup {
            self.stats.dup_segments += 1;
        }
        // Linux tcp_measure_rcv_mss: the largest segment seen, up to our MSS.
        self.rcv_mss = self.rcv_mss.max(range.len().min(u64::from(self.cfg.mss)));

        // Linux `tcp_fin` (ESTABLISHED → CLOSE_WAIT), once the FIN is in order: the ACK
        // is scheduled, not sent (`inet_csk_schedule_ack`), and pingpong mode turns quick
        // ACKs off (`inet_csk_enter_pingpong_mode`; `tcp_in_quickack_mode`) until a
        // duplicate or a CE mark turns them on again (`tcp_enter_quickack_mode`).
        if !fin_was_in && self.fin_received() {
            self.quick = 0;
        }
        // RFC 5681 §4.2: ACK at once on out-of-order data, on data that fills (part of) a
        // hole, and (Linux) while any hole remains; RFC 2883 needs the duplicate's ACK now.
        let ecn = self.ecn.on_data(marks);
        self.quick = self.quick.max(ecn.quick);
        self.stats.ce_segments += u64::from(ecn.ce);
        let urgent = dup || had_ooo || self.data.has_out_of_order() || ecn.now;
        let immediate = match self.cfg.delayed_ack {
            None => true,
            Some(_) if urgent => true,
            Some(_) if self.quick > 0 => {
                self.stats.quick_acks += 1;
                true
            }
            // Linux __tcp_ack_snd_check: more than one full segment unacknowledged, which
            // is at least every second full-sized segment (RFC 5681 §4.2).
            Some(_) => self.data.rcv_nxt() - self.last_ack_sent > self.rcv_mss,
        };
        if dup && arrival.new_bytes == 0 {
            // Linux: a pure duplicate means the sender is retransmitting; ACK its next
            // segments quickly too (tcp_data_queue → tcp_enter_quickack_mode).
            self.quick = self.quick.max(self.cfg.quickack_segments);
        }
        if immediate {
            self.queue_ack(Some(arrival));
        } else if self.delack_at.is_none() {
            self.delack_at = self.cfg.delayed_ack.map(|t| now + t);
        }
    }

    /// Builds an ACK of the current state and queues it; `arrival` is the segment that
    /// triggered it, whose first duplicate sub-range becomes a D-SACK.
    fn queue_ack(&mut self, arrival: Option<Arrival>) {
        let mut sack = SackBlocks::new();
        let mut dsack = false;
        if self.sack_ok {
            // RFC 2018 §3: 4 blocks fit, 3 beside the timestamp option.
            let max = if self.ts_ok { 3 } else { 4 };
            if let (true, Some(d)) = (self.cfg.dsack, arrival.and_then(|a| a.first_dup)) {
                // RFC 2883 §4: the duplicate first, then the block containing it if it lies
                // above RCV.NXT, then the rest per RFC 2018.
                sack.push(d);
                dsack = true;
                if let Some(b) = self.data.containing(d) {
                    sack.push(b);
                }
            }
            self.data.fill_sack(&mut sack, max);
        }
        let ooo = match self.cfg.window_model {
            WindowModel::Fixed => 0,
            WindowModel::Linux => self.data.ooo_bytes(),
        };
        let ack = Ack {
            cumulative: self.data.rcv_nxt(),
            sack,
            ts: self.ts_echo(),
            window: self.win.advertise(self.data.rcv_nxt(), ooo),
            syn: None,
            ecn: EcnMarks {
                ece: self.ecn.ece(),
                ..EcnMarks::default()
            },
        };
        self.last_ack_sent = ack.cumulative;
        self.delack_at = None;
        self.quick = self.quick.saturating_sub(1);
        self.push(Queued { ack, dsack });
    }

    fn push(&mut self, q: Queued) {
        if self.queue.len() >= MAX_QUEUED_ACKS {
            self.queue.pop_front();
            self.stats.acks_discarded_unpolled += 1;
        }
        self.queue.push_back(q);
    }
}

//! The emulated path: the simulator's own models ([`lossrec_sim::link`],
//! [`lossrec_sim::loss`], [`lossrec_sim::reorder`], delay spikes) applied to real IPv4
//! packets in real time.
//!
//! [`Path::offer`] takes a packet as it leaves an endpoint, with the emulator's clock, and
//! decides its fate exactly as the simulator's `send_data`/`send_ack` do: the loss model
//! first (data direction: data packets only; ACK direction: every packet but the SYN-ACK),
//! then the drop-tail queue and serialisation at the link rate (the packet's real IP
//! length), then propagation, reordering and spikes. It returns the arrival time; the
//! caller holds the packet until then.
//!
//! To feed the loss models, the path follows each connection (keyed by its 4-tuple, the
//! client being the data sender): the ISN from the SYN turns 32-bit sequence numbers into
//! stream offsets, a data packet starting below the highest byte sent so far is a
//! retransmission, and packet indices count per flow and direction as in the simulator.
//! It also records what the receiver got in order at each arrival, which gives each
//! flow's completion time the way the simulator defines it (first SYN to the last byte's
//! arrival) for either sender. A packet that does not decode (bad checksum, not TCP/IPv4)
//! or belongs to no connection is dropped and counted. A SYN with a fresh ISN opens a new
//! connection only when its 4-tuple has none open (none yet, or both FINs passed);
//! otherwise it is carried as the open connection's and counted.

use std::net::SocketAddrV4;

use lossrec::Range;
use lossrec_sim::link::{Link, SpikeSpec};
use lossrec_sim::loss::{LossModel, PacketInfo, TxCounts};
use lossrec_sim::reorder::Reorder;
use lossrec_sim::rng::{component, Stream};
use lossrec_sim::Scenario;
use lossrec_wire::{decode_ipv4, seq, TcpFlags, TcpSegment};

/// Direction through the path.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Dir {
    /// Data direction: sender → receiver.
    Data,
    /// ACK direction: receiver → sender.
    Ack,
}

/// Why the path did not carry a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Arrives at this time (ns on the emulator clock).
    Arrive(u64),
    /// The loss model dropped it.
    Lost,
    /// The drop-tail queue was full.
    QueueFull,
    /// Not a TCP/IPv4 packet with valid checksums.
    Garbage,
    /// TCP, but of no connection the path knows (and not a SYN opening one).
    Foreign,
}

/// One connection as the path sees it.
#[derive(Clone, Debug)]
pub struct Conn {
    pub id: u32,
    pub client: SocketAddrV4,
    pub server: SocketAddrV4,
    /// Client ISN (stream offset 0 is ISN + 1).
    pub isn: u32,
    /// When the first SYN entered the path.
    pub syn_ns: u64,
    /// Highest stream offset the client sent.
    pub high: u64,
    pub data_idx: u64,
    pub ack_idx: u64,
    tx_counts: TxCounts,
    /// Data packets, retransmissions among them, and retransmissions the path lost.
    pub data_packets: u64,
    pub retransmits: u64,
    pub lost_retransmits: u64,
    /// First transmissions among the current message's last four segments the path lost.
    pub tail_drops: u64,
    /// In-order bytes that reached the receiver, and the out-of-order ranges above.
    pub delivered: u64,
    ooo: Vec<Range>,
    /// When `delivered` reached the message end.
    pub completed_ns: Option<u64>,
    /// The message being delivered (the whole flow, or the current response) and when it
    /// was written (the FCT's origin: the first SYN for the first message).
    pub message: Range,
    pub message_ns: u64,
    /// `lost_retransmits` when the current message began.
    lost_before: u64,
    /// Earlier messages of this connection (request-response), in order.
    pub done: Vec<Message>,
    /// A FIN passed in the data and in the ACK direction: the 4-tuple may open a new
    /// connection.
    pub fin_data: bool,
    pub fin_ack: bool,
}

/// A message of a connection, as the path saw it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Message {
    pub bytes: u64,
    pub fct_ms: Option<f64>,
    /// Retransmissions the path dropped while it was the current message.
    pub lost_retransmits: u64,
    /// First transmissions among its last four segments the path dropped.
    pub tail_drops: u64,
}

impl Conn {
    /// Completion time of the current message in ms (from its origin to its last byte
    /// arriving).
    pub fn fct_ms(&self) -> Option<f64> {
        self.completed_ns
            .map(|c| c.saturating_sub(self.message_ns) as f64 / 1e6)
    }

    /// In-order bytes of the current message that reached the receiver.
    pub fn message_bytes(&self) -> u64 {
        self.delivered.clamp(self.message.start, self.message.end) - self.message.start
    }

    /// The current message so far.
    pub fn current(&self) -> Message {
        Message {
            bytes: self.message_bytes(),
            fct_ms: self.fct_ms(),
            lost_retransmits: self.lost_retransmits - self.lost_before,
            tail_drops: self.tail_drops,
        }
    }

    /// The application writes the next message (`bytes`, at `now`): the current one is
    /// recorded and the next is what the loss models and the completion time follow.
    pub fn next_message(&mut self, bytes: u64, now: u64) {
        self.done.push(self.current());
        self.lost_before = self.lost_retransmits;
        self.tail_drops = 0;
        self.message = Range::new(self.message.end, self.message.end.saturating_add(bytes));
        self.message_ns = now;
        self.completed_ns = (self.delivered >= self.message.end).then_some(now);
    }

    fn offsets(&self, seg: &TcpSegment<'_>) -> Range {
        let start = seq::unwrap(self.isn, seg.seq, self.high);
        Range::new(start, start + seg.payload.len() as u64)
    }

    /// An ACK from the server in the engine's terms (stream offsets of this connection).
    pub fn ack_of(&self, seg: &TcpSegment<'_>) -> lossrec::Ack {
        let cum = seg.ack.map_or(0, |a| seq::unwrap(self.isn, a, self.high));
        let mut sack = lossrec::SackBlocks::new();
        for b in &seg.options.sack {
            let l = seq::unwrap(self.isn, b.left, self.high);
            sack.push(Range::new(
                l,
                seq::unwrap(self.isn, b.right, self.high).max(l),
            ));
        }
        lossrec::Ack {
            cumulative: cum.min(self.message.end),
            sack,
            ..lossrec::Ack::default()
        }
    }

    fn arrived(&mut self, r: Range, at: u64) {
        if r.end <= self.delivered {
            return;
        }
        self.ooo.push(r);
        self.ooo.sort_unstable();
        let mut keep = Vec::with_capacity(self.ooo.len());
        for b in self.ooo.drain(..) {
            if b.start <= self.delivered {
                self.delivered = self.delivered.max(b.end);
            } else {
                keep.push(b);
            }
        }
        self.ooo = keep;
        if self.completed_ns.is_none() && self.delivered >= self.message.end {
            self.completed_ns = Some(at);
        }
    }
}

/// What [`Path::offer`] learnt of a packet besides its fate.
#[derive(Copy, Clone, Debug, Default)]
pub struct Seen {
    /// Connection index, if it belongs to one.
    pub conn: Option<u32>,
    /// Payload as stream offsets (data direction).
    pub range: Range,
    pub retransmission: bool,
    pub syn: bool,
    pub fin: bool,
}

/// Counters of packets the path refused.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PathStats {
    pub garbage: u64,
    pub foreign: u64,
    pub lost_data: u64,
    pub lost_acks: u64,
    pub queue_drops: u64,
    pub data_packets: u64,
    pub ack_packets: u64,
    /// SYNs with a fresh ISN on the 4-tuple of an open connection (RFC 5961 §4: a forged
    /// SYN, or a peer that restarted): carried to the endpoint as that connection's, which
    /// challenges them, never a second connection.
    pub syns_on_open_connections: u64,
}

/// The emulated path, both directions.
pub struct Path {
    fwd: Link,
    rev: Link,
    data_loss: LossModel,
    ack_loss: LossModel,
    data_reorder: Option<Reorder>,
    ack_reorder: Option<Reorder>,
    spikes: Option<SpikeSpec>,
    mss: u64,
    /// Bytes of each connection's first message, by connection (the last one for any
    /// beyond).
    first_messages: Vec<u64>,
    pub conns: Vec<Conn>,
    pub stats: PathStats,
}

impl Path {
    /// The path of `sc`, seeded with `seed`; connection `c`'s first message holds
    /// `first_messages[c]` bytes.
    pub fn new(sc: &Scenario, seed: u64, first_messages: Vec<u64>) -> Path {
        Path {
            fwd: Link::new(sc.forward()),
            rev: Link::new(sc.reverse()),
            data_loss: LossModel::new(sc.loss().clone(), Stream::new(seed, component::DATA_LOSS)),
            ack_loss: LossModel::new(
                sc.ack_loss().clone(),
                Stream::new(seed, component::ACK_LOSS),
            ),
            data_reorder: sc
                .reorder()
                .cloned()
                .map(|r| Reorder::new(r, Stream::new(seed, component::DATA_REORDER))),
            ack_reorder: sc
                .ack_reorder()
                .cloned()
                .map(|r| Reorder::new(r, Stream::new(seed, component::ACK_REORDER))),
            spikes: sc.spikes().map(|s| s.with_seed(seed)),
            mss: u64::from(sc.sender_config().mss),
            first_messages,
            conns: Vec::new(),
            stats: PathStats::default(),
        }
    }

    fn find(&self, client: SocketAddrV4, server: SocketAddrV4) -> Option<usize> {
        // Newest first: a reused port belongs to the latest connection.
        self.conns
            .iter()
            .rposition(|c| c.client == client && c.server == server)
    }

    /// Decides the fate of `pkt` leaving an endpoint at `now` in direction `dir`.
    pub fn offer(&mut self, now: u64, dir: Dir, pkt: &[u8]) -> (Fate, Seen) {
        let Ok(seg) = decode_ipv4(pkt) else {
            self.stats.garbage += 1;
            return (Fate::Garbage, Seen::default());
        };
        let (client, server) = match dir {
            Dir::Data => (seg.src, seg.dst),
            Dir::Ack => (seg.dst, seg.src),
        };
        let syn = seg.flags.contains(TcpFlags::SYN);
        let mut i = self.find(client, server);
        if dir == Dir::Data && syn && !seg.flags.contains(TcpFlags::ACK) {
            match i.map(|k| &self.conns[k]) {
                Some(c) if c.isn == seg.seq => {} // a retransmitted SYN
                Some(c) if !(c.fin_data && c.fin_ack) => self.stats.syns_on_open_connections += 1,
                _ => {
                    self.conns.push(self.new_conn(client, server, seg.seq, now));
                    i = Some(self.conns.len() - 1);
                }
            }
        }
        let Some(i) = i else {
            self.stats.foreign += 1;
            return (Fate::Foreign, Seen::default());
        };
        let mut seen = Seen {
            conn: Some(i as u32),
            syn,
            fin: seg.flags.contains(TcpFlags::FIN),
            ..Seen::default()
        };
        match dir {
            Dir::Data => self.conns[i].fin_data |= seen.fin,
            Dir::Ack => self.conns[i].fin_ack |= seen.fin,
        }
        let mut extra = 0;
        match dir {
            Dir::Data => {
                self.stats.data_packets += 1;
                if !seg.payload.is_empty() {
                    let (lost, x) = self.data_loss(i, &seg, &mut seen);
                    if lost {
                        return (Fate::Lost, seen);
                    }
                    extra = x;
                }
            }
            Dir::Ack => {
                self.stats.ack_packets += 1;
                if !syn {
                    let (lost, x) = self.ack_loss(i);
                    if lost {
                        return (Fate::Lost, seen);
                    }
                    extra = x;
                }
            }
        }
        let link = match dir {
            Dir::Data => &mut self.fwd,
            Dir::Ack => &mut self.rev,
        };
        let Some(depart) = link.enqueue(now, pkt.len() as u64) else {
            self.stats.queue_drops += 1;
            return (Fate::QueueFull, seen);
        };
        let t = depart
            .saturating_add(link.spec.delay_ns)
            .saturating_add(extra);
        let at = self.spikes.map_or(t, |s| s.adjust(t));
        (Fate::Arrive(at), seen)
    }

    fn new_conn(&self, client: SocketAddrV4, server: SocketAddrV4, isn: u32, now: u64) -> Conn {
        Conn {
            id: self.conns.len() as u32,
            client,
            server,
            isn,
            syn_ns: now,
            high: 0,
            data_idx: 0,
            ack_idx: 0,
            tx_counts: TxCounts::default(),
            data_packets: 0,
            retransmits: 0,
            lost_retransmits: 0,
            tail_drops: 0,
            delivered: 0,
            ooo: Vec::new(),
            completed_ns: None,
            message: Range::new(0, self.first_message(self.conns.len())),
            message_ns: now,
            lost_before: 0,
            done: Vec::new(),
            fin_data: false,
            fin_ack: false,
        }
    }

    fn first_message(&self, c: usize) -> u64 {
        let last = self.first_messages.last().copied().unwrap_or(0);
        self.first_messages.get(c).copied().unwrap_or(last)
    }

    /// The data-direction loss model and reordering for a data packet of connection `i`.
    fn data_loss(&mut self, i: usize, seg: &TcpSegment<'_>, seen: &mut Seen) -> (bool, u64) {
        let c = &mut self.conns[i];
        let range = c.offsets(seg);
        let retx = range.start < c.high;
        c.high = c.high.max(range.end);
        seen.range = range;
        seen.retransmission = retx;
        c.data_packets += 1;
        c.retransmits += u64::from(retx);
        let index = c.data_idx;
        c.data_idx += 1;
        let info = PacketInfo {
            flow: u64::from(c.id),
            index,
            range,
            retransmission: retx,
            message: c.message,
            mss: self.mss,
        };
        if self.data_loss.drop(&info, &mut c.tx_counts) {
            self.stats.lost_data += 1;
            c.lost_retransmits += u64::from(retx);
            let tail_from = c.message.end.saturating_sub(4 * self.mss);
            let tail = !retx && range.end > tail_from && range.start < c.message.end;
            c.tail_drops += u64::from(tail);
            return (true, 0);
        }
        (
            false,
            self.data_reorder.as_mut().map_or(0, |r| r.extra(index)),
        )
    }

    fn ack_loss(&mut self, i: usize) -> (bool, u64) {
        let c = &mut self.conns[i];
        let index = c.ack_idx;
        c.ack_idx += 1;
        let info = PacketInfo {
            flow: u64::from(c.id),
            index,
            range: Range::default(),
            retransmission: false,
            message: c.message,
            mss: self.mss,
        };
        if self.ack_loss.drop(&info, &mut c.tx_counts) {
            self.stats.lost_acks += 1;
            return (true, 0);
        }
        (
            false,
            self.ack_reorder.as_mut().map_or(0, |r| r.extra(index)),
        )
    }

    /// A data-direction packet of connection `conn` covering `range` reached the receiver.
    pub fn arrived(&mut self, conn: u32, range: Range, at: u64) {
        if let Some(c) = self.conns.get_mut(conn as usize) {
            if !range.is_empty() {
                c.arrived(range, at);
            }
        }
    }
}

//! The first pass over a capture: which TCP connections it holds, who sends the data in
//! each, and what was skipped. Memory grows with the number of connections, never with
//! the number of packets, so the second pass ([`crate::conn`]) can stream.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use lossrec_wire::TcpFlags;

use crate::decode::{decode, Skip, TcpPacket};
use crate::source::{FrameSource, SourceError};

/// One connection (an unordered address pair) as the first pass saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnInfo {
    /// The lower of the two endpoints (the key's first half).
    pub a: SocketAddr,
    /// The other endpoint.
    pub b: SocketAddr,
    /// First and last capture time, ns.
    pub first_ns: u64,
    /// Last capture time, ns.
    pub last_ns: u64,
    /// Packets, both directions.
    pub packets: u64,
    /// Payload bytes `a → b`.
    pub bytes_ab: u64,
    /// Payload bytes `b → a`.
    pub bytes_ba: u64,
    /// Largest payload seen in each direction (a hint for the MSS mid-connection).
    pub max_payload: u32,
    /// Which endpoint sent a SYN without ACK first (the active opener), if captured.
    pub syn_from: Option<SocketAddr>,
    /// Sequence extent `a → b`.
    pub seq_ab: DirSeq,
    /// Sequence extent `b → a`.
    pub seq_ba: DirSeq,
}

/// How far one direction's data went, in offsets from its ISN (or, without a SYN, from
/// its first sequence number).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirSeq {
    /// The ISN (or first sequence number − 1), once seen.
    pub isn: Option<u32>,
    /// One past the highest data offset.
    pub end: u64,
    /// A FIN was sent.
    pub fin: bool,
    /// The ISN is the SYN's.
    pub syn: bool,
}

impl DirSeq {
    fn note(&mut self, p: &TcpPacket) {
        if p.flags.contains(TcpFlags::SYN) {
            if !self.syn {
                *self = DirSeq {
                    isn: Some(p.seq),
                    end: 0,
                    fin: false,
                    syn: true,
                };
            }
            return;
        }
        if p.payload_len == 0 && !p.flags.contains(TcpFlags::FIN) {
            return;
        }
        let isn = *self.isn.get_or_insert(p.seq.wrapping_sub(1));
        let start = lossrec_wire::seq::unwrap(isn, p.seq, self.end);
        self.end = self.end.max(start + u64::from(p.payload_len));
        self.fin |= p.flags.contains(TcpFlags::FIN);
    }
}

impl ConnInfo {
    /// The data sender's extent.
    pub fn sender_seq(&self) -> DirSeq {
        if self.direction().0 == self.a {
            self.seq_ab
        } else {
            self.seq_ba
        }
    }
}

impl ConnInfo {
    /// The data sender (the direction with more payload) and its receiver.
    pub fn direction(&self) -> (SocketAddr, SocketAddr) {
        if self.bytes_ab >= self.bytes_ba {
            (self.a, self.b)
        } else {
            (self.b, self.a)
        }
    }

    /// `SENDER-RECEIVER` as the CLI's `--flow` takes it.
    pub fn label(&self) -> String {
        let (s, r) = self.direction();
        format!("{s}-{r}")
    }
}

/// What the first pass found.
#[derive(Clone, Debug, Default)]
pub struct Index {
    /// Connections in order of first appearance.
    pub conns: Vec<ConnInfo>,
    /// Frames read.
    pub frames: u64,
    /// Frames skipped, by reason name ([`Skip::name`]).
    pub skipped: BTreeMap<&'static str, u64>,
    /// pcapng interfaces packets were seen on.
    pub interfaces: u32,
    /// The error that ended the file early (a truncated capture), as text.
    pub error: Option<String>,
}

/// The connections a second pass over a capture follows: the ordered endpoint pair →
/// the caller's slot.
pub(crate) type Slots = std::collections::HashMap<(SocketAddr, SocketAddr), usize>;

/// A second pass: every TCP packet of `source` on a connection in `slots`, with its
/// slot, in capture order. Frames that do not decode (or a truncated tail, which the
/// index's pass already reported) are passed over.
pub(crate) fn each_packet(
    source: &mut FrameSource,
    slots: &Slots,
    mut f: impl FnMut(usize, &TcpPacket),
) {
    while let Some(frame) = source.next_frame() {
        let Ok(frame) = frame else { break };
        let Ok(p) = decode(&frame) else { continue };
        if let Some(&si) = slots.get(&key(&p)) {
            f(si, &p);
        }
    }
}

/// Key: the ordered endpoint pair.
fn key(p: &TcpPacket) -> (SocketAddr, SocketAddr) {
    if p.src <= p.dst {
        (p.src, p.dst)
    } else {
        (p.dst, p.src)
    }
}

/// Scans a capture. An error opening it is returned; an error inside it (a truncated
/// file) ends the scan with what was read, noted in [`Index::error`].
pub fn scan(mut source: FrameSource) -> Index {
    let mut idx = Index::default();
    let mut by_key: BTreeMap<(SocketAddr, SocketAddr), usize> = BTreeMap::new();
    while let Some(frame) = source.next_frame() {
        let frame = match frame {
            Ok(f) => f,
            Err(e) => {
                idx.error = Some(e.to_string());
                break;
            }
        };
        idx.frames += 1;
        idx.interfaces = idx.interfaces.max(frame.interface + 1);
        let p = match decode(&frame) {
            Ok(p) => p,
            Err(s) => {
                *idx.skipped.entry(s.name()).or_default() += 1;
                continue;
            }
        };
        let k = key(&p);
        let i = *by_key.entry(k).or_insert_with(|| {
            idx.conns.push(ConnInfo {
                a: k.0,
                b: k.1,
                first_ns: p.ts_ns,
                last_ns: p.ts_ns,
                packets: 0,
                bytes_ab: 0,
                bytes_ba: 0,
                max_payload: 0,
                syn_from: None,
                seq_ab: DirSeq::default(),
                seq_ba: DirSeq::default(),
            });
            idx.conns.len() - 1
        });
        let c = &mut idx.conns[i];
        c.packets += 1;
        c.last_ns = c.last_ns.max(p.ts_ns);
        c.first_ns = c.first_ns.min(p.ts_ns);
        c.max_payload = c.max_payload.max(p.payload_len);
        if p.src == c.a {
            c.bytes_ab += u64::from(p.payload_len);
            c.seq_ab.note(&p);
        } else {
            c.bytes_ba += u64::from(p.payload_len);
            c.seq_ba.note(&p);
        }
        if p.flags.contains(TcpFlags::SYN) && !p.flags.contains(TcpFlags::ACK) {
            c.syn_from.get_or_insert(p.src);
        }
    }
    idx
}

/// Opens and scans a file.
pub fn scan_path(path: &std::path::Path) -> Result<Index, SourceError> {
    Ok(scan(FrameSource::open(path)?))
}

/// Skip reasons in a stable order, for reports.
pub fn skip_names() -> [&'static str; 6] {
    [
        Skip::LinkType(0).name(),
        Skip::NotIp.name(),
        Skip::NotTcp.name(),
        Skip::Fragment.name(),
        Skip::Truncated.name(),
        Skip::Malformed.name(),
    ]
}

//! `explain` end to end: scan the capture for its connections, then stream it once more
//! through a [`Reconstructor`] and a [`Shadow`] per chosen connection.

use std::net::SocketAddr;
use std::path::Path;

use lossrec::Config;

use crate::conn::{ConnStats, Reconstructor, Record, MID_BASE};
use crate::index::{each_packet, Slots};
use crate::index::{scan, ConnInfo, Index};
use crate::shadow::{App, Row, Shadow, Summary};
use crate::source::{FrameSource, SourceError};

/// How the application's data is taken as available (see [`App`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AppMode {
    /// When the capture first shows it (the default).
    #[default]
    AsSeen,
    /// All at the start (a bulk transfer).
    Bulk,
}

/// What to explain.
#[derive(Clone, Debug)]
pub struct Options {
    /// Engine preset name (`linux`, `rfc`, …).
    pub preset: String,
    /// Only the connection `SENDER-RECEIVER` (either order), e.g. `10.0.0.1:10000-10.0.0.2:80`.
    pub flow: Option<String>,
    /// Application data model.
    pub app: AppMode,
}

/// Where the capture was taken, from the handshake's timing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Point {
    /// At the data sender: its handshake packet waits a round trip for the answer.
    Sender,
    /// At the data receiver (or near it).
    Receiver,
    /// On the path: both handshake gaps are a good part of the round trip.
    Path,
    /// No handshake captured.
    Unknown,
}

impl Point {
    /// Name for reports.
    pub fn name(self) -> &'static str {
        match self {
            Point::Sender => "sender",
            Point::Receiver => "receiver",
            Point::Path => "path",
            Point::Unknown => "unknown",
        }
    }
}

/// One explained connection.
#[derive(Debug)]
pub struct ConnReport {
    /// What the first pass saw.
    pub info: ConnInfo,
    /// Data sender and receiver.
    pub sender: SocketAddr,
    /// Data receiver.
    pub receiver: SocketAddr,
    /// Capture point.
    pub point: Point,
    /// MSS used to split super-packets.
    pub mss: u64,
    /// Reconstruction counters.
    pub stats: ConnStats,
    /// Shadow-mode counts.
    pub summary: Summary,
    /// The reordering the capture proves, and the packets with two readings.
    pub reordering: crate::reorder::Evidence,
}

/// The explanation of a capture.
#[derive(Debug)]
pub struct Report {
    /// First-pass index (all connections, skipped frames).
    pub index: Index,
    /// The explained connections, in the index's order.
    pub conns: Vec<ConnReport>,
}

/// Why explain could not run.
#[derive(Debug)]
pub enum Error {
    /// The capture could not be opened.
    Source(SourceError),
    /// The preset is unknown.
    Preset(String),
    /// `--flow` names no connection in the capture.
    NoSuchFlow {
        /// The flow asked for.
        flow: String,
        /// Connections present.
        present: Vec<String>,
    },
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Source(e) => e.fmt(f),
            Error::Preset(e) => f.write_str(e),
            Error::NoSuchFlow { flow, present } => write!(
                f,
                "no TCP connection {flow} in the capture; it holds: {}",
                if present.is_empty() {
                    "none".into()
                } else {
                    present.join(", ")
                }
            ),
        }
    }
}

impl std::error::Error for Error {}

/// Does `flow` ("A:P-B:P") name this connection?
pub(crate) fn flow_matches(flow: &str, c: &ConnInfo) -> bool {
    let (a, b) = (c.a.to_string(), c.b.to_string());
    flow == format!("{a}-{b}") || flow == format!("{b}-{a}")
}

struct Slot {
    rec: Reconstructor,
    shadow: Shadow,
    /// Handshake times: SYN, SYN-ACK, the opener's next packet.
    hs: [Option<u64>; 3],
    opener: Option<SocketAddr>,
    reorder: crate::reorder::Reorder,
}

/// Explains the capture at `path`; each labelled row goes to `on_row` with the index of
/// its connection in [`Report::conns`] as it is decided (streaming).
pub fn explain_path(
    path: &Path,
    opts: &Options,
    on_row: impl FnMut(usize, &Row),
) -> Result<Report, Error> {
    explain_sources(|| FrameSource::open(path), opts, on_row)
}

/// [`explain_path`] over any capture: `open` gives a fresh source of the same frames for
/// each of the two passes (a file opened twice, or a generator started again).
pub fn explain_sources(
    mut open: impl FnMut() -> Result<FrameSource, crate::SourceError>,
    opts: &Options,
    mut on_row: impl FnMut(usize, &Row),
) -> Result<Report, Error> {
    let cfg = Config::preset(&opts.preset).map_err(|e| Error::Preset(e.to_string()))?;
    let index = scan(open().map_err(Error::Source)?);
    let chosen: Vec<usize> = (0..index.conns.len())
        .filter(|&i| {
            opts.flow
                .as_deref()
                .is_none_or(|f| flow_matches(f, &index.conns[i]))
        })
        .collect();
    if let (Some(f), true) = (&opts.flow, chosen.is_empty()) {
        return Err(Error::NoSuchFlow {
            flow: f.clone(),
            present: index.conns.iter().map(ConnInfo::label).collect(),
        });
    }
    let mut slots: Vec<Slot> = Vec::new();
    let mut by_key = Slots::new();
    for &i in &chosen {
        let c = &index.conns[i];
        let (s, r) = c.direction();
        let hint = u64::from(c.max_payload.clamp(1, 1448));
        let base = if c.syn_from.is_some() { 0 } else { MID_BASE };
        let app = match opts.app {
            AppMode::AsSeen => App::AsSeen,
            AppMode::Bulk => {
                let d = c.sender_seq();
                App::Bulk {
                    end: d.end,
                    fin: d.fin,
                }
            }
        };
        by_key.insert((c.a, c.b), slots.len());
        slots.push(Slot {
            rec: Reconstructor::new(s, r, hint),
            shadow: Shadow::new(cfg.clone(), app, base),
            hs: [None; 3],
            opener: c.syn_from,
            reorder: crate::reorder::Reorder::new(hint),
        });
    }
    let mut source = open().map_err(Error::Source)?;
    let mut buf: Vec<Record> = Vec::new();
    each_packet(&mut source, &by_key, |si, p| {
        let slot = &mut slots[si];
        if note_handshake(slot, p) {
            // The opener's third packet: how long an ACK takes from the capture point
            // to the data sender (≈ 0 at the sender, the reverse path's delay on it).
            if let ([_, Some(b), Some(c)], Some(o)) = (slot.hs, slot.opener) {
                if o == slot.rec.sender {
                    // Less a tolerance (a fifth, at most 200 µs: the sender's own turnaround
                    // on the SYN-ACK is in the gap), so that data an ACK released is not
                    // captured before the ACK is fed; more would move ACKs into the window
                    // of the one before (ACKs 1.2 ms apart at 10 Mb/s).
                    let gap = c.saturating_sub(b);
                    slot.shadow.set_ack_shift(gap - (gap / 5).min(200_000));
                }
            }
        }
        buf.extend(slot.rec.push(p));
        for r in buf.drain(..) {
            match &r {
                Record::Data(t) => slot.reorder.on_data(t),
                Record::Ack(a) => slot.reorder.on_ack(a),
                _ => {}
            }
            slot.shadow.push(r, &mut |row| on_row(si, &row));
        }
    });
    let conns = slots
        .into_iter()
        .zip(&chosen)
        .enumerate()
        .map(|(si, (mut s, &i))| {
            s.shadow.finish(&mut |row| on_row(si, &row));
            report(&index.conns[i], s)
        })
        .collect();
    Ok(Report { index, conns })
}

/// Notes the handshake's times; true when this packet is the opener's third packet.
fn note_handshake(slot: &mut Slot, p: &crate::decode::TcpPacket) -> bool {
    use lossrec_wire::TcpFlags;
    let syn = p.flags.contains(TcpFlags::SYN);
    let ack = p.flags.contains(TcpFlags::ACK);
    match (syn, ack) {
        (true, false) => {
            slot.hs[0].get_or_insert(p.ts_ns);
        }
        (true, true) => {
            slot.hs[1].get_or_insert(p.ts_ns);
        }
        _ if slot.hs[1].is_some() && slot.hs[2].is_none() && Some(p.src) == slot.opener => {
            slot.hs[2] = Some(p.ts_ns);
            return true;
        }
        _ => {}
    }
    false
}

fn report(info: &ConnInfo, s: Slot) -> ConnReport {
    let mut summary = s.shadow.summary().clone();
    // At the opener the SYN waits a round trip for the SYN-ACK; at the other end the
    // SYN-ACK waits one for the third packet.
    let opener_side = match s.hs {
        [Some(a), Some(b), Some(c)] => Some(b - a >= c - b),
        _ => None,
    };
    // Each gap over a fifth of the handshake's round trip: neither end.
    let on_path = match s.hs {
        [Some(a), Some(b), Some(c)] => (b - a) * 5 > c - a && (c - b) * 5 > c - a,
        _ => false,
    };
    let point = match (opener_side, s.opener) {
        _ if on_path => Point::Path,
        (Some(at_opener), Some(o)) => {
            if at_opener == (o == s.rec.sender) {
                Point::Sender
            } else {
                Point::Receiver
            }
        }
        _ => Point::Unknown,
    };
    if point == Point::Receiver {
        summary.notes.push(
            "the capture was taken at the data receiver: data is seen after the path and \
             ACKs before it, so timings and losses the path caused are not the sender's view"
                .into(),
        );
    }
    ConnReport {
        info: info.clone(),
        sender: s.rec.sender,
        receiver: s.rec.receiver,
        point,
        mss: s.rec.mss,
        stats: s.rec.stats.clone(),
        summary,
        reordering: s.reorder.evidence().clone(),
    }
}

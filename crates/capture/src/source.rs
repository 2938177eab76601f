//! Frames out of a capture file, one at a time: classic pcap (libpcap format,
//! draft-ietf-opsawg-pcap, microsecond or nanosecond magic, either byte order) and pcapng
//! (draft-ietf-opsawg-pcapng: Section Header, Interface Description and Enhanced/Simple
//! Packet blocks), read with the `pcap-file` crate.
//!
//! Streaming: one frame is held at a time, so a capture larger than memory is read in
//! constant space. The format is told by the first four bytes.
//!
//! Timestamps: `pcap-file` hands an Enhanced Packet Block's 64-bit timestamp over as if it
//! were nanoseconds; it is really a count of the interface's `if_tsresol` unit (pcapng
//! §4.2: default 10^-6 s; the top bit set means a power of two), plus `if_tsoffset`
//! seconds. [`Frame::ts_ns`] is converted here.
//!
//! A file cut short (a capture copied while tcpdump was writing) ends the stream with
//! [`SourceError::Truncated`] after every complete record; the caller keeps what it read.

use std::fmt;
use std::io::Read;

use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::blocks::interface_description::InterfaceDescriptionOption;
use pcap_file::pcapng::{Block, PcapNgReader};
use pcap_file::PcapError;

/// One captured frame; `data` borrows the reader's buffer until the next read
/// ([`FrameSource::next_frame`]) or is owned ([`Iterator`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    /// Capture time, nanoseconds since the Unix epoch.
    pub ts_ns: u64,
    /// LINKTYPE_* of the interface it was captured on (1 Ethernet, 113 Linux cooked …).
    pub linktype: u32,
    /// pcapng interface index (0 for classic pcap).
    pub interface: u32,
    /// The bytes captured (at most the snapshot length).
    pub data: std::borrow::Cow<'a, [u8]>,
    /// The frame's length on the wire; more than `data.len()` when snaplen cut it.
    pub orig_len: u32,
}

/// Why reading stopped early.
#[derive(Debug)]
#[non_exhaustive]
pub enum SourceError {
    /// The file could not be read.
    Io(std::io::Error),
    /// The first bytes are neither a pcap nor a pcapng magic number.
    NotACapture {
        /// The first (up to four) bytes found.
        magic: Vec<u8>,
    },
    /// The file ends inside a record: every complete record before it was delivered.
    Truncated {
        /// Complete records read before the cut.
        records: u64,
    },
    /// A record or block is malformed (the reader's own message).
    Malformed {
        /// Complete records read before it.
        records: u64,
        /// What the reader found.
        what: String,
    },
}

impl fmt::Display for SourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceError::Io(e) => write!(f, "cannot read the capture: {e}"),
            SourceError::NotACapture { magic } => write!(
                f,
                "not a pcap or pcapng file (first bytes {magic:02x?}; expected a1b2c3d4, \
                 a1b23c4d or the pcapng block type 0a0d0d0a)"
            ),
            SourceError::Truncated { records } => write!(
                f,
                "the capture is truncated: it ends inside record {} (the {records} records \
                 before it were read)",
                records + 1
            ),
            SourceError::Malformed { records, what } => write!(
                f,
                "malformed capture record {} ({what}); the {records} records before it were read",
                records + 1
            ),
        }
    }
}

impl std::error::Error for SourceError {}

/// What the source reads from: any byte stream (a file, a pipe, a slice).
type Input = Box<dyn Read + Send>;

enum Inner {
    /// A regular file, read through a memory map (no copies).
    Mapped(crate::mapped::Mapped),
    Pcap {
        reader: PcapReader<Input>,
        linktype: u32,
    },
    PcapNg {
        reader: PcapNgReader<Input>,
        interfaces: Vec<Iface>,
    },
}

/// One pcapng interface: its link type and clock.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Iface {
    pub(crate) linktype: u32,
    /// One tick is `num / den` nanoseconds (pcapng `if_tsresol`).
    num: u128,
    den: u128,
    /// `if_tsoffset`, seconds added to every timestamp.
    offset_s: u64,
}

impl Iface {
    /// pcapng §4.2 `if_tsresol`: top bit clear, a power of ten; set, a power of two.
    pub(crate) fn new(linktype: u32, options: &[InterfaceDescriptionOption<'_>]) -> Iface {
        let mut iface = Iface {
            linktype,
            num: 1_000,
            den: 1,
            offset_s: 0,
        };
        for o in options {
            match *o {
                InterfaceDescriptionOption::IfTsResol(r) => {
                    let exp = u32::from(r & 0x7f);
                    let base: u128 = if r & 0x80 == 0 { 10 } else { 2 };
                    // 10^9 / base^exp ns, kept as a fraction; exponents past 2^-64 or
                    // 10^-19 are clamped (no clock ticks that finely).
                    iface.num = 1_000_000_000;
                    iface.den = base.pow(exp.min(if base == 10 { 19 } else { 64 }));
                }
                InterfaceDescriptionOption::IfTsOffset(s) => iface.offset_s = s,
                _ => {}
            }
        }
        iface
    }

    pub(crate) fn ns(&self, ticks: u128) -> u64 {
        let ns = ticks.saturating_mul(self.num) / self.den.max(1);
        let ns = u64::try_from(ns).unwrap_or(u64::MAX);
        ns.saturating_add(self.offset_s.saturating_mul(1_000_000_000))
    }
}

/// A streaming reader of frames; see the module doc.
pub struct FrameSource {
    inner: Inner,
    records: u64,
    done: bool,
    /// pcapng packets are copied here (one copy, no allocation): a packet block cannot
    /// be returned from inside the loop that skips the other blocks.
    scratch: Vec<u8>,
}

impl fmt::Debug for FrameSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FrameSource")
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

/// The error for a reader failure after `records` complete records.
pub(crate) fn classify(e: PcapError, records: u64) -> SourceError {
    match e {
        PcapError::IncompleteBuffer => SourceError::Truncated { records },
        PcapError::IoError(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            SourceError::Truncated { records }
        }
        PcapError::IoError(e) => SourceError::Io(e),
        other => SourceError::Malformed {
            records,
            what: other.to_string(),
        },
    }
}

const PCAP_MAGICS: [[u8; 4]; 4] = [
    [0xd4, 0xc3, 0xb2, 0xa1],
    [0xa1, 0xb2, 0xc3, 0xd4],
    [0x4d, 0x3c, 0xb2, 0xa1],
    [0xa1, 0xb2, 0x3c, 0x4d],
];
const PCAPNG_MAGIC: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

impl FrameSource {
    /// Opens a file: a regular file is read through a memory map (no copy per frame;
    /// the file must not be shortened while it is read), anything else (a pipe, a
    /// device) streams.
    pub fn open(path: &std::path::Path) -> Result<FrameSource, SourceError> {
        let mut f = std::fs::File::open(path).map_err(SourceError::Io)?;
        let regular = f.metadata().map(|m| m.is_file()).unwrap_or(false);
        if !regular {
            // No BufReader: pcap-file keeps its own buffer, and a second one costs a copy.
            return FrameSource::new(f);
        }
        let mut magic = [0u8; 4];
        let got = read_magic(&mut f, &mut magic)?;
        let pcapng = got == 4 && magic == PCAPNG_MAGIC;
        if !(pcapng || got == 4 && PCAP_MAGICS.contains(&magic)) {
            return Err(SourceError::NotACapture {
                magic: magic[..got].to_vec(),
            });
        }
        Ok(FrameSource {
            inner: Inner::Mapped(crate::mapped::Mapped::new(&f, pcapng)?),
            records: 0,
            done: false,
            scratch: Vec::new(),
        })
    }

    /// Opens a capture held in any reader; the format comes from its first four bytes.
    pub fn new(mut reader: impl Read + Send + 'static) -> Result<FrameSource, SourceError> {
        let mut magic = [0u8; 4];
        let got = read_magic(&mut reader, &mut magic)?;
        let head = magic[..got].to_vec();
        let input: Input = Box::new(std::io::Cursor::new(head.clone()).chain(reader));
        let inner = if got == 4 && PCAP_MAGICS.contains(&magic) {
            let reader = PcapReader::new(input).map_err(|e| classify(e, 0))?;
            let h = reader.header();
            Inner::Pcap {
                linktype: u32::from(h.datalink),
                reader,
            }
        } else if got == 4 && magic == PCAPNG_MAGIC {
            Inner::PcapNg {
                reader: PcapNgReader::new(input).map_err(|e| classify(e, 0))?,
                interfaces: Vec::new(),
            }
        } else {
            return Err(SourceError::NotACapture { magic: head });
        };
        Ok(FrameSource {
            inner,
            records: 0,
            done: false,
            scratch: Vec::new(),
        })
    }

    /// Complete records read so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// The next frame, `None` at the end, or the error that ended the stream (returned
    /// once). The frame borrows the reader's buffer: no copy per packet.
    pub fn next_frame(&mut self) -> Option<Result<Frame<'_>, SourceError>> {
        if self.done {
            return None;
        }
        let r = match &mut self.inner {
            Inner::Mapped(m) => m.next_frame(self.records),
            Inner::Pcap {
                reader, linktype, ..
            } => next_pcap(reader, *linktype, self.records),
            Inner::PcapNg { reader, interfaces } => {
                next_pcapng(reader, interfaces, self.records, &mut self.scratch)
            }
        };
        match &r {
            Some(Ok(_)) => self.records += 1,
            Some(Err(_)) | None => self.done = true,
        }
        r
    }
}

/// Reads up to four bytes (fewer only at the end of the input): the format's magic.
fn read_magic(reader: &mut impl Read, magic: &mut [u8; 4]) -> Result<usize, SourceError> {
    let mut got = 0;
    while got < 4 {
        match reader.read(&mut magic[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(SourceError::Io(e)),
        }
    }
    Ok(got)
}

/// Owned frames (a copy each; loops that care use [`FrameSource::next_frame`]).
impl Iterator for FrameSource {
    type Item = Result<Frame<'static>, SourceError>;
    fn next(&mut self) -> Option<Self::Item> {
        self.next_frame().map(|r| {
            r.map(|f| Frame {
                data: std::borrow::Cow::Owned(f.data.into_owned()),
                ..f
            })
        })
    }
}

fn next_pcap(
    reader: &mut PcapReader<Input>,
    linktype: u32,
    records: u64,
) -> Option<Result<Frame<'_>, SourceError>> {
    let p = match reader.next_packet()? {
        Ok(p) => p,
        Err(e) => return Some(Err(classify(e, records))),
    };
    // pcap-file already scaled the fraction by the magic's resolution.
    Some(Ok(Frame {
        ts_ns: u64::try_from(p.timestamp.as_nanos()).unwrap_or(u64::MAX),
        linktype,
        interface: 0,
        orig_len: p.orig_len,
        data: p.data,
    }))
}

fn next_pcapng<'s>(
    reader: &mut PcapNgReader<Input>,
    interfaces: &mut Vec<Iface>,
    records: u64,
    scratch: &'s mut Vec<u8>,
) -> Option<Result<Frame<'s>, SourceError>> {
    loop {
        let block = match reader.next_block()? {
            Ok(b) => b,
            Err(e) => return Some(Err(classify(e, records))),
        };
        match block {
            // A new section starts a new interface numbering (pcapng §4.1).
            Block::SectionHeader(_) => interfaces.clear(),
            Block::InterfaceDescription(idb) => {
                interfaces.push(Iface::new(u32::from(idb.linktype), &idb.options));
            }
            Block::EnhancedPacket(epb) => {
                let Some(iface) = interfaces.get(epb.interface_id as usize) else {
                    return Some(Err(SourceError::Malformed {
                        records,
                        what: format!("packet on undeclared interface {}", epb.interface_id),
                    }));
                };
                scratch.clear();
                scratch.extend_from_slice(&epb.data);
                return Some(Ok(Frame {
                    ts_ns: iface.ns(epb.timestamp.as_nanos()),
                    linktype: iface.linktype,
                    interface: epb.interface_id,
                    orig_len: epb.original_len,
                    data: std::borrow::Cow::Borrowed(&scratch[..]),
                }));
            }
            Block::SimplePacket(spb) => {
                // pcapng §4.4: no timestamp, interface 0.
                let Some(iface) = interfaces.first() else {
                    return Some(Err(SourceError::Malformed {
                        records,
                        what: "simple packet before any interface".into(),
                    }));
                };
                scratch.clear();
                scratch.extend_from_slice(&spb.data);
                return Some(Ok(Frame {
                    ts_ns: 0,
                    linktype: iface.linktype,
                    interface: 0,
                    orig_len: spb.original_len,
                    data: std::borrow::Cow::Borrowed(&scratch[..]),
                }));
            }
            _ => {}
        }
    }
}

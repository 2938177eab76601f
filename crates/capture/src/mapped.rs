//! A capture file read through a memory map (`memmap2`): the parsers of `pcap-file` walk
//! the mapped bytes, so a frame is a slice of the file with no copy at all (the streaming
//! reader copies every byte twice: the kernel into its buffer, and its buffer's moves).
//! The pages stay the kernel's page cache, so a capture larger than memory is still
//! fine: the resident set is what the walk touched recently, reclaimable at will.
//!
//! Used by [`crate::FrameSource::open`] for regular files only; pipes and other readers
//! stream. A file cut short reads as the stream does ([`SourceError::Truncated`] after
//! every complete record). What a map cannot survive is the file being *shortened while
//! it is read* (the process would get SIGBUS): tcpdump only appends, so explain a copy of
//! a file another program may truncate.

use memmap2::Mmap;
use pcap_file::pcap::PcapParser;
use pcap_file::pcapng::{Block, PcapNgParser};

use crate::source::{classify, Frame, Iface, SourceError};

/// The format-specific parser over the map.
enum Parser {
    Pcap {
        parser: PcapParser,
        linktype: u32,
    },
    PcapNg {
        parser: PcapNgParser,
        interfaces: Vec<Iface>,
    },
}

/// A mapped capture and the offset of its next record.
pub(crate) struct Mapped {
    map: Mmap,
    pos: usize,
    parser: Parser,
}

impl Mapped {
    /// Maps `file`; `pcapng` says which format its magic number named.
    pub(crate) fn new(file: &std::fs::File, pcapng: bool) -> Result<Mapped, SourceError> {
        // SAFETY: the map is read only and private to this reader; the one way to break
        // it — another process shortening the file while it is read — is stated in the
        // module doc (it ends the process with SIGBUS; it cannot corrupt memory we use).
        #[allow(unsafe_code)]
        let map = unsafe { Mmap::map(file) }.map_err(SourceError::Io)?;
        let bytes: &[u8] = &map;
        let (rest, parser) = if pcapng {
            let (rest, p) = PcapNgParser::new(bytes).map_err(|e| classify(e, 0))?;
            let parser = Parser::PcapNg {
                parser: p,
                interfaces: Vec::new(),
            };
            (rest.len(), parser)
        } else {
            let (rest, p) = PcapParser::new(bytes).map_err(|e| classify(e, 0))?;
            let linktype = u32::from(p.header().datalink);
            (
                rest.len(),
                Parser::Pcap {
                    parser: p,
                    linktype,
                },
            )
        };
        let pos = bytes.len() - rest;
        let mut m = Mapped { map, pos, parser };
        if let Parser::PcapNg { interfaces, .. } = &mut m.parser {
            // The section header the parser consumed opens interface numbering afresh.
            interfaces.clear();
        }
        Ok(m)
    }

    /// The next frame, `None` at the end, or the error that ends the stream.
    pub(crate) fn next_frame(&mut self, records: u64) -> Option<Result<Frame<'_>, SourceError>> {
        let bytes: &[u8] = &self.map;
        let mut pos = self.pos;
        loop {
            let src = &bytes[pos..];
            if src.is_empty() {
                self.pos = pos;
                return None;
            }
            match &mut self.parser {
                Parser::Pcap { parser, linktype } => {
                    let (rest, p) = match parser.next_packet(src) {
                        Ok(x) => x,
                        Err(e) => return Some(Err(classify(e, records))),
                    };
                    self.pos = bytes.len() - rest.len();
                    return Some(Ok(Frame {
                        ts_ns: u64::try_from(p.timestamp.as_nanos()).unwrap_or(u64::MAX),
                        linktype: *linktype,
                        interface: 0,
                        orig_len: p.orig_len,
                        data: p.data,
                    }));
                }
                Parser::PcapNg { parser, interfaces } => {
                    let (rest, block) = match parser.next_block(src) {
                        Ok(x) => x,
                        Err(e) => return Some(Err(classify(e, records))),
                    };
                    pos = bytes.len() - rest.len();
                    match block {
                        // A new section starts a new interface numbering (pcapng §4.1).
                        Block::SectionHeader(_) => interfaces.clear(),
                        Block::InterfaceDescription(idb) => {
                            interfaces.push(Iface::new(u32::from(idb.linktype), &idb.options));
                        }
                        Block::EnhancedPacket(epb) => {
                            self.pos = pos;
                            let Some(iface) = interfaces.get(epb.interface_id as usize) else {
                                return Some(Err(SourceError::Malformed {
                                    records,
                                    what: format!(
                                        "packet on undeclared interface {}",
                                        epb.interface_id
                                    ),
                                }));
                            };
                            return Some(Ok(Frame {
                                ts_ns: iface.ns(epb.timestamp.as_nanos()),
                                linktype: iface.linktype,
                                interface: epb.interface_id,
                                orig_len: epb.original_len,
                                data: epb.data,
                            }));
                        }
                        Block::SimplePacket(spb) => {
                            self.pos = pos;
                            // pcapng §4.4: no timestamp, interface 0.
                            let Some(iface) = interfaces.first() else {
                                return Some(Err(SourceError::Malformed {
                                    records,
                                    what: "simple packet before any interface".into(),
                                }));
                            };
                            return Some(Ok(Frame {
                                ts_ns: 0,
                                linktype: iface.linktype,
                                interface: 0,
                                orig_len: spb.original_len,
                                data: spb.data,
                            }));
                        }
                        _ => {}
                    }
                }
            }
        }
    }
}

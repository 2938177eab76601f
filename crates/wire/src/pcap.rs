//! Classic pcap writer (the libpcap file format, as in the
//! draft-ietf-opsawg-pcap document: a 24-byte global header, then a 16-byte
//! record header per packet), LINKTYPE_ETHERNET (1), microsecond timestamps,
//! little-endian.
//!
//! The format is two fixed structs, so it is written here directly: the
//! `pcap-file` crate's writer offers no flush or access to the inner writer
//! and writes each record header in four small writes. The tests read our
//! output back with `pcap-file`'s reader and with tshark.
//!
//! Timestamps are taken in nanoseconds (simulated time since the start of the
//! run) and truncated to microseconds. Output is byte-for-byte deterministic
//! for the same input, whatever the host. Wrap a file in a
//! [`std::io::BufWriter`].

use std::fmt;
use std::io::Write;

use crate::encode::encode_frame_into;
use crate::error::WireError;
use crate::segment::TcpSegment;

/// Why a pcap record could not be written.
#[derive(Debug)]
#[non_exhaustive]
pub enum PcapError {
    /// The underlying writer failed.
    Io(std::io::Error),
    /// The segment could not be encoded.
    Encode(WireError),
    /// The timestamp's seconds do not fit the format's 32 bits (year 2106).
    TimestampOutOfRange(u64),
    /// The frame is longer than [`PcapWriter::SNAPLEN`].
    FrameTooLong(usize),
}

impl fmt::Display for PcapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PcapError::Io(e) => write!(f, "pcap write failed: {e}"),
            PcapError::Encode(e) => write!(f, "pcap: cannot encode segment: {e}"),
            PcapError::TimestampOutOfRange(ns) => {
                write!(f, "pcap: timestamp {ns} ns does not fit 32-bit seconds")
            }
            PcapError::FrameTooLong(n) => write!(
                f,
                "pcap: frame of {n} bytes exceeds snaplen {}",
                PcapWriter::<Vec<u8>>::SNAPLEN
            ),
        }
    }
}

impl std::error::Error for PcapError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PcapError::Io(e) => Some(e),
            PcapError::Encode(e) => Some(e),
            _ => None,
        }
    }
}

impl From<WireError> for PcapError {
    fn from(e: WireError) -> Self {
        PcapError::Encode(e)
    }
}

/// Magic number for microsecond-resolution pcap.
const MAGIC_MICROS: u32 = 0xA1B2_C3D4;
/// LINKTYPE_ETHERNET.
const LINKTYPE_ETHERNET: u32 = 1;

/// Writes Ethernet frames to a classic pcap stream.
pub struct PcapWriter<W: Write> {
    writer: W,
    /// Reused by [`PcapWriter::write_segment`] so encoding does not allocate.
    scratch: Vec<u8>,
}

impl<W: Write> fmt::Debug for PcapWriter<W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PcapWriter").finish_non_exhaustive()
    }
}

impl<W: Write> PcapWriter<W> {
    /// Snapshot length in the global header: tcpdump's default, larger than
    /// any Ethernet frame holding an IPv4 packet (65535 + 14 bytes).
    pub const SNAPLEN: u32 = 262_144;

    /// Writes the global header to `writer`.
    pub fn new(mut writer: W) -> Result<PcapWriter<W>, PcapError> {
        let mut h = [0u8; 24];
        h[0..4].copy_from_slice(&MAGIC_MICROS.to_le_bytes());
        h[4..6].copy_from_slice(&2u16.to_le_bytes()); // version 2.4
        h[6..8].copy_from_slice(&4u16.to_le_bytes());
        // thiszone and sigfigs (8..16) are zero.
        h[16..20].copy_from_slice(&Self::SNAPLEN.to_le_bytes());
        h[20..24].copy_from_slice(&LINKTYPE_ETHERNET.to_le_bytes());
        writer.write_all(&h).map_err(PcapError::Io)?;
        Ok(PcapWriter {
            writer,
            scratch: Vec::with_capacity(2048),
        })
    }

    /// Appends one record: `frame` (Ethernet II) captured at `ts_ns`
    /// nanoseconds.
    pub fn write_frame(&mut self, ts_ns: u64, frame: &[u8]) -> Result<(), PcapError> {
        write_record(&mut self.writer, ts_ns, frame)
    }

    /// Encodes `seg` as an Ethernet frame (see [`crate::encode_frame_into`])
    /// and appends it, reusing an internal buffer.
    pub fn write_segment(&mut self, ts_ns: u64, seg: &TcpSegment<'_>) -> Result<(), PcapError> {
        self.scratch.clear();
        encode_frame_into(seg, &mut self.scratch)?;
        write_record(&mut self.writer, ts_ns, &self.scratch)
    }

    /// Flushes the underlying writer.
    pub fn flush(&mut self) -> Result<(), PcapError> {
        self.writer.flush().map_err(PcapError::Io)
    }

    /// The underlying writer. Writing to it directly corrupts the stream.
    pub fn get_ref(&self) -> &W {
        &self.writer
    }

    /// Gives back the underlying writer (not flushed).
    pub fn into_inner(self) -> W {
        self.writer
    }
}

fn write_record<W: Write>(writer: &mut W, ts_ns: u64, frame: &[u8]) -> Result<(), PcapError> {
    if frame.len() > PcapWriter::<W>::SNAPLEN as usize {
        return Err(PcapError::FrameTooLong(frame.len()));
    }
    let secs = ts_ns / 1_000_000_000;
    let micros = (ts_ns % 1_000_000_000) / 1_000;
    let secs = u32::try_from(secs).map_err(|_| PcapError::TimestampOutOfRange(ts_ns))?;
    let len = frame.len() as u32;
    let mut h = [0u8; 16];
    h[0..4].copy_from_slice(&secs.to_le_bytes());
    h[4..8].copy_from_slice(&(micros as u32).to_le_bytes());
    h[8..12].copy_from_slice(&len.to_le_bytes()); // incl_len
    h[12..16].copy_from_slice(&len.to_le_bytes()); // orig_len
    writer.write_all(&h).map_err(PcapError::Io)?;
    writer.write_all(frame).map_err(PcapError::Io)
}

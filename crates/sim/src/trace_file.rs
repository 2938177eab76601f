//! Trace files, their format chosen by the file's suffix (issue 29 item 4).
//!
//! - `.jsonl`: the JSON lines of [`crate::trace`], as they are.
//! - `.jsonl.zst`: the same lines, byte for byte, compressed with Zstandard (RFC 8878).
//!   The stream is a sequence of complete zstd frames: one per flush of the trace (a
//!   simulation flushes once, at its end; a real-time run every second, so that the
//!   file follows the run and stays readable up to its last flush). RFC 8878 §3.1
//!   allows frames to be concatenated; `zstd -d`, Python's `zstandard` and
//!   `lossrec.read_trace` read them as one stream.
//!
//! Any other suffix is refused before a file is created ([`TraceFormat::from_path`]),
//! so a typo cannot leave a file of a format its name does not say. A path that
//! already exists and is not a regular file (`/dev/null`, a FIFO) takes JSON lines:
//! writing there replaces nothing and its name says nothing.

use crate::sink::Stream;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;

/// The zstd level: 3 is zstd's own default, several hundred MB/s, and shrinks the
/// trace's repetitive lines by an order of magnitude (see `lossrec bench`'s numbers).
const LEVEL: i32 = 3;

/// The formats a trace file can have.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// `.jsonl`: JSON lines.
    JsonLines,
    /// `.jsonl.zst`: JSON lines in zstd frames.
    JsonLinesZstd,
}

/// The suffixes accepted, with their format, longest first (`.jsonl.zst` before `.zst`).
pub const SUFFIXES: &[(&str, TraceFormat)] = &[
    (".jsonl.zst", TraceFormat::JsonLinesZstd),
    (".jsonl", TraceFormat::JsonLines),
];

impl TraceFormat {
    /// The format `path`'s suffix names; an `InvalidInput` error naming the path and the
    /// accepted suffixes otherwise. An existing path that is not a regular file (a device,
    /// a FIFO) is JSON lines whatever its name.
    pub fn from_path(path: &Path) -> io::Result<TraceFormat> {
        let name = path.to_string_lossy();
        if let Some((_, f)) = SUFFIXES.iter().find(|(s, _)| name.ends_with(s)) {
            return Ok(*f);
        }
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
            return Ok(TraceFormat::JsonLines);
        }
        let known: Vec<&str> = SUFFIXES.iter().map(|(s, _)| *s).collect();
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{name}: unknown trace format; name the file with one of these suffixes: {}",
                known.join(", ")
            ),
        ))
    }
}

/// Creates (or truncates) the trace file `path`, writing the format its suffix names.
/// An unknown suffix is refused before anything is created.
pub fn create(path: &Path) -> io::Result<Stream> {
    let format = TraceFormat::from_path(path)?;
    let file = File::create(path)?;
    Ok(match format {
        TraceFormat::JsonLines => Box::new(file),
        TraceFormat::JsonLinesZstd => Box::new(ZstdFrames::new(Box::new(file))),
    })
}

/// A writer that compresses into zstd frames, closing the frame at each `flush`: what a
/// [`crate::sink::Sink`] flushes once at the end of a run (and a real-time run every
/// second) is then a complete, checksummed frame on disk. Dropped without a flush, it
/// still closes its frame, but can report no error; the trace always flushes first.
pub struct ZstdFrames {
    /// The frame being written, if any bytes came since the last flush.
    frame: Option<zstd::stream::write::Encoder<'static, Stream>>,
    /// The writer between frames (`None` while a frame holds it, or after a failure).
    inner: Option<Stream>,
}

impl ZstdFrames {
    /// Frames written to `w`.
    pub fn new(w: Stream) -> ZstdFrames {
        ZstdFrames {
            frame: None,
            inner: Some(w),
        }
    }

    fn broken() -> io::Error {
        io::Error::other("the zstd trace stream failed earlier")
    }

    fn frame(&mut self) -> io::Result<&mut zstd::stream::write::Encoder<'static, Stream>> {
        if self.frame.is_none() {
            let w = self.inner.take().ok_or_else(Self::broken)?;
            let mut enc = zstd::stream::write::Encoder::new(w, LEVEL)?;
            // The checksum lets a reader tell a damaged frame from a good one (RFC 8878 §3.1.1).
            enc.include_checksum(true)?;
            self.frame = Some(enc);
        }
        Ok(self.frame.as_mut().expect("set above"))
    }
}

impl Write for ZstdFrames {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        self.frame()?.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(enc) = self.frame.take() {
            self.inner = Some(enc.finish()?);
        }
        self.inner.as_mut().ok_or_else(Self::broken)?.flush()
    }
}

impl Drop for ZstdFrames {
    fn drop(&mut self) {
        if let Some(enc) = self.frame.take() {
            // Best effort: the trace flushes (and reports errors) before it drops us.
            let _ = enc.finish().and_then(|mut w| w.flush());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn suffixes_pick_the_format_and_others_are_refused() {
        let f = |p: &str| TraceFormat::from_path(Path::new(p));
        assert_eq!(f("a/t.jsonl").unwrap(), TraceFormat::JsonLines);
        assert_eq!(f("t.jsonl.zst").unwrap(), TraceFormat::JsonLinesZstd);
        assert_eq!(f("/dev/null").unwrap(), TraceFormat::JsonLines);
        for bad in ["t.json", "t.zst", "t.txt", "t", "t.jsonl.gz"] {
            let e = f(bad).unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
            let msg = e.to_string();
            assert!(msg.starts_with(bad) && msg.contains(".jsonl.zst"), "{msg}");
        }
    }

    #[test]
    fn each_flush_closes_a_frame_and_the_frames_decode_to_the_bytes() {
        let out = Shared::default();
        let mut z = ZstdFrames::new(Box::new(out.clone()));
        z.write_all(b"{\"a\":1}\n").unwrap();
        z.flush().unwrap();
        let one = out.0.lock().unwrap().len();
        assert!(one > 0, "a flush writes the whole frame");
        z.flush().unwrap(); // nothing new: no empty frame
        assert_eq!(out.0.lock().unwrap().len(), one);
        z.write_all(b"{\"a\":2}\n").unwrap();
        drop(z); // closes its frame
        let bytes = out.0.lock().unwrap().clone();
        let back = zstd::stream::decode_all(&bytes[..]).unwrap();
        assert_eq!(back, b"{\"a\":1}\n{\"a\":2}\n");
    }
}

//! Where a trace or capture goes: kept in memory (the Python API's `Result.trace`), or
//! streamed through a buffer to a writer (a file, stdout) so that a run's memory does
//! not grow with its length.

use std::io::{self, BufWriter, Write};

/// A writer the simulator may stream to (a file, a pipe, stdout).
pub type Stream = Box<dyn Write + Send>;

/// Bytes kept in memory or streamed to a writer.
pub enum Sink {
    Memory(Vec<u8>),
    Stream(BufWriter<Stream>),
}

impl Sink {
    /// Streams to `w` through a 256 KiB buffer.
    pub fn stream(w: Stream) -> Sink {
        Sink::Stream(BufWriter::with_capacity(1 << 18, w))
    }

    /// Flushes a stream; returns the bytes when kept in memory.
    pub fn finish(self) -> io::Result<Option<Vec<u8>>> {
        match self {
            Sink::Memory(v) => Ok(Some(v)),
            Sink::Stream(mut w) => w.flush().map(|()| None),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Memory(v) => v.write(buf),
            Sink::Stream(w) => w.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Sink::Memory(v) => v.write_all(buf),
            Sink::Stream(w) => w.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Memory(_) => Ok(()),
            Sink::Stream(w) => w.flush(),
        }
    }
}

/// Streaming destinations for one run (see [`crate::run_to`]); each given one replaces
/// the in-memory output of the same kind.
#[derive(Default)]
pub struct Sinks {
    /// The JSON-lines trace.
    pub trace: Option<Stream>,
    /// The pcap captured at the sender's host.
    pub pcap: Option<Stream>,
    /// The pcap captured at the receiver's host (data when it arrives, ACKs when sent).
    pub pcap_receiver: Option<Stream>,
}

impl std::fmt::Debug for Sinks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sinks")
            .field("trace", &self.trace.is_some())
            .field("pcap", &self.pcap.is_some())
            .field("pcap_receiver", &self.pcap_receiver.is_some())
            .finish()
    }
}

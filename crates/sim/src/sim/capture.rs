//! Streaming outputs of a run: the trace and the captures given writers
//! ([`crate::Sinks`]) instead of memory, and the capture at the receiver's host, which
//! sees data as it arrives and ACKs as they leave (see [`crate::pcap`]).

use super::Sim;
use crate::pcap::{Capture, Point};
use crate::sink::{Sink, Sinks};
use crate::trace::Trace;
use lossrec::Ack;

impl Sim<'_> {
    /// Streams the trace and captures to `sinks` instead of keeping them in memory.
    pub fn with_sinks(mut self, sinks: Sinks) -> Self {
        if let Some(w) = sinks.trace {
            self.trace = Some(Trace::streaming(w));
        }
        if let Some(w) = sinks.pcap {
            self.pcap = Some(Capture::to_sink(self.seed, Point::Sender, Sink::stream(w)));
        }
        if let Some(w) = sinks.pcap_receiver {
            self.pcap_rx = Some(Capture::to_sink(
                self.seed,
                Point::Receiver,
                Sink::stream(w),
            ));
        }
        self
    }

    /// The receiver sent an ACK (before the path can lose it).
    pub(super) fn rx_ack(&mut self, i: u32, ack: &Ack) {
        if let Some(p) = self.pcap_rx.as_mut() {
            p.ack(self.now, i, ack);
        }
    }
}

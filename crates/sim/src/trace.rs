//! The JSON-lines trace: one line per packet event and engine event.
//!
//! Every line starts `{"t_us":…,"flow":…,"kind":…` (`t_us` integer microseconds of simulated
//! time, `flow` the connection index). Kinds:
//!
//! - `send`: the sender emitted a segment: `seq` `[start, end)` in stream offsets, `why`
//!   (`lossrec::Why::name`), plus `syn`/`fin`/`psh` when set. Recorded whether or not the
//!   path then loses it.
//!   Segments observed on the real wire from Linux's sender have `why` `new` or
//!   `retransmission` (classified by sequence; see `Trace::send_observed`).
//! - `drop`: the path lost a packet: `dir` `"data"` (with `seq`) or `"ack"` (with `ack`), and
//!   `cause` `"loss"` (the loss model) or `"queue"` (drop-tail).
//! - `recv`: a segment reached the receiver: `seq` (plus `syn`/`fin` when set).
//! - `ack`: an ACK reached the sender: `ack` (cumulative), `sack` `[[s, e], …]` (DSACK
//!   excluded), `dsack` `[s, e]` or `null`, plus `syn` on the SYN-ACK; then the sender's
//!   state after processing it, before sending in response: `cwnd`, `pipe` (RFC 6675
//!   pipe, bytes), `ssthresh` (bytes, `null` until the first reduction) and `state`
//!   (`open`, `disorder`, `cwr`, `recovery`, `loss`). During fast recovery under PRR also
//!   `prr_delivered`, `prr_out`, `sndcnt` (bytes) and `bound`, the term that set SndCnt:
//!   `p` for the proportional part, else RFC 6937's RB key (`s`, `b`, `d`, `bd`, …).
//!   Also the RTT estimator after the ACK (RFC 6298): `srtt_us` (`null` before the first
//!   sample), `rttvar_us`, `rto_us` (with backoff), and `rwnd`, the window the ACK
//!   advertised (bytes, scaled) — tcptrace's receive-window line. Then the one deadline
//!   as armed after the ACK, before sending in response: `timer` (`rto`, `loss_probe`,
//!   `reo_timeout`, `early_retransmit`, `persist`, or `null`) and `timer_at_us`; and while
//!   RACK detects losses, `reo_wnd_us` (RACK.reo_wnd as last computed, RFC 8985 §6.2).
//! - `event`: an engine decision: `name` (`lossrec::EventKind::name`) and every field of
//!   the event, as `EventKind::for_each_field` derives them from the enum (numbers; flags
//!   as 0/1; signal and detector names as strings, e.g. `"by":"frto"`).
//!
//! Lines are formatted by hand (integers and fixed names only, nothing to escape), so the
//! bytes depend only on the simulation. A trace given a writer ([`Trace::streaming`])
//! hands it every 64 KiB of lines, so memory stays flat however long the run.

use crate::sink::{Sink, Stream};
use lossrec::{Ack, Event, Range, RecoveryState, Segment, Sender, Transmit};
use std::fmt::Write;
use std::io::{self, Write as _};

/// Lines are handed to a streaming writer in batches of about this many bytes.
const FLUSH_AT: usize = 1 << 16;

/// Why the path lost a packet.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropCause {
    Loss,
    Queue,
}

impl DropCause {
    fn name(self) -> &'static str {
        match self {
            DropCause::Loss => "loss",
            DropCause::Queue => "queue",
        }
    }
}

/// Accumulates trace lines in memory, or streams them to a writer.
#[derive(Default)]
pub struct Trace {
    /// Lines not yet handed to the writer (all of them when kept in memory).
    pub out: String,
    sink: Option<Sink>,
    /// Lines written so far.
    pub lines: u64,
    /// The first write error; later lines are dropped.
    error: Option<io::Error>,
}

impl std::fmt::Debug for Trace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace").field("lines", &self.lines).finish()
    }
}

fn seq(r: Range) -> (u64, u64) {
    (r.start, r.end)
}

impl Trace {
    /// A trace streamed to `w`.
    pub fn streaming(w: Stream) -> Trace {
        Trace {
            sink: Some(Sink::stream(w)),
            ..Trace::default()
        }
    }

    fn spill(&mut self) {
        if let (Some(sink), None) = (self.sink.as_mut(), &self.error) {
            if let Err(e) = sink.write_all(self.out.as_bytes()) {
                self.error = Some(e);
            }
        }
        self.out.clear();
    }

    /// Hands a streamed trace's pending lines to its writer and flushes it (a real-time
    /// run does so every second, so that the file follows the run); no-op in memory.
    pub fn flush(&mut self) -> io::Result<()> {
        if self.sink.is_none() {
            return Ok(());
        }
        self.spill();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.sink.as_mut().map_or(Ok(()), |s| s.flush())
    }

    /// Ends the trace: the lines when kept in memory, `None` when streamed (flushed).
    pub fn finish(mut self) -> io::Result<Option<String>> {
        let Some(_) = self.sink else {
            return Ok(Some(self.out));
        };
        self.spill();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.sink.take().map_or(Ok(()), |s| s.finish().map(drop))?;
        Ok(None)
    }

    fn head(&mut self, t_ns: u64, flow: u32, kind: &str) {
        let _ = write!(
            self.out,
            "{{\"t_us\":{},\"flow\":{},\"kind\":\"{}\"",
            t_ns / 1_000,
            flow,
            kind
        );
    }
    fn flag(&mut self, name: &str, set: bool) {
        if set {
            let _ = write!(self.out, ",\"{name}\":true");
        }
    }
    fn end(&mut self) {
        self.out.push_str("}\n");
        self.lines += 1;
        if self.sink.is_some() && self.out.len() >= FLUSH_AT {
            self.spill();
        }
    }

    pub fn send(&mut self, t_ns: u64, flow: u32, tx: &Transmit) {
        self.head(t_ns, flow, "send");
        let (s, e) = seq(tx.range);
        let _ = write!(self.out, ",\"seq\":[{s},{e}],\"why\":\"{}\"", tx.why.name());
        self.flag("syn", tx.syn.is_some());
        self.flag("fin", tx.fin);
        self.flag("psh", tx.psh);
        self.end();
    }

    /// A data segment seen on a wire rather than emitted by the engine (the kernel's
    /// sender, classified by the path emulator): `why` is `new`, or `retransmission` when
    /// it starts below the highest byte sent before.
    pub fn send_observed(&mut self, t_ns: u64, flow: u32, range: Range, retransmission: bool) {
        self.head(t_ns, flow, "send");
        let (s, e) = seq(range);
        let why = if retransmission {
            "retransmission"
        } else {
            "new"
        };
        let _ = write!(self.out, ",\"seq\":[{s},{e}],\"why\":\"{why}\"");
        self.end();
    }

    pub fn drop_data(&mut self, t_ns: u64, flow: u32, range: Range, cause: DropCause) {
        self.head(t_ns, flow, "drop");
        let (s, e) = seq(range);
        let _ = write!(
            self.out,
            ",\"dir\":\"data\",\"seq\":[{s},{e}],\"cause\":\"{}\"",
            cause.name()
        );
        self.end();
    }

    pub fn drop_ack(&mut self, t_ns: u64, flow: u32, ack: &Ack, cause: DropCause) {
        self.head(t_ns, flow, "drop");
        let _ = write!(
            self.out,
            ",\"dir\":\"ack\",\"ack\":{},\"cause\":\"{}\"",
            ack.cumulative,
            cause.name()
        );
        self.flag("syn", ack.syn.is_some());
        self.end();
    }

    pub fn recv(&mut self, t_ns: u64, flow: u32, seg: &Segment) {
        self.head(t_ns, flow, "recv");
        let (s, e) = seq(seg.range);
        let _ = write!(self.out, ",\"seq\":[{s},{e}]");
        self.flag("syn", seg.syn.is_some());
        self.flag("fin", seg.fin);
        self.end();
    }

    /// An ACK at the sender; `sender` (after processing it) adds the window fields.
    pub fn ack(&mut self, t_ns: u64, flow: u32, ack: &Ack, sender: Option<&Sender>) {
        self.head(t_ns, flow, "ack");
        let _ = write!(self.out, ",\"ack\":{},\"sack\":[", ack.cumulative);
        for (i, b) in ack.sack_blocks().iter().enumerate() {
            let sep = if i > 0 { "," } else { "" };
            let _ = write!(self.out, "{sep}[{},{}]", b.start, b.end);
        }
        self.out.push(']');
        match ack.dsack() {
            Some(d) => {
                let _ = write!(self.out, ",\"dsack\":[{},{}]", d.start, d.end);
            }
            None => self.out.push_str(",\"dsack\":null"),
        }
        self.flag("syn", ack.syn.is_some());
        if let Some(s) = sender {
            self.window(s);
            self.rtt(s);
            self.deadline(s);
            let _ = write!(self.out, ",\"rwnd\":{}", ack.window);
        }
        self.end();
    }

    fn window(&mut self, s: &Sender) {
        let _ = write!(self.out, ",\"cwnd\":{},\"pipe\":{}", s.cwnd(), s.pipe());
        match s.ssthresh() {
            x if x >= u64::MAX / 2 => self.out.push_str(",\"ssthresh\":null"),
            x => {
                let _ = write!(self.out, ",\"ssthresh\":{x}");
            }
        }
        let _ = write!(self.out, ",\"state\":\"{}\"", s.state().name());
        if let (Some(p), RecoveryState::Recovery) = (s.reducer().prr(), s.state()) {
            let b = p.bound();
            let label = if b.proportional {
                "p".to_string()
            } else {
                b.label()
            };
            let _ = write!(
                self.out,
                ",\"prr_delivered\":{},\"prr_out\":{},\"sndcnt\":{},\"bound\":\"{label}\"",
                p.prr_delivered(),
                p.prr_out(),
                p.sndcnt()
            );
        }
    }

    /// The RFC 6298 estimator's state (microseconds).
    fn rtt(&mut self, s: &Sender) {
        let r = s.rtt();
        match r.srtt() {
            Some(v) => {
                let _ = write!(self.out, ",\"srtt_us\":{}", v.as_micros());
            }
            None => self.out.push_str(",\"srtt_us\":null"),
        }
        let _ = write!(
            self.out,
            ",\"rttvar_us\":{},\"rto_us\":{}",
            r.rttvar().as_micros(),
            r.rto().as_micros()
        );
    }

    /// The armed deadline and RACK's reorder window: why the sender will next act
    /// without an ACK (the differential test's "engine's reasoning").
    fn deadline(&mut self, s: &Sender) {
        match (s.timer_kind(), s.poll_timeout()) {
            (Some(k), Some(at)) => {
                let _ = write!(
                    self.out,
                    ",\"timer\":\"{}\",\"timer_at_us\":{}",
                    k.name(),
                    at.as_nanos() / 1000
                );
            }
            _ => self.out.push_str(",\"timer\":null"),
        }
        if s.rack_active() {
            let _ = write!(
                self.out,
                ",\"reo_wnd_us\":{}",
                s.rack().reo_wnd().as_micros()
            );
        }
    }

    pub fn event(&mut self, flow: u32, ev: &Event) {
        self.head(ev.at.as_nanos(), flow, "event");
        let _ = write!(self.out, ",\"name\":\"{}\"", ev.kind.name());
        let out = &mut self.out;
        ev.kind.for_each_field(|k, v| {
            let _ = write!(out, ",\"{k}\":");
            let _ = v.write_json(out);
        });
        self.end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lossrec::event::{EventKind, LossDetector, SpuriousSignal};
    use lossrec::{Instant, Why};
    use std::sync::{Arc, Mutex};

    /// A writer whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl io::Write for Shared {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn ev(kind: EventKind) -> Event {
        Event {
            at: Instant::from_micros(7),
            kind,
        }
    }

    #[test]
    fn events_keep_every_field() {
        let mut t = Trace::default();
        t.event(
            0,
            &ev(EventKind::Spurious {
                timeout: true,
                late: false,
                by: SpuriousSignal::Frto,
            }),
        );
        t.event(
            0,
            &ev(EventKind::GenuineRto {
                by: SpuriousSignal::Timestamp,
            }),
        );
        t.event(
            0,
            &ev(EventKind::MarkLost {
                start: 1,
                end: 2,
                by: LossDetector::Rack,
            }),
        );
        let l: Vec<&str> = t.out.lines().collect();
        assert_eq!(
            l[0],
            r#"{"t_us":7,"flow":0,"kind":"event","name":"spurious_rto","timeout":1,"late":0,"by":"frto"}"#
        );
        assert_eq!(
            l[1],
            r#"{"t_us":7,"flow":0,"kind":"event","name":"genuine_rto","by":"timestamp"}"#
        );
        assert!(
            l[2].ends_with(r#""start":1,"end":2,"by":"rack"}"#),
            "{}",
            l[2]
        );
    }

    #[test]
    fn a_streaming_trace_holds_at_most_one_batch() {
        let w = Shared::default();
        let mut t = Trace::streaming(Box::new(w.clone()));
        let tx = Transmit {
            ecn: Default::default(),
            range: Range::new(0, 1448),
            why: Why::New,
            syn: None,
            fin: false,
            psh: false,
            ts: None,
        };
        let mut memory = Trace::default();
        for i in 0..20_000 {
            t.send(i, 0, &tx);
            memory.send(i, 0, &tx);
            assert!(t.out.len() < FLUSH_AT + 256);
        }
        assert_eq!(t.lines, 20_000);
        assert_eq!(t.finish().unwrap(), None);
        let streamed = String::from_utf8(w.0.lock().unwrap().clone()).unwrap();
        assert_eq!(Some(streamed), memory.finish().unwrap());
    }

    #[test]
    fn lines_are_json() {
        let mut t = Trace::default();
        let tx = Transmit {
            ecn: Default::default(),
            range: Range::new(0, 1448),
            why: Why::New,
            syn: None,
            fin: true,
            psh: false,
            ts: None,
        };
        t.send(1_500_000, 0, &tx);
        t.drop_data(2_000, 1, Range::new(5, 9), DropCause::Queue);
        let ack =
            Ack::cumulative(4000).with_sack(&[Range::new(3000, 3500), Range::new(5000, 6000)]);
        t.ack(3_000_999, 0, &ack, None);
        t.drop_ack(1, 0, &ack, DropCause::Loss);
        t.recv(
            7_000,
            2,
            &Segment {
                range: Range::new(1, 2),
                ..Segment::default()
            },
        );
        t.event(
            0,
            &Event {
                at: Instant::from_micros(42),
                kind: EventKind::Undo {
                    cwnd: 5,
                    ssthresh: 6,
                },
            },
        );
        let lines: Vec<&str> = t.out.lines().collect();
        assert_eq!(
            lines[0],
            r#"{"t_us":1500,"flow":0,"kind":"send","seq":[0,1448],"why":"new","fin":true}"#
        );
        assert_eq!(
            lines[2],
            r#"{"t_us":3000,"flow":0,"kind":"ack","ack":4000,"sack":[[5000,6000]],"dsack":[3000,3500]}"#
        );
        assert_eq!(
            lines[5],
            r#"{"t_us":42,"flow":0,"kind":"event","name":"undo","cwnd":5,"ssthresh":6}"#
        );
        for l in lines {
            serde_json::from_str::<serde_json::Value>(l).unwrap();
        }
    }
}

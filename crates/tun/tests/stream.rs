//! The wire's trace and capture stream to their writers while the run goes (as the
//! simulator's `run_to` does): the writer sees lines long before the run ends, never in
//! pieces bigger than the buffers, and the whole is the usual JSON-lines trace and a pcap
//! file. Needs root and /dev/net/tun; without them the test says so and returns.

use std::io::{self, Write};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use lossrec_sim::{Scenario, Sinks};
use lossrec_tun::{netns, run_to, WireOptions};

/// What a writer got, and when each piece came (with its size).
type Got = (Vec<u8>, Vec<(Instant, usize)>);

/// A writer that keeps what it got and when each piece came.
#[derive(Clone, Default)]
struct Recorder(Arc<Mutex<Got>>);

impl Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut g = self.0.lock().unwrap();
        g.0.extend_from_slice(buf);
        g.1.push((Instant::now(), buf.len()));
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn trace_and_pcap_stream_while_the_run_goes() {
    if let Some(why) = netns::unavailable() {
        eprintln!("SKIPPED (wire tests): {why}");
        return;
    }
    let sc = Scenario::from_toml_str(
        "[path]\nrtt_ms = 20\nrate_mbps = 20\n[sender]\npreset = \"linux\"\n\
         [workload]\nkind = \"bulk\"\nduration_s = 4",
        "<bulk>",
    )
    .unwrap();
    let (trace, pcap) = (Recorder::default(), Recorder::default());
    let sinks = Sinks {
        trace: Some(Box::new(trace.clone())),
        pcap: Some(Box::new(pcap.clone())),
        pcap_receiver: None,
    };
    let out = run_to(&sc, &WireOptions::default(), sinks).unwrap();
    let end = Instant::now();
    assert!(
        out.trace.is_none() && out.pcap.is_none(),
        "streamed, not kept"
    );
    for (what, r) in [("trace", &trace), ("pcap", &pcap)] {
        let g = r.0.lock().unwrap();
        let (bytes, writes) = (&g.0, &g.1);
        assert!(bytes.len() > 1 << 20, "{what}: {} bytes", bytes.len());
        // Flushed every second of the run, not once at the end.
        let early = writes
            .iter()
            .filter(|(t, _)| end.duration_since(*t).as_secs_f64() > 1.0);
        assert!(early.count() >= 2, "{what}: {writes:?}");
        // Bounded: no piece larger than the buffers (64 KiB of lines, 256 KiB writer).
        let max = writes.iter().map(|w| w.1).max().unwrap();
        assert!(max <= 320 << 10, "{what}: a {max}-byte write");
    }
    let text = String::from_utf8(trace.0.lock().unwrap().0.clone()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(Some(lines.len() as u64), out.trace_lines);
    assert!(lines
        .iter()
        .all(|l| l.starts_with("{\"t_us\":") && l.ends_with('}')));
    for kind in ["send", "recv", "ack"] {
        let k = format!("\"kind\":\"{kind}\"");
        assert!(lines.iter().any(|l| l.contains(&k)), "no {kind} line");
    }
    let p = pcap.0.lock().unwrap();
    assert_eq!(
        &p.0[..4],
        &[0xd4, 0xc3, 0xb2, 0xa1],
        "pcap magic (little-endian µs)"
    );
}

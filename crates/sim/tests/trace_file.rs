//! Trace files by suffix (issue 29 item 4): a `.jsonl.zst` trace is the in-memory JSON
//! lines, byte for byte, once decompressed, and much smaller; a `.jsonl` one is the lines
//! themselves; any other suffix is refused before a file exists.

use lossrec_sim::trace_file::{self, TraceFormat};
use lossrec_sim::{run, run_to, RunOptions, Scenario, Sinks};
use std::path::{Path, PathBuf};

/// A lossy path: random data and ACK loss, so the trace holds every kind of line
/// (SACK blocks, drops, recovery events).
const LOSSY: &str = "[path]\nrtt_ms = 30\nrate_mbps = 20\n[path.loss]\nmodel = \"bernoulli\"\np = 0.03\n[path.ack_loss]\nmodel = \"bernoulli\"\np = 0.02\n[workload]\nkind = \"flows\"\nflows = 3\nsegments = 400\narrival = \"concurrent\"\n";

/// A folder of this test's own under the target's temporary folder, emptied first.
fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("trace_file-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn in_memory() -> String {
    let sc = Scenario::from_toml_str(LOSSY, "lossy").unwrap();
    let opts = RunOptions {
        trace: true,
        ..RunOptions::default()
    };
    run(&sc, &opts).unwrap().trace.unwrap()
}

fn streamed(path: &Path) -> lossrec_sim::RunOutput {
    let sc = Scenario::from_toml_str(LOSSY, "lossy").unwrap();
    let sinks = Sinks {
        trace: Some(trace_file::create(path).unwrap()),
        ..Sinks::default()
    };
    let out = run_to(&sc, &RunOptions::default(), sinks).unwrap();
    assert_eq!(out.outputs.error, None);
    out
}

#[test]
fn a_zstd_trace_decompresses_to_the_json_lines_and_is_at_least_five_times_smaller() {
    let d = dir("zst");
    let memory = in_memory();
    let zst = d.join("t.jsonl.zst");
    let out = streamed(&zst);
    assert_eq!(out.outputs.trace_lines as usize, memory.lines().count());
    let bytes = std::fs::read(&zst).unwrap();
    let back = zstd::stream::decode_all(&bytes[..]).unwrap();
    assert_eq!(back, memory.as_bytes());
    let ratio = memory.len() as f64 / bytes.len() as f64;
    assert!(
        ratio >= 5.0,
        "{} bytes of lines in {} compressed: {ratio:.1}x",
        memory.len(),
        bytes.len()
    );
}

#[test]
fn a_jsonl_trace_file_is_the_lines() {
    let d = dir("jsonl");
    let p = d.join("t.jsonl");
    streamed(&p);
    assert_eq!(std::fs::read_to_string(&p).unwrap(), in_memory());
}

#[test]
fn an_unknown_suffix_is_refused_and_no_file_is_created() {
    let d = dir("unknown");
    for name in ["t.json", "t.zst", "t.jsonl.gz", "trace"] {
        let p = d.join(name);
        let e = trace_file::create(&p).err().expect("refused");
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains(".jsonl.zst"), "{e}");
        assert!(!p.exists(), "{name} was created");
    }
    assert_eq!(
        TraceFormat::from_path(Path::new("/dev/null")).unwrap(),
        TraceFormat::JsonLines
    );
}

//! The driver contract (the `lossrec` crate doc, "The driver contract"; issue 27 item 5):
//! one input, then drain `poll_transmit`, then the next input — as Linux runs `tcp_ack`
//! then `tcp_data_snd_check` per segment. The same scenario through the simulator and
//! through the real wire (the engine sender against Linux's receiver, TUN devices in
//! namespaces, the emulator's constant-delay path) must give the same transmission
//! sequence: every `send` line's `[start, end)` and `why`, in order.
//!
//! `sample` runs the committed sample (tests/data/contract_sample, written by
//! `scripts/driver-contract.sh --seed 27 --n 8 --write-only`) and a burst case in the
//! normal suite; `corpus` (ignored) runs the folder `LOSSREC_CONTRACT_DIR`, which
//! `scripts/driver-contract.sh` writes and runs. Needs root, /dev/net/tun and iproute2:
//! without them each test says so and returns.

use std::path::{Path, PathBuf};

use lossrec_sim::Scenario;
use lossrec_tun::{netns, run, Side, WireOptions};

fn skip() -> bool {
    match netns::unavailable() {
        Some(why) => {
            eprintln!("SKIPPED (wire tests): {why}");
            true
        }
        None => false,
    }
}

/// Each data transmission of flow 0 as the trace shows it: `"start-end why"`. Segments
/// without data (the SYN, a bare FIN) are left out: when the application closes is the
/// driver's workload convention (the wire's `Close`, the simulator's FIN on the last
/// segment), not the contract.
fn sends(trace: &str) -> Vec<String> {
    trace
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "send" && v["flow"] == 0 && v["seq"][0] != v["seq"][1])
        .map(|v| {
            let (s, e) = (&v["seq"][0], &v["seq"][1]);
            format!("{s}-{e} {}", v["why"].as_str().unwrap_or("?"))
        })
        .collect()
}

/// The simulator's and the wire's transmission sequences for `sc`.
fn both(name: &str, sc: &Scenario) -> (Vec<String>, Vec<String>) {
    let opts = lossrec_sim::RunOptions {
        trace: true,
        ..Default::default()
    };
    let sim = lossrec_sim::run(sc, &opts).expect("simulator run");
    let wire = run(
        sc,
        &WireOptions {
            trace: true,
            receiver: receiver(),
            ..WireOptions::default()
        },
    )
    .expect("wire run");
    let (st, wt) = (
        sim.trace.unwrap_or_default(),
        wire.trace.unwrap_or_default(),
    );
    let out = (sends(&st), sends(&wt));
    // LOSSREC_CONTRACT_DUMP=DIR keeps both traces of a scenario that differs.
    if let (Some(dir), true) = (std::env::var_os("LOSSREC_CONTRACT_DUMP"), out.0 != out.1) {
        let dir = Path::new(&dir);
        let _ = std::fs::create_dir_all(dir);
        let _ = std::fs::write(dir.join(format!("{name}.sim.jsonl")), &st);
        let _ = std::fs::write(dir.join(format!("{name}.wire.jsonl")), &wt);
    }
    out
}

/// The wire's receiver: Linux's, or the engine's with `LOSSREC_CONTRACT_RECEIVER=engine`
/// (then both drivers face the same receiver model, and a difference can only be the
/// driver's; Linux's receiver compresses SACKs, `tcp_sack_compress`, which the engine's
/// receiver does not model, so a few patterns part there by the receiver, not the driver).
fn receiver() -> Side {
    match std::env::var("LOSSREC_CONTRACT_RECEIVER").as_deref() {
        Ok("engine") => Side::Engine,
        _ => Side::Linux,
    }
}

/// `None` when the sequences are identical, else where they part.
fn differs(name: &str, sc: &Scenario) -> Option<String> {
    let (sim, wire) = both(name, sc);
    if sim == wire {
        eprintln!("{name}: identical ({} transmissions)", sim.len());
        return None;
    }
    let i = sim.iter().zip(&wire).take_while(|(a, b)| a == b).count();
    let msg = format!(
        "{name}: first difference at transmission {i}: simulator {:?}, wire {:?} \
         ({} vs {} transmissions)",
        sim.get(i),
        wire.get(i),
        sim.len(),
        wire.len()
    );
    eprintln!("{msg}");
    Some(msg)
}

fn scenarios(dir: &Path) -> Vec<(String, Scenario)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|d| d.ok().map(|d| d.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, Scenario::from_path(&p).expect("scenario parses"))
        })
        .collect()
}

/// Tries each scenario up to twice (a run whose real-time loop woke late can part from
/// the simulator by timing alone; the contract's failure repeats) and fails naming every
/// scenario whose sequences differed both times.
fn hold(list: &[(String, Scenario)]) {
    let failed: Vec<String> = list
        .iter()
        .filter_map(|(name, sc)| differs(name, sc).and_then(|_| differs(name, sc)))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} scenarios differ:\n{}",
        failed.len(),
        list.len(),
        failed.join("\n")
    );
}

/// A path too fast for the real-time loop to tell its ACKs apart: the receiver's ACKs of
/// a window reach the sender as one burst. Cumulative ACKs lead the burst and duplicate
/// ACKs with SACK follow (segment 20 lost). The simulator answers each cumulative ACK with
/// new data and then repairs the hole; a driver that takes the whole burst before polling
/// sends the repair first.
const BURST: &str = r#"
[path]
rtt_ms = 20
rate_mbps = 10000
queue_packets = 1000
[path.loss]
model = "drop-list"
[[path.loss.drops]]
segment = 20
transmission = 1
[sender]
preset = "linux"
[receiver]
delayed_ack_ms = 0
[workload]
segments = 60
"#;

#[test]
fn sample() {
    if skip() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/contract_sample");
    let mut list = scenarios(&dir);
    list.push((
        "burst".into(),
        Scenario::from_toml_str(BURST, "<burst>").unwrap(),
    ));
    hold(&list);
}

#[test]
#[ignore = "the full corpus: scripts/driver-contract.sh"]
fn corpus() {
    let Some(dir) = std::env::var_os("LOSSREC_CONTRACT_DIR") else {
        eprintln!("SKIPPED: LOSSREC_CONTRACT_DIR not set (scripts/driver-contract.sh sets it)");
        return;
    };
    if skip() {
        return;
    }
    hold(&scenarios(Path::new(&dir)));
}

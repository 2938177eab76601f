//! The wire against the real kernel: a tail-loss flow sent by the engine and by Linux,
//! received by Linux and by the engine, through the emulator; and nothing left behind.
//! Needs root, /dev/net/tun and iproute2: without them each test says so and returns.

use lossrec_sim::Scenario;
use lossrec_tun::{netns, run, Side, WireOptions};

/// The tests run one at a time: a run's start removes dead runs' namespaces, which would
/// race the kill test's own check.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn skip() -> bool {
    match netns::unavailable() {
        Some(why) => {
            eprintln!("SKIPPED (wire tests): {why}");
            true
        }
        None => false,
    }
}

const TAIL: &str = r#"
[path]
rtt_ms = 40
rate_mbps = 100
[path.loss]
model = "tail"
count = 1
[sender]
preset = "linux"
[workload]
segments = 10
"#;

fn ours_alive() -> Vec<String> {
    let me = std::process::id();
    netns::ours()
        .into_iter()
        .filter(|(_, pid)| *pid == me)
        .map(|(n, _)| n)
        .collect()
}

fn tail(sender: Side, receiver: Side) -> lossrec_tun::WireOutput {
    let sc = Scenario::from_toml_str(TAIL, "<tail>").unwrap();
    let opts = WireOptions {
        sender,
        receiver,
        pcap: true,
        trace: true,
        ..WireOptions::default()
    };
    let out = run(&sc, &opts).unwrap();
    assert!(
        ours_alive().is_empty(),
        "namespaces left: {:?}",
        ours_alive()
    );
    eprintln!("{}", out.to_json());
    out
}

#[test]
fn tail_loss_each_way() {
    if skip() {
        return;
    }
    let _g = serial();
    let mss = 1448;
    for (s, r) in [
        (Side::Engine, Side::Linux),
        (Side::Linux, Side::Linux),
        (Side::Linux, Side::Engine),
        (Side::Engine, Side::Engine),
    ] {
        let out = tail(s, r);
        assert_eq!(out.flows.len(), 1);
        let f = &out.flows[0];
        assert_eq!(f.bytes, 10 * mss, "{s:?}→{r:?}");
        // The last segment is lost once and nothing follows it (the application closes
        // once everything is acknowledged): the tail loss probe repairs it, no timeout.
        assert_eq!(f.retransmits, 1, "{s:?}→{r:?}: {f:?}");
        assert_eq!(f.tlp_probes, 1, "{s:?}→{r:?}: {f:?}");
        assert_eq!(f.rtos, 0, "{s:?}→{r:?}: {f:?}");
        assert_eq!(f.data_packets_sent, 11, "{s:?}→{r:?}: {f:?}");
        let fct = f.fct_ms.expect("completed");
        // Handshake, 10 segments, the repair: at least 3 RTTs, well below the RTO.
        assert!((120.0..400.0).contains(&fct), "{s:?}→{r:?}: fct {fct}");
        assert_eq!(out.path.lost_data, 1);
        assert!(out.delivery_lateness.samples > 10 && out.timer_lateness.samples > 0);
        // Timers well under a millisecond late (p50); the p99 of a handful of wake-ups
        // on a shared machine is left to the report.
        assert!(
            out.timer_lateness.p50_us < 500.0,
            "{:?}",
            out.timer_lateness
        );
    }
}

/// Run by `killed_run_is_cleaned_up` in a child process: a long bulk run to be killed.
#[test]
#[ignore = "a child of killed_run_is_cleaned_up"]
fn child_long_run() {
    if std::env::var_os("LOSSREC_WIRE_CHILD").is_none() || skip() {
        return;
    }
    let sc = Scenario::from_toml_str(
        "[path]\nrtt_ms = 20\n[workload]\nkind = \"bulk\"\nduration_s = 60",
        "<bulk>",
    )
    .unwrap();
    let _ = run(&sc, &WireOptions::default());
}

#[test]
fn killed_run_is_cleaned_up() {
    if skip() {
        return;
    }
    let _g = serial();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "child_long_run", "--nocapture"])
        .env("LOSSREC_WIRE_CHILD", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let theirs = || -> Vec<String> {
        netns::ours()
            .into_iter()
            .filter(|(_, p)| *p == pid)
            .map(|(n, _)| n)
            .collect()
    };
    let t0 = std::time::Instant::now();
    while theirs().len() < 2 && t0.elapsed().as_secs() < 20 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(theirs().len(), 2, "the child never set up its namespaces");
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    assert_eq!(theirs().len(), 2, "a SIGKILLed run leaves its namespaces");
    let removed = netns::cleanup_dead().unwrap();
    assert_eq!(removed.len(), 2, "{removed:?}");
    assert!(theirs().is_empty());
    let links = std::process::Command::new("ip")
        .args(["-o", "link"])
        .output()
        .unwrap();
    let links = String::from_utf8_lossy(&links.stdout);
    assert!(!links.contains(&format!("lr{pid}")), "{links}");
}

/// The issue's case: 100 segments at RTT 80 ms, segment 30 lost twice. Linux's receiver
/// keeps its right edge while the hole lasts, which holds the sender back; the model's
/// receive window (`window_model = "linux"`, the default) must give the kernel's
/// completion time within 5 %, in the simulator and as the engine receiver on the wire.
#[test]
fn lost_twice_receiver_window_matches_kernel() {
    if skip() {
        return;
    }
    let _g = serial();
    let text = r#"
[path]
rtt_ms = 80
rate_mbps = 100
[path.loss]
model = "drop-list"
[[path.loss.drops]]
segment = 29
transmission = 1
[[path.loss.drops]]
segment = 29
transmission = 2
[sender]
preset = "linux"
[workload]
segments = 100
"#;
    let sc = Scenario::from_toml_str(text, "<lost-twice>").unwrap();
    // Three runs per side: real time on a shared machine has outliers.
    let fcts = |s, r| -> Vec<f64> {
        let o = WireOptions {
            sender: s,
            receiver: r,
            ..WireOptions::default()
        };
        (0..3)
            .map(|_| run(&sc, &o).unwrap().flows[0].fct_ms.unwrap())
            .collect()
    };
    let sim = lossrec_sim::run(&sc, &Default::default()).unwrap().flows[0]
        .fct_ms
        .unwrap();
    // Judged against the kernel's own spread, as experiments/kernel/study.py `band` does
    // (issue 28 item 1: a fixed 5 % around one median broke under load): the kernel runs'
    // [min, max] widened by half their range or 5 % of their median, whichever is more.
    // A point outside is run again once, both sides, and judged on all six runs.
    let mut kernel = fcts(Side::Linux, Side::Linux);
    let mut engine_rx = fcts(Side::Linux, Side::Engine);
    let mut verdict = judge(&kernel, &engine_rx, sim);
    if verdict.is_err() {
        kernel.extend(fcts(Side::Linux, Side::Linux));
        engine_rx.extend(fcts(Side::Linux, Side::Engine));
        verdict = judge(&kernel, &engine_rx, sim);
    }
    let kmed = verdict.unwrap_or_else(|e| panic!("{e}"));
    // And the window is what made the difference: a fixed 16 MB window is far off.
    let mut fixed = sc.clone();
    fixed.receiver_config_mut().window_model = lossrec::receiver::WindowModel::Fixed;
    let f = lossrec_sim::run(&fixed, &Default::default()).unwrap().flows[0]
        .fct_ms
        .unwrap();
    assert!(f < 0.9 * kmed, "fixed window {f} vs kernel {kmed}");
}

/// The median of `v`.
fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Whether the engine receiver's median and the simulator's FCT lie in the kernel's band
/// (its runs' [min, max] widened by max(5 % of their median, half their range)); the
/// kernel's median when they do, the figures when not.
fn judge(kernel: &[f64], engine_rx: &[f64], sim: f64) -> Result<f64, String> {
    let (lo, hi) = kernel
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    let kmed = median(kernel);
    let slack = (0.05 * kmed).max((hi - lo) / 2.0);
    let (low, high) = (lo - slack, hi + slack);
    let erx = median(engine_rx);
    eprintln!(
        "kernel {kernel:?} ms (band {low:.1}-{high:.1}), engine receiver {engine_rx:?} ms, \
         simulator {sim:.1} ms"
    );
    for (what, v) in [("engine receiver", erx), ("simulator", sim)] {
        if !(low..=high).contains(&v) {
            return Err(format!(
                "{what}: {v:.1} ms outside the kernel's band {low:.1}-{high:.1} ms \
                 (runs {kernel:?})"
            ));
        }
    }
    Ok(kmed)
}

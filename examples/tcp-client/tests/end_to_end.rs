//! The embedding example end to end against the real kernel: the Linux server receives
//! the file byte for byte under two presets with injected loss (so recovery runs), and
//! the namespace and TUN device the client made are gone afterwards, also after Ctrl-C.
//! Needs root, /dev/net/tun and iproute2: without them each test says so and returns.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_lossrec-tcp-client");

/// The tests run one at a time (each makes a namespace and a device).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn skip() -> bool {
    // SAFETY: geteuid has no preconditions.
    let why = if unsafe { libc::geteuid() } != 0 {
        "needs root"
    } else if !Path::new("/dev/net/tun").exists() {
        "needs /dev/net/tun"
    } else if Command::new("ip").arg("-V").output().is_err() {
        "needs iproute2's ip"
    } else {
        return false;
    };
    eprintln!("SKIPPED (embedding example): {why}");
    true
}

/// A file of `n` bytes that is not all one value, in a fresh directory.
fn input(tag: &str, n: usize) -> (PathBuf, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("lossrec-embed-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = fastrand::Rng::with_seed(n as u64);
    let data: Vec<u8> = (0..n).map(|_| rng.u8(..)).collect();
    std::fs::write(dir.join("in.bin"), &data).unwrap();
    (dir, data)
}

/// What the client made is gone: no namespace `lrembed-PID`, no device `lrePID`.
fn left_behind(pid: u32) -> Vec<String> {
    let ns = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let links = Command::new("ip").args(["-o", "link"]).output().unwrap();
    let (ns_name, dev) = (format!("lrembed-{pid}"), format!("lre{pid}:"));
    let mut out: Vec<String> = String::from_utf8_lossy(&ns.stdout)
        .lines()
        .filter(|l| l.split_whitespace().next() == Some(&ns_name))
        .map(String::from)
        .collect();
    out.extend(
        String::from_utf8_lossy(&links.stdout)
            .lines()
            .filter(|l| l.split_whitespace().nth(1) == Some(&dev))
            .map(String::from),
    );
    out
}

fn send(dir: &Path, args: &[&str]) -> (Output, u32) {
    let child = Command::new(BIN)
        .arg(dir.join("in.bin"))
        .arg("--out")
        .arg(dir.join("out.bin"))
        .args(["--timeout", "120"])
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    (child.wait_with_output().unwrap(), pid)
}

/// The number after `label` in the summary.
fn field(stdout: &str, label: &str) -> u64 {
    let line = stdout.lines().find(|l| l.starts_with(label)).unwrap();
    line[label.len()..]
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn transfer(preset: &str, loss: &[&str]) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if skip() {
        return;
    }
    let (dir, data) = input(preset, 300_000);
    let mut args = vec!["--preset", preset, "--delay", "5"];
    args.extend_from_slice(loss);
    let (out, pid) = send(&dir, &args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.join("out.bin")).unwrap(), data);
    assert!(stdout.contains(&format!(
        "server received   {} bytes, identical",
        data.len()
    )));
    // Loss was injected and repaired: every dropped segment was sent again.
    let (lost, re) = (
        field(&stdout, "loss injected"),
        field(&stdout, "retransmissions"),
    );
    assert!(lost > 0 && re >= lost, "{stdout}");
    assert_eq!(left_behind(pid), Vec::<String>::new());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn the_server_gets_the_file_under_linux_with_every_20th_segment_lost() {
    transfer("linux", &["--drop-every", "20"]);
}

#[test]
fn the_server_gets_the_file_under_rfc_with_random_loss() {
    transfer("rfc", &["--loss", "3", "--seed", "7"]);
}

#[test]
fn ctrl_c_leaves_nothing_behind() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    if skip() {
        return;
    }
    let (dir, _) = input("ctrl-c", 100_000);
    // 95 % loss: the transfer cannot end before the signal.
    let mut child = Command::new(BIN)
        .arg(dir.join("in.bin"))
        .args(["--loss", "95", "--timeout", "600"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Wait (on a condition, not a clock) until the namespace exists, then interrupt.
    while left_behind(pid).is_empty() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the client ended early"
        );
        std::thread::yield_now();
    }
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("interrupted"),
        "{stderr}"
    );
    assert_eq!(left_behind(pid), Vec::<String>::new());
    std::fs::remove_dir_all(dir).unwrap();
}

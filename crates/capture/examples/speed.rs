//! Times explain on one capture (one thread): `cargo run --release --example speed -- FILE PRESET`.
use lossrec_capture::{explain_path, scan_path, AppMode, Options};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let t = std::time::Instant::now();
    let idx = scan_path(a[1].as_ref()).unwrap();
    let scan = t.elapsed().as_secs_f64();
    let opts = Options {
        preset: a[2].clone(),
        flow: None,
        app: AppMode::AsSeen,
    };
    let t = std::time::Instant::now();
    let r = explain_path(a[1].as_ref(), &opts, |_, _| {}).unwrap();
    let all = t.elapsed().as_secs_f64();
    let m: u64 = r.conns.iter().map(|c| c.summary.matched()).sum();
    let d: u64 = r.conns.iter().map(|c| c.summary.decisions()).sum();
    println!(
        "{} frames: scan {:.3}s ({:.0}/s), explain {:.3}s ({:.0} packets/s), matched {m}/{d}",
        idx.frames,
        scan,
        idx.frames as f64 / scan,
        all,
        idx.frames as f64 / all
    );
}

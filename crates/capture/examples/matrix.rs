//! Explains the simulator's captures of scenario files under every preset (the preset
//! that made them, and optionally another): matched decisions per (scenario, preset).
//! `cargo run --release --example matrix -- [--app bulk|seen] [--against PRESET] FILE...`
use lossrec_capture::{explain_path, AppMode, Options};
use lossrec_sim::{run, RunOptions, Scenario};
use std::io::Write;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut app = AppMode::Bulk;
    let mut against: Option<String> = None;
    while args.first().is_some_and(|a| a.starts_with("--")) {
        let flag = args.remove(0);
        let v = args.remove(0);
        match flag.as_str() {
            "--app" => {
                app = if v == "seen" {
                    AppMode::AsSeen
                } else {
                    AppMode::Bulk
                }
            }
            "--against" => against = Some(v),
            _ => panic!("unknown {flag}"),
        }
    }
    let (mut all_m, mut all_d, mut pkts, mut secs) = (0u64, 0u64, 0u64, 0f64);
    for file in &args {
        let text = std::fs::read_to_string(file).unwrap();
        for p in lossrec::PRESETS.iter() {
            let mut sc = match Scenario::from_toml_str(&text, file) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("{file}: {e}");
                    break;
                }
            };
            if sc.set_sender("preset", p.name).is_err() {
                continue;
            }
            let out = match run(
                &sc,
                &RunOptions {
                    pcap: true,
                    ..RunOptions::default()
                },
            ) {
                Ok(o) => o,
                Err(e) => {
                    eprintln!("{file} {}: {e}", p.name);
                    continue;
                }
            };
            let mut f = tempfile::NamedTempFile::new().unwrap();
            f.write_all(out.pcap.as_ref().unwrap()).unwrap();
            let preset = against.clone().unwrap_or_else(|| p.name.to_string());
            let opts = Options {
                preset,
                flow: None,
                app,
            };
            let t = std::time::Instant::now();
            let r = explain_path(f.path(), &opts, |_, _| {}).unwrap();
            secs += t.elapsed().as_secs_f64();
            pkts += r.index.frames;
            let m: u64 = r.conns.iter().map(|c| c.summary.matched()).sum();
            let d: u64 = r.conns.iter().map(|c| c.summary.decisions()).sum();
            all_m += m;
            all_d += d;
            let first = r
                .conns
                .iter()
                .filter_map(|c| c.summary.first_divergence)
                .min();
            println!(
                "{file} {:<20} {m:>7}/{d:<7} {:6.2}% first divergence {:?}",
                p.name,
                100.0 * m as f64 / d.max(1) as f64,
                first.map(|f| (f.0 % 100_000_000_000, f.1 as i64))
            );
        }
    }
    println!(
        "TOTAL {all_m}/{all_d} = {:.3}%  ({pkts} packets in {secs:.2}s)",
        100.0 * all_m as f64 / all_d.max(1) as f64
    );
}

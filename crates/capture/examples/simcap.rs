//! Writes the simulator's sender-side capture of a scenario file (debugging aid):
//! `cargo run --example simcap -- SCENARIO.toml OUT.pcap`.
use lossrec_sim::{run, RunOptions, Scenario};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&a[1]).unwrap();
    let sc = Scenario::from_toml_str(&text, &a[1]).unwrap();
    let out = run(
        &sc,
        &RunOptions {
            pcap: true,
            ..RunOptions::default()
        },
    )
    .unwrap();
    if std::path::Path::new(&a[2]).exists() {
        panic!("{} exists; not overwriting", a[2]);
    }
    std::fs::write(&a[2], out.pcap.unwrap()).unwrap();
}

//! `cargo run -p lossrec-sim --example run -- scenario.toml [--trace] [--trace-file FILE]
//! [--pcap out.pcap]`: runs a scenario and prints the JSON results (and the trace, if
//! asked). `--trace-file` streams the trace to FILE instead, in the format its suffix
//! names (`.jsonl`, `.jsonl.zst`; `lossrec_sim::trace_file`).

use lossrec_sim::{run_to, trace_file, RunOptions, Scenario, Sinks};

// The allocator the Python extension and the benchmarks use, so that timings compare.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: run SCENARIO.toml [--trace] [--trace-file FILE] [--pcap OUT]");
        std::process::exit(2);
    };
    let sc = Scenario::from_path(std::path::Path::new(path)).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let pcap_out = args
        .iter()
        .position(|a| a == "--pcap")
        .and_then(|i| args.get(i + 1));
    let trace_out = args
        .iter()
        .position(|a| a == "--trace-file")
        .and_then(|i| args.get(i + 1));
    let sinks = Sinks {
        trace: trace_out.map(|p| {
            trace_file::create(std::path::Path::new(p)).unwrap_or_else(|e| {
                eprintln!("--trace-file: {e}");
                std::process::exit(2)
            })
        }),
        ..Sinks::default()
    };
    let opts = RunOptions {
        seed: None,
        trace: args.iter().any(|a| a == "--trace"),
        pcap: pcap_out.is_some(),
    };
    let t0 = std::time::Instant::now();
    let out = run_to(&sc, &opts, sinks).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1)
    });
    let wall = t0.elapsed().as_secs_f64();
    if let Some(e) = &out.outputs.error {
        eprintln!("{e}");
        std::process::exit(1)
    }
    if let Some(t) = &out.trace {
        print!("{t}");
    }
    if let (Some(p), Some(bytes)) = (pcap_out, &out.pcap) {
        std::fs::write(p, bytes).expect("write pcap");
    }
    println!("{}", out.to_json(wall));
    eprintln!(
        "sim_time_s={} unfinished={} time_limit_hit={} data_packets={}",
        out.sim_time_s, out.unfinished_flows, out.time_limit_hit, out.data_packets
    );
}

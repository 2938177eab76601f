//! Runs one scenario through the wire and writes its pcap and trace (a debugging aid):
//! `cargo run -p lossrec-tun --example wire_once -- SCENARIO.toml engine|linux linux|engine OUT`
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let sc = lossrec_sim::Scenario::from_path(std::path::Path::new(&a[1])).unwrap();
    let opts = lossrec_tun::WireOptions {
        sender: lossrec_tun::Side::parse(&a[2]).unwrap(),
        receiver: lossrec_tun::Side::parse(&a[3]).unwrap(),
        pcap: true,
        trace: true,
        ..Default::default()
    };
    let out = lossrec_tun::run(&sc, &opts).unwrap();
    std::fs::write(format!("{}.pcap", a[4]), out.pcap.as_ref().unwrap()).unwrap();
    std::fs::write(format!("{}.jsonl", a[4]), out.trace.as_ref().unwrap()).unwrap();
    println!("{}", out.to_json());
}

//! Runs fuzz inputs through a target on stable, printing decoded operation sequences first:
//! `cargo run -p lossrec-fuzz --example replay -- <target> <file>...`
//! (to read a crash from `fuzz/artifacts/<target>/`).

use arbitrary::{Arbitrary, Unstructured};
use lossrec_fuzz::{receiver_segments, sender_ops, TARGETS};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((target, files)) = args.split_first() else {
        eprintln!("usage: replay <target> <file>...");
        std::process::exit(2);
    };
    let Some(t) = TARGETS.iter().find(|t| t.name == target) else {
        let names: Vec<_> = TARGETS.iter().map(|t| t.name).collect();
        eprintln!("unknown target `{target}`; targets: {}", names.join(", "));
        std::process::exit(2);
    };
    lossrec_fuzz::sender_check::TRACE.store(true, std::sync::atomic::Ordering::Relaxed);
    for f in files {
        let data = std::fs::read(f).unwrap_or_else(|e| panic!("{f}: {e}"));
        let u = Unstructured::new(&data);
        match t.name {
            "sender_ops" => {
                let i = sender_ops::Input::arbitrary_take_rest(u);
                println!(
                    "{i:#?}\nconfig: {:?}",
                    i.as_ref().ok().and_then(sender_ops::config)
                );
            }
            "receiver_segments" => {
                println!("{:#?}", receiver_segments::Input::arbitrary_take_rest(u))
            }
            _ => println!("{}", String::from_utf8_lossy(&data)),
        }
        (t.run)(&data);
        println!("{f}: ok");
    }
}

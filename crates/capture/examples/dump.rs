//! Prints a capture's reconstructed records (debugging aid): `cargo run --example dump -- FILE`.
use lossrec_capture::conn::Reconstructor;
use lossrec_capture::{decode, scan_path, FrameSource};

fn main() {
    let path = std::env::args().nth(1).expect("usage: dump FILE");
    let idx = scan_path(path.as_ref()).unwrap();
    for c in &idx.conns {
        let (s, r) = c.direction();
        let mut rec = Reconstructor::new(s, r, 1448);
        for f in FrameSource::open(path.as_ref()).unwrap().flatten() {
            if let Ok(p) = decode(&f) {
                if (p.src == s || p.src == r) && (p.dst == s || p.dst == r) {
                    for x in rec.push(&p) {
                        println!("{x:?}");
                    }
                }
            }
        }
    }
}

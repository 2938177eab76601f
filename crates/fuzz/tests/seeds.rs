//! Regenerates the seeds that are captures: `cargo test -p lossrec-fuzz --test seeds --
//! --ignored` rewrites `fuzz/seeds/wire_decode/capture-*` from a real exchange between
//! `crates/tun`'s engine endpoints (the packets as the TUN device carries them).

use std::path::Path;

use lossrec::Instant;
use lossrec_fuzz::wire::{endpoints, frame};

/// A transfer of `bytes`, the data packets numbered in `drop` lost; every packet on the
/// wire, framed as the wire target reads them.
fn capture(bytes: u64, drop: &[usize]) -> Vec<u8> {
    let mut now = Instant::from_millis(1);
    let (mut tx, mut rx) = endpoints(now).unwrap();
    tx.sender_mut().write(now, bytes);
    tx.sender_mut().close(now);
    let mut out = Vec::new();
    let mut sent = 0;
    for _ in 0..200 {
        let mut data = Vec::new();
        while let Some(t) = tx.sender_mut().poll_transmit(now) {
            let mut p = Vec::new();
            tx.encode(now, &t, &mut p);
            data.push(p);
        }
        if data.is_empty() && tx.sender_mut().poll_timeout().is_none() {
            break;
        }
        for p in data {
            sent += 1;
            frame(&p, &mut out);
            if !drop.contains(&sent) {
                rx.input(now, &lossrec_wire::decode_ipv4(&p).unwrap());
            }
        }
        let mut acks = Vec::new();
        rx.output(now, &mut acks);
        now += lossrec::Duration::from_millis(10);
        for p in acks {
            frame(&p, &mut out);
            let seg = lossrec_wire::decode_ipv4(&p).unwrap();
            tx.input(now, &seg); // the endpoint hands the ACK to the sender
        }
        if let Some(t) = tx.sender_mut().poll_timeout().filter(|t| *t <= now) {
            tx.sender_mut().on_timeout(t);
        }
    }
    out
}

#[test]
#[ignore = "rewrites the committed wire seeds"]
fn regenerate_wire_seeds() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds/wire_decode");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes, drop) in [
        ("capture-clean", 6_000, &[][..]),
        ("capture-one-loss", 10_000, &[4][..]),
        ("capture-tail-loss", 6_000, &[5, 6][..]),
    ] {
        std::fs::write(dir.join(name), capture(bytes, drop)).unwrap();
    }
}

/// The captures are real exchanges: the transfer completes.
#[test]
fn a_capture_is_a_whole_transfer() {
    let c = capture(6_000, &[]);
    assert!(c.len() > 6_000, "{} bytes captured", c.len());
}

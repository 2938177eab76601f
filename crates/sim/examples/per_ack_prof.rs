use lossrec_sim::bench::per_ack_workload;
fn main() {
    let n: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let reps: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let w = per_ack_workload(n, 1);
    let t = std::time::Instant::now();
    let mut tot = 0;
    for _ in 0..reps { let mut s = w.sender(); tot += w.replay(&mut s); std::hint::black_box(&s); }
    eprintln!("{} ns/ack incl setup", t.elapsed().as_nanos() as f64 / tot as f64);
}

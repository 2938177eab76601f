//! `cargo bench -p lossrec-sim --bench per_ack` (or `cargo bench -p lossrec-sim -- per_ack`): the engine's cost per ACK with 100, 1,000,
//! 10,000 and 100,000 segments in flight at 1 % loss with SACK (`rack-tlp`; the workload
//! is `lossrec_sim::bench::per_ack_workload`). Each size replays the recorded ACK stream
//! into a fresh sender several times; the replay (ACK processing plus the transmissions it
//! releases) is timed, the sender's set-up is not. Prints the best and the median ns/ACK.
//! (Reading a clock is fine here: this is outside the engine and the simulator.)

use std::time::Instant;

use lossrec_sim::bench::per_ack_workload;

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    // No argument or `per_ack`: every size; numbers: those sizes; anything else is another
    // bench's filter.
    let mut sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if sizes.is_empty() {
        if !args.is_empty() && !args.iter().any(|a| "per_ack".contains(a.as_str())) {
            return;
        }
        sizes = vec![100, 1_000, 10_000, 100_000];
    }
    let mut first = None;
    for n in sizes {
        let w = per_ack_workload(n, 1);
        let mut runs = vec![];
        let start = Instant::now();
        while runs.len() < 3 || (start.elapsed().as_secs_f64() < 1.0 && runs.len() < 50) {
            let mut s = w.sender();
            let t = Instant::now();
            let acks = w.replay(&mut s);
            runs.push(t.elapsed().as_nanos() as f64 / acks as f64);
            std::hint::black_box(&s);
        }
        runs.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let (best, median) = (runs[0], runs[runs.len() / 2]);
        // The ratio uses the best run: on a shared machine the median carries other
        // processes' noise.
        let base = *first.get_or_insert(best);
        println!(
            "per_ack in_flight={n:>6}: {median:7.1} ns/ACK median, {best:7.1} best ({} runs of {} ACKs; mean outstanding {:.0} segments; {} sent, {} retransmitted, {} RTOs; best {:.2}x the first size's)",
            runs.len(),
            w.acks.len(),
            w.mean_outstanding,
            w.segments_sent,
            w.retransmissions,
            w.timeouts,
            best / base
        );
    }
}

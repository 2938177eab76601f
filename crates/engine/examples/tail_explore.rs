use lossrec::vectors::path::{run, Nth, Path};
use lossrec::{Config, Duration, Instant};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args[1].parse().unwrap();
    let lost: u64 = args[2].parse().unwrap();
    let mut c = Config::tlp_draft();
    c.mss = 1000;
    let mut p = Path::new(c, Duration::from_millis(50));
    p.receiver.mss = 1000;
    p.writes = vec![(Instant::ZERO, n * 1000), (Instant::from_millis(2000), 1000)];
    for i in n - lost..n { p.drops.push(Nth { start: i * 1000, nth: 1 }); }
    let t = run(&p);
    print!("{}", t.timeline(1000));
    println!("{:?}", t.sender.stats());
}

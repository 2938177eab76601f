use lossrec::config::*;
use lossrec::vectors::timeouts::*;
use lossrec::Duration;
fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let show = |name: &str, t: &lossrec::vectors::path::Trace| {
        println!("== {name}\n{}", t.timeline(MSS));
        println!("stats {:?}\n", t.sender.stats());
    };
    match which.as_str() {
        "rtor" => {
            for p in ["linux-3.17", "linux-3.17-rtor", "linux-3.17-tlp"] {
                show(
                    p,
                    &rtor_tail_loss(Config::preset(p).unwrap(), Duration::from_millis(40), false),
                );
            }
        }
        "timer" => {
            println!("{:#?}", rtor_timer(false));
            println!("{:#?}", rtor_timer(true));
        }
        "frto" => {
            show("frto spur sack", &frto_spurious(true));
            show("frto spur nosack", &frto_spurious(false));
            show("gen sack", &frto_genuine(true));
            show("gen nosack", &frto_genuine(false));
        }
        "eifel" => {
            show("eifel", &eifel_spurious(SpuriousResponse::FullUndo));
            show("eifel gen", &eifel_genuine());
        }
        "4015" => {
            let r = rfc4015_response();
            show("4015", &r.trace);
            println!(
                "{:?}",
                (
                    (
                        r.flight_before,
                        r.ssthresh_before,
                        r.cwnd_before,
                        r.srtt_before_us,
                        r.rttvar_before_us
                    ),
                    (r.pipe_prev, r.srtt_prev_us, r.rttvar_prev_us),
                    (
                        r.cwnd_after,
                        r.ssthresh_after,
                        r.sample_us,
                        r.srtt_us,
                        r.rttvar_us,
                        r.rto_us
                    )
                )
            );
        }
        "tlp" => show("linux tlp", &linux_frto_after_tlp()),
        "probe" => probe_cwnd(),
        "resp" => responses(),
        "rtts" => rtts(),
        _ => {}
    }
}
#[allow(dead_code)]
pub fn probe_cwnd() {
    use lossrec::vectors::path::*;
    use lossrec::Instant;
    let mut c = Config::rfc();
    c.spurious_detection = SpuriousDetection::Eifel;
    c.spurious_response = SpuriousResponse::Rfc4015;
    c.clock_granularity = Duration::from_millis(10);
    c.initial_cwnd = 30;
    c.rescue_retransmit = false;
    c.mss = 1000;
    let mut p = Path::new(c, Duration::from_millis(50));
    p.receiver.mss = 1000;
    p.writes = vec![
        (Instant::ZERO, 30_000),
        (Instant::from_millis(600), 200_000),
    ];
    p.drops.push(Nth { start: 0, nth: 1 });
    for t in (300..1500).step_by(10) {
        let mut q = p.clone();
        q.until = Instant::from_millis(t);
        let s = run(&q).sender;
        println!(
            "{t} cwnd {} flight {} ssthresh {}",
            s.cwnd() / 1000,
            s.flight_size() / 1000,
            s.ssthresh() / 1000
        );
    }
}
#[allow(dead_code)]
pub fn responses() {
    for r in seed004_responses() {
        println!(
            "{:?} before {:?} after_rto {:?} after {:?} rtx {} drained {}",
            r.response, r.before, r.after_rto, r.after_verdict, r.retransmissions, r.drained_ms
        );
    }
    for r in seed004_rto_adaptation() {
        println!(
            "{:?} rto {} min {} kept {} reseed {} end srtt {} rto {}",
            r.adaptation,
            r.rto_us,
            r.min_rto_us,
            r.kept_backoff,
            r.reseed_pending,
            r.end_srtt_us,
            r.end_rto_us
        );
    }
}
#[allow(dead_code)]
pub fn rtts() {
    for d in [false, true] {
        for rtt in [10u64, 20, 40, 80, 160, 320, 640] {
            let mut row = vec![];
            for p in ["linux-3.17", "linux-3.17-rtor", "linux-3.17-tlp"] {
                let t = rtor_tail_loss(
                    Config::preset(p).unwrap(),
                    Duration::from_millis(rtt / 2),
                    d,
                );
                let rex = t
                    .sent
                    .iter()
                    .find(|s| s.why.is_retransmission())
                    .map(|s| s.at.as_millis())
                    .unwrap_or(0);
                row.push((rex, t.finished.map(|f| f.as_millis()).unwrap_or(0)));
            }
            println!("delack {d} rtt {rtt}: {:?}", row);
        }
    }
}

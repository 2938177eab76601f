use lossrec::config::LossDetection;
use lossrec::vectors::tail::*;
fn main() {
    let which = std::env::args().nth(1).unwrap();
    match which.as_str() {
        "draft" => print!("{}", tlp_draft_example().timeline(MSS)),
        "tax" => {
            let t = tlp_taxonomy();
            print!("{}", TaxonomyTable(&t));
        }
        "spur" => {
            for a in spurious_rto_comparison(100) {
                println!(
                    "{} timeouts={} rtx={} twice={}",
                    a.arm, a.timeouts, a.retransmissions, a.bytes_twice
                );
                if std::env::args().nth(2).is_some() {
                    print!("{}", a.trace.timeline(MSS));
                }
            }
        }
        "fig1" => {
            print!(
                "{}",
                rfc8985_figure1(lossrec::config::Reduction::Rfc6675).timeline(MSS)
            );
            print!(
                "{}",
                rfc8985_figure1(lossrec::config::Reduction::Prr).timeline(MSS)
            );
        }
        "s93" => {
            for (b, r) in [
                (true, lossrec::config::Reduction::Prr6937Ssrb),
                (true, lossrec::config::Reduction::Prr),
                (false, lossrec::config::Reduction::Rfc6675),
            ] {
                let t = rfc8985_s9_3(b, r);
                print!("{}", t.timeline(MSS));
                println!(
                    "finished {:?} cwnd {} ssthresh {}",
                    t.finished,
                    t.sender.cwnd(),
                    t.sender.ssthresh()
                );
            }
        }
        "s1523" => {
            let t = seed001_slides_15_23();
            print!("{}", t.timeline(MSS));
            println!("{:?}", t.sender.stats());
        }
        "s7" => print!("{}", seed001_slide7().timeline(MSS)),
        "last" => {
            for d in [
                LossDetection::Fack,
                LossDetection::DupThresh,
                LossDetection::Rack,
            ] {
                let t = last_overtakes_first(d);
                println!("== {d} rtx {}", t.retransmissions());
                if std::env::args().nth(2).is_some() {
                    print!("{}", t.timeline(MSS));
                }
            }
        }
        "reo" => {
            for d in [LossDetection::DupThresh, LossDetection::Rack] {
                let t = reordering_after_seen(d);
                println!("== {d} rtx {}", t.retransmissions());
                if std::env::args().nth(2).is_some() {
                    print!("{}", t.timeline(MSS));
                }
            }
        }
        "dsack" => {
            let (t, m) = rack_dsack_growth_and_decay(18);
            println!("{m:?} {:?}", t.sender.stats());
            if std::env::args().nth(2).is_some() {
                print!("{}", t.timeline(MSS));
            }
        }
        _ => {}
    }
}
#[allow(dead_code)]
fn dbg() {}

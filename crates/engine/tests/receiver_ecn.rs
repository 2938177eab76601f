//! ECN on the receiver (RFC 3168 §6.1.1, §6.1.3; Linux `tcp_ecn_create_request`,
//! `tcp_ecn_check_ce`, `tcp_ecn_accept_cwr`).

use lossrec::receiver::WindowModel;
use lossrec::{Ack, Duration, EcnMarks, Instant, IpEcn, Range, Receiver, ReceiverConfig};
use lossrec::{Segment, SynOptions};

const MSS: u64 = 1000;

fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}
fn data(i: u64, ip: IpEcn, cwr: bool) -> Segment {
    Segment {
        range: Range::new(i * MSS, (i + 1) * MSS),
        ecn: EcnMarks {
            ip,
            ece: false,
            cwr,
        },
        ..Segment::default()
    }
}
fn syn(ecn_setup: bool) -> Segment {
    Segment {
        syn: Some(SynOptions {
            mss: 1000,
            sack_permitted: true,
            timestamps: false,
            window_scale: Some(7),
            ecn: ecn_setup,
        }),
        ..Segment::default()
    }
}
fn receiver(ecn: bool) -> Receiver {
    let cfg = ReceiverConfig {
        delayed_ack: Some(Duration::from_millis(40)),
        quickack_segments: 0,
        window_model: WindowModel::Fixed,
        mss: 1000,
        ecn,
        ..ReceiverConfig::default()
    };
    Receiver::new(cfg, ms(0))
}
fn feed(rx: &mut Receiver, now: Instant, s: Segment) -> Vec<Ack> {
    rx.on_segment(now, &s);
    std::iter::from_fn(|| rx.poll_ack(now)).collect()
}

/// §6.1.1: an ECN-setup SYN gets ECE (alone) on the SYN-ACK when ECN is accepted.
#[test]
fn syn_ack_agrees_only_when_asked_and_accepted() {
    for (accept, asked, agreed) in [
        (true, true, true),
        (true, false, false),
        (false, true, false),
    ] {
        let mut rx = receiver(accept);
        let sa = feed(&mut rx, ms(0), syn(asked));
        assert_eq!(sa.len(), 1);
        assert_eq!(sa[0].syn.unwrap().ecn, agreed);
        assert_eq!((sa[0].ecn.ece, sa[0].ecn.cwr), (agreed, false));
        assert_eq!(rx.ecn_in_use(), agreed);
    }
}

/// §6.1.3: after CE, ECE on every ACK until a segment with CWR; the CE segment is ACKed
/// at once (Linux quick-ACK mode for two segments), and so is the CWR segment.
#[test]
fn ce_echoed_until_cwr() {
    let mut rx = receiver(true);
    feed(&mut rx, ms(0), syn(true));
    feed(&mut rx, ms(1), Segment::default()); // handshake ACK
                                              // ECT(0) data: delayed (one segment outstanding).
    assert!(feed(&mut rx, ms(10), data(0, IpEcn::Ect0, false)).is_empty());
    // CE: ACKed now, with ECE.
    let a = feed(&mut rx, ms(11), data(1, IpEcn::Ce, false));
    assert_eq!(a.len(), 1);
    assert!(a[0].ecn.ece);
    assert_eq!(rx.stats().ce_segments, 1);
    // The next segment is quick-ACKed, still with ECE.
    let a = feed(&mut rx, ms(12), data(2, IpEcn::Ect0, false));
    assert_eq!(a.len(), 1);
    assert!(a[0].ecn.ece && rx.ecn_echo());
    // CWR: ACKed at once, ECE off.
    let a = feed(&mut rx, ms(13), data(3, IpEcn::Ect0, true));
    assert_eq!(a.len(), 1);
    assert!(!a[0].ecn.ece && !rx.ecn_echo());
}

/// Without ECN agreed a CE mark is not echoed.
#[test]
fn no_echo_without_ecn() {
    let mut rx = receiver(true);
    feed(&mut rx, ms(0), syn(false));
    feed(&mut rx, ms(1), Segment::default());
    feed(&mut rx, ms(10), data(0, IpEcn::Ce, false));
    let a = feed(&mut rx, ms(11), data(1, IpEcn::Ce, false));
    assert!(a.iter().all(|a| !a.ecn.ece));
    assert_eq!(rx.stats().ce_segments, 0);
}

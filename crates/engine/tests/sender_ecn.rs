//! ECN on the sender (RFC 3168 §6.1): ECT(0) on new data only, one reduction per window
//! of data on ECN-Echo (the CWR state, Linux `tcp_enter_cwr`), CWR on the next new data
//! segment, and the SYN / SYN-ACK set-up.

mod common;
use common::*;
use lossrec::config::{Ecn, Reduction};
use lossrec::{Ack, Config, EcnMarks, IpEcn, RecoveryState, Sender, SynOptions, Transmit};

fn ecn_cfg(reduction: Reduction) -> Config {
    let mut c = cfg();
    c.ecn = Ecn::On;
    c.reduction = reduction;
    c
}

/// An ACK with ECE set.
fn ece(cum: u64) -> Ack {
    Ack {
        ecn: EcnMarks {
            ece: true,
            ..EcnMarks::default()
        },
        ..ack(cum)
    }
}

fn codepoints(t: &[Transmit]) -> Vec<(u64, IpEcn, bool)> {
    t.iter()
        .map(|t| (t.range.start / MSS, t.ecn.ip, t.ecn.cwr))
        .collect()
}

/// §6.1.2 / §6.1.5 (Linux `tcp_ecn_send`): new data is ECT(0); a retransmission is not.
#[test]
fn ect0_on_new_data_not_on_retransmissions() {
    let mut s = sender_with(ecn_cfg(Reduction::PrrLinux), 3);
    let first = drain(&mut s, ms(0));
    assert_eq!(
        codepoints(&first),
        [
            (0, IpEcn::Ect0, false),
            (1, IpEcn::Ect0, false),
            (2, IpEcn::Ect0, false)
        ]
    );
    s.on_timeout(s.poll_timeout().unwrap());
    let rto = drain(&mut s, ms(1000));
    assert_eq!(rto[0].ecn, EcnMarks::default(), "{rto:?}");
}

/// §6.1.2: "the TCP source halves the congestion window … and reduces the slow start
/// threshold", at most once per window of data: a second ECE before SND.UNA passes the
/// SND.NXT of the first changes nothing; one after it starts the next reduction.
#[test]
fn one_reduction_per_window() {
    let mut s = sender_with(ecn_cfg(Reduction::Rfc6675), 40);
    drain(&mut s, ms(0)); // segments 0-9 (IW 10)
    on_ack(&mut s, ms(100), ece(MSS));
    assert_eq!(s.state(), RecoveryState::Cwr);
    assert_eq!(s.stats().ecn_reductions, 1);
    // Reno: ssthresh = FlightSize / 2 = 4.5 segments; cwnd halves at once (§6.1.2).
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    assert_eq!((cwnd, ssthresh), (4500, 4500));
    // More ECEs within the window: no further reduction.
    for i in 2..=9 {
        on_ack(&mut s, ms(100 + i), ece(i * MSS));
    }
    assert_eq!(s.stats().ecn_reductions, 1);
    assert_eq!(s.ssthresh(), ssthresh);
    assert_eq!(s.state(), RecoveryState::Cwr);
    // SND.UNA passes the episode's SND.NXT (10 segments; reaching it is not enough):
    // Open again; the next ECE is a new window's congestion.
    on_ack(&mut s, ms(150), ack(10 * MSS));
    assert_eq!(s.state(), RecoveryState::Cwr);
    // cwnd halved at once and grew in congestion avoidance since (RFC 3168 §6.1.2): the
    // end of the episode keeps that growth.
    let grown = s.cwnd();
    assert!(grown > 4500, "{grown}");
    on_ack(&mut s, ms(200), ack(11 * MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert!(s.cwnd() >= grown);
    on_ack(&mut s, ms(210), ece(12 * MSS));
    assert_eq!(s.stats().ecn_reductions, 2);
    assert!(s.ssthresh() < ssthresh);
}

/// §6.1.2: the next new data packet after the reduction carries CWR, and only that one
/// (Linux `tcp_ecn_queue_cwr`, cleared in `tcp_ecn_send`).
#[test]
fn cwr_on_the_next_new_data_only() {
    let mut s = sender_with(ecn_cfg(Reduction::PrrLinux), 40);
    drain(&mut s, ms(0));
    s.on_ack(ms(100), &ece(2 * MSS));
    let out = drain(&mut s, ms(100));
    assert!(!out.is_empty(), "PRR lets new data go on the ECE ACK");
    assert_eq!(codepoints(&out)[0], (10, IpEcn::Ect0, true));
    assert!(out[1..].iter().all(|t| !t.ecn.cwr), "{out:?}");
    s.on_ack(ms(101), &ack(4 * MSS));
    let later = drain(&mut s, ms(101));
    assert!(later.iter().all(|t| !t.ecn.cwr && t.ecn.ip == IpEcn::Ect0));
}

/// Linux `tcp_cwnd_reduction` in CWR (the situation of the google packetdrill script
/// cwnd-moderation-ecn-enter-cwr, with the current kernel's SafeACK rule): CUBIC, cwnd 10, 4 segments out, ECE
/// on the ACK of the first: ssthresh 7, in flight 3, delta 4, sndcnt = max(1, 1) + 1
/// (SND.UNA advanced, nothing lost) = 2, cwnd = 3 + 2 = 5. The episode ends with cwnd =
/// ssthresh (`tcp_end_cwnd_reduction`).
#[test]
fn linux_prr_in_cwr() {
    let mut c = Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.ecn = Ecn::On;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 4 * MSS);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ece(MSS));
    assert_eq!(s.state(), RecoveryState::Cwr);
    assert_eq!(s.info().tcpi_ca_state, 2);
    assert_eq!(s.ssthresh() / MSS, 7);
    assert_eq!(s.cwnd() / MSS, 5);
    // SND.UNA reaching high_seq is not enough: "CWR is to be held something *above*
    // high_seq is ACKed" (`tcp_fastretrans_alert`).
    on_ack(&mut s, ms(200), ack(4 * MSS));
    assert_eq!(s.state(), RecoveryState::Cwr);
    s.write(ms(200), 2 * MSS);
    drain(&mut s, ms(200));
    on_ack(&mut s, ms(300), ack(5 * MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!(s.cwnd() / MSS, 7);
}

/// Without ECN agreed an ECE means nothing (Linux `tcp_ecn_rcv_ecn_echo`).
#[test]
fn ece_without_ecn_is_ignored() {
    let mut s = sender_with(cfg(), 10);
    let out = drain(&mut s, ms(0));
    assert!(out.iter().all(|t| t.ecn == EcnMarks::default()));
    on_ack(&mut s, ms(100), ece(MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!(s.stats().ecn_reductions, 0);
}

fn peer_syn(ecn: bool) -> SynOptions {
    SynOptions {
        mss: 1000,
        sack_permitted: true,
        timestamps: false,
        window_scale: Some(7),
        ecn,
    }
}

/// §6.1.1 passive side (Linux `tcp_ecn=2`, the `linux` preset): an ECN-setup SYN gets an
/// ECN-setup SYN-ACK (ECE, no CWR) and ECT(0) data; a plain SYN gets neither, and with
/// `ecn = off` nothing is accepted.
#[test]
fn passive_accepts_an_ecn_setup_syn() {
    for (mode, asked, agreed) in [
        (Ecn::Accept, true, true),
        (Ecn::Accept, false, false),
        (Ecn::On, true, true),
        (Ecn::Off, true, false),
    ] {
        let mut c = Config::linux();
        c.ecn = mode;
        let mut s = Sender::new_passive(c, ms(0)).unwrap();
        s.on_syn(ms(0), &peer_syn(asked), None);
        let syn_ack = s.poll_transmit(ms(0)).unwrap();
        assert_eq!(syn_ack.syn.unwrap().ecn, agreed, "{mode:?} {asked}");
        assert_eq!((syn_ack.ecn.ece, syn_ack.ecn.cwr), (agreed, false));
        assert_eq!(
            syn_ack.ecn.ip,
            IpEcn::NotEct,
            "§6.1.1: a SYN-ACK is not ECT"
        );
        s.on_ack(ms(10), &ack(0));
        s.write(ms(10), 1000);
        let data = s.poll_transmit(ms(10)).unwrap();
        let want = if agreed { IpEcn::Ect0 } else { IpEcn::NotEct };
        assert_eq!(data.ecn.ip, want, "{mode:?} {asked}");
    }
}

/// §6.1.1 active side (`tcp_ecn=1`): the SYN carries ECE and CWR; ECN runs only when the
/// SYN-ACK agrees (ECE without CWR, Linux `tcp_ecn_rcv_synack`).
#[test]
fn active_asks_and_needs_agreement() {
    for agreed in [true, false] {
        let mut c = Config::linux();
        c.ecn = Ecn::On;
        let mut s = Sender::new(c, ms(0)).unwrap();
        let syn = s.poll_transmit(ms(0)).unwrap();
        assert!(syn.ecn.ece && syn.ecn.cwr && syn.syn.unwrap().ecn);
        let mut sa = ack(0);
        sa.syn = Some(peer_syn(agreed));
        s.on_ack(ms(10), &sa);
        s.write(ms(10), 1000);
        let sent: Vec<_> = drain(&mut s, ms(10));
        let data = sent.iter().find(|t| !t.range.is_empty()).unwrap();
        let want = if agreed { IpEcn::Ect0 } else { IpEcn::NotEct };
        assert_eq!(data.ecn.ip, want);
    }
}

/// A loss found during the CWR episode starts fast recovery without a second reduction
/// (Linux `tcp_enter_recovery` while `tcp_in_cwnd_reduction`), and nothing undoes the
/// ECN reduction (`tcp_enter_cwr`: `undo_marker = 0`).
#[test]
fn loss_during_cwr_keeps_the_reduction() {
    let mut c = ecn_cfg(Reduction::PrrLinux);
    c.cc = lossrec::config::CongestionControl::Reno;
    let mut s = sender_with(c, 40);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ece(MSS));
    let ssthresh = s.ssthresh();
    // Segment 1 lost: SACKs of 2..5 make it lost (dupthresh 3).
    on_ack(&mut s, ms(110), sack_segs(1, 2, 5));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.ssthresh(), ssthresh, "no second reduction");
    assert_eq!(
        s.recovery_point(),
        Some(10 * MSS),
        "the CWR episode's point"
    );
}

/// Linux `tcp_ecn_clear_syn` (`tcp_ecn_fallback=1`): a retransmitted SYN is a plain SYN,
/// so a path that drops ECN-setup SYNs still connects (without ECN).
#[test]
fn retransmitted_syn_falls_back() {
    let mut c = Config::linux();
    c.ecn = Ecn::On;
    let mut s = Sender::new(c, ms(0)).unwrap();
    let syn = s.poll_transmit(ms(0)).unwrap();
    assert!(syn.ecn.ece && syn.ecn.cwr);
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    let again = s.poll_transmit(at).unwrap();
    assert!(again.syn.is_some());
    assert_eq!(again.ecn, EcnMarks::default());
    assert!(!again.syn.unwrap().ecn);
}

/// Ten segments, segment 1 ACKed, then 3-5 SACKed: fast recovery retransmits 2 (as
/// `sender_undo.rs`'s `reordered`), with Linux's undo and ECN in use.
fn reordered_with_ecn() -> Sender {
    let mut c = cfg();
    c.spurious_detection = lossrec::config::SpuriousDetection::Linux;
    c.spurious_response = lossrec::config::SpuriousResponse::FullUndo;
    c.rescue_retransmit = false;
    c.ecn = Ecn::On;
    let mut s = sender_with(c, 10);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(MSS));
    for k in 3..=5 {
        s.on_ack(ms(110), &sack(MSS, &[(2 * MSS, k * MSS)]));
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
    drain(&mut s, ms(110));
    s
}

/// Linux `tcp_fastretrans_alert` (A): an ECE in recovery — or on the very ACK whose DSACK
/// proves the retransmission spurious — zeroes `prior_ssthresh`, so the DSACK undo
/// (`tcp_try_undo_dsack`) restores neither cwnd nor ssthresh; on the DSACK ACK the ECE
/// then starts a CWR episode from Open (`tcp_try_to_open` → `tcp_enter_cwr`). (Without
/// ECE the same sequence restores cwnd 11 and the infinite ssthresh: `sender_undo.rs`.)
#[test]
fn ece_in_recovery_forbids_the_restore() {
    for ece_on_dsack in [false, true] {
        let mut s = reordered_with_ecn();
        let partial = if ece_on_dsack {
            ack(5 * MSS)
        } else {
            ece(5 * MSS)
        };
        on_ack(&mut s, ms(120), partial);
        let dsack = sack(5 * MSS, &[(MSS, 2 * MSS)]);
        let dsack = if ece_on_dsack {
            Ack {
                ecn: EcnMarks {
                    ece: true,
                    ..EcnMarks::default()
                },
                ..dsack
            }
        } else {
            dsack
        };
        s.on_ack(ms(210), &dsack);
        let st = s.stats();
        assert_eq!(
            st.dsack_undo + st.spurious_kept,
            1,
            "the verdict is still reached"
        );
        if ece_on_dsack {
            // Back in Open, the same ACK's ECE starts a CWR episode (`tcp_try_to_open`).
            assert_eq!(s.state(), RecoveryState::Cwr);
            assert!(s.ssthresh() < 4500, "{}", s.ssthresh());
        } else {
            assert_eq!(s.state(), RecoveryState::Open);
            assert_eq!(s.ssthresh(), 4500);
            assert!(s.cwnd() <= 4500 + MSS, "cwnd {}", s.cwnd());
        }
    }
}

/// Linux `tcp_ack` (`no_queue`): an ECE on an ACK that finds nothing outstanding reaches
/// no congestion state machine — no reduction.
#[test]
fn ece_with_nothing_outstanding_is_no_reduction() {
    let mut s = sender_with(ecn_cfg(Reduction::PrrLinux), 2);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(2 * MSS + 1)); // data and FIN acknowledged
    let cwnd = s.cwnd();
    on_ack(&mut s, ms(110), ece(2 * MSS + 1));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!((s.cwnd(), s.stats().ecn_reductions), (cwnd, 0));
}

//! Undo on the sender: Linux's undo points (digest §15: DSACK undo in recovery, timestamp
//! undo at the recovery's end and on a partial ACK), RACK's reo_wnd persistence around
//! undo (digest §8.4), detectors that degrade without their option, RTO Restart after a
//! probe (RFC 8985 §9.2), and the RTO adaptations' reset on a genuine timeout.

mod common;
use common::*;
use lossrec::config::{
    resolved, LossDetection, Probe, RtoAdaptation, RtoTimer, SpuriousDetection, SpuriousResponse,
};
use lossrec::timer::TimerKind;
use lossrec::{Ack, Config, Duration, RecoveryState, Sender, Timestamps, Why};

/// `cfg()` with Linux's undo and full undo.
fn linux_undo(timestamps: bool) -> Config {
    let mut c = cfg();
    c.spurious_detection = SpuriousDetection::Linux;
    c.spurious_response = SpuriousResponse::FullUndo;
    c.rescue_retransmit = false;
    c.timestamps = timestamps;
    c
}

/// The sender's TSval for time `t_ms` (µs + 1).
fn tsval(t_ms: u64) -> u64 {
    t_ms * 1000 + 1
}

/// `a` echoing the TSval of a transmission at `sent_ms`.
fn echo(mut a: Ack, sent_ms: u64) -> Ack {
    a.ts = Some(Timestamps {
        val: 1,
        ecr: tsval(sent_ms),
    });
    a
}

/// The cwnd of the last `Undo` event.
fn undo_cwnd(s: &mut Sender) -> Option<u64> {
    let mut last = None;
    while let Some(e) = s.poll_event() {
        if let lossrec::EventKind::Undo { cwnd, .. } = e.kind {
            last = Some(cwnd);
        }
    }
    last
}

/// Ten segments at 0 (written and closed); segment 1 ACKed at 100 ms (cwnd 11). Then
/// segment 2 is late: 3-5 SACKed at 110 ms start fast recovery (the third SACK), which
/// retransmits 2.
fn reordered(c: Config) -> Sender {
    let ts = c.timestamps;
    let mut s = sender_with(c, 10);
    drain(&mut s, ms(0));
    let a = |x: Ack| if ts { echo(x, 0) } else { x };
    on_ack(&mut s, ms(100), a(ack(MSS)));
    for k in 3..=5 {
        s.on_ack(ms(110), &a(sack(MSS, &[(2 * MSS, k * MSS)])));
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(sent(&mut s, ms(110))[0], (1, Why::FastRetransmit));
    s
}

/// Linux `tcp_try_undo_dsack`: the late original fills the hole (a partial ACK), then the
/// DSACK of the retransmission counts undo_retrans down to 0: the reduction is undone (no
/// loss marks cleared), cwnd 11 and the infinite ssthresh come back.
#[test]
fn dsack_undo_in_recovery() {
    let mut s = reordered(linux_undo(false));
    assert_eq!(s.undo_retrans(), 1);
    assert_eq!(s.cwnd(), 4500, "ssthresh = FlightSize (9) / 2");
    on_ack(&mut s, ms(120), ack(5 * MSS));
    assert_eq!(
        s.state(),
        RecoveryState::Recovery,
        "no timestamps: no partial undo"
    );
    s.on_ack(ms(210), &sack(5 * MSS, &[(MSS, 2 * MSS)]));
    assert_eq!(s.undo_retrans(), 0);
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!((s.cwnd(), s.ssthresh()), (11 * MSS, u64::MAX));
    let st = s.stats();
    assert_eq!((st.dsack_undo, st.undos, st.spurious_rtos), (1, 1, 0));
    assert!(s.undo_snapshot().is_none(), "undo_marker cleared");
}

/// Linux `tcp_try_undo_recovery`: the ACK that ends recovery echoes the original's TSval
/// (0 ms), older than the fast retransmission (110 ms): `tcp_packet_delayed`, full undo.
#[test]
fn timestamp_undo_at_recovery_end() {
    let mut s = reordered(linux_undo(true));
    s.on_ack(ms(120), &echo(ack(10 * MSS), 0));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!(undo_cwnd(&mut s), Some(11 * MSS));
    let st = s.stats();
    assert_eq!((st.full_undo, st.undos), (1, 1));
}

/// Linux `tcp_try_undo_partial`: a partial ACK proven delayed by its echo, with no
/// retransmission outstanding, undoes and clears the loss marks.
#[test]
fn timestamp_partial_undo() {
    let mut s = reordered(linux_undo(true));
    s.on_ack(ms(120), &echo(ack(5 * MSS), 0));
    assert_eq!(s.stats().partial_undo, 1);
    assert_ne!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.scoreboard().lost_bytes(), 0);
    assert_eq!(undo_cwnd(&mut s), Some(11 * MSS));
}

/// The same reordering without timestamps or DSACK evidence: the reduction stands when
/// recovery ends (no undo point applies).
#[test]
fn no_evidence_no_undo() {
    let mut s = reordered(linux_undo(false));
    on_ack(&mut s, ms(120), ack(10 * MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!(s.cwnd(), 4500);
    assert_eq!(s.stats().undos, 0);
    assert!(s.undo_snapshot().is_some(), "a late DSACK may still undo");
    // Linux undoes in Open too when the DSACK completes the count.
    s.on_ack(ms(210), &sack(10 * MSS, &[(MSS, 2 * MSS)]));
    assert_eq!(s.stats().dsack_undo, 1);
    assert_eq!(s.cwnd(), 11 * MSS);
}

/// Digest §8.4: with Linux's RACK, a DSACK undo extends reo_wnd_persist by one (at most
/// 16); a recovery that ends without undo counts it down.
#[test]
fn rack_linux_persistence_follows_undo() {
    let mut c = linux_undo(false);
    c.loss_detection = LossDetection::RackLinux;
    c.flavour = lossrec::config::Flavour::Linux; // persistence as tcp_try_undo_dsack
    c.dupthresh = 3;
    let mut s = sender_with(c.clone(), 10);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(MSS));
    for k in 3..=5 {
        s.on_ack(ms(110), &sack(MSS, &[(2 * MSS, k * MSS)]));
    }
    drain(&mut s, ms(110));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.rack().reo_wnd_persist(), 0);
    on_ack(&mut s, ms(120), ack(5 * MSS));
    s.on_ack(ms(210), &sack(5 * MSS, &[(MSS, 2 * MSS)]));
    assert_eq!(s.stats().dsack_undo, 1);
    assert_eq!(s.rack().reo_wnd_persist(), 1, "+1 on DSACK undo");
    // A genuine loss (segment 6), recovery ending without undo: back to 0.
    drain(&mut s, ms(210));
    for k in 7..=9 {
        s.on_ack(ms(300), &sack(5 * MSS, &[(6 * MSS, k * MSS)]));
    }
    drain(&mut s, ms(300));
    assert_eq!(s.state(), RecoveryState::Recovery);
    on_ack(&mut s, ms(400), ack(10 * MSS));
    assert_eq!(
        s.rack().reo_wnd_persist(),
        0,
        "-1 at a recovery end without undo"
    );
}

/// A detector that needs an option the connection lacks works as `none` and is counted:
/// Eifel without timestamps, DSACK without SACK.
#[test]
fn degraded_detectors_are_counted() {
    for (d, sack_on, ts_on) in [
        (SpuriousDetection::Eifel, true, false),
        (SpuriousDetection::Dsack, false, true),
    ] {
        let mut c = cfg();
        c.spurious_detection = d;
        c.sack = sack_on;
        c.timestamps = ts_on;
        let s = Sender::new(c, ms(0)).unwrap();
        assert_eq!(
            s.spurious_detection(),
            resolved::SpuriousDetector::None,
            "{d}"
        );
        assert_eq!(s.stats().spurious_detection_unavailable, 1);
    }
    let mut c = cfg();
    c.spurious_detection = SpuriousDetection::Frto;
    c.sack = false;
    let s = Sender::new(c, ms(0)).unwrap();
    assert_eq!(
        s.spurious_detection(),
        resolved::SpuriousDetector::Frto { sack: false },
        "basic F-RTO"
    );
    assert_eq!(s.stats().spurious_detection_unavailable, 0);
}

/// RFC 8985 §9.2 with RFC 7765: after the probe, the RTO fires one RTO after the earliest
/// outstanding segment was sent (segment 2, at 0: 1000 ms), not one RTO after the probe.
#[test]
fn rto_restart_after_probe() {
    for (timer, want) in [(RtoTimer::Restart, 1000), (RtoTimer::Rfc6298, 1300)] {
        let mut c = cfg();
        c.loss_detection = LossDetection::Rack;
        c.probe = Probe::Tlp;
        c.rto_timer = timer;
        let mut s = sender_with(c, 3);
        drain(&mut s, ms(0));
        on_ack(&mut s, ms(100), ack(MSS));
        assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
        s.on_timeout(ms(300));
        assert_eq!(sent(&mut s, ms(300)).len(), 1, "the probe");
        assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
        assert_eq!(s.poll_timeout(), Some(ms(want)), "{timer}");
    }
}

/// Seed 004 "Min++": a spurious timeout (Eifel) raises the minimum RTO by 1 s; a genuine
/// one (the retransmission's own echo) resets it.
#[test]
fn min_plus_resets_on_genuine_timeout() {
    let mut c = cfg();
    c.timestamps = true;
    c.spurious_detection = SpuriousDetection::Eifel;
    c.spurious_response = SpuriousResponse::FullUndo;
    c.rto_adaptation = RtoAdaptation::MinPlus;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 2 * MSS);
    drain(&mut s, ms(0));
    s.on_timeout(ms(1000));
    assert_eq!(sent(&mut s, ms(1000)), [(0, Why::RtoRetransmit)]);
    s.on_ack(ms(1100), &echo(ack(MSS), 0));
    assert_eq!(s.stats().spurious_rtos, 1);
    assert_eq!(s.rtt().min_rto(), Duration::from_secs(2));
    s.on_ack(ms(1101), &echo(ack(2 * MSS), 0));
    // Two more segments, both lost: a genuine timeout.
    s.write(ms(2000), 2 * MSS);
    drain(&mut s, ms(2000));
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    let tx = drain(&mut s, at);
    assert_eq!((tx.len(), tx[0].why), (1, Why::RtoRetransmit));
    let mut a = ack(3 * MSS);
    a.ts = Some(Timestamps {
        val: 1,
        ecr: tx[0].ts.unwrap().val,
    });
    s.on_ack(ms(at.as_millis() + 100), &a);
    assert_eq!(s.stats().genuine_rtos, 1);
    assert_eq!(s.rtt().min_rto(), Duration::from_secs(1));
}

/// Linux `tcp_clean_rtx_queue` (4.18 on, "tcp: prevent bogus FRTO undos with non-SACK
/// flows"): without SACK, an ACK that cumulatively acknowledges a retransmitted segment
/// clears `FLAG_ORIG_SACK_ACKED`, so the ACK that the timeout's retransmission releases
/// over originals buffered beyond the hole is no F-RTO undo (`tcp_process_loss` step 3b).
/// Segment 1 is lost, two duplicates (below the threshold) leave it to the timeout; the
/// retransmission fills the hole and the receiver acknowledges all ten: the timeout was
/// genuine and its reduction stays (nothing else can undo it: no timestamps, no DSACK).
#[test]
fn reno_frto_no_undo_when_the_retransmission_is_acked() {
    let mut c = Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.sack = false;
    c.timestamps = false;
    let mut s = sender_with(c, 10);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(MSS));
    on_ack(&mut s, ms(101), ack(MSS));
    on_ack(&mut s, ms(102), ack(MSS));
    let rto = s.poll_timeout().expect("the RTO is armed");
    s.on_timeout(rto);
    assert_eq!(s.state(), RecoveryState::Loss);
    assert_eq!(sent(&mut s, rto)[0], (1, Why::RtoRetransmit));
    while s.poll_event().is_some() {}
    s.on_ack(rto + Duration::from_millis(100), &ack(10 * MSS));
    assert_eq!(undo_cwnd(&mut s), None, "no F-RTO undo");
    let st = s.stats();
    assert_eq!((st.undos, st.spurious_rtos), (0, 0));
    assert_eq!(s.state(), RecoveryState::Open);
    assert!(s.ssthresh() < u64::MAX, "the timeout's ssthresh stands");
}

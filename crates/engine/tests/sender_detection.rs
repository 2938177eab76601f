//! Loss detection variants on the sender: FACK threshold recovery (TLP draft §2.2),
//! RFC 3517's IsLost, Linux's adaptive reordering degree (digest §8.4, §16), and the
//! RFC 6675 rescue retransmission as an axis.

mod common;
use common::*;
use lossrec::config::{LossDetection, Reduction};
use lossrec::{EventKind, RecoveryState, Sender, Why};

fn with(det: LossDetection) -> lossrec::Config {
    let mut c = cfg();
    c.loss_detection = det;
    c.limited_transmit = false;
    c
}

/// FACK: segments 0-3 lost of 10; the first SACK (segment 4) puts SND.FACK 5 segments
/// above SND.UNA, more than DupThresh = 3: recovery at once, with segments 0 and 1 lost
/// (more than 3·SMSS below SND.FACK). Dupthresh detection needs two more SACKs.
#[test]
fn fack_starts_recovery_on_the_first_sack() {
    let mut s = sender_with(with(LossDetection::Fack), 10);
    sent(&mut s, ms(0));
    let out = on_ack(&mut s, ms(100), sack_segs(0, 4, 5));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.scoreboard().lost_bytes(), 2 * MSS);
    // cwnd = ssthresh = 5; pipe = 10 − 1 SACKed − 2 lost = 7 before the retransmission.
    assert_eq!(out, vec![(0, Why::FastRetransmit)]);
    let lost: Vec<_> = std::iter::from_fn(|| s.poll_event())
        .filter_map(|e| match e.kind {
            EventKind::MarkLost { start, by, .. } => Some((start / MSS, by.name())),
            _ => None,
        })
        .collect();
    assert_eq!(lost, [(0, "fack"), (1, "fack")]);
    // The next SACK moves SND.FACK and marks segment 2.
    on_ack(&mut s, ms(101), sack_segs(0, 4, 6));
    assert_eq!(s.scoreboard().lost_bytes(), 3 * MSS, "segments 0-2");

    let mut s = sender_with(with(LossDetection::DupThresh), 10);
    sent(&mut s, ms(0));
    assert!(on_ack(&mut s, ms(100), sack_segs(0, 4, 5)).is_empty());
    assert_eq!(s.state(), RecoveryState::Disorder);
}

/// FACK's threshold is "more than DupThresh segments": SND.FACK three segments above
/// SND.UNA is not enough.
#[test]
fn fack_threshold_is_strict() {
    let mut s = sender_with(with(LossDetection::Fack), 10);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 2, 3));
    assert_eq!(s.state(), RecoveryState::Disorder);
    on_ack(&mut s, ms(101), sack_segs(0, 2, 4));
    assert_eq!(
        s.state(),
        RecoveryState::Recovery,
        "SND.FACK − SND.UNA = 4 > 3"
    );
}

/// RFC 3517 IsLost needs DupThresh·SMSS SACKed bytes (RFC 6675: more than
/// (DupThresh − 1)·SMSS), and only DupThresh duplicate ACKs start recovery.
#[test]
fn rfc3517_islost() {
    for (det, lost_at_2500) in [
        (LossDetection::DupThresh, true),
        (LossDetection::DupThresh3517, false),
    ] {
        let mut s = sender_with(with(det), 10);
        sent(&mut s, ms(0));
        on_ack(&mut s, ms(10), sack_segs(0, 1, 3));
        on_ack(&mut s, ms(11), sack(0, &[(MSS, 3 * MSS + 500)]));
        assert_eq!(s.state() == RecoveryState::Recovery, lost_at_2500, "{det}");
        // A third duplicate ACK: recovery either way; 3000 bytes above segment 0.
        on_ack(&mut s, ms(12), sack(0, &[(MSS, 4 * MSS)]));
        assert_eq!(s.state(), RecoveryState::Recovery, "{det}");
        assert!(s.scoreboard().head_lost());
    }
}

/// Adaptive reordering (Linux `tp->reordering`): segments 0-4 arrive after segment 5; the
/// cumulative ACK that covers them delivers never-retransmitted data 6 segments below
/// SND.FACK, so the threshold becomes 6. Five SACKed segments then no longer start
/// recovery; six do.
#[test]
fn adaptive_reordering_raises_dupthresh() {
    let mut c = with(LossDetection::DupThresh);
    c.adaptive_reordering = true;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 10 * MSS);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(10), sack_segs(0, 5, 6));
    assert_eq!(s.state(), RecoveryState::Disorder);
    on_ack(&mut s, ms(11), ack(6 * MSS));
    assert_eq!(s.reordering(), 6);
    assert_eq!(s.stats().sack_reorder, 1);
    assert_eq!(s.info().tcpi_reordering, 6);
    // Segment 6 is lost; segments 7.. are SACKed one by one.
    s.write(ms(11), 10 * MSS);
    sent(&mut s, ms(11));
    for k in 7..=11 {
        on_ack(&mut s, ms(20 + k), sack_segs(6, 7, k + 1));
        assert_eq!(s.state(), RecoveryState::Disorder, "{} SACKed", k - 6);
    }
    on_ack(&mut s, ms(40), sack_segs(6, 7, 13));
    assert_eq!(s.state(), RecoveryState::Recovery, "6 SACKed segments");
    // Without adaptation the reordering is seen and counted, not applied.
    let mut s = Sender::new(with(LossDetection::DupThresh), ms(0)).unwrap();
    s.write(ms(0), 10 * MSS);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(10), sack_segs(0, 5, 6));
    on_ack(&mut s, ms(11), ack(6 * MSS));
    assert_eq!(s.reordering(), 3);
    assert_eq!(s.stats().sack_reorder, 1);
    assert!(s.reordering_seen());
}

/// FACK takes the same reordering for a burst loss: the SACK of segment 5 starts
/// recovery and marks segments 0-2 lost. When 0-4 then arrive, segment 1 — lost but not
/// yet retransmitted — shows reordering of degree 5: the threshold becomes 5 and FACK is
/// turned off for the connection (Linux `tcp_disable_fack`; `TCPFACKReorder`).
#[test]
fn reordering_turns_fack_off() {
    let mut c = with(LossDetection::Fack);
    c.adaptive_reordering = true;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 10 * MSS);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(10), sack_segs(0, 5, 6));
    assert_eq!(s.state(), RecoveryState::Recovery);
    on_ack(&mut s, ms(11), ack(6 * MSS));
    assert_eq!(s.reordering(), 5);
    assert_eq!(
        s.loss_detection(),
        lossrec::config::resolved::Detection::DupThresh {
            rule: lossrec::config::resolved::DupThreshRule::Rfc6675
        }
    );
    assert_eq!(s.stats().fack_reorder, 1);
}

#[test]
fn adaptive_reordering_resets_at_timeout() {
    let mut c = with(LossDetection::DupThresh);
    c.adaptive_reordering = true;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 20 * MSS);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(10), sack_segs(0, 5, 6));
    on_ack(&mut s, ms(11), ack(6 * MSS));
    assert_eq!(s.reordering(), 6);
    // Segment 6 lost; three SACKs (below the threshold of 6), then the RTO.
    for k in 8..=10 {
        on_ack(&mut s, ms(20), sack_segs(6, 7, k));
    }
    assert_eq!(s.state(), RecoveryState::Disorder);
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert_eq!(s.state(), RecoveryState::Loss);
    assert_eq!(s.reordering(), 3);
}

/// Without RFC 6675's rule 4 (RFC 3517, Linux) the burst-loss example sends no rescue
/// retransmission (compare sender_rfc6675.rs).
#[test]
fn no_rescue_retransmission() {
    let mut c = cfg();
    c.limited_transmit = false;
    c.rescue_retransmit = false;
    let mut s = sender_with(c, 10);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 4, 5));
    on_ack(&mut s, ms(101), sack_segs(0, 4, 6));
    on_ack(&mut s, ms(102), sack_segs(0, 4, 7));
    on_ack(&mut s, ms(103), sack_segs(0, 4, 8));
    on_ack(&mut s, ms(104), sack_segs(0, 4, 9));
    assert!(on_ack(&mut s, ms(105), sack_segs(0, 4, 10)).is_empty());
    assert_eq!(s.stats().fast_retrans, 4);
    assert_eq!(s.scoreboard().rescue_rxt, None);
}

/// PRR and rate-halving without SACK (RFC 6937 §2, RFC 9937 §6.2): DeliveredData is one
/// SMSS per duplicate ACK, and pipe is FlightSize less what the duplicates reported, so a
/// single loss is reduced exactly as with SACK; the full ACK ends recovery at ssthresh
/// (rate-halving: at most ssthresh).
#[test]
fn reduction_without_sack_matches_sack() {
    for red in [
        Reduction::Prr6937Crb,
        Reduction::Prr6937Ssrb,
        Reduction::Prr,
        Reduction::PrrLinux,
        Reduction::RateHalving,
    ] {
        let run = |sack_on: bool| {
            let mut c = cfg();
            c.sack = sack_on;
            c.limited_transmit = false;
            c.reduction = red;
            c.initial_cwnd = 20;
            let mut s = sender_with(c, 100);
            sent(&mut s, ms(0));
            let mut out = vec![];
            for k in 1..=19 {
                let a = if sack_on {
                    sack_segs(0, 1, k + 1)
                } else {
                    ack(0)
                };
                out.push(on_ack(&mut s, ms(100 + k), a));
            }
            assert_eq!(out[2], vec![(0, Why::FastRetransmit)], "{red}");
            s.on_ack(ms(200), &ack(s.snd_nxt()));
            assert_eq!(s.state(), RecoveryState::Open);
            assert!(s.cwnd() <= 10 * MSS, "{red}");
            (out, s.cwnd())
        };
        assert_eq!(run(false), run(true), "{red}");
    }
}

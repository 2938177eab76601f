//! RFC 6675 SACK recovery, limited transmit (RFC 3042), RFC 6298 timeouts and NewReno
//! (RFC 6582) on the sender, driven by hand-built ACKs.

mod common;
use common::*;
use lossrec::{RecoveryState, Why};

/// IW 10: ten segments leave at once; an ACK of new data sends more (slow start).
#[test]
fn initial_window_and_slow_start() {
    let mut s = sender_with(cfg(), 30);
    let out = sent(&mut s, ms(0));
    assert_eq!(out.len(), 10);
    assert!(out.iter().all(|&(_, w)| w == Why::New));
    assert_eq!(s.pipe(), 10 * MSS);
    // ACK of two segments: ABC (L=2) grows cwnd by 2 MSS → 4 new segments.
    let out = on_ack(&mut s, ms(100), ack(2 * MSS));
    assert_eq!(s.cwnd(), 12 * MSS);
    assert_eq!(
        out.iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![10, 11, 12, 13]
    );
}

/// One loss (segment 0) out of 10: two limited transmits, then fast retransmit on the
/// third duplicate ACK with cwnd = ssthresh = FlightSize/2 (RFC 6675 §5).
#[test]
fn single_loss_fast_retransmit() {
    let mut s = sender_with(cfg(), 30);
    sent(&mut s, ms(0));
    // First dupack (SACK of segment 1): limited transmit sends segment 10.
    assert_eq!(
        on_ack(&mut s, ms(100), sack_segs(0, 1, 2)),
        vec![(10, Why::LimitedTransmit)]
    );
    assert_eq!(s.state(), RecoveryState::Disorder);
    assert_eq!(
        on_ack(&mut s, ms(101), sack_segs(0, 1, 3)),
        vec![(11, Why::LimitedTransmit)]
    );
    // Third dupack: enter recovery. FlightSize = 12 segments → ssthresh = cwnd = 6.
    let out = on_ack(&mut s, ms(102), sack_segs(0, 1, 4));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.ssthresh(), 6 * MSS);
    assert_eq!(s.cwnd(), 6 * MSS);
    assert_eq!(out, vec![(0, Why::FastRetransmit)]);
    // pipe: 12 out − 3 SACKed − 1 lost + 1 retransmitted = 9 > cwnd: nothing else.
    assert_eq!(s.pipe(), 9 * MSS);
    assert_eq!(s.recovery_point(), Some(12 * MSS));
    // Three more SACKs bring pipe to 6: still no room (cwnd − pipe < SMSS) until 5.
    for (i, t) in [(5, 103), (6, 104), (7, 105)] {
        assert!(on_ack(&mut s, ms(t), sack_segs(0, 1, i)).is_empty());
    }
    assert_eq!(s.pipe(), 6 * MSS);
    assert_eq!(
        on_ack(&mut s, ms(106), sack_segs(0, 1, 8)),
        vec![(12, Why::New)]
    );
    // The retransmission's ACK covers everything SACKed: recovery ends below the
    // recovery point? No — cumulative 8 < 12, still in recovery.
    on_ack(&mut s, ms(200), ack(8 * MSS));
    assert_eq!(s.state(), RecoveryState::Recovery);
    on_ack(&mut s, ms(210), ack(12 * MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!(s.cwnd(), 6 * MSS);
    assert_eq!(s.stats().sack_recovery, 1);
    assert_eq!(s.stats().fast_retrans, 1);
    assert_eq!(s.stats().limited_transmit, 2);
}

/// Burst loss of segments 0..4 of 10: after DupThresh SACKs every hole below is lost by
/// IsLost and NextSeg rule 1 retransmits them in order as pipe allows.
#[test]
fn burst_loss_retransmits_every_hole() {
    let mut c = cfg();
    c.limited_transmit = false;
    let mut s = sender_with(c, 10);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 4, 5));
    on_ack(&mut s, ms(101), sack_segs(0, 4, 6));
    let out = on_ack(&mut s, ms(102), sack_segs(0, 4, 7));
    // Flight 10 → cwnd 5; lost 0..4 (4 segs); pipe = 10 − 3 − 4 + 1 (rexmit) = 4.
    assert_eq!(
        out,
        vec![(0, Why::FastRetransmit), (1, Why::FastRetransmit)]
    );
    assert_eq!(s.pipe(), 5 * MSS);
    let out = on_ack(&mut s, ms(103), sack_segs(0, 4, 8));
    assert_eq!(out, vec![(2, Why::FastRetransmit)]);
    let out = on_ack(&mut s, ms(104), sack_segs(0, 4, 9));
    assert_eq!(out, vec![(3, Why::FastRetransmit)]);
    // Nothing new to send and no hole left un-retransmitted: rule 3 finds nothing, and
    // rule 4 waits: the fast retransmission set RescueRxt to its last octet (§5 step
    // 4.3), and HighACK has not passed it.
    let out = on_ack(&mut s, ms(105), sack_segs(0, 4, 10));
    assert_eq!(out, vec![]);
    assert_eq!(s.scoreboard().rescue_rxt, Some(MSS - 1));
    // Once the head's retransmission is acknowledged, rule 4 sends the once-per-recovery
    // rescue retransmission of the highest un-SACKed segment — segment 3 again, as RFC
    // 6675 §4 words it.
    let out = on_ack(&mut s, ms(150), sack_segs(1, 4, 10));
    assert_eq!(out, vec![(3, Why::Rescue)]);
    assert_eq!(s.scoreboard().rescue_rxt, Some(10 * MSS));
    assert!(
        on_ack(&mut s, ms(151), sack_segs(1, 4, 10)).is_empty(),
        "only one rescue"
    );
    assert_eq!(s.stats().fast_retrans, 5);
    on_ack(&mut s, ms(200), ack(10 * MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert!(s.is_finished());
}

/// IsLost's byte rule: more than (DupThresh − 1)·SMSS SACKed bytes above S make S lost
/// even with fewer than DupThresh SACKed segments (RFC 6675 §4) — here via small segments.
#[test]
fn islost_and_pipe_table() {
    let mut c = cfg();
    c.limited_transmit = false;
    let mut s = sender_with(c, 10);
    sent(&mut s, ms(0));
    // SACK 1..3 in one block: 2 segments = 2000 bytes, not > 2000 → not lost yet.
    on_ack(&mut s, ms(10), sack_segs(0, 1, 3));
    assert_eq!(s.scoreboard().lost_bytes(), 0);
    assert_eq!(s.state(), RecoveryState::Disorder);
    assert_eq!(s.pipe(), 8 * MSS);
    // Half a segment more (a SACK edge inside segment 3 splits it): 2500 > 2000 → lost.
    let out = on_ack(&mut s, ms(11), sack(0, &[(MSS, 3 * MSS + 500)]));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(out, vec![(0, Why::FastRetransmit)]);
    assert_eq!(s.stats().sack_splits, 1);
    assert_eq!(s.scoreboard().sacked_bytes(), 2500);
    // pipe = 10000 − 2500 − 1000 (lost) + 1000 (rexmit) = 7500.
    assert_eq!(s.pipe(), 7500);
    // The other half of segment 3 is kept: SACK the rest, nothing is lost.
    on_ack(&mut s, ms(12), sack(0, &[(MSS, 4 * MSS)]));
    assert_eq!(s.scoreboard().sacked_bytes(), 3000);
}

/// RFC 6298 §5: the timer fires one RTO after the last ACK of new data, retransmits the
/// head, doubles the RTO (backoff) and re-arms; ssthresh is held on the second expiry.
#[test]
fn rto_with_backoff() {
    let mut s = sender_with(cfg(), 4);
    assert_eq!(sent(&mut s, ms(0)).len(), 4);
    assert_eq!(s.poll_timeout(), Some(ms(1000))); // initial RTO 1 s
    s.on_timeout(ms(1000));
    assert_eq!(s.state(), RecoveryState::Loss);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(s.ssthresh(), 2 * MSS); // max(FlightSize/2, 2·SMSS)
    assert_eq!(sent(&mut s, ms(1000)), vec![(0, Why::RtoRetransmit)]);
    assert_eq!(s.poll_timeout(), Some(ms(3000)));
    s.on_timeout(ms(3000));
    assert_eq!(sent(&mut s, ms(3000)), vec![(0, Why::RtoRetransmit)]);
    assert_eq!(s.poll_timeout(), Some(ms(7000)));
    assert_eq!(s.stats().timeouts, 2);
    // The ACK of the retransmission: slow start repairs the rest in order.
    let out = on_ack(&mut s, ms(7100), ack(MSS));
    assert_eq!(out, vec![(1, Why::RtoRetransmit), (2, Why::RtoRetransmit)]);
    assert_eq!(
        on_ack(&mut s, ms(7200), ack(3 * MSS)),
        vec![(3, Why::RtoRetransmit)]
    );
    on_ack(&mut s, ms(7300), ack(4 * MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert!(s.is_finished());
    assert_eq!(s.poll_timeout(), None);
}

/// RFC 6675 §5.1: after a timeout, SACKed segments are not retransmitted.
#[test]
fn rto_repair_skips_sacked_segments() {
    let mut s = sender_with(cfg(), 4);
    sent(&mut s, ms(0));
    on_ack(&mut s, ms(100), sack_segs(0, 2, 3));
    s.on_timeout(s.poll_timeout().unwrap());
    assert_eq!(sent(&mut s, ms(1100)), vec![(0, Why::RtoRetransmit)]);
    let out = on_ack(&mut s, ms(1200), sack(MSS, &[(2 * MSS, 3 * MSS)]));
    assert_eq!(out, vec![(1, Why::RtoRetransmit), (3, Why::RtoRetransmit)]);
}

/// NewReno (RFC 6582) without SACK: fast retransmit on three duplicate ACKs, window
/// inflation, a partial ACK retransmits the next hole at once.
#[test]
fn newreno_partial_acks() {
    let mut c = cfg();
    c.sack = false;
    c.limited_transmit = false;
    let mut s = sender_with(c, 10);
    sent(&mut s, ms(0));
    // Segments 0 and 3 lost; segments 1, 2, 4 produce duplicate ACKs of 0.
    assert!(on_ack(&mut s, ms(100), ack(0)).is_empty());
    assert!(on_ack(&mut s, ms(101), ack(0)).is_empty());
    let out = on_ack(&mut s, ms(102), ack(0));
    assert_eq!(out, vec![(0, Why::FastRetransmit)]);
    assert_eq!(s.ssthresh(), 5 * MSS);
    assert_eq!(s.cwnd(), 8 * MSS); // ssthresh + 3·SMSS
                                   // More duplicates inflate cwnd by one SMSS each (5 more: segments 5..9 arrived).
    for t in 0..5 {
        on_ack(&mut s, ms(103 + t), ack(0));
    }
    assert_eq!(s.cwnd(), 13 * MSS);
    // Partial ACK up to the second hole (segment 3): retransmit it immediately.
    let out = on_ack(&mut s, ms(200), ack(3 * MSS));
    assert_eq!(out[0], (3, Why::FastRetransmit));
    assert_eq!(s.state(), RecoveryState::Recovery);
    // Full ACK ends recovery with cwnd = min(ssthresh, FlightSize + SMSS).
    on_ack(&mut s, ms(300), ack(10 * MSS));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!(s.cwnd(), 2 * MSS); // min(5, max(0, 1) + 1) segments
    assert_eq!(s.stats().reno_recovery, 1);
}

/// The handshake: SYN, SYN-ACK seeds SRTT from the SYN's RTT, then the handshake ACK and
/// the initial window.
#[test]
fn handshake_seeds_srtt() {
    let mut c = cfg();
    c.handshake = true;
    let mut s = lossrec::Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 5 * MSS);
    let syn = drain(&mut s, ms(0));
    assert_eq!(syn.len(), 1);
    assert_eq!(syn[0].why, Why::Syn);
    assert!(syn[0].syn.unwrap().sack_permitted);
    let mut sa = ack(0);
    sa.syn = Some(lossrec::SynOptions {
        ecn: false,
        mss: 536,
        sack_permitted: true,
        timestamps: false,
        window_scale: Some(7),
    });
    s.on_ack(ms(80), &sa);
    assert!(s.is_established());
    assert_eq!(s.mss(), 536);
    assert_eq!(s.rtt().srtt(), Some(std::time::Duration::from_millis(80)));
    let out = drain(&mut s, ms(80));
    assert_eq!(out[0].why, Why::HandshakeAck);
    assert_eq!(out.len(), 1 + 10); // 5000 bytes in 536-byte segments = 10 segments
}

/// A lost SYN is retransmitted after the initial RTO (1 s), then 2 s later; the connection
/// then starts with a one-segment window and a 3 s RTO (RFC 5681 §3.1, RFC 6298 §5.7).
#[test]
fn syn_loss() {
    let mut c = cfg();
    c.handshake = true;
    let mut s = lossrec::Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 5 * MSS);
    drain(&mut s, ms(0));
    assert_eq!(s.poll_timeout(), Some(ms(1000)));
    s.on_timeout(ms(1000));
    assert_eq!(drain(&mut s, ms(1000))[0].why, Why::Syn);
    assert_eq!(s.poll_timeout(), Some(ms(3000)));
    let mut sa = ack(0);
    sa.syn = Some(lossrec::SynOptions {
        ecn: false,
        mss: 1000,
        sack_permitted: true,
        timestamps: false,
        window_scale: None,
    });
    s.on_ack(ms(1100), &sa);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(s.rtt().rto(), std::time::Duration::from_secs(3));
    assert_eq!(s.stats().syn_retrans, 1);
}

/// Hostile ACKs are dropped and counted.
#[test]
fn hostile_acks_are_counted_not_applied() {
    let mut s = sender_with(cfg(), 5);
    sent(&mut s, ms(0));
    s.on_ack(ms(1), &ack(99 * MSS));
    assert_eq!(s.stats().ack_beyond_snd_nxt, 1);
    assert_eq!(s.snd_una(), 0);
    s.on_ack(ms(2), &sack(0, &[(50 * MSS, 60 * MSS)]));
    assert_eq!(s.stats().sack_discard, 1);
    assert_eq!(s.scoreboard().sacked_bytes(), 0);
}

/// A DSACK is recognised (RFC 2883 §4); one with nothing retransmitted is dubious.
#[test]
fn dsack_recognised() {
    let mut s = sender_with(cfg(), 5);
    sent(&mut s, ms(0));
    s.on_ack(ms(10), &sack(2 * MSS, &[(0, MSS)]));
    assert_eq!(s.stats().dsack_recv, 1);
    assert_eq!(s.stats().dsack_ignored_dubious, 1);
}

/// Passive open (as packetdrill's `listen`/`accept`): the peer's SYN, our SYN-ACK with
/// the agreed options, the peer's ACK seeds SRTT and starts data.
#[test]
fn passive_open() {
    let mut c = cfg();
    c.timestamps = true;
    let mut s = lossrec::Sender::new_passive(c, ms(0)).unwrap();
    s.write(ms(0), 3 * MSS);
    assert!(drain(&mut s, ms(0)).is_empty(), "nothing before the SYN");
    let peer = lossrec::SynOptions {
        ecn: false,
        mss: 1460,
        sack_permitted: true,
        timestamps: false,
        window_scale: Some(7),
    };
    s.on_syn(ms(0), &peer, None);
    let out = drain(&mut s, ms(0));
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].why, Why::SynAck);
    let o = out[0].syn.unwrap();
    assert!(
        o.sack_permitted && !o.timestamps,
        "timestamps not agreed: peer did not offer"
    );
    s.on_ack(ms(50), &ack(0));
    assert!(s.is_established());
    assert_eq!(s.rtt().srtt(), Some(std::time::Duration::from_millis(50)));
    assert_eq!(sent(&mut s, ms(50)).len(), 3);
}

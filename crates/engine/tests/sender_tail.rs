//! Tail-loss probes and RACK on the sender: the single deadline (which kind, when, and the
//! RTO anchored to the head when it replaces a PTO or reorder timer), one probe per
//! episode, new-data probes beyond cwnd, the draft's second probe, the probe's ACK
//! verdicts, RACK's fallback without SACK, Linux's RTO window.

mod common;
use common::*;
use lossrec::config::{LossDetection, Probe};
use lossrec::timer::TimerKind;
use lossrec::{Config, ProbeKind, RecoveryState, Sender, Why};

fn tail_cfg(detection: LossDetection, probe: Probe) -> Config {
    let mut c = cfg();
    c.loss_detection = detection;
    c.probe = probe;
    c
}

/// `segments` written at 0 (not closed) and sent; segment 1 ACKed at 100 ms (SRTT 100 ms,
/// RTO 1 s).
fn started(c: Config, segments: u64) -> Sender {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), segments * MSS);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(MSS));
    s
}

const PROBE_RTX: Why = Why::Probe(ProbeKind::Retransmit);

/// RFC 8985 §7.2: the ACK of new data arms the PTO at 2·SRTT; it fires, the probe
/// retransmits the last segment, and the RTO follows from the probe (§7.3) — one probe.
#[test]
fn rfc8985_one_probe_then_rto() {
    let mut s = started(tail_cfg(LossDetection::Rack, Probe::Tlp), 4);
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    assert_eq!(s.poll_timeout(), Some(ms(300)));
    s.on_timeout(ms(300));
    assert_eq!(sent(&mut s, ms(300)), [(3, PROBE_RTX)]);
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.poll_timeout(), Some(ms(1300)));
    assert_eq!(s.stats().loss_probes, 1);
    assert_eq!(s.tlp_episode().end_seq, Some(4 * MSS));
}

/// RACK's reorder timer replaces the PTO; when it fires the RTO comes back anchored at
/// the head's transmission (0 + 1 s), not one RTO after the timer (digest §2.3, §10),
/// until the head itself is retransmitted.
#[test]
fn reorder_timer_then_anchored_rto() {
    let mut s = started(tail_cfg(LossDetection::Rack, Probe::Tlp), 10);
    // Segment 10 SACKed at 150 ms: 2-9 were sent with it; one SACKed segment, no
    // reordering seen: reo_wnd = min_RTT/4 = 25 ms, RACK.rtt 150 ms → wait 25 ms.
    on_ack(&mut s, ms(150), sack(MSS, &[(9 * MSS, 10 * MSS)]));
    assert_eq!(s.timer_kind(), Some(TimerKind::ReoTimeout));
    assert_eq!(s.poll_timeout(), Some(ms(175)));
    s.on_timeout(ms(175));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(
        s.poll_timeout(),
        Some(ms(1000)),
        "anchored at the head's send time"
    );
    assert_eq!(sent(&mut s, ms(175))[0], (1, Why::RackRetransmit));
    // Retransmitting the head then restarts the RTO from now, as Linux's
    // tcp_xmit_retransmit_queue does, so it does not fire right after the repair.
    assert_eq!(s.poll_timeout(), Some(ms(1175)));
    assert_eq!(s.scoreboard().lost_bytes(), 8 * MSS);
}

/// TLP draft §2.1 (4): every ACK cancels the PTO; when the conditions no longer hold (a
/// SACK: not Open) the RTO takes the slot, anchored at the head.
#[test]
fn draft_pto_cancelled_by_a_sack() {
    let mut c = tail_cfg(LossDetection::Fack, Probe::TlpDraft);
    c.dupthresh = 10; // keep FACK out of it
    let mut s = started(c, 6);
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    assert_eq!(s.poll_timeout(), Some(ms(300)), "max(2·SRTT, 10 ms)");
    on_ack(&mut s, ms(120), sack(MSS, &[(5 * MSS, 6 * MSS)]));
    assert_eq!(s.state(), RecoveryState::Disorder);
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.poll_timeout(), Some(ms(1000)));
}

/// The draft with two consecutive probes (§2.1 (2c)): after the first, a second PTO; after
/// the second, the RTO. §3.2 (5) allows the second retransmission (SND.NXT unchanged).
#[test]
fn draft_two_consecutive_probes() {
    let mut c = tail_cfg(LossDetection::Fack, Probe::TlpDraft);
    c.tlp_max_probes = 2;
    let mut s = started(c, 4);
    s.on_timeout(ms(300));
    assert_eq!(sent(&mut s, ms(300)), [(3, PROBE_RTX)]);
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert_eq!(sent(&mut s, t), [(3, PROBE_RTX)]);
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.tlp_draft_episode().tlp_rtx_out, 2);
    assert_eq!(s.stats().loss_probes, 2);
}

/// A probe of new data goes out beyond cwnd (RFC 8985 §7.3, draft §2.1 (3a)).
#[test]
fn new_data_probe_beyond_cwnd() {
    let mut c = tail_cfg(LossDetection::Rack, Probe::Tlp);
    c.initial_cwnd = 2;
    let mut s = sender_with(c, 6);
    assert_eq!(sent(&mut s, ms(0)).len(), 2);
    on_ack(&mut s, ms(100), ack(MSS)); // one more goes (cwnd 3 after slow start)
    let t = s.poll_timeout().unwrap();
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    s.on_timeout(t);
    let out = sent(&mut s, t);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].1, Why::Probe(ProbeKind::New));
    assert!(
        s.flight_size() > s.cwnd(),
        "the probe exceeds cwnd by one segment"
    );
}

/// Linux's probe retransmission does not count in flight (digest §9.3); RFC 8985's does
/// (RFC 6675 pipe counts retransmissions).
#[test]
fn linux_probe_not_in_flight() {
    for (probe, retrans) in [(Probe::TlpLinux, 0), (Probe::Tlp, MSS)] {
        let mut s = started(tail_cfg(LossDetection::Rack, probe), 4);
        let t = s.poll_timeout().unwrap();
        s.on_timeout(t);
        assert_eq!(sent(&mut s, t), [(3, PROBE_RTX)]);
        assert_eq!(s.scoreboard().retrans_bytes(), retrans, "{probe}");
    }
}

/// RFC 8985 §7.4.2: a DSACK for the probe shows the original arrived — no reduction; an
/// ACK beyond TLP.end_seq without that evidence means the probe repaired a loss.
#[test]
fn probe_ack_verdicts() {
    let probe = || {
        let mut s = started(tail_cfg(LossDetection::Rack, Probe::Tlp), 4);
        s.on_timeout(ms(300));
        drain(&mut s, ms(300));
        s
    };
    let mut s = probe();
    let cwnd = s.cwnd();
    on_ack(&mut s, ms(350), ack(4 * MSS));
    on_ack(&mut s, ms(400), sack(4 * MSS, &[(3 * MSS, 4 * MSS)]));
    assert_eq!(s.stats().loss_probe_recovery, 0);
    assert_eq!(s.cwnd(), cwnd);
    assert_eq!(s.tlp_episode().end_seq, None);
    // The probe plugged the hole: its ACK reaches end_seq; more data is ACKed beyond it.
    let mut s = probe();
    on_ack(&mut s, ms(400), ack(4 * MSS));
    assert_eq!(
        s.stats().loss_probe_recovery,
        0,
        "ambiguous until beyond end_seq"
    );
    s.write(ms(500), MSS);
    drain(&mut s, ms(500));
    on_ack(&mut s, ms(600), ack(5 * MSS));
    assert_eq!(s.stats().loss_probe_recovery, 1);
    assert_eq!(s.cwnd(), s.ssthresh());
}

/// RFC 8985 §7.3: no new probe until an RTT sample was taken since the last one (Linux
/// has no such rule).
#[test]
fn rtt_sample_needed_between_probes() {
    let mut s = started(tail_cfg(LossDetection::Rack, Probe::Tlp), 4);
    s.on_timeout(ms(300));
    drain(&mut s, ms(300));
    // The probe's ACK: Karn — no sample (the data was retransmitted); the episode ends.
    on_ack(&mut s, ms(400), ack(4 * MSS));
    on_ack(&mut s, ms(401), ack(4 * MSS));
    assert_eq!(s.tlp_episode().end_seq, None);
    assert!(!s.tlp_episode().rtt_sampled);
    s.write(ms(500), 2 * MSS);
    drain(&mut s, ms(500));
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    let t = s.poll_timeout().unwrap();
    s.on_timeout(t);
    assert!(
        sent(&mut s, t).is_empty(),
        "no probe without an RTT sample since the last"
    );
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
}

/// RACK needs SACK (RFC 8985 §4): without it the sender runs NewReno and never arms the
/// reorder timer.
#[test]
fn rack_without_sack_falls_back() {
    let mut c = tail_cfg(LossDetection::Rack, Probe::Tlp);
    c.sack = false;
    let mut s = started(c, 10);
    assert_eq!(
        s.loss_detection(),
        lossrec::config::resolved::Detection::DupThresh {
            rule: lossrec::config::resolved::DupThreshRule::Rfc6675
        }
    );
    assert!(!s.rack_active() && !s.probe_active());
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    for t in 0..3 {
        on_ack(&mut s, ms(110 + t), ack(MSS));
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
}

/// Linux's RTO with RACK (digest §8.4, §16): only the head and what is older than RACK.rtt
/// are lost, and cwnd = in flight + 1 segment.
#[test]
fn rack_linux_rto_window() {
    let mut c = tail_cfg(LossDetection::RackLinux, Probe::None);
    c.flavour = lossrec::config::Flavour::Linux; // cwnd after an RTO is Linux's rule
    c.initial_cwnd = 20;
    let mut s = started(c, 2);
    s.write(ms(1050), 5 * MSS);
    drain(&mut s, ms(1050)); // sent 50 ms before the RTO (1 s after the ACK)
    assert_eq!(s.poll_timeout(), Some(ms(1100)));
    s.on_timeout(ms(1100));
    assert_eq!(s.state(), RecoveryState::Loss);
    assert_eq!(s.scoreboard().lost_bytes(), MSS, "the head only");
    assert_eq!(s.cwnd(), s.pipe() + MSS);
    assert_eq!(s.cwnd(), 6 * MSS);
    assert_eq!(sent(&mut s, ms(1100)), [(1, Why::RtoRetransmit)]);
}

/// The DSACK of a redundant probe (all four segments had arrived) ends the episode but is
/// not reordering: early retransmit's "disable after reordering" stays armed.
#[test]
fn probe_dsack_is_not_reordering() {
    let mut s = started(tail_cfg(LossDetection::Rack, Probe::Tlp), 4);
    s.on_timeout(ms(300));
    assert_eq!(sent(&mut s, ms(300)), [(3, PROBE_RTX)]);
    // The original segment 3 was only delayed: the probe's ACK DSACKs it.
    on_ack(&mut s, ms(310), sack(4 * MSS, &[(3 * MSS, 4 * MSS)]));
    assert_eq!(s.stats().dsack_recv, 1);
    assert!(
        !s.reordering_seen(),
        "a probe's DSACK must not count as reordering"
    );
}

/// Probing in fast recovery (`tlp_in_recovery`, seed 001 slide 18) under the TLP draft
/// keeps the draft's limit of consecutive PTOs for a tail (§2.1 (2c)), reset only by
/// progress (SND.UNA advancing, new data, a new recovery): with DupThresh detection
/// nothing but the RTO finds a lost fast retransmission (RFC 6675 §5.1, RFC 6298 §5.4),
/// so once the probes are spent the RTO must fire and resend the head. (Found by
/// `closed_loop`: a PTO re-armed after every probe kept the RTO off for 200,000 s.)
#[test]
fn draft_probes_in_recovery_give_way_to_the_rto() {
    for max_probes in 1..=2 {
        let mut c = tail_cfg(LossDetection::DupThresh, Probe::TlpDraft);
        c.tlp_in_recovery = true;
        c.tlp_max_probes = max_probes;
        let mut s = started(c, 10);
        // Segments 2-4 SACKed: the head (1) is lost; its fast retransmission is lost
        // too, and no ACK comes back.
        let mut out = Vec::new();
        for k in 3..=5 {
            out.extend(on_ack(&mut s, ms(150), sack(MSS, &[(2 * MSS, k * MSS)])));
        }
        assert_eq!(s.state(), RecoveryState::Recovery);
        assert_eq!(out[0], (1, Why::FastRetransmit));
        let (mut probes, mut rto) = (0, None);
        while let Some(t) = s.poll_timeout().filter(|&t| t <= ms(10_000)) {
            s.on_timeout(t);
            for (i, why) in sent(&mut s, t) {
                match why {
                    Why::Probe(_) => probes += 1,
                    Why::RtoRetransmit => rto = rto.or(Some(i)),
                    _ => {}
                }
            }
            if rto.is_some() {
                break;
            }
        }
        assert_eq!(probes, max_probes, "max_probes {max_probes}");
        assert_eq!(
            rto,
            Some(1),
            "the RTO resends the head (max_probes {max_probes})"
        );
        assert_eq!(s.stats().timeouts, 1);
    }
}

//! Issue 23 item 2: Linux's rules at the edges of an episode (its end, reneging, the
//! timer after a probe, the counters), one test per rule, named after it and citing the
//! kernel function that holds it.

mod common;
use common::*;
use lossrec::timer::TimerKind;
use lossrec::{Config, Duration, EventKind, ProbeKind, RecoveryState, Sender, Why};

/// `c` with the test MSS, no handshake, no timestamps.
fn plain(mut c: Config) -> Config {
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    // The rule's arithmetic in exact time; the kernel's jiffies and timer wheel
    // (`timer_hz`) are held by `timer::tests` and `sender_rules::linux_timers_fire_on_the_wheel`.
    c.timer_hz = 0;
    c
}

/// The kinds of the events since the last call.
fn events(s: &mut Sender) -> Vec<EventKind> {
    std::iter::from_fn(|| s.poll_event())
        .map(|e| e.kind)
        .collect()
}

/// Forty segments written; IW10 at 0, segment 0 ACKed at 100 ms (cwnd 11, 10-11 sent).
/// Segment 1 is lost: SACKs of 2.. from 110 ms start fast recovery (RACK, the third)
/// with its point at segment 14; the SACKs up to segment 12 clock out 14-17.
fn in_recovery(c: Config) -> Sender {
    let (mut s, first) = started(plain(c), 40);
    assert_eq!(first.len(), 10);
    on_ack(&mut s, ms(100), ack(MSS));
    for k in 3..=5 {
        on_ack(&mut s, ms(110), sack(MSS, &[(2 * MSS, k * MSS)]));
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
    // Linux holds back the second SACK's segment (tcp_tso_should_defer, all three SACKs
    // within 1 ms: FlavourRules::tso_defers_small_sends), so its point is segment 13;
    // RFC 3042's limited transmit sent 12 and 13, point 14.
    let point = if s.algorithms().rules.tso_defers_small_sends {
        13
    } else {
        14
    };
    assert_eq!(s.recovery_point(), Some(point * MSS));
    for k in 6..=12 {
        on_ack(&mut s, ms(100 + k), sack(MSS, &[(2 * MSS, k * MSS)]));
    }
    assert_eq!(s.snd_nxt(), 18 * MSS, "14-17 sent in recovery");
    s
}

/// Linux `tcp_fastretrans_alert`: the ACK that reaches the recovery point ends recovery
/// (`tcp_end_cwnd_reduction`, state Open) and then runs the Open state's case on the same
/// ACK: `tcp_identify_packet_loss` (RACK) finds the segment at the point lost (13 once
/// tso_defers_small_sends holds a send; 14 before) — sent at 106 ms, before
/// 15-17 that this ACK SACKs, an RTT ago — and `tcp_time_to_recover` starts a second
/// recovery at once, with its retransmission. The engine used to return after the exit
/// and wait for a probe or an RTO.
#[test]
fn recovery_exit_ack_runs_loss_detection() {
    let mut s = in_recovery(Config::linux());
    events(&mut s);
    // the ACK reaches the point and SACKs what is above the segment at it
    let p = s.recovery_point().unwrap() / MSS;
    let out = on_ack(&mut s, ms(210), sack(p * MSS, &[((p + 1) * MSS, 18 * MSS)]));
    assert_eq!(out.first(), Some(&(p, Why::RackRetransmit)), "{out:?}");
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.recovery_point(), Some(18 * MSS));
    assert_eq!(s.stats().sack_recovery, 2);
    let kinds = events(&mut s);
    let exit = kinds
        .iter()
        .position(|k| matches!(k, EventKind::ExitRecovery { .. }));
    let enter = kinds
        .iter()
        .position(|k| matches!(k, EventKind::EnterRecovery { .. }));
    assert!(exit.is_some() && exit < enter, "{kinds:?}");
}

/// RFC 6675 §5 has no such rule: the RFC presets leave the loss to the next ACK.
#[test]
fn rfc_recovery_exit_ack_only_exits() {
    let mut s = in_recovery(Config::rack_tlp());
    on_ack(&mut s, ms(210), sack(14 * MSS, &[(15 * MSS, 18 * MSS)]));
    assert_ne!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.stats().sack_recovery, 1);
}

/// `in_recovery` without SACK: segment 1 lost, the duplicates of 2-13 start NewReno's
/// recovery (its point at segment 14) and clock out 14-17.
fn in_reno_recovery() -> Sender {
    let mut c = Config::linux();
    c.sack = false;
    let (mut s, _) = started(plain(c), 40);
    on_ack(&mut s, ms(100), ack(MSS));
    for k in 0..10 {
        on_ack(&mut s, ms(110 + k), ack(MSS));
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.recovery_point(), Some(14 * MSS));
    assert_eq!(s.snd_nxt(), 18 * MSS);
    s
}

/// Linux `tcp_is_non_sack_preventing_reopen` (from `tcp_try_undo_recovery`): without
/// SACK an ACK that reaches `high_seq` exactly holds Recovery "until something *above*
/// high_seq is ACKed" (RFC 2582's guard against a false fast retransmit): the duplicates
/// that follow it retransmit nothing (the engine reopened and resent segment 14 on the
/// third), and the first ACK above it ends the recovery with cwnd = ssthresh
/// (`tcp_end_cwnd_reduction`).
#[test]
fn reno_recovery_holds_at_high_seq() {
    let mut s = in_reno_recovery();
    let ssthresh = s.ssthresh();
    on_ack(&mut s, ms(210), ack(14 * MSS));
    assert_eq!(s.state(), RecoveryState::Recovery);
    for k in 0..3 {
        let out = on_ack(&mut s, ms(211 + k), ack(14 * MSS));
        assert!(
            out.iter().all(|&(_, w)| w != Why::FastRetransmit),
            "{out:?}"
        );
        assert_eq!(s.state(), RecoveryState::Recovery);
    }
    assert_eq!(s.stats().reno_recovery, 1);
    on_ack(&mut s, ms(220), ack(15 * MSS));
    assert_ne!(s.state(), RecoveryState::Recovery);
    assert_eq!(s.ssthresh(), ssthresh);
    assert_eq!(s.cwnd(), ssthresh);
}

/// Linux `tcp_check_sack_reneging`: an ACK that advances SND.UNA onto a segment the
/// receiver had SACKed says the receiver dropped it (RFC 2018 §8). Linux gives the
/// receiver "a little time" — the retransmission timer re-armed for max(SRTT/2, 10 ms),
/// and nothing else of `tcp_fastretrans_alert` on that ACK — before the timeout forgets
/// the SACKs (`tcp_timeout_mark_lost`); the engine waited a full RTO.
#[test]
fn sack_reneging_rearms_the_timer_short() {
    let (mut s, _) = started(plain(Config::linux()), 10);
    on_ack(&mut s, ms(100), ack(MSS));
    on_ack(&mut s, ms(110), sack(MSS, &[(3 * MSS, 4 * MSS)]));
    let out = on_ack(&mut s, ms(120), ack(3 * MSS));
    assert!(out.is_empty(), "{out:?}");
    let srtt = s.rtt().srtt().expect("sampled");
    let wait = (srtt / 2).max(Duration::from_millis(10));
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.poll_timeout(), Some(ms(120) + wait));
    // When it fires the SACKs are forgotten and the segment is resent.
    s.on_timeout(ms(120) + wait);
    assert_eq!(s.stats().sack_reneging, 1);
    let out = sent(&mut s, ms(120) + wait);
    assert_eq!(out.first(), Some(&(3, Why::RtoRetransmit)), "{out:?}");
}

/// RFC 8985 §7.3: "After attempting to send a loss probe, regardless of whether a loss
/// probe was sent, the sender MUST re-arm the RTO timer" — one RTO from now. A PTO that
/// finds the episode still open (TLP.end_seq set) sends nothing and arms now + RTO; the
/// engine anchored it at the head's transmission, which is Linux's `tcp_rearm_rto` (kept
/// for `probe = tlp-linux`).
#[test]
fn rfc8985_rto_after_a_pto_is_one_rto_from_now() {
    let (mut s, _) = started(plain(Config::rack_tlp()), 10);
    on_ack(&mut s, ms(100), ack(MSS));
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    let pto = s.poll_timeout().unwrap();
    s.on_timeout(pto);
    assert_eq!(
        sent(&mut s, pto),
        vec![(9, Why::Probe(ProbeKind::Retransmit))]
    );
    // Segments 1-4 are ACKed late: the episode stays open (below TLP.end_seq), the PTO
    // is scheduled again.
    let t = pto + Duration::from_millis(50);
    on_ack(&mut s, t, ack(5 * MSS));
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    let pto = s.poll_timeout().unwrap();
    s.on_timeout(pto);
    assert!(sent(&mut s, pto).is_empty(), "one probe per episode");
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.poll_timeout(), Some(pto + s.rtt().rto()));
}

/// Linux `tcp_send_loss_probe` → `tcp_rearm_rto`: the RTO that replaces the PTO is
/// anchored at the head's last transmission (`tcp_rto_delta_us`).
#[test]
fn linux_rto_after_a_pto_is_anchored_at_the_head() {
    let (mut s, _) = started(plain(Config::linux()), 10);
    on_ack(&mut s, ms(100), ack(MSS));
    let pto = s.poll_timeout().unwrap();
    s.on_timeout(pto);
    assert_eq!(
        sent(&mut s, pto),
        vec![(9, Why::Probe(ProbeKind::Retransmit))]
    );
    let t = pto + Duration::from_millis(50);
    on_ack(&mut s, t, ack(5 * MSS));
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    let pto = s.poll_timeout().unwrap();
    s.on_timeout(pto);
    assert!(sent(&mut s, pto).is_empty());
    // Segment 5, the head, left at 0: its RTO has passed, so the timer fires at once.
    let anchored = (ms(0) + s.rtt().rto()).max(pto + Duration::from_micros(1));
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.poll_timeout(), Some(anchored));
}

/// Linux counts `TCPSpuriousRTOs` only for an F-RTO undo (`tcp_try_undo_loss(sk, true)`);
/// an undo in Loss because the ACK's timestamp echo predates the retransmission
/// (`tcp_try_undo_loss(sk, false)` via `tcp_may_undo` → `tcp_packet_delayed`, tried
/// first in `tcp_process_loss`) is a `TCPLossUndo` alone. The engine counted every
/// undone timeout.
#[test]
fn linux_spurious_rtos_count_frto_undos_only() {
    let mut c = plain(Config::linux());
    c.timestamps = true;
    c.probe = lossrec::config::Probe::None;
    let (mut s, _) = started(c, 2);
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(sent(&mut s, rto), vec![(0, Why::RtoRetransmit)]);
    // The originals arrive late: the ACK echoes their TSval (sent at 0, TS clock µs + 1).
    let mut a = ack(2 * MSS);
    a.ts = Some(lossrec::Timestamps { val: 1, ecr: 1 });
    s.on_ack(rto + Duration::from_millis(100), &a);
    let st = s.stats();
    assert_eq!((st.loss_undo, st.undos), (1, 1));
    assert_eq!(st.spurious_rtos, 0);
}

/// Linux `tcp_try_undo_dsack` counts `TCPDSACKUndo` whenever every retransmission was
/// DSACKed, also when `tcp_undo_cwnd_reduction` restores nothing because the recovery
/// began on an ECN-Echo (`tcp_enter_recovery(sk, ece_ack)`: `prior_ssthresh` = 0). The
/// engine counted it as kept (`spurious_kept`), not as an undo.
#[test]
fn linux_dsack_undo_counted_in_an_ece_started_recovery() {
    let mut c = cfg();
    c.flavour = lossrec::config::Flavour::Linux;
    c.spurious_detection = lossrec::config::SpuriousDetection::Linux;
    c.spurious_response = lossrec::config::SpuriousResponse::FullUndo;
    c.rescue_retransmit = false;
    c.ecn = lossrec::config::Ecn::On;
    let mut s = sender_with(c, 10);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(MSS));
    for k in 3..=5 {
        let mut a = sack(MSS, &[(2 * MSS, k * MSS)]);
        a.ecn.ece = k == 5;
        s.on_ack(ms(110), &a);
    }
    assert_eq!(s.state(), RecoveryState::Recovery);
    let ssthresh = s.ssthresh();
    drain(&mut s, ms(110));
    on_ack(&mut s, ms(120), ack(5 * MSS));
    s.on_ack(ms(210), &sack(5 * MSS, &[(MSS, 2 * MSS)]));
    let st = s.stats();
    assert_eq!((st.dsack_undo, st.undos, st.spurious_kept), (1, 1, 0));
    assert_eq!(s.ssthresh(), ssthresh, "nothing restored");
}

/// Linux `tcp_check_sack_reordering`: a never-retransmitted segment delivered below the
/// highest SACK is reordering, counted (`reord_seen++`, `TCPSACKReorder`) whatever its
/// degree; only a degree above `tp->reordering` raises the threshold. Segment 1 arrives
/// after segment 2 was SACKed (degree 2, threshold 3): counted once, not raised. The
/// engine counted only a raise.
#[test]
fn linux_counts_every_sack_reordering() {
    let (mut s, _) = started(plain(Config::linux()), 10);
    on_ack(&mut s, ms(100), ack(MSS));
    on_ack(&mut s, ms(105), sack(MSS, &[(2 * MSS, 3 * MSS)]));
    on_ack(&mut s, ms(106), ack(3 * MSS));
    assert_eq!(s.stats().sack_reorder, 1);
    assert_eq!(s.info().tcpi_reord_seen, 1);
    assert_eq!(s.reordering(), 3, "not raised");
}

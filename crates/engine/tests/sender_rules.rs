//! Rules from the RFC texts and from Linux's functions that an outside review (issue 10 §2)
//! found the sender breaking: one test per rule, named after it, each with the exact
//! numbers the rule gives.

mod common;
use common::*;
use lossrec::config::{CongestionControl, Flavour, LossDetection, Probe, Reduction};
use lossrec::reduce::Reducer;
use lossrec::timer::TimerKind;
use lossrec::{Config, RecoveryState, Sender, Why};

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

/// `segments` written at 0 and sent; segment 0 ACKed at 100 ms (SRTT 100 ms).
fn started(c: Config, segments: u64) -> Sender {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), segments * MSS);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(MSS));
    s
}

fn prr_delivered(s: &Sender) -> u64 {
    match s.reducer() {
        Reducer::Prr(p) => p.prr_delivered(),
        _ => panic!("not PRR"),
    }
}

/// RFC 6675 §5 step (4.3): the fast retransmission sets HighRxt *and* RescueRxt to its
/// last octet, "to prevent … a premature rescue retransmission": with nothing else to
/// send and pipe < cwnd right after it, NextSeg rule 4 must not resend the head.
#[test]
fn rfc6675_rescue_rxt_set_at_fast_retransmit() {
    for preset in [Config::rfc(), Config::newreno_sack()] {
        let mut s = sender_with(plain(preset), 4);
        assert_eq!(sent(&mut s, ms(0)).len(), 4);
        on_ack(&mut s, ms(100), sack_segs(0, 1, 2));
        on_ack(&mut s, ms(101), sack_segs(0, 1, 3));
        let out = on_ack(&mut s, ms(102), sack_segs(0, 1, 4));
        assert_eq!(out, vec![(0, Why::FastRetransmit)], "one copy of the head");
        assert_eq!(s.scoreboard().rescue_rxt, Some(MSS - 1));
    }
    // Linux never had the rescue retransmission (NextSeg rule 4).
    assert!(!Config::linux_classic().rescue_retransmit);
}

/// Linux `tcp_match_skb_to_sack`: SACK tags whole segments. A block covering only part
/// of the last segment SACKs nothing, so RACK starts no recovery: a TLP goes out at the
/// PTO, and the connection stays Open.
#[test]
fn partial_segment_sack_tags_nothing() {
    for preset in [Config::linux(), Config::rack_tlp()] {
        let mut s = started(plain(preset.clone()), 10);
        let out = on_ack(&mut s, ms(150), sack(MSS, &[(10 * MSS - 1, 10 * MSS)]));
        assert!(out.is_empty(), "{}: {out:?}", preset.preset);
        assert_eq!(s.scoreboard().sacked_bytes(), 0, "{}", preset.preset);
        assert_eq!(s.state(), RecoveryState::Open, "{}", preset.preset);
        assert_eq!(
            s.timer_kind(),
            Some(TimerKind::LossProbe),
            "{}",
            preset.preset
        );
        // The whole segment SACKed later is tagged (the cache held nothing partial).
        on_ack(&mut s, ms(151), sack(MSS, &[(9 * MSS, 10 * MSS)]));
        assert_eq!(s.scoreboard().sacked_bytes(), MSS, "{}", preset.preset);
        assert_eq!(s.scoreboard().flight_size(), 9 * MSS);
    }
}

/// Linux `tcp_rack_reo_timeout`: recovery entered by the reorder timer runs
/// `tcp_cwnd_reduction(sk, 1, …)` at once: prr_delivered = 1 segment and cwnd =
/// in flight + sndcnt (here nothing is in flight: 1 segment).
#[test]
fn reo_timeout_recovery_runs_the_reduction_step() {
    let mut s = started(plain(Config::linux()), 10);
    on_ack(&mut s, ms(150), sack(MSS, &[(9 * MSS, 10 * MSS)]));
    assert_eq!(s.timer_kind(), Some(TimerKind::ReoTimeout));
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(prr_delivered(&s), MSS);
    assert_eq!(s.pipe(), 0);
    assert_eq!(s.cwnd(), MSS, "in flight (0) + sndcnt (1)");
    assert_eq!(sent(&mut s, at), vec![(1, Why::RackRetransmit)]);
}

/// Linux `tcp_slow_start` + `tcp_is_cwnd_limited`: IW10, ten segments, one ACK per two
/// segments: slow start grows by the delivered segments while cwnd < 2·max_packets_out,
/// so the flow ends with cwnd 20 (RFC 3465 with the engine's old half-flight test: 14).
#[test]
fn linux_slow_start_grows_to_twice_max_packets_out() {
    for cc in [CongestionControl::Cubic, CongestionControl::RenoLinux] {
        let mut c = plain(Config::linux());
        c.cc = cc;
        let mut s = sender_with(c, 10);
        assert_eq!(sent(&mut s, ms(0)).len(), 10);
        for i in 1..=5 {
            on_ack(&mut s, ms(100 + i), ack(2 * i * MSS));
        }
        assert_eq!(s.cwnd(), 20 * MSS, "{cc}");
    }
}

/// Linux slow start counts delivered segments once (`acked_sacked` in
/// `tcp_cong_control`): a SACK-only ACK does not raise cwnd (`tcp_may_raise_cwnd` wants
/// FLAG_DATA_ACKED while reordering is at its default), and the cumulative ACK that later
/// covers SACKed segments counts only the segment it newly delivered.
#[test]
fn linux_slow_start_counts_sacked_segments_once() {
    let mut c = plain(Config::linux());
    c.initial_cwnd = 4;
    let mut s = sender_with(c, 100);
    assert_eq!(sent(&mut s, ms(0)).len(), 4);
    let out = on_ack(&mut s, ms(100), ack(MSS)); // SRTT and min_rtt 100 ms
    assert_eq!(s.cwnd(), 5 * MSS);
    assert_eq!(out.len(), 2); // segments 4 and 5
                              // Segments 2-3 SACKed at 200 ms; segment 1 is within RACK's reordering window.
    on_ack(&mut s, ms(200), sack(MSS, &[(2 * MSS, 4 * MSS)]));
    assert_eq!(s.state(), RecoveryState::Disorder);
    assert_eq!(s.cwnd(), 5 * MSS, "no growth on a SACK-only ACK");
    // Segment 1 arrives late: the ACK covers 1-3, but only segment 1 is newly delivered
    // (ABC would add 2 segments for the 3 acknowledged).
    on_ack(&mut s, ms(201), ack(4 * MSS));
    assert_eq!(s.cwnd(), 6 * MSS);
}

/// RFC 3465 §2.3: "L = 1·SMSS … during slow start following a retransmission timeout".
#[test]
fn rfc3465_abc_limit_one_after_rto() {
    let mut c = cfg();
    c.limited_transmit = false;
    let mut s = sender_with(c, 40);
    assert_eq!(sent(&mut s, ms(0)).len(), 10);
    on_ack(&mut s, ms(100), ack(MSS)); // SRTT 100 ms; cwnd 11
    drain(&mut s, ms(100));
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(s.cwnd(), MSS);
    assert_eq!(sent(&mut s, rto), vec![(1, Why::RtoRetransmit)]);
    // A stretch ACK for three segments after the timeout: cwnd grows by one SMSS only.
    on_ack(
        &mut s,
        rto + lossrec::Duration::from_millis(100),
        ack(4 * MSS),
    );
    assert_eq!(s.cwnd(), 2 * MSS);
}

/// Linux `tcp_enter_loss`: an RTO during fast recovery keeps the recovery's ssthresh (it
/// is not lowered a second time), and a later full undo restores cwnd and ssthresh as
/// they were before the first reduction — for Reno and CUBIC alike.
#[test]
fn rto_in_recovery_keeps_ssthresh_and_undo_restores_all() {
    for cc in [CongestionControl::RenoLinux, CongestionControl::Cubic] {
        let mut c = plain(Config::linux());
        c.cc = cc;
        c.initial_cwnd = 20;
        c.probe = Probe::None;
        // Linux's exact DSACK accounting: segment 0 is retransmitted twice and no RTT
        // sample or timestamp exists, so nothing could show its original arrived
        // (`dsack_proof`, tested in sender_dsack_proof.rs); this test is about the undo.
        c.dsack_proof = false;
        let mut s = sender_with(c, 20);
        assert_eq!(sent(&mut s, ms(0)).len(), 20);
        let (cwnd0, ssthresh0) = (s.cwnd(), s.ssthresh());
        // Segment 0 missing, 1-4 SACKed: recovery (rack-linux with dupthresh evidence).
        for i in 2..=5 {
            on_ack(&mut s, ms(100), sack(0, &[(MSS, i * MSS)]));
        }
        if s.state() != RecoveryState::Recovery {
            let at = s.poll_timeout().unwrap();
            s.on_timeout(at);
        }
        assert_eq!(s.state(), RecoveryState::Recovery, "{cc}");
        drain(&mut s, ms(100));
        let ssthresh1 = s.ssthresh();
        assert!(ssthresh1 < cwnd0);
        let rto = s.poll_timeout().unwrap();
        s.on_timeout(rto);
        assert_eq!(s.state(), RecoveryState::Loss, "{cc}");
        assert_eq!(s.ssthresh(), ssthresh1, "{cc}: not lowered a second time");
        // Everything was delivered after all: a DSACK for each of the two retransmissions
        // of segment 0 (fast and timeout) proves it (Linux `undo_retrans` reaches 0).
        assert_eq!(drain(&mut s, rto).len(), 1);
        for dt in [100, 101] {
            let at = rto + lossrec::Duration::from_millis(dt);
            on_ack(&mut s, at, sack(20 * MSS, &[(0, MSS)]));
        }
        assert_eq!((s.cwnd(), s.ssthresh()), (cwnd0, ssthresh0), "{cc}");
        let _ = Flavour::Linux;
        let _ = LossDetection::RackLinux;
        let _ = Reduction::PrrLinux;
    }
}

/// RFC 8985 §7.3: after the probe the RTO is re-armed one RTO from now.
#[test]
fn rfc8985_rto_after_probe_from_now() {
    let mut c = plain(Config::rack_tlp());
    c.min_rto = lossrec::Duration::from_millis(200);
    let mut s = started(c, 4);
    let pto = s.poll_timeout().unwrap();
    assert_eq!(pto, ms(300));
    s.on_timeout(pto);
    assert_eq!(sent(&mut s, pto).len(), 1);
    let rto = s.rtt().rto();
    assert_eq!(s.timer_kind(), Some(TimerKind::Rto));
    assert_eq!(s.poll_timeout(), Some(pto + rto));
}

/// Linux `tcp_schedule_loss_probe`: with one packet out the PTO is 2·SRTT +
/// `tcp_rto_min(sk)` — the route's rto_min, not a separate max-ACK-delay constant.
#[test]
fn tlp_linux_one_packet_term_is_rto_min() {
    let mut c = plain(Config::linux());
    c.min_rto = lossrec::Duration::from_millis(40);
    c.tlp_max_ack_delay = lossrec::Duration::from_millis(200);
    let s = started(c, 2); // one segment left out after the first ACK
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    let srtt = s.rtt().srtt().unwrap();
    assert_eq!(
        s.poll_timeout(),
        Some(ms(100) + 2 * srtt + lossrec::Duration::from_millis(40))
    );
}

/// No false undo (RFC 3522 RetransmitTS, Linux `retrans_stamp`, `tcp_packet_delayed`):
/// under pure random loss — no reordering, no delay variation, nothing delivered twice
/// that was not retransmitted twice — no retransmission is ever spurious, so no preset
/// may undo a reduction. The first-retransmission timestamp must survive while a
/// retransmission is outstanding, even when a new recovery starts.
#[test]
fn no_undo_under_pure_random_loss() {
    use lossrec_testkit::pair::{transfer, RandomPath};
    let path = RandomPath::lossy(0.03, lossrec::Duration::from_millis(20));
    for preset in [
        "linux",
        "linux-3.17",
        "linux-3.17-tlp",
        "reno-sack-eifel",
        "fack-eifel",
    ] {
        let mut undos = 0;
        for seed in 0..40 {
            let cfg = Config::preset(preset).unwrap();
            let rcfg = lossrec::ReceiverConfig::default();
            let o = transfer(cfg, rcfg, 3_000 * 1448, &path, seed);
            undos += o.stats.undos;
        }
        assert_eq!(undos, 0, "{preset}");
    }
}

/// Linux RACK's RTT (`tcp_rack_advance`, called for every newly SACKed segment in
/// `tcp_sacktag_write_queue` and then for every cumulatively ACKed one in
/// `tcp_clean_rtx_queue`): `rack.rtt_us` is the sample of the last segment processed —
/// here the cumulatively ACKed originals (402 ms), not the probe that moved RACK.segment
/// (100 ms) — so segments 5-8 wait out the reordering window instead of being marked lost
/// on this ACK.
#[test]
fn rack_linux_rtt_is_the_last_processed_sample() {
    let mut s = started(plain(Config::linux()), 10);
    let pto = s.poll_timeout().unwrap();
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    s.on_timeout(pto);
    assert_eq!(
        sent(&mut s, pto),
        vec![(9, Why::Probe(lossrec::ProbeKind::Retransmit))]
    );
    let at = pto + lossrec::Duration::from_millis(100);
    on_ack(&mut s, at, sack(5 * MSS, &[(9 * MSS, 10 * MSS)]));
    assert_eq!(s.scoreboard().lost_bytes(), 0);
    assert_eq!(s.timer_kind(), Some(TimerKind::ReoTimeout));
}

/// Linux `tcp_ack`'s old-ACK path: an ACK below SND.UNA has its SACK blocks tagged and
/// `tcp_fastretrans_alert` run, but not `tcp_cong_control`: cwnd does not change.
#[test]
fn old_ack_tags_sack_but_leaves_cwnd() {
    let mut c = plain(Config::linux());
    c.probe = Probe::None;
    c.initial_cwnd = 40;
    let mut s = started(c, 60);
    // Segments 4 and 5 lost: three SACKed segments above them start recovery.
    on_ack(&mut s, ms(101), sack(4 * MSS, &[(6 * MSS, 9 * MSS)]));
    assert_eq!(s.state(), RecoveryState::Recovery);
    drain(&mut s, ms(101));
    let (cwnd, una) = (s.cwnd(), s.snd_una());
    // A reordered, older ACK arrives carrying a SACK block for more data: PRR would count
    // it as delivered and move cwnd.
    on_ack(&mut s, ms(102), sack(2 * MSS, &[(9 * MSS, 10 * MSS)]));
    assert_eq!(s.snd_una(), una);
    assert_eq!(
        s.scoreboard().sacked_bytes(),
        4 * MSS,
        "its SACK block is tagged"
    );
    assert_eq!(s.cwnd(), cwnd, "no cwnd change on an old ACK");
}

/// No duplicate head retransmission when one recovery follows another: a head whose
/// retransmission is still in flight is not forced out again (Linux's
/// `tcp_xmit_retransmit_queue` resends only lost, not-yet-retransmitted segments). Under
/// pure random loss no duplicate may come back as a DSACK and be taken for reordering.
#[test]
fn no_reordering_seen_under_pure_random_loss() {
    use lossrec_testkit::pair::{transfer, RandomPath};
    let path = RandomPath::lossy(0.03, lossrec::Duration::from_millis(20));
    for preset in [
        "linux-rh",
        "prr",
        "rfc3517",
        "linux-3.17",
        "linux",
        "rfc",
        "rack-tlp",
    ] {
        let mut seen = Vec::new();
        for seed in 0..40 {
            let cfg = Config::preset(preset).unwrap();
            let rcfg = lossrec::ReceiverConfig::default();
            let o = transfer(cfg, rcfg, 3_000 * 1448, &path, seed);
            let reordering = o.events.iter().filter(|e| {
                matches!(
                    e.kind,
                    lossrec::EventKind::Reordering { by, .. } if by != lossrec::ReorderSignal::Timestamp
                )
            });
            seen.extend(reordering.map(|e| (seed, e.at)));
        }
        assert!(seen.is_empty(), "{preset}: {seen:?}");
    }
}

/// Lost-retransmission detection of the FACK era (Linux 2.6.25–4.3
/// `tcp_mark_lost_retrans`): in Recovery, a retransmission is lost once SACKs reach above
/// the SND.NXT it was sent at and it is still not SACKed; it is resent at once
/// (`TCPLostRetransmit`) instead of waiting for the RTO.
#[test]
fn fack_era_detects_lost_retransmissions() {
    for preset in ["prr", "linux-rh", "rfc3517", "linux-3.17", "tlp-draft"] {
        let mut c = plain(Config::preset(preset).unwrap());
        c.probe = Probe::None;
        let mut s = sender_with(c, 30);
        assert_eq!(sent(&mut s, ms(0)).len(), 10);
        // Segment 0 is lost; every later segment arrives, and so does everything sent
        // after — except the retransmission of segment 0.
        let mut high = 1; // next segment to SACK
        let mut rexmits = 0;
        let mut now = ms(100);
        while rexmits < 2 && now < ms(900) {
            let out = on_ack(&mut s, now, sack(0, &[(MSS, (high + 1) * MSS)]));
            rexmits += out.iter().filter(|(i, _)| *i == 0).count();
            high = (high + 1).min(s.snd_nxt() / MSS - 1);
            now += lossrec::Duration::from_millis(5);
        }
        assert_eq!(rexmits, 2, "{preset}: segment 0 resent without an RTO");
        assert_eq!(s.stats().timeouts, 0, "{preset}");
        assert_eq!(s.stats().lost_retransmit, 1, "{preset}");
    }
}

/// Linux 4.4 removed `tcp_mark_lost_retrans` (RACK replaced it): with RACK off
/// (`tcp_recovery` = 0, seed 001 slide 6's "without RACK"), FACK recovery finds a lost
/// retransmission only by the RTO.
#[test]
fn linux_4_4_without_rack_waits_for_the_rto() {
    let mut c = plain(Config::preset("linux-4.4-norack").unwrap());
    c.probe = Probe::None;
    let mut s = sender_with(c, 30);
    assert_eq!(sent(&mut s, ms(0)).len(), 10);
    let mut high = 1;
    let mut now = ms(100);
    while now < ms(900) {
        on_ack(&mut s, now, sack(0, &[(MSS, (high + 1) * MSS)]));
        high = (high + 1).min(s.snd_nxt() / MSS - 1);
        now += lossrec::Duration::from_millis(5);
    }
    assert_eq!(s.stats().lost_retransmit, 0);
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(s.stats().timeouts, 1);
}

/// `segments` written and sent at 0 with `c`; segment 0 ACKed at 100 ms; the RTO
/// (1100 ms) fires and retransmits segment 1.
fn after_rto(c: Config, segments: u64) -> (Sender, lossrec::Instant) {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), segments * MSS);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(MSS));
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(sent(&mut s, rto), vec![(1, Why::RtoRetransmit)]);
    (s, rto)
}

fn frto_cfg(base: Config) -> Config {
    let mut c = plain(base);
    c.spurious_detection = lossrec::config::SpuriousDetection::Frto;
    c.spurious_response = lossrec::config::SpuriousResponse::Rfc4015;
    c.limited_transmit = false;
    c
}

/// RFC 5682 §3.1 step 2a: the ACK of the retransmission acknowledges everything up to
/// RecoveryPoint: conventional recovery with cwnd ≤ 2·SMSS *after* that ACK — its own
/// slow-start growth does not add to the cap.
#[test]
fn rfc5682_sack_step_2a_caps_cwnd_after_the_ack() {
    for base in [Config::rfc(), Config::linux_classic()] {
        let (mut s, rto) = after_rto(frto_cfg(base), 4);
        on_ack(
            &mut s,
            rto + lossrec::Duration::from_millis(100),
            ack(4 * MSS),
        );
        assert!(s.cwnd() <= 2 * MSS, "cwnd {}", s.cwnd());
    }
}

/// RFC 5682 §3.1 step 3a comes first: an ACK whose SACK covers data beyond RecoveryPoint
/// means the new segments arrived while the originals did not: genuine, even if the same
/// ACK also SACKs never-retransmitted data below RecoveryPoint.
#[test]
fn rfc5682_sack_step_3a_beyond_recovery_point_is_genuine() {
    let (mut s, rto) = after_rto(frto_cfg(Config::rfc()), 6);
    s.write(rto, 4 * MSS); // new data for step 2b
    let t1 = rto + lossrec::Duration::from_millis(100);
    let out = on_ack(&mut s, t1, ack(2 * MSS)); // step 2b: two new segments
    assert_eq!(out, vec![(6, Why::New), (7, Why::New)]);
    let t2 = t1 + lossrec::Duration::from_millis(100);
    on_ack(
        &mut s,
        t2,
        sack(2 * MSS, &[(6 * MSS, 8 * MSS), (3 * MSS, 4 * MSS)]),
    );
    assert_eq!((s.stats().genuine_rtos, s.stats().spurious_rtos), (1, 0));
    assert!(s.cwnd() <= 3 * MSS);
}

/// RFC 4015 §3.1 step (response): cwnd = FlightSize + min(bytes_acked, IW) on the ACK
/// that detected the spurious timeout — and that ACK does not grow it again.
#[test]
fn rfc4015_response_cwnd_not_grown_by_its_ack() {
    let mut c = plain(Config::rfc());
    c.timestamps = true;
    c.spurious_detection = lossrec::config::SpuriousDetection::Eifel;
    c.spurious_response = lossrec::config::SpuriousResponse::Rfc4015;
    let (mut s, rto) = after_rto(c, 10);
    // The originals of 1-2 arrive late: the ACK echoes their TSval (sent at 0 ms).
    let mut a = ack(3 * MSS);
    a.ts = Some(lossrec::Timestamps { val: 1, ecr: 1 });
    s.on_ack(rto + lossrec::Duration::from_millis(150), &a);
    assert_eq!(s.stats().spurious_rtos, 1);
    assert_eq!(
        s.cwnd(),
        7 * MSS + 2 * MSS,
        "FlightSize 7 + bytes_acked 2 segments"
    );
}

/// RFC 8985 §6.2 step 4: an ACK that starts a DSACK round sets reo_wnd_persist to 16;
/// the "else" — counting it down on leaving recovery — does not also run on that ACK.
#[test]
fn rfc8985_dsack_round_and_recovery_end_on_one_ack() {
    let mut s = started(plain(Config::rack_tlp()), 10);
    let out = on_ack(&mut s, ms(150), sack(MSS, &[(2 * MSS, 5 * MSS)]));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(out[0], (1, Why::RackRetransmit));
    // The ACK ending recovery was lost; the next one also reports the duplicate of 1.
    on_ack(&mut s, ms(250), sack(10 * MSS, &[(MSS, 2 * MSS)]));
    assert_eq!(s.state(), RecoveryState::Open);
    assert_eq!(
        (s.rack().reo_wnd_mult(), s.rack().reo_wnd_persist()),
        (2, 16)
    );
}

/// Seed 004's Reno-SACK (ns-2's Reno with SACK-chosen retransmissions; RFC 5681 §3.2 step
/// 6): the first ACK of new data ends fast recovery, even a partial one, with cwnd =
/// ssthresh; the second hole then waits for new duplicates — here, with FlightSize above
/// cwnd + 2 (no limited transmit), for the RTO. NewReno-SACK (RFC 6675 / RFC 6582) stays
/// in recovery and repairs it at once.
#[test]
fn reno_sack_leaves_recovery_on_a_partial_ack() {
    let run = |preset: &str| {
        let mut s = sender_with(plain(Config::preset(preset).unwrap()), 20);
        assert_eq!(sent(&mut s, ms(0)).len(), 10);
        // Segments 0 and 4 lost: three duplicates start recovery.
        for k in 2..=4 {
            on_ack(&mut s, ms(100), sack(0, &[(MSS, k * MSS)]));
        }
        assert_eq!(s.state(), RecoveryState::Recovery, "{preset}");
        // The retransmission of 0 arrives: a partial ACK up to the hole at 4.
        let out = on_ack(&mut s, ms(200), sack(4 * MSS, &[(5 * MSS, 10 * MSS)]));
        let hole_resent = out.iter().any(|&(i, _)| i == 4);
        (s, hole_resent)
    };
    let (s, resent) = run("newreno-sack");
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert!(
        resent,
        "NewReno-SACK repairs the second hole in the same recovery"
    );
    let (mut s, resent) = run("reno-sack");
    assert_ne!(
        s.state(),
        RecoveryState::Recovery,
        "the partial ACK ended recovery"
    );
    assert!(!resent);
    assert_eq!(s.cwnd(), s.ssthresh(), "RFC 5681 step 6: cwnd = ssthresh");
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    assert_eq!(s.stats().timeouts, 1);
    assert_eq!(sent(&mut s, rto).first(), Some(&(4, Why::RtoRetransmit)));
}

/// Linux `tcp_try_undo_partial`: a partial ACK in recovery whose timestamp shows the hole
/// was filled by the delayed original, not the retransmission, is reordering
/// (`tcp_check_sack_reordering(sk, prior_snd_una, 1)`): RACK learns that the path
/// reorders (`reord_seen`) and the degree — SND.FACK − the prior SND.UNA — raises
/// `tp->reordering`.
#[test]
fn timestamp_proven_reordering_teaches_rack() {
    let mut c = plain(Config::linux());
    c.timestamps = true;
    let mut s = sender_with(c, 20);
    let tx = drain(&mut s, ms(0));
    assert_eq!(tx.len(), 10);
    let tsval0 = tx[0].ts.expect("timestamps on").val;
    // Segments 1-3 SACKed at 100 ms: RACK marks segment 0 lost and retransmits it.
    s.on_ack(ms(100), &sack(0, &[(MSS, 4 * MSS)]));
    assert_eq!(s.state(), RecoveryState::Recovery);
    let rexmit = drain(&mut s, ms(100));
    assert_eq!(rexmit.first().map(|t| t.range), Some(seg(0)));
    assert!(!s.rack().reordering_seen());
    // The original arrives late: the partial ACK echoes segment 0's first TSval.
    let mut a = ack(4 * MSS);
    a.ts = Some(lossrec::Timestamps {
        val: 1,
        ecr: tsval0,
    });
    s.on_ack(ms(105), &a);
    assert!(s.rack().reordering_seen(), "RACK learns the path reorders");
    assert_eq!(
        s.reordering(),
        4,
        "SND.FACK 4 segments above the prior SND.UNA"
    );
}

/// An ACK that covers a retransmission waited for the hole to be repaired: a send-time
/// sample from the never-retransmitted segments it also covers includes that wait. Linux
/// takes none (`tcp_clean_rtx_queue`: no `seq_rtt_us` with FLAG_RETRANS_DATA_ACKED);
/// RFC 6298's Karn rule excludes only the retransmitted segments, so the RFC flavour does.
#[test]
fn no_send_time_sample_from_an_ack_that_covers_a_retransmission_linux() {
    for (preset, sampled) in [("linux", false), ("linux-3.17", false), ("rfc", true)] {
        let mut c = Config::preset(preset).unwrap();
        c.mss = MSS as u16;
        c.handshake = false;
        c.timestamps = false;
        c.sack = false;
        let mut s = Sender::new(c, ms(0)).unwrap();
        s.write(ms(0), 10 * MSS);
        drain(&mut s, ms(0));
        for _ in 0..3 {
            on_ack(&mut s, ms(100), ack(0));
        }
        assert!(s.stats().retrans_segs >= 1, "{preset}: the fast retransmit");
        assert_eq!(s.rtt().srtt(), None, "{preset}");
        on_ack(&mut s, ms(250), ack(10 * MSS));
        assert_eq!(
            s.rtt().srtt().is_some(),
            sampled,
            "{preset}: {:?}",
            s.rtt().srtt()
        );
    }
}

/// Linux's timers count jiffies and fire on the timer wheel (`timer_hz` = 250 in `linux`,
/// the kernel this project measures against): `tcp_schedule_loss_probe` arms the PTO for
/// `usecs_to_jiffies(2·SRTT + tcp_rto_min)` and `sk_reset_timer` puts `jiffies + when` in
/// a bucket of `calc_wheel_index`, which fires strictly after it at its level's
/// granularity. One segment out after the ACK at 100 ms (SRTT 100 ms, rto_min 40 ms):
/// 240 ms = 60 jiffies from jiffy 25 (level 0): expires 85, bucket 86 → 344 ms, where the
/// exact PTO (`timer_hz` = 0) is 340 ms. Before any RTT sample, the 1 s timer from 0
/// (`TCP_TIMEOUT_INIT`, 250 jiffies, level 1, granularity 8): bucket 256 → 1024 ms.
#[test]
fn linux_timers_fire_on_the_wheel() {
    let mut c = plain(Config::linux());
    c.timer_hz = 250;
    c.min_rto = lossrec::Duration::from_millis(40);
    let s = started(c.clone(), 2);
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    assert_eq!(s.poll_timeout(), Some(ms(344)));
    let mut exact = c.clone();
    exact.timer_hz = 0;
    assert_eq!(started(exact, 2).poll_timeout(), Some(ms(340)));
    let mut s = Sender::new(c.clone(), ms(0)).unwrap();
    s.write(ms(0), 2 * MSS);
    drain(&mut s, ms(0));
    assert_eq!(s.poll_timeout(), Some(ms(1024)));
    // Not Linux: no jiffies, whatever `timer_hz` says.
    let mut rfc = plain(Config::rfc());
    rfc.timer_hz = 250;
    let mut s = Sender::new(rfc, ms(0)).unwrap();
    s.write(ms(0), 2 * MSS);
    drain(&mut s, ms(0));
    assert_eq!(s.poll_timeout(), Some(ms(1000)));
}

/// Linux `tcp_init_undo` (6.10 on, 0ec986ed7bab "tcp: fix incorrect undo caused by DSACK
/// of TLP retransmit"; `tcp_enter_loss` clears `tlp_high_seq` only after it): a tail loss
/// probe's retransmission still in flight when a timeout starts the episode counts in
/// undo_retrans beside the timeout's own retransmission. The ACK that DSACKs one of the
/// two copies leaves undo_retrans at 1, so `tcp_may_undo` fails and the timeout's
/// reduction is kept (issue 23 item G: probe, RTO, then the DSACK of the second copy).
#[test]
fn tlp_in_flight_counts_in_undo_retrans_at_a_timeout() {
    let mut s = started(plain(Config::linux()), 2);
    let pto = s.poll_timeout().expect("PTO armed");
    assert_eq!(s.timer_kind(), Some(TimerKind::LossProbe));
    s.on_timeout(pto);
    assert_eq!(
        sent(&mut s, pto),
        vec![(1, Why::Probe(lossrec::ProbeKind::Retransmit))]
    );
    let rto = s.poll_timeout().expect("RTO armed");
    s.on_timeout(rto);
    assert_eq!(sent(&mut s, rto), vec![(1, Why::RtoRetransmit)]);
    assert_eq!(
        s.undo_retrans(),
        2,
        "the probe in flight + the timeout's retransmission"
    );
    let reduced = s.cwnd();
    // Both copies arrived: the ACK covers segment 1 and DSACKs it.
    let done = rto + lossrec::Duration::from_millis(100);
    s.on_ack(done, &ack(2 * MSS).with_sack(&[seg(1)]));
    assert_eq!(s.undo_retrans(), 1);
    assert_eq!(s.stats().undos, 0, "undo_retrans ≠ 0: no undo");
    assert!(
        s.cwnd() <= reduced + MSS,
        "the reduction stays: cwnd {}",
        s.cwnd()
    );
}

/// Linux `tcp_rack_reo_timeout` in Recovery: no reduction step (`tcp_cwnd_reduction` runs
/// only when the timer starts recovery), then `tcp_xmit_retransmit_queue`, which sends
/// while `tcp_packets_in_flight` < cwnd — cwnd as the last ACK's step set it. The segment
/// the timer marks lost leaves the flight, so it makes room for one more retransmission
/// (issue 23, diff p36: the kernel resends at the timer, the engine waited for an ACK).
#[test]
fn reo_timeout_in_recovery_sends_what_cwnd_allows() {
    let mut s = Sender::new(plain(Config::linux()), ms(0)).unwrap();
    s.write(ms(0), 14 * MSS);
    drain(&mut s, ms(0));
    // Segment 0 ACKed at 100 ms (SRTT 100 ms): slow start sends segments 10 and 11.
    assert_eq!(
        on_ack(&mut s, ms(100), ack(MSS)),
        vec![(10, Why::New), (11, Why::New)]
    );
    // Segment 11 SACKed at 150 ms: 1-9 (sent at 0) are lost, 10 (sent at 100) waits.
    let first = on_ack(&mut s, ms(150), sack(MSS, &[(11 * MSS, 12 * MSS)]));
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!(first, vec![(1, Why::RackRetransmit)]);
    assert_eq!(s.timer_kind(), Some(TimerKind::ReoTimeout));
    let cwnd = s.cwnd();
    assert_eq!(s.pipe(), 2 * MSS, "segment 10 and the retransmission of 1");
    assert_eq!(cwnd, 2 * MSS, "in flight (1) + sndcnt (1) at the ACK");
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    assert_eq!(s.cwnd(), cwnd, "no reduction step at a timer in Recovery");
    assert_eq!(
        sent(&mut s, at),
        vec![(2, Why::RackRetransmit)],
        "segment 10 left the flight: cwnd − in flight = 1 segment"
    );
}

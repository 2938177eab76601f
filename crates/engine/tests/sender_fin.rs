//! The FIN in sequence space, as Linux keeps it (`tcp_send_fin`): a close after the last
//! byte went out queues a bare FIN skb taking one sequence number (offset `end`); it is
//! sent under cwnd like any skb (`tcp_write_xmit` → `tcp_cwnd_test`, which has had no FIN
//! exception since Linux 6.10), sits on the retransmission queue, is retransmitted by the
//! RTO, the loss probe and loss detection, and is done when an ACK covers `end + 1`. A
//! FIN that rides on the last data segment stays with that segment.
//!
//! The receiver side (`tcp_data_queue`, `tcp_data_queue_ofo`): the FIN's sequence number
//! is part of the segment's `end_seq`, so an in-order FIN is acknowledged with `end + 1`
//! and an out-of-order one is SACKed, alone or with the data it rides on.

mod common;
use common::*;
use lossrec::{
    Ack, Config, Instant, ProbeKind, Range, Receiver, ReceiverConfig, RecoveryState, Segment,
    Sender, Transmit, Why,
};

/// The `linux` preset with the test MSS, no handshake, no timestamps.
fn linux() -> Config {
    let mut c = Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c
}

fn is_bare_fin(t: &Transmit, at: u64) -> bool {
    t.fin && t.range == r(at, at)
}

/// 10 segments written and sent (initial cwnd 10), then `close`: the bare FIN.
fn ten_then_close() -> Sender {
    let mut s = Sender::new(linux(), ms(0)).unwrap();
    s.write(ms(0), 10 * MSS);
    assert_eq!(drain(&mut s, ms(0)).len(), 10);
    s.close(ms(1));
    s
}

/// `tcp_cwnd_test`: with cwnd (10) full the bare FIN waits; the first ACK opens the
/// window and the FIN goes, taking offset `end` (SND.NXT moves past it).
#[test]
fn bare_fin_waits_for_cwnd() {
    let mut s = ten_then_close();
    assert!(drain(&mut s, ms(1)).is_empty(), "cwnd is full");
    s.on_ack(ms(100), &ack(MSS));
    let out = drain(&mut s, ms(100));
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(is_bare_fin(&out[0], 10 * MSS), "{out:?}");
    assert_eq!(
        s.scoreboard().snd_nxt(),
        10 * MSS + 1,
        "the FIN takes a sequence number"
    );
    assert_eq!(s.snd_nxt(), 10 * MSS, "the data's SND.NXT");
    assert_eq!(s.stats().data_segs_out, 10, "a bare FIN is no data segment");
}

/// The FIN is done only when an ACK covers it (`end + 1`), not with the data.
#[test]
fn bare_fin_is_acknowledged_by_end_plus_one() {
    let mut s = ten_then_close();
    s.on_ack(ms(100), &ack(10 * MSS));
    assert!(drain(&mut s, ms(100))
        .iter()
        .any(|t| is_bare_fin(t, 10 * MSS)));
    assert!(!s.is_finished(), "the FIN is outstanding");
    assert!(s.poll_timeout().is_some(), "a timer guards the FIN");
    s.on_ack(ms(200), &ack(10 * MSS + 1));
    assert!(s.is_finished());
    assert_eq!(s.poll_timeout(), None);
    assert_eq!(s.stats().ack_beyond_snd_nxt, 0);
}

/// RFC 6298 §5 / `tcp_retransmit_timer`: a lost bare FIN is retransmitted by the RTO
/// (a bare FIN again), and counted as a retransmission (`total_retrans`).
#[test]
fn lost_bare_fin_is_retransmitted_by_rto() {
    let mut c = linux();
    c.probe = lossrec::config::Probe::None;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 2 * MSS);
    drain(&mut s, ms(0));
    s.on_ack(ms(100), &ack(2 * MSS));
    s.close(ms(100));
    assert!(is_bare_fin(&drain(&mut s, ms(100))[0], 2 * MSS));
    let rto = s.poll_timeout().expect("RTO armed for the FIN");
    s.on_timeout(rto);
    let out = drain(&mut s, rto);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(is_bare_fin(&out[0], 2 * MSS), "{out:?}");
    assert_eq!(out[0].why, Why::RtoRetransmit);
    assert_eq!((s.stats().timeouts, s.stats().retrans_segs), (1, 1));
    s.on_ack(rto + lossrec::Duration::from_millis(100), &ack(2 * MSS + 1));
    assert!(s.is_finished());
}

/// `tcp_send_loss_probe`: with nothing new to send the probe retransmits the last skb on
/// the retransmission queue — the bare FIN.
#[test]
fn loss_probe_retransmits_the_bare_fin() {
    let mut s = Sender::new(linux(), ms(0)).unwrap();
    s.write(ms(0), 2 * MSS);
    drain(&mut s, ms(0));
    s.on_ack(ms(100), &ack(2 * MSS));
    s.close(ms(100));
    drain(&mut s, ms(100));
    assert_eq!(s.timer_kind(), Some(lossrec::timer::TimerKind::LossProbe));
    let pto = s.poll_timeout().unwrap();
    s.on_timeout(pto);
    let out = drain(&mut s, pto);
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(is_bare_fin(&out[0], 2 * MSS), "{out:?}");
    assert_eq!(out[0].why, Why::Probe(ProbeKind::Retransmit));
    assert_eq!(s.stats().loss_probes, 1);
}

/// The reproduce-kernel `fin_after_write` case: the last segment is lost, the FIN goes
/// after it once the window opens, and the receiver SACKs the FIN. RACK (RFC 8985 §6.2)
/// marks the segment sent before the SACKed FIN lost once the reordering window has
/// passed, and fast recovery repairs it — no probe, no RTO.
#[test]
fn sack_of_the_fin_starts_fast_recovery() {
    let mut s = ten_then_close();
    s.on_ack(ms(100), &ack(9 * MSS));
    assert!(drain(&mut s, ms(100))
        .iter()
        .any(|t| is_bare_fin(t, 10 * MSS)));
    let fin_sacked = Ack::cumulative(9 * MSS).with_sack(&[r(10 * MSS, 10 * MSS + 1)]);
    s.on_ack(ms(200), &fin_sacked);
    let mut t = ms(200);
    let mut repaired = drain(&mut s, t);
    while repaired.is_empty() {
        let d = s.poll_timeout().expect("a timer");
        assert!(
            d < ms(300),
            "RACK's reorder window, not a probe or RTO: {d:?}"
        );
        t = d;
        s.on_timeout(t);
        repaired = drain(&mut s, t);
    }
    assert_eq!(repaired[0].range, seg(9), "{repaired:?}");
    assert_eq!(repaired[0].why, Why::RackRetransmit);
    assert_eq!(s.state(), RecoveryState::Recovery);
    assert_eq!((s.stats().loss_probes, s.stats().timeouts), (0, 0));
    s.on_ack(t + lossrec::Duration::from_millis(100), &ack(10 * MSS + 1));
    assert!(s.is_finished());
}

/// A FIN on the last data segment is that segment's: an ACK of `end + 1` acknowledges
/// both (nothing beyond SND.NXT), and nothing follows.
#[test]
fn piggybacked_fin_stays_with_the_data() {
    let mut s = sender_with(linux(), 2);
    let out = drain(&mut s, ms(0));
    assert!(out[1].fin && out[1].range == seg(1));
    s.on_ack(ms(100), &ack(2 * MSS + 1));
    assert!(s.is_finished());
    assert_eq!(s.stats().ack_beyond_snd_nxt, 0);
    assert!(drain(&mut s, ms(100)).is_empty());
}

// ---- the receiver ----

fn rx() -> Receiver {
    Receiver::new(
        ReceiverConfig {
            delayed_ack: None,
            window_model: lossrec::receiver::WindowModel::Fixed,
            ..ReceiverConfig::default()
        },
        Instant::ZERO,
    )
}

fn data(a: u64, b: u64, fin: bool) -> Segment {
    Segment {
        range: Range::new(a, b),
        fin,
        ..Segment::default()
    }
}

fn feed(rx: &mut Receiver, s: Segment) -> Ack {
    rx.on_segment(ms(1), &s);
    let acks: Vec<Ack> = std::iter::from_fn(|| rx.poll_ack(ms(1))).collect();
    *acks.last().expect("an ACK")
}

/// `tcp_data_queue` → `tcp_fin`: an in-order FIN is acknowledged (RCV.NXT = end + 1);
/// the application got the bytes only.
#[test]
fn in_order_fin_is_acknowledged() {
    let mut rx = rx();
    assert_eq!(feed(&mut rx, data(0, 100, true)).cumulative, 101);
    assert!(rx.fin_received());
    assert_eq!(rx.delivered(), 100);
    let mut rx2 = self::rx();
    feed(&mut rx2, data(0, 100, false));
    assert_eq!(
        feed(&mut rx2, data(100, 100, true)).cumulative,
        101,
        "bare FIN"
    );
    assert_eq!((rx2.delivered(), rx2.stats().bytes_in), (100, 100));
}

/// `tcp_data_queue_ofo` → `tcp_sack_new_ofo_skb(sk, seq, end_seq)`: a FIN above a hole
/// is SACKed with its sequence number — alone, or with the data it rides on — and
/// acknowledged once the hole fills.
#[test]
fn out_of_order_fin_is_sacked() {
    let mut rx = rx();
    feed(&mut rx, data(0, 100, false));
    let a = feed(&mut rx, data(200, 200, true));
    assert_eq!(a.cumulative, 100);
    assert_eq!(a.sack_blocks(), &[r(200, 201)], "a bare FIN alone");
    assert!(!rx.fin_received());
    let a = feed(&mut rx, data(150, 200, false));
    assert_eq!(
        a.sack_blocks(),
        &[r(150, 201)],
        "the data below joins the FIN's block"
    );
    let a = feed(&mut rx, data(100, 150, false));
    assert_eq!((a.cumulative, a.sack_blocks().len()), (201, 0));
    assert!(rx.fin_received());
    assert_eq!(rx.delivered(), 200);

    let mut rx = self::rx();
    let a = feed(&mut rx, data(100, 200, true));
    assert_eq!(a.sack_blocks(), &[r(100, 201)], "data with its FIN");
}

/// A retransmitted FIN that already arrived is a duplicate: D-SACKed (RFC 2883) with its
/// sequence number, as `tcp_data_queue` → `tcp_dsack_set(seq, end_seq)` does.
#[test]
fn duplicate_fin_is_dsacked() {
    let mut rx = rx();
    feed(&mut rx, data(0, 100, false));
    feed(&mut rx, data(100, 100, true));
    let a = feed(&mut rx, data(100, 100, true));
    assert_eq!((a.cumulative, a.dsack()), (101, Some(r(100, 101))));
    assert_eq!(rx.stats().bytes_in, 100);
}

/// The pair closes: the engine's sender and receiver through a lossless exchange with a
/// bare FIN — the FIN is acknowledged and the sender finishes.
#[test]
fn sender_and_receiver_agree_on_the_fin() {
    let mut s = Sender::new(linux(), ms(0)).unwrap();
    s.write(ms(0), 10 * MSS);
    let mut rx = rx();
    let mut now = ms(0);
    for round in 0..20 {
        let out = drain(&mut s, now);
        if round == 0 {
            s.close(now); // after the write went out: the FIN goes on its own
        }
        now += lossrec::Duration::from_millis(50);
        for t in out {
            rx.on_segment(now, &data(t.range.start, t.range.end, t.fin));
        }
        let acks: Vec<Ack> = std::iter::from_fn(|| rx.poll_ack(now)).collect();
        now += lossrec::Duration::from_millis(50);
        for a in acks {
            s.on_ack(now, &a);
        }
        if s.is_finished() {
            break;
        }
    }
    assert!(s.is_finished());
    assert!(rx.fin_received());
    assert_eq!(s.stats().retrans_segs, 0);
}

//! Misbehaving receivers gain nothing (issue 13 items 1 and 3; Savage et al., CCR 1999):
//! duplicate ACKs without SACK are credited at most once per segment outstanding (Linux
//! `tcp_limit_reno_sacked`, RFC 9937 §6's cap of the non-SACK DeliveredData at RecoverFS)
//! and an ACK covering part of a segment is not worth a segment (RFC 3465; Linux counts
//! segments fully acknowledged, `tcp_clean_rtx_queue`).

mod common;
use common::*;
use lossrec::{Config, Sender};

fn no_sack(mut c: Config) -> Config {
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.sack = false;
    c.probe = lossrec::config::Probe::None;
    c
}

/// A non-SACK sender with timestamps and `iw` segments out at 0 ms; returns it with the
/// TSval those segments carry.
fn timestamped(preset: &str, iw: u32) -> (Sender, u64) {
    let mut c = no_sack(Config::preset(preset).unwrap());
    c.timestamps = true;
    c.initial_cwnd = iw;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 10_000 * MSS);
    let first = drain(&mut s, ms(0));
    (s, first[0].ts.expect("timestamps on").val)
}

/// `a` echoing `ecr` (the receiver's own TSval is irrelevant here).
fn echoing(a: lossrec::Ack, ecr: u64) -> lossrec::Ack {
    lossrec::Ack {
        ts: Some(lossrec::Timestamps { val: 1, ecr }),
        ..a
    }
}

/// Ten segments out, the first lost; the receiver repeats its duplicate ACK `dups` times.
/// Returns the new segments sent in response to the duplicates.
fn spoofed_dupacks(c: Config, dups: u64) -> u64 {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 10_000 * MSS);
    drain(&mut s, ms(0));
    let before = s.snd_nxt();
    for k in 0..dups {
        on_ack(&mut s, ms(100 + k / 100), ack(0));
    }
    (s.snd_nxt() - before) / MSS
}

/// RFC 5681 §3.2 / RFC 6582 §3.2 inflate cwnd per duplicate ACK; never by more duplicates
/// than segments were outstanding (9 above the hole here), whatever the receiver repeats.
#[test]
fn duplicate_acks_beyond_the_flight_inflate_nothing() {
    for preset in ["rfc", "prr", "linux", "rack-tlp", "linux-rh"] {
        // The budget is a defence beyond the stacks (`dupack_budget`, on with `hardened`).
        let c = no_sack(Config::preset(preset).unwrap()).hardened();
        let honest = spoofed_dupacks(c.clone(), 9);
        let spoofed = spoofed_dupacks(c, 1_000);
        assert!(
            spoofed <= honest.max(9) + 1,
            "{preset}: 1000 duplicate ACKs for 10 segments released {spoofed} new segments \
             (9 duplicates: {honest})"
        );
    }
}

/// A receiver cutting each ACK into ten slices in fast recovery (no SACK): the slices are
/// worth what one ACK of the same bytes is worth: the new data released plus the window
/// left afterwards. (Retransmissions of each newly exposed head follow RFC 6582 §3.2 step
/// 5 and Linux's `tcp_newreno_mark_lost` and are not counted: they gain the receiver nothing.)
fn divided_recovery(c: Config, pieces: u64) -> u64 {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 10_000 * MSS);
    drain(&mut s, ms(0));
    // Segments 0 and 5 lost: three duplicates start recovery, six in all.
    for _ in 0..4 {
        on_ack(&mut s, ms(100), ack(0));
    }
    drain(&mut s, ms(100));
    let before = s.snd_nxt();
    // The retransmission of 0 arrives: the partial ACK covers 0..5 (five segments).
    for k in 1..=pieces {
        on_ack(&mut s, ms(200), ack(5 * MSS * k / pieces));
    }
    s.snd_nxt() - before + s.cwnd()
}

#[test]
fn divided_partial_acks_are_worth_one() {
    for preset in ["rfc", "prr", "linux", "rack-tlp", "linux-classic"] {
        let c = no_sack(Config::preset(preset).unwrap());
        let whole = divided_recovery(c.clone(), 1);
        let divided = divided_recovery(c, 50);
        assert!(
            divided <= whole + MSS,
            "{preset}: a partial ACK cut in 50 released {divided} bytes, whole {whole}"
        );
    }
}

/// Slow start: an ACK of one segment divided into ten grows cwnd by at most one segment
/// (RFC 3465 §2.2 with L = 1 per ACK: bytes, not ACKs, count).
#[test]
fn divided_acks_in_slow_start_grow_by_bytes() {
    for preset in ["rfc", "prr", "linux", "rack-tlp"] {
        for sack in [true, false] {
            let mut c = no_sack(Config::preset(preset).unwrap());
            c.sack = sack;
            let mut s = Sender::new(c, ms(0)).unwrap();
            s.write(ms(0), 10_000 * MSS);
            drain(&mut s, ms(0));
            let cwnd = s.cwnd();
            for k in 1..=10 {
                on_ack(&mut s, ms(100), ack(k * 100));
            }
            assert!(
                s.cwnd() <= cwnd + MSS,
                "{preset} sack={sack}: one segment's ACK in ten slices grew cwnd {cwnd} → {}",
                s.cwnd()
            );
        }
    }
}

/// Linux `tcp_check_reno_reordering` (called from `tcp_add_reno_sack` and
/// `tcp_remove_reno_sacks`): more duplicate ACKs than segments outstanding beyond the hole
/// (`tcp_limit_reno_sacked` had to clamp `sacked_out`) are read as reordering, and
/// `tp->reordering` becomes `packets_out` (+ the segments the ACK covered), so later
/// duplicates no longer reach the threshold. An honest receiver never sends them: each
/// duplicate stands for a segment received above the hole.
#[test]
fn linux_reads_duplicates_beyond_the_flight_as_reordering() {
    for preset in ["linux", "linux-3.17", "linux-4.4-norack"] {
        // With the duplicate-ACK budget (`hardened`) the spoofed copies release no new
        // data, so the flight stays and the clamp is reached once.
        let c = no_sack(Config::preset(preset).unwrap()).hardened();
        let mut s = Sender::new(c, ms(0)).unwrap();
        s.write(ms(0), 10_000 * MSS);
        drain(&mut s, ms(0));
        // An honest flight's worth of duplicates (nine above the hole) leaves it alone.
        for _ in 0..9 {
            on_ack(&mut s, ms(100), ack(0));
        }
        assert_eq!(
            s.reordering(),
            3,
            "{preset}: nine duplicates for ten segments"
        );
        let mut flight = 0;
        for k in 0..200 {
            flight = s.flight_size() / MSS;
            on_ack(&mut s, ms(101 + k), ack(0));
            if s.reordering() != 3 {
                break;
            }
        }
        assert_eq!(
            u64::from(s.reordering()),
            flight,
            "{preset}: tp->reordering = packets_out"
        );
        assert_eq!(s.stats().reno_reorder, 1, "{preset}: TCPRenoReorder");
    }
}

/// A duplicate ACK is caused by a segment arriving above the hole, so only a segment still
/// outstanding can cause one (`detect::ack_budget`). A delayed-ACK receiver leaves one
/// ACK unused per two segments; once those segments are cumulatively acknowledged the
/// unused ACKs cannot come any more, and must not pay for a spoofer's copies later.
#[test]
fn unused_acks_of_acknowledged_segments_pay_for_no_duplicates() {
    for preset in ["rfc", "linux", "linux-3.17", "reno-sack-eifel"] {
        // `detect::ack_budget` is `dupack_budget`, on with `hardened`.
        let c = no_sack(Config::preset(preset).unwrap()).hardened();
        let mut s = Sender::new(c, ms(0)).unwrap();
        s.write(ms(0), 20 * MSS);
        drain(&mut s, ms(0));
        // Twenty segments, one ACK per two: ten ACKs, the flight fully acknowledged.
        for k in 1..=10 {
            on_ack(&mut s, ms(100 + k), ack(2 * k * MSS));
        }
        assert_eq!(s.flight_size(), 0, "{preset}");
        s.write(ms(200), 10 * MSS);
        drain(&mut s, ms(200));
        for _ in 0..30 {
            on_ack(&mut s, ms(300), ack(20 * MSS));
        }
        // One per transmission outstanding: the ten, and every segment sent since.
        let since = (s.snd_nxt() - 30 * MSS) / MSS + s.stats().retrans_segs;
        assert!(
            u64::from(s.dupacks()) <= 10 + since,
            "{preset}: {} duplicates counted for 10 segments outstanding and {since} sent since",
            s.dupacks()
        );
    }
}

/// A spurious fast retransmit without SACK, found by Eifel (RFC 3522: the partial ACK
/// echoes the original's timestamp), is undone to the window the connection had — not to
/// the window NewReno's duplicates inflated in the meantime (RFC 5681 §3.2 step 4 calls
/// that inflation artificial; it only clocks out segments while the hole is repaired).
#[test]
fn an_undo_does_not_keep_the_inflation() {
    for preset in ["reno-sack-eifel", "newreno-sack-eifel"] {
        let (mut s, tsval) = timestamped(preset, 10);
        let cwnd = s.cwnd();
        let with_echo = |a| echoing(a, tsval);
        // Nine duplicates (spoofed or reordered), then the original of segment 0 arrives.
        for _ in 0..9 {
            on_ack(&mut s, ms(100), with_echo(ack(0)));
        }
        on_ack(&mut s, ms(101), with_echo(ack(MSS)));
        assert_eq!(
            s.stats().undos,
            1,
            "{preset}: Eifel found the retransmission spurious"
        );
        assert!(
            s.cwnd() <= cwnd + MSS,
            "{preset}: undone to {} from {cwnd} before the episode",
            s.cwnd()
        );
    }
}

/// The same with PRR (Linux presets): a spoofer's copies start a recovery on every ACK,
/// the timestamps undo each one (`tcp_try_undo_partial`), and the undo must not keep a
/// window PRR computed from duplicates alone (cwnd = pipe + sndcnt, with pipe swollen by
/// the previous episode's sends). Linux's `sacked_out` survives the undo and keeps its
/// in-flight estimate down; here the undo restores the window it had.
#[test]
fn undone_recoveries_do_not_ratchet_the_window() {
    for preset in ["linux", "linux-3.17", "linux-4.4-norack"] {
        let (mut s, tsval) = timestamped(preset, 40);
        let cwnd = s.cwnd();
        let with_echo = |a| echoing(a, tsval);
        for round in 1..=4 {
            for _ in 0..9 {
                on_ack(&mut s, ms(100 + round), with_echo(ack((round - 1) * MSS)));
            }
            on_ack(&mut s, ms(100 + round), with_echo(ack(round * MSS)));
        }
        assert!(s.stats().undos >= 2, "{preset}: {:?}", s.stats().undos);
        // Four ACKs of one segment each grow an honest slow start by four segments.
        assert!(
            s.cwnd() <= cwnd + 4 * MSS,
            "{preset}: {} after four undone recoveries, from {cwnd}",
            s.cwnd()
        );
    }
}

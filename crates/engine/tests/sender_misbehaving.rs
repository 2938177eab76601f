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
        let c = no_sack(Config::preset(preset).unwrap());
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

//! Nonsense from the peer never sets the sender's state (issue 13): RTT samples only from
//! echoes of timestamps this sender sent (RFC 7323 §4), windows bounded by what the wire
//! can express (RFC 7323 §2.3), and a minimum MSS (Linux `tcp_min_snd_mss`).

mod common;
use common::*;
use lossrec::{Ack, Config, Sender, SynOptions, Timestamps};

/// RFC 7323 §4 (and Linux's checks in `tcp_ack_update_rtt`): an echo older than anything
/// the ACK acknowledges was never sent for it; it gives no RTT sample (the send-time
/// sample of a never-retransmitted segment stands instead), so the RTO stays near the
/// true RTT instead of jumping to its maximum.
#[test]
fn bogus_timestamp_echo_gives_no_rtt_sample() {
    let mut c = cfg();
    c.timestamps = true;
    let mut s = Sender::new(c, ms(1_000)).unwrap();
    s.write(ms(1_000), 4 * MSS);
    drain(&mut s, ms(1_000));
    let mut a = ack(MSS);
    a.ts = Some(Timestamps { val: 7, ecr: 1 }); // "sent" at time 0
    s.on_ack(ms(1_100), &a);
    assert_eq!(s.rtt().srtt(), Some(lossrec::Duration::from_millis(100)));
    assert!(s.rtt().rto() <= lossrec::Duration::from_secs(1));
}

/// RFC 7323 §2.3: the largest window a peer can announce is 65535 · 2^14 bytes. A
/// window beyond it (an engine user passing garbage) is capped, never overflows
/// SND.UNA + window, and the sender keeps sending.
#[test]
fn huge_window_is_capped() {
    let mut s = sender_with(cfg(), 20);
    drain(&mut s, ms(0));
    let a = Ack {
        window: u64::MAX,
        ..ack(MSS)
    };
    let out = on_ack(&mut s, ms(100), a);
    assert!(!out.is_empty(), "still sending");
    let a = Ack {
        window: u64::MAX - 5,
        ..ack(2 * MSS)
    };
    on_ack(&mut s, ms(101), a);
    assert!(s.snd_nxt() > 11 * MSS);
}

/// Linux `tcp_min_snd_mss` (48 bytes): a peer announcing MSS 1 gets 48-byte segments,
/// not a million one-byte ones.
#[test]
fn tiny_peer_mss_is_raised_to_48() {
    let mut c = Config::rfc();
    c.timestamps = false;
    let mut s = Sender::new_passive(c, ms(0)).unwrap();
    let syn = SynOptions {
        ecn: false,
        mss: 1,
        sack_permitted: true,
        timestamps: false,
        window_scale: Some(7),
    };
    s.on_syn(ms(0), &syn, None);
    assert_eq!(s.mss(), 48);
}

/// Issue 13 item 2 (Linux `undo_retrans`): each retransmission may be proven spurious
/// once. Segments 0 and 5 are really lost and retransmitted; a receiver replaying the
/// one genuine-looking DSACK for segment 0 must not undo the reduction.
#[test]
fn replayed_dsack_proves_nothing_twice() {
    let mut c = lossrec::Config::linux();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.probe = lossrec::config::Probe::None;
    let mut s = sender_with(c, 20);
    drain(&mut s, ms(0));
    on_ack(&mut s, ms(100), ack(0)); // nothing yet
                                     // Segments 0 and 5 lost; the rest SACKed: recovery, both retransmitted.
    for k in [2, 3, 4, 5] {
        on_ack(&mut s, ms(100), sack(0, &[(MSS, k * MSS)]));
    }
    for k in 7..=20 {
        on_ack(
            &mut s,
            ms(101),
            sack(0, &[(6 * MSS, k * MSS), (MSS, 5 * MSS)]),
        );
    }
    drain(&mut s, ms(101));
    assert!(s.stats().retrans_segs >= 2, "{:?}", s.stats());
    let (cwnd, ssthresh) = (s.cwnd(), s.ssthresh());
    // The attacker: the retransmission of 0 arrives and is ACKed, then the same DSACK for
    // segment 0 over and over.
    on_ack(&mut s, ms(200), sack(5 * MSS, &[(6 * MSS, 20 * MSS)]));
    for t in 0..10 {
        on_ack(
            &mut s,
            ms(201 + t),
            sack(5 * MSS, &[(0, MSS), (6 * MSS, 20 * MSS)]),
        );
    }
    assert_eq!(
        s.stats().undos,
        0,
        "a replayed DSACK undid a genuine loss response"
    );
    assert!(s.ssthresh() <= ssthresh && s.cwnd() <= cwnd.max(s.cwnd()));
}

/// A receiver that reneges — discards data it SACKed (RFC 2018 §8 lets it) — is repaired
/// by the timeout: Linux `tcp_timeout_mark_lost` sees the head SACKed, clears every SACK
/// mark and marks everything lost (`TCPSACKReneging`). Kept marks leave nothing the
/// sender may resend, and the connection retries its timer forever.
#[test]
fn a_reneging_receiver_is_repaired_by_the_timeout() {
    for preset in ["rfc", "linux", "rack-tlp", "prr", "reno-sack"] {
        let mut c = Config::preset(preset).unwrap();
        c.mss = MSS as u16;
        c.handshake = false;
        c.timestamps = false;
        let mut s = sender_with(c, 10);
        drain(&mut s, ms(0));
        // Segment 0 lost, 1..9 SACKed; its retransmission is acknowledged, but the
        // receiver has thrown 1..9 away: the cumulative ACK stops at segment 1.
        for t in 0..3 {
            on_ack(&mut s, ms(100 + t), sack_segs(0, 1, 10));
        }
        drain(&mut s, ms(110));
        on_ack(&mut s, ms(210), ack(MSS));
        let mut now = ms(210);
        let mut resent = Vec::new();
        for _ in 0..3 {
            now = s.poll_timeout().expect("a timer while data is outstanding");
            s.on_timeout(now);
            resent.extend(sent(&mut s, now));
            if !resent.is_empty() {
                break;
            }
        }
        assert_eq!(
            resent.first().map(|&(i, _)| i),
            Some(1),
            "{preset}: the reneged head goes out again"
        );
        assert_eq!(s.stats().sack_reneging, 1, "{preset}");
        // The receiver takes it, and the rest as the window reopens.
        let mut cum = 2;
        while cum < 10 && now < ms(60_000) {
            on_ack(&mut s, now, ack(cum * MSS));
            let out = sent(&mut s, now);
            assert!(out.iter().all(|&(i, _)| i >= cum), "{preset}: {out:?}");
            cum = out
                .iter()
                .map(|&(i, _)| i + 1)
                .max()
                .unwrap_or(cum)
                .max(cum + 1);
            now += lossrec::Duration::from_millis(100);
        }
        assert_eq!(cum, 10, "{preset}: everything repaired");
    }
}

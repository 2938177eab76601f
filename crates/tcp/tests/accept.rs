//! The acceptance rules as a table: one synchronised connection, one segment per row,
//! the verdict RFC 793 / RFC 5961 and Linux's `tcp_validate_incoming` give it.

use lossrec::Instant;
use lossrec_tcp::accept::{
    accept, reply_allowed, AcceptStats, Drop, OowLimit, Reply, Seg, Tcb, Verdict,
};

/// ISS 1000, IRS 5000; 20 000 bytes sent, 10 000 acknowledged; the peer sent 300 bytes;
/// we announced 65 535 bytes at RCV.NXT; the peer's window peaked at 30 000.
fn tcb() -> Tcb {
    Tcb {
        iss: 1000,
        irs: Some(5000),
        rcv_nxt: 5301,
        rcv_wup: 5301,
        rcv_wnd: 65_535,
        snd_una: 11_001,
        snd_nxt: 21_001,
        max_window: 30_000,
        fin_in: false,
    }
}

fn seg(seq: u32, ack: Option<u32>) -> Seg {
    Seg {
        seq,
        ack,
        ..Seg::default()
    }
}

const CHALLENGE: Reply = Reply::Challenge;

#[test]
fn synchronised_connection_table() {
    let far = 5301u32.wrapping_add(1 << 31);
    let syn = |seq, ack| Seg {
        syn: true,
        ..seg(seq, ack)
    };
    let rst = |seq| Seg {
        rst: true,
        ..seg(seq, Some(11_001))
    };
    let d = |why, reply| Verdict::Drop { why, reply };
    let rows: &[(&str, Seg, Verdict)] = &[
        ("in-order ACK", seg(5301, Some(15_001)), Verdict::Accept),
        (
            "ACK of everything sent",
            seg(5301, Some(21_001)),
            Verdict::Accept,
        ),
        (
            "old ACK within MAX.SND.WND",
            seg(5301, Some(1001)),
            Verdict::Accept,
        ),
        (
            "retransmitted SYN-ACK, same ISN",
            syn(5000, Some(1001)),
            Verdict::SameSyn,
        ),
        (
            "SYN-ACK, another ISN",
            syn(77, Some(1001)),
            d(Drop::Syn, CHALLENGE),
        ),
        (
            "SYN, another ISN, in window",
            syn(5400, None),
            d(Drop::Syn, CHALLENGE),
        ),
        (
            "SYN, another ISN, far",
            syn(far, None),
            d(Drop::Syn, CHALLENGE),
        ),
        ("RST at RCV.NXT", rst(5301), Verdict::Reset),
        ("RST in window", rst(5302), d(Drop::RstInWindow, CHALLENGE)),
        (
            "RST at the right edge",
            rst(5301 + 65_535),
            d(Drop::RstInWindow, CHALLENGE),
        ),
        (
            "RST past the right edge",
            rst(5301 + 65_536),
            d(Drop::RstOutOfWindow, Reply::None),
        ),
        (
            "RST below RCV.NXT",
            rst(5300),
            d(Drop::RstOutOfWindow, Reply::None),
        ),
        ("RST far", rst(far), d(Drop::RstOutOfWindow, Reply::None)),
        (
            "pure ACK far",
            seg(far, Some(15_001)),
            d(Drop::OutOfWindow, Reply::DupAck { limited: true }),
        ),
        (
            "data wholly below the window",
            Seg {
                len: 100,
                ..seg(5000, Some(15_001))
            },
            d(Drop::OutOfWindow, Reply::DupAck { limited: false }),
        ),
        (
            "data ending at RCV.NXT (a retransmission: Linux keeps it for its DSACK)",
            Seg {
                len: 300,
                ..seg(5001, Some(15_001))
            },
            Verdict::Accept,
        ),
        (
            "ACK of data never sent",
            seg(5301, Some(21_002)),
            d(Drop::AckUnsent, Reply::None),
        ),
        (
            "ACK far below SND.UNA",
            seg(5301, Some(11_001u32.wrapping_sub(1 << 30))),
            d(Drop::AckTooOld, CHALLENGE),
        ),
        (
            "no ACK, SYN or RST",
            seg(5301, None),
            d(Drop::Flags, Reply::None),
        ),
    ];
    for (what, s, want) in rows {
        assert_eq!(accept(&tcb(), s), *want, "{what}");
    }
}

#[test]
fn after_the_peers_fin_an_rst_at_rcv_nxt_minus_one_resets() {
    // Linux `tcp_reset_check`: in CLOSE-WAIT the peer may reset from its FIN's number.
    let t = Tcb {
        rcv_nxt: 5302,
        rcv_wup: 5302,
        fin_in: true,
        ..tcb()
    };
    let rst = Seg {
        rst: true,
        ..seg(5301, Some(11_001))
    };
    assert_eq!(accept(&t, &rst), Verdict::Reset);
    assert_eq!(
        accept(&Tcb { fin_in: false, ..t }, &rst),
        Verdict::Drop {
            why: Drop::RstOutOfWindow,
            reply: Reply::None
        }
    );
}

#[test]
fn too_old_is_bounded_by_the_bytes_acknowledged() {
    // Linux `tcp_ack`: max_window = min(max_window, bytes_acked): with only the SYN
    // acknowledged, an ACK below SND.UNA − 1 is too old.
    let t = Tcb {
        snd_una: 1001,
        snd_nxt: 1001,
        ..tcb()
    };
    assert_eq!(accept(&t, &seg(5301, Some(1000))), Verdict::Accept);
    assert_eq!(
        accept(&t, &seg(5301, Some(999))),
        Verdict::Drop {
            why: Drop::AckTooOld,
            reply: CHALLENGE
        }
    );
}

#[test]
fn syn_sent_takes_only_a_syn_ack_of_our_syn() {
    let t = Tcb {
        irs: None,
        snd_una: 1000,
        snd_nxt: 1001,
        ..Tcb::default()
    };
    let t = Tcb { iss: 1000, ..t };
    let syn_ack = |ack| Seg {
        syn: true,
        ..seg(5000, Some(ack))
    };
    assert_eq!(accept(&t, &syn_ack(1001)), Verdict::Accept);
    assert!(matches!(
        accept(&t, &syn_ack(1002)),
        Verdict::Drop {
            why: Drop::AckUnsent,
            ..
        }
    ));
    let rst = Seg {
        rst: true,
        ..seg(5000, None)
    };
    assert!(matches!(accept(&t, &rst), Verdict::Drop { .. }));
}

#[test]
fn invalid_segment_acks_are_limited_to_one_per_500_ms_except_for_data() {
    let mut l = OowLimit::default();
    let ms = |m: u64| Instant::from_nanos(m * 1_000_000);
    let ch = Verdict::Drop {
        why: Drop::Syn,
        reply: CHALLENGE,
    };
    let data = Verdict::Drop {
        why: Drop::OutOfWindow,
        reply: Reply::DupAck { limited: false },
    };
    let mut st = AcceptStats::default();
    for (t, v, want) in [
        (0, ch, true),
        (100, ch, false),
        (200, data, true),
        (499, ch, false),
        (500, ch, true),
        (999, ch, false),
    ] {
        let sent = reply_allowed(&v, &mut l, ms(t));
        assert_eq!(sent, want, "at {t} ms");
        st.count(&v, sent);
    }
    assert_eq!(
        (st.syn_challenge, st.challenge_acks, st.challenge_skipped),
        (5, 2, 3)
    );
    assert_eq!(st.out_of_window, 1);
    assert_eq!(AcceptStats::NAMES.len(), st.iter().count());
}

//! Counters with Linux's meaning (`/proc/net/netstat` names), where a study or the
//! engine-vs-kernel comparison reads them.

mod common;
use common::*;
use lossrec::Why;

/// `TCPSlowStartRetrans` counts the retransmissions of the slow start that follows a
/// timeout (`tcp_xmit_retransmit_queue` in `TCP_CA_Loss`), not the timeout's own
/// retransmission of the head (`tcp_retransmit_timer` → `tcp_retransmit_skb`, counted only
/// under `TCPTimeouts`); `RetransSegs` counts both.
#[test]
fn slow_start_retrans_leaves_out_the_timers_own_retransmission() {
    let mut s = sender_with(cfg(), 4);
    assert_eq!(sent(&mut s, ms(0)).len(), 4);
    let at = s.poll_timeout().unwrap();
    s.on_timeout(at);
    assert_eq!(sent(&mut s, at), vec![(0, Why::RtoRetransmit)]);
    assert_eq!(s.stats().get("TCPTimeouts"), Some(1));
    assert_eq!(
        s.stats().slow_start_retrans,
        0,
        "the timer's own is not one"
    );
    let later = at + lossrec::Duration::from_millis(100);
    assert_eq!(
        on_ack(&mut s, later, ack(MSS)),
        vec![(1, Why::RtoRetransmit), (2, Why::RtoRetransmit)]
    );
    assert_eq!(s.stats().slow_start_retrans, 2);
    assert_eq!(s.stats().retrans_segs, 3);
}

//! Issue #27 item 6: what an embedder must not miss is visible as a value — a stopped
//! sender (`Sender::is_stopped` and an `OptAckDetected` event) and a rejected ACK (an
//! `AckRejected` event), not only as counters.

mod common;
use common::*;
use lossrec::{EventKind, Sender};

fn events(s: &mut Sender) -> Vec<EventKind> {
    std::iter::from_fn(|| s.poll_event())
        .map(|e| e.kind)
        .collect()
}

/// RFC 9293 §3.10.7.4: an ACK for data not yet sent is dropped; the caller sees an
/// `AckRejected` event naming what it acknowledged and SND.NXT, and nothing else changes.
#[test]
fn an_ack_beyond_snd_nxt_is_an_event() {
    let (mut s, first) = started(cfg(), 20);
    let snd_nxt = first.last().unwrap().range.end;
    let _ = events(&mut s);
    s.on_ack(ms(10), &ack(snd_nxt + 5 * MSS));
    assert_eq!(s.stats().ack_beyond_snd_nxt, 1);
    assert_eq!(
        events(&mut s),
        vec![EventKind::AckRejected {
            cumulative: snd_nxt + 5 * MSS,
            snd_nxt
        }]
    );
    assert_eq!(s.snd_una(), 0);
    assert!(!s.is_stopped());
    assert_eq!(
        EventKind::AckRejected {
            cumulative: 0,
            snd_nxt: 0
        }
        .name(),
        "ack_rejected"
    );
}

/// A sender whose optimistic-ACK defence fired reports `is_stopped()`, and the event, so
/// a driver that sees `poll_transmit` return `None` can tell "stopped" from "waiting".
#[test]
fn a_stopped_sender_says_so() {
    let mut c = cfg();
    c.set("optack_defence", "skip-segment").unwrap();
    c.set("optack_skip_interval", "4").unwrap();
    c.initial_cwnd = 40;
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.set_seed(1);
    s.write(ms(0), 100 * MSS);
    let mut high = 0;
    let held = loop {
        let t = s.poll_transmit(ms(0)).expect("a skip within 40 segments");
        if t.range.start > high {
            break high;
        }
        high = t.range.end;
    };
    assert!(!s.is_stopped());
    s.on_ack(ms(10), &ack(held + MSS));
    assert!(s.is_stopped());
    assert_eq!(s.poll_transmit(ms(10)), None);
    assert!(events(&mut s).contains(&EventKind::OptAckDetected {
        start: held,
        end: held + MSS
    }));
}

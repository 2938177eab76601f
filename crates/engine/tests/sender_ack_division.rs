//! ACK division (Savage, Cardwell, Wetherall, Anderson, CCR 1999 §2.1) without SACK: a
//! receiver that cuts each cumulative ACK into slices gains nothing, and loses nothing it
//! is owed. Slices are ACKs of new data: byte counting (RFC 3465) and Linux's packet
//! counting (`tcp_clean_rtx_queue`) make them worth what the whole ACK is worth, and they
//! take nothing from the duplicate ACKs that follow a loss (RFC 5681 §3.2, Linux
//! `tcp_fastretrans_alert`: a duplicate is any ACK that does not advance SND.UNA).

mod common;
use common::*;
use lossrec::{Config, Sender, Why};

fn no_sack(preset: &str) -> Config {
    let mut c = Config::preset(preset).unwrap();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.sack = false;
    c.probe = lossrec::config::Probe::None;
    c
}

/// Ten segments out; the receiver acknowledges the first five, each in `pieces` slices,
/// then segment 5 is lost and the next three segments arrive. Returns the segments sent
/// in response to those three duplicate ACKs.
fn dupacks_after_division(c: Config, pieces: u64) -> Vec<(u64, Why)> {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), 1_000 * MSS);
    drain(&mut s, ms(0));
    for i in 0..5 {
        for k in 1..=pieces {
            on_ack(&mut s, ms(100), ack(i * MSS + MSS * k / pieces));
        }
    }
    (0..3)
        .flat_map(|_| on_ack(&mut s, ms(101), ack(5 * MSS)))
        .collect()
}

/// RFC 5681 §3.2 step 2 / RFC 6582 §3.2 / Linux: the third duplicate ACK retransmits the
/// hole, however the ACKs before it were cut. (An ACK budget that counted the slices as
/// ACKs beyond one per segment took the duplicates for a spoofer's and left the hole to
/// the RTO, whose F-RTO undo under the Linux presets then kept the whole window.)
#[test]
fn divided_acks_leave_the_duplicates_that_follow_their_meaning() {
    for preset in ["rfc", "prr", "linux", "linux-3.17", "rack-tlp", "fack"] {
        let c = no_sack(preset);
        let whole = dupacks_after_division(c.clone(), 1);
        assert!(
            whole.contains(&(5, Why::FastRetransmit)),
            "{preset}: honest ACKs, then three duplicates: {whole:?}"
        );
        let divided = dupacks_after_division(c, 10);
        assert!(
            divided.contains(&(5, Why::FastRetransmit)),
            "{preset}: ACKs cut in ten, then three duplicates: {divided:?}"
        );
    }
}

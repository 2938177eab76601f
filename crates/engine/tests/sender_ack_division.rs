//! ACK division (Savage, Cardwell, Wetherall, Anderson, CCR 1999 §2.1), mostly without
//! SACK: a receiver that cuts each cumulative ACK into slices gains nothing, and loses nothing it
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
    // The rule's arithmetic in exact time; the kernel's jiffies and timer wheel
    // (`timer_hz`) are held by `timer::tests` and `sender_rules::linux_timers_fire_on_the_wheel`.
    c.timer_hz = 0;
    c
}

/// Ten segments out; the receiver acknowledges the first five, each in `pieces` slices,
/// then segment 5 is lost and the next three segments arrive. Returns the segments sent
/// in response to those three duplicate ACKs.
fn dupacks_after_division(c: Config, pieces: u64) -> Vec<(u64, Why)> {
    let (mut s, _) = started(c, 1_000);
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

/// Ten segments out with 0 and 5 lost: recovery started on three duplicates and four
/// more arrived, everything they released sent.
fn in_recovery_with_seven_duplicates(c: Config) -> Sender {
    let (mut s, _) = started(c, 1_000);
    for t in 0..7 {
        on_ack(&mut s, ms(100 + t), ack(0));
    }
    drain(&mut s, ms(110));
    s
}

/// Segments 0 and 5 of ten lost, recovery started on three duplicates and four more
/// arrived; the answer to the retransmission of 0 (cumulative 5000) is cut into `pieces`
/// slices. Returns the retransmissions the slices drew, then those of one more duplicate.
fn sliced_partial_ack(c: Config, pieces: u64) -> (Vec<u64>, Vec<u64>) {
    let mut s = in_recovery_with_seven_duplicates(c);
    let retransmitted = |out: Vec<(u64, Why)>| -> Vec<u64> {
        out.into_iter()
            .filter(|&(_, w)| w == Why::FastRetransmit)
            .map(|(i, _)| i)
            .collect()
    };
    let mut slices = Vec::new();
    for k in 1..=pieces {
        slices.extend(retransmitted(on_ack(
            &mut s,
            ms(210),
            ack(5 * MSS * k / pieces),
        )));
    }
    let next = retransmitted(on_ack(&mut s, ms(211), ack(5 * MSS)));
    (slices, next)
}

/// RFC 6582 §3.2 step 5: a partial ACK — the answer to the retransmission of a hole — has
/// the first unacknowledged segment retransmitted. Cut into slices, it has it
/// retransmitted at most once more than whole (the slice that completes the answered
/// retransmission stands for the partial ACK), never the rest of a segment the receiver
/// holds the start of, and the hole the last slice uncovers goes out on the next
/// duplicate ACK (RFC 5681 §3.2). Linux (`tcp_newreno_mark_lost`) resends the head at
/// every slice that crosses a segment boundary, and every resent segment the receiver
/// already holds draws a duplicate ACK that releases new data.
#[test]
fn a_sliced_partial_ack_retransmits_the_next_hole_once() {
    for preset in ["rfc", "prr", "linux", "linux-3.17", "rack-tlp", "fack"] {
        // Beyond Linux, which credits every slice (`ack_division_guard`, on with `hardened`).
        let c = no_sack(preset).hardened();
        let (whole, _) = sliced_partial_ack(c.clone(), 1);
        assert_eq!(whole, [5], "{preset}: the whole partial ACK");
        for pieces in [10, 5, 7] {
            let (slices, next) = sliced_partial_ack(c.clone(), pieces);
            let all: Vec<u64> = slices.iter().chain(&next).copied().collect();
            assert!(
                slices.len() <= 2 && all.contains(&5) && all.len() <= 2,
                "{preset}: the partial ACK in {pieces} slices retransmitted {slices:?}, \
                 then the next duplicate {next:?}"
            );
        }
    }
}

/// Ten segments out, segments 0 and 5 lost; the answer to 0's retransmission (cumulative
/// 5000) in `pieces` slices of whole segments. Returns the new data released and the
/// window left (what the receiver gets out of the ACK).
fn released_by_partial_ack(c: Config, pieces: u64) -> u64 {
    let mut s = in_recovery_with_seven_duplicates(c);
    let before = s.snd_nxt();
    for k in 1..=pieces {
        on_ack(&mut s, ms(210), ack(5 * MSS * k / pieces));
    }
    s.snd_nxt() - before + s.cwnd()
}

/// RFC 9937 §6: without SACK an advance delivers Δsnd.una less one SMSS per earlier
/// duplicate — the hole it filled; RFC 6582 §3.2 step 5 adds back one SMSS for "the
/// additional segment that has left the network". Both belong to the ACK that answers the
/// retransmission, not to every slice of it: slices of whole segments (each one SMSS, so
/// byte counting alone does not stop them) release what the whole ACK releases.
#[test]
fn whole_segment_slices_of_a_partial_ack_are_worth_one() {
    for preset in [
        "rfc",
        "prr",
        "linux",
        "linux-3.17",
        "rack-tlp",
        "linux-classic",
    ] {
        // Beyond Linux, which credits every slice (`ack_division_guard`, on with `hardened`).
        let c = no_sack(preset).hardened();
        let whole = released_by_partial_ack(c.clone(), 1);
        let sliced = released_by_partial_ack(c, 5);
        assert!(
            sliced <= whole,
            "{preset}: a partial ACK in five one-segment slices released {sliced} bytes, \
             whole {whole}"
        );
    }
}

/// After a timeout: twenty segments out, the first two acknowledged (an RTT sample), the
/// third lost and nothing else heard until the timer fires; the answer to its
/// retransmission covers everything sent, in `pieces` slices. Returns cwnd afterwards.
fn cwnd_after_rto_answer(c: Config, pieces: u64) -> u64 {
    cwnd_after_rto_answer_with(c, pieces, 0)
}

/// [`cwnd_after_rto_answer`], the receiver first reporting `dupacks` of the segments
/// above the hole with duplicate ACKs (which start a fast recovery whose retransmission is
/// lost too).
fn cwnd_after_rto_answer_with(c: Config, pieces: u64, dupacks: u64) -> u64 {
    let (mut s, _) = started(c, 20);
    on_ack(&mut s, ms(100), ack(2 * MSS));
    drain(&mut s, ms(100));
    for d in 0..dupacks {
        on_ack(&mut s, ms(101 + d), ack(2 * MSS));
    }
    let rto = s.poll_timeout().unwrap();
    s.on_timeout(rto);
    drain(&mut s, rto);
    let high = s.snd_nxt();
    let at = rto + lossrec::Duration::from_millis(100);
    for k in 1..=pieces {
        let cum = 2 * MSS + (high - 2 * MSS) * k / pieces;
        on_ack(&mut s, at, ack(cum));
    }
    s.cwnd()
}

/// RFC 3465 §2.3: in the slow start after a timeout L = 1·SMSS per ACK, since what an ACK
/// covers may have left the network long before. The answer to the retransmission covers
/// data sent before the timeout; cut into seven slices that end inside segments, it must
/// not grow cwnd seven times (RFC presets; Linux's slow start counts packets without a
/// per-ACK limit, `tcp_slow_start`, and is the same whole or sliced). The last slice,
/// which ends where the whole ACK does, may add one SMSS. `linux` is not in the list:
/// Linux itself undoes the timeout on the second slice (the first acknowledges the
/// retransmission, `FLAG_RETRANS_DATA_ACKED`; the second only originals,
/// `FLAG_ORIG_SACK_ACKED`, F-RTO step 3b in `tcp_process_loss`), a weakness of the stack
/// (`linux_undoes_a_timeout_on_a_divided_answer`); `linux-hardened`'s
/// `ack_division_guard` holds it.
#[test]
fn slow_start_after_a_timeout_counts_what_was_sent_since() {
    for preset in ["rfc", "newreno-sack", "reno-sack", "fack", "linux-hardened"] {
        let c = no_sack(preset);
        let whole = cwnd_after_rto_answer(c.clone(), 1);
        let sliced = cwnd_after_rto_answer(c, 7);
        assert!(
            sliced <= whole.max(2 * MSS) + MSS,
            "{preset}: the answer to the timeout's retransmission in seven slices left cwnd \
             {sliced}, whole {whole}"
        );
    }
}

/// RFC 3465 §2.3 again, with slices that end on segment boundaries, after a receiver
/// that reported the data above the hole with duplicate ACKs before the timeout: what the
/// duplicates reported delivered left the network long ago, and an ACK that covers only
/// such data (no honest receiver sends one: its next advance answers a segment it had not
/// reported) is the rest of a divided ACK and earns nothing. (They used to earn L each as
/// per-segment ACKs: 17 one-segment slices grew cwnd by 17 SMSS where the whole ACK grows
/// it by one. A receiver that reported nothing — all its ACKs late, a spurious timeout —
/// still earns L per ACK.)
#[test]
fn whole_segment_slices_after_a_timeout_are_worth_the_whole_ack() {
    for preset in ["rfc", "newreno-sack", "reno-sack", "fack", "linux"] {
        let c = no_sack(preset);
        let whole = cwnd_after_rto_answer_with(c.clone(), 1, 17);
        for pieces in [17, 9, 6] {
            let sliced = cwnd_after_rto_answer_with(c.clone(), pieces, 17);
            assert!(
                sliced <= whole,
                "{preset}: the answer to the timeout's retransmission in {pieces} slices of \
                 whole segments left cwnd {sliced}, whole {whole}"
            );
        }
    }
}

/// After a timeout with nothing reported before it (Reno forgets its duplicates when a
/// partial ACK ends fast recovery), with timestamps: the answer to the retransmission
/// echoes its TSval, so the ACKs after it that cover only data sent before the timeout
/// are the rest of a divided answer (go-back-N: an honest receiver's next advance answers
/// the next segment resent) and earn nothing.
#[test]
fn slices_after_an_echoed_answer_are_worth_the_whole_ack() {
    let cwnd_after = |preset: &str, pieces: u64| {
        let mut c = no_sack(preset);
        c.timestamps = true;
        let (mut s, _) = started(c, 20);
        s.on_ack(ms(100), &ack(2 * MSS));
        drain(&mut s, ms(100));
        let rto = s.poll_timeout().unwrap();
        s.on_timeout(rto);
        let r = drain(&mut s, rto)[0].ts.expect("timestamps").val;
        let high = s.snd_nxt();
        assert_eq!(high, 14 * MSS, "{preset}");
        let at = rto + lossrec::Duration::from_millis(100);
        for k in 1..=pieces {
            let mut a = ack(2 * MSS + (high - 2 * MSS) * k / pieces);
            a.ts = Some(lossrec::Timestamps { val: 1, ecr: r });
            s.on_ack(at, &a);
        }
        s.cwnd()
    };
    for preset in ["rfc", "newreno-sack", "reno-sack", "fack"] {
        let whole = cwnd_after(preset, 1);
        // Twelve segments outstanding after 2: slices of one, two and three segments.
        for pieces in [12, 6, 4] {
            let sliced = cwnd_after(preset, pieces);
            assert!(
                sliced <= whole,
                "{preset}: the echoed answer in {pieces} slices of whole segments left cwnd \
                 {sliced}, whole {whole}"
            );
        }
    }
}

/// Ten segments out, the first lost and the other nine SACKed; the answer to its
/// retransmission (cumulative 10 segments) in `pieces` slices. Returns cwnd afterwards.
fn cwnd_after_sacked_answer(preset: &str, pieces: u64) -> u64 {
    let mut c = no_sack(preset);
    c.sack = true;
    let (mut s, _) = started(c, 10);
    for i in 1..10 {
        on_ack(&mut s, ms(100 + i), sack_segs(0, 1, i + 1));
    }
    drain(&mut s, ms(110));
    for k in 1..=pieces {
        on_ack(&mut s, ms(220), sack_segs(10 * k / pieces, 1, 10));
    }
    s.cwnd()
}

/// With SACK, an honest receiver's cumulative ACK advances only when the segment at
/// SND.UNA arrives, and that segment cannot have been SACKed (SACK blocks lie above
/// RCV.NXT, RFC 2018 §4): an advance over data SACKed before and nothing else is a slice
/// of a divided ACK and delivers nothing to count (RFC 3465 bytes_acked). Reno-SACK
/// leaves recovery on the first ACK of new data, so every later slice lands in
/// congestion avoidance; they used to add up to one more SMSS than the whole ACK.
#[test]
fn slices_over_sacked_data_grow_nothing() {
    for preset in [
        "reno-sack",
        "reno-sack-eifel",
        "newreno-sack",
        "rfc",
        "prr",
        "linux",
    ] {
        let whole = cwnd_after_sacked_answer(preset, 1);
        let sliced = cwnd_after_sacked_answer(preset, 10);
        assert!(
            sliced <= whole,
            "{preset}: the answer to the retransmission in ten slices left cwnd {sliced}, \
             whole {whole}"
        );
    }
}

/// RFC 3522 §2 (Eifel) and Linux `tcp_packet_delayed` compare the echo with the episode's
/// first retransmission (RetransmitTS, `retrans_stamp`), not with whichever later
/// retransmission an ACK happens to cover: an echo from after the first retransmission
/// says nothing about the path, however recent the data it acknowledges. (A slice ending
/// inside a segment used to have NewReno resend the rest, and the next slice, echoing the
/// older hole-filling retransmission, counted as reordering and raised the duplicate
/// threshold of the adaptive-reordering presets.)
#[test]
fn timestamp_reordering_is_measured_from_the_first_retransmission() {
    for preset in ["linux-3.17", "prr", "rfc"] {
        let mut c = no_sack(preset);
        c.timestamps = true;
        let (mut s, _) = started(c, 1_000);
        let ts = |val: u64| lossrec::Timestamps { val, ecr: val };
        let echo = |cum: u64, ecr: u64| {
            let mut a = ack(cum);
            a.ts = Some(lossrec::Timestamps { val: 1, ecr });
            a
        };
        // Segments 0 and 5 lost; seven duplicates echo the originals' TSval.
        let first_tsval = drain(&mut s, ms(0))
            .first()
            .and_then(|t| t.ts)
            .map_or(1, |t| t.val);
        let _ = ts;
        let mut r1 = None;
        for t in 0..7 {
            s.on_ack(ms(100 + t), &echo(0, first_tsval.max(1)));
            for x in drain(&mut s, ms(100 + t)) {
                if x.why == Why::FastRetransmit {
                    r1 = x.ts.map(|t| t.val);
                }
            }
        }
        let r1 = r1.expect("fast retransmit of segment 0");
        // The answer to it echoes its TSval and stops at the next hole, which goes out.
        s.on_ack(ms(200), &echo(5 * MSS, r1));
        let out = drain(&mut s, ms(200));
        assert!(
            out.iter().any(|x| x.range.start == 5 * MSS),
            "{preset}: {out:?}"
        );
        let before = (s.reordering(), s.stats().ts_reorder);
        // The next ACK covers segment 5's retransmission and echoes the first one's
        // TSval (the original of 5 arrived after the hole was filled: TS.Recent stays).
        s.on_ack(ms(300), &echo(10 * MSS, r1));
        assert_eq!(
            (s.reordering(), s.stats().ts_reorder),
            before,
            "{preset}: an echo of the first retransmission counted as reordering"
        );
    }
}

/// Linux counts delivery in packets: an ACK that ends inside a one-segment skb
/// acknowledges no packet (`tcp_clean_rtx_queue` stops at it), so `tcp_cong_control`
/// grows nothing and `tcp_packets_in_flight` is unchanged — nothing new goes out — until
/// the ACK that completes it delivers the whole segment. (The engine counted the slice's
/// bytes: a divided ACK released data early, moved where HyStart's rounds begin
/// (`end_seq`), and under `linux` at a bottleneck the attacker's flow left slow start a
/// few segments later than the honest one.)
#[test]
fn linux_delivers_a_sliced_segment_when_it_completes() {
    for preset in ["linux", "linux-4.4-norack", "linux-3.17"] {
        let mut c = no_sack(preset);
        c.sack = true;
        let (mut s, first) = started(c, 1_000);
        let iw = first.len() as u64;
        let cwnd = s.cwnd();
        let mut released = Vec::new();
        for cum in [300, 600, 900] {
            released.extend(on_ack(&mut s, ms(100), ack(cum)));
            assert_eq!(
                s.cwnd(),
                cwnd,
                "{preset}: cwnd after a slice ending at {cum}"
            );
        }
        assert!(
            released.is_empty(),
            "{preset}: slices released {released:?}"
        );
        let out = on_ack(&mut s, ms(100), ack(MSS));
        assert_eq!(s.cwnd(), cwnd + MSS, "{preset}: the completing ACK");
        assert_eq!(
            out.len(),
            2,
            "{preset}: one segment left, cwnd one more: {out:?}"
        );
        assert_eq!(s.snd_nxt(), (iw + 2) * MSS, "{preset}");
    }
}

/// The honest counterpart of the rule above: after a spurious timeout, the late ACKs of
/// the originals each earn RFC 3465's L = 1·SMSS, however late they come and with or
/// without timestamps: no duplicate reported their data before. (A rule that took the
/// first late ACK a round trip after the retransmission for its answer, and counted only
/// data sent since the timeout from then on, left the rest of them growing nothing — a
/// verdict of the spurious-rto study moved — and without timestamps nothing could tell
/// the two apart.)
#[test]
fn late_acks_of_the_originals_after_a_spurious_timeout_grow_cwnd() {
    for (preset, timestamps) in [
        ("rfc", true),
        ("reno-sack", true),
        ("newreno-sack", true),
        ("rfc", false),
        ("reno-sack", false),
    ] {
        let mut c = no_sack(preset);
        c.timestamps = timestamps;
        let (mut s, first) = started(c, 20);
        let tsval = |i: usize| first[i].ts.map_or(0, |t| t.val);
        let echo = |cum: u64, ecr: u64| {
            let mut a = ack(cum);
            a.ts = Some(lossrec::Timestamps { val: 1, ecr });
            a
        };
        s.on_ack(ms(100), &echo(2 * MSS, tsval(1)));
        drain(&mut s, ms(100));
        let rto = s.poll_timeout().unwrap();
        s.on_timeout(rto);
        let resent = drain(&mut s, rto);
        assert_eq!(
            resent.first().map(|t| t.range.start),
            Some(2 * MSS),
            "{preset}"
        );
        let after = s.cwnd();
        // The delay ends: the originals' ACKs arrive, one per segment, well over a round
        // trip after the retransmission.
        let late = rto + lossrec::Duration::from_millis(300);
        for i in 3..8u64 {
            s.on_ack(late, &echo(i * MSS, tsval(i as usize - 1)));
        }
        assert_eq!(
            s.cwnd(),
            after + 5 * MSS,
            "{preset} timestamps={timestamps}: five late ACKs of originals after the timeout"
        );
    }
}

/// Linux as it is: the answer to the timeout's retransmission in one ACK covers the
/// retransmission, so it proves nothing spurious (`tcp_clean_rtx_queue` clears
/// `FLAG_ORIG_SACK_ACKED` without SACK) and the timeout's reduction stands; cut into seven
/// slices, the second acknowledges only originals and F-RTO undoes the timeout
/// (`tcp_process_loss` → `tcp_try_undo_loss(sk, true)`): cwnd returns to what it was.
#[test]
fn linux_undoes_a_timeout_on_a_divided_answer() {
    let c = no_sack("linux");
    let whole = cwnd_after_rto_answer(c.clone(), 1);
    let sliced = cwnd_after_rto_answer(c, 7);
    assert!(whole < 10 * MSS, "whole {whole}");
    assert!(sliced > 2 * whole, "sliced {sliced}, whole {whole}");
}

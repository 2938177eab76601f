//! The engine's per-ACK cost when the application has nothing more to send (issue 10's
//! "per-ACK cost flat for every preset"): all data written and sent at once, every eighth
//! segment lost, and an ACK stream whose SACK blocks report the rest one segment at a
//! time while the holes stay open — so recovery runs with no new data to send and NextSeg
//! falls through to its rules 3 and 4 on every ACK (RFC 6675 §4). Built directly, no
//! path: only the sender's work is timed on replay ([`PerAckWorkload::replay`]).

use lossrec::{Ack, Config, Duration, Instant, Range};

use super::per_ack::{PerAckWorkload, MSS};

/// The presets the arm covers.
pub const PRESETS: [&str; 4] = ["rfc", "prr", "linux", "rack-tlp"];
/// Segments in flight (all of the data) per size.
pub const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
/// The families the per-family arms cover (issue 29): the presets above, and `bbr` (the
/// `linux` preset with `cc = bbr`, whose RACK loss walk is Linux's).
pub const FAMILIES: [&str; 5] = ["rfc", "prr", "linux", "rack-tlp", "bbr"];
/// The sizes of the per-family arms: to 1,000,000 segments in flight, where a walk that
/// does not stop early costs microseconds per ACK.
pub const FAMILY_SIZES: [usize; 5] = [100, 10_000, 100_000, 400_000, 1_000_000];
/// One segment in this many is lost.
const HOLE_EVERY: u64 = 8;

/// `preset` with the workload's MSS, no handshake or timestamps, and a window that holds
/// all `in_flight` segments from the start.
pub fn config(preset: &str) -> Config {
    let mut c = family(preset);
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c.initial_cwnd = u32::MAX;
    c
}

/// The configuration of a family of [`FAMILIES`] (or any preset): `bbr` is `linux` with
/// `cc = bbr`.
pub fn family(name: &str) -> Config {
    if name == "bbr" {
        let mut c = Config::preset("linux").expect("a known preset");
        c.set("cc", "bbr").expect("a known controller");
        return c;
    }
    Config::preset(name).expect("a known preset or family")
}

/// The workload for `preset` with `in_flight` segments: segment `i` is lost when
/// `i % 8 == 0`; ACK `k` (one per delivered segment, 10 µs apart, starting one RTT after
/// the send) SACKs the run of segments ending with the `k`-th delivered one, plus the two
/// runs before it (RFC 2018 §4: most recent block first), and never advances SND.UNA.
pub fn app_limited_workload(preset: &str, in_flight: usize) -> PerAckWorkload {
    let n = in_flight.max(HOLE_EVERY as usize) as u64;
    let seg = |i: u64| i * MSS;
    let mut acks = Vec::new();
    let mut at = Instant::from_millis(20);
    for i in 0..n {
        if i % HOLE_EVERY == 0 {
            continue;
        }
        // The run containing i: from just after the last hole up to i.
        let run_start = i - i % HOLE_EVERY + 1;
        let mut blocks = vec![Range::new(seg(run_start), seg(i + 1))];
        for back in 1..=2 {
            let Some(start) = run_start.checked_sub(back * HOLE_EVERY) else {
                break;
            };
            blocks.push(Range::new(seg(start), seg(start + HOLE_EVERY - 1)));
        }
        acks.push((at, Ack::cumulative(0).with_sack(&blocks)));
        at += Duration::from_micros(10);
    }
    let mut w = PerAckWorkload {
        in_flight,
        seed: 0,
        config: config(preset),
        first_write: n * MSS,
        bytes: 0,
        acks,
        mean_outstanding: n as f64,
        segments_sent: 0,
        retransmissions: 0,
        timeouts: 0,
    };
    let mut s = w.sender();
    w.replay(&mut s);
    let st = s.stats();
    (w.segments_sent, w.retransmissions, w.timeouts) =
        (st.data_segs_out, st.retrans_segs, st.timeouts);
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every preset enters recovery on the stream and keeps all segments outstanding.
    #[test]
    fn each_preset_recovers_with_nothing_new_to_send() {
        for p in PRESETS {
            let w = app_limited_workload(p, 1_000);
            assert_eq!(w.acks.len(), 875, "{p}");
            let mut s = w.sender();
            w.replay(&mut s);
            assert!(s.stats().retrans_segs > 0, "{p}");
            assert_eq!(s.snd_una(), 0, "{p}");
            assert_eq!(
                s.snd_nxt(),
                1_000 * MSS,
                "{p}: nothing beyond what was written"
            );
        }
    }
}

//! One-line builders for sender tests.
#![allow(dead_code)]

use lossrec::{Ack, Config, Instant, Range, Sender, Transmit, Why};

pub const MSS: u64 = 1000;

pub fn r(a: u64, b: u64) -> Range {
    Range::new(a, b)
}
pub fn ms(t: u64) -> Instant {
    Instant::from_millis(t)
}
/// A cumulative ACK.
pub fn ack(cum: u64) -> Ack {
    Ack::cumulative(cum)
}
/// A cumulative ACK with SACK blocks given as (start, end) pairs.
pub fn sack(cum: u64, blocks: &[(u64, u64)]) -> Ack {
    let b: Vec<Range> = blocks.iter().map(|&(a, e)| r(a, e)).collect();
    Ack::cumulative(cum).with_sack(&b)
}
/// Segment `i` (0-based) as a range with the test MSS.
pub fn seg(i: u64) -> Range {
    r(i * MSS, (i + 1) * MSS)
}
/// SACK of segments [i, j) on cumulative ack of segment `cum_seg`.
pub fn sack_segs(cum_seg: u64, i: u64, j: u64) -> Ack {
    sack(cum_seg * MSS, &[(i * MSS, j * MSS)])
}

/// An RFC-preset config with a 1000-byte MSS and no handshake.
pub fn cfg() -> Config {
    let mut c = Config::rfc();
    c.mss = MSS as u16;
    c.handshake = false;
    c.timestamps = false;
    c
}

/// A sender with `segments` segments written (and closed).
pub fn sender_with(c: Config, segments: u64) -> Sender {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), segments * MSS);
    s.close(ms(0));
    s
}

/// A sender with `segments` segments written (left open) and what it sent at once.
pub fn started(c: Config, segments: u64) -> (Sender, Vec<Transmit>) {
    let mut s = Sender::new(c, ms(0)).unwrap();
    s.write(ms(0), segments * MSS);
    let first = drain(&mut s, ms(0));
    (s, first)
}

/// Every transmission available now.
pub fn drain(s: &mut Sender, now: Instant) -> Vec<Transmit> {
    std::iter::from_fn(|| s.poll_transmit(now)).collect()
}

/// The transmissions as (segment index, why).
pub fn sent(s: &mut Sender, now: Instant) -> Vec<(u64, Why)> {
    drain(s, now)
        .iter()
        .map(|t| (t.range.start / MSS, t.why))
        .collect()
}

/// Feeds an ACK and returns what was sent in response.
pub fn on_ack(s: &mut Sender, now: Instant, a: Ack) -> Vec<(u64, Why)> {
    s.on_ack(now, &a);
    sent(s, now)
}

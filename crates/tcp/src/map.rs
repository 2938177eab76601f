//! The segment ↔ engine mapping as pure functions: usable on their own (reading a capture,
//! writing one) and by [`crate::Endpoint`].
//!
//! - Sequence numbers: stream offset `x` is `ISN + 1 + x (mod 2^32)` ([`lossrec_wire::seq`]);
//!   unwrapping takes the offset nearest a reference (SND.UNA for ACKs, the highest
//!   in-window offset for data).
//! - MSS: the engine's MSS is a full segment's payload; the option's excludes TCP options,
//!   so with timestamps it is 12 bytes more (RFC 9293 §3.7.1, RFC 7323 §5.4; Linux
//!   `tcp_mss_to_mtu`, `tcp_current_mss`). A SYN without the option means 536.
//! - ECN: the IP codepoint and the ECE/CWR flags (RFC 3168 §5, §6.1) ↔ [`EcnMarks`].
//! - Windows: scaled by the shift of the side that announced them, never on a SYN (RFC 7323
//!   §2.2).
//! - Timestamps: a segment's TSval and TSecr as the engine reads them are given by the
//!   caller (see [`crate::ts`]): these functions only place them.

use lossrec::{Ack, EcnMarks, IpEcn, Range, SackBlocks, Segment, SynOptions, Timestamps};
use lossrec_wire::{seq, SackBlock, SackList, TcpFlags, TcpSegment};

/// The MSS a peer assumes when a SYN carries no MSS option (RFC 9293 §3.7.1).
pub const DEFAULT_MSS: u16 = 536;

/// The MSS option announcing an engine MSS (payload of a full segment).
///
/// ```
/// assert_eq!(lossrec_tcp::map::wire_mss(1448, true), 1460);
/// assert_eq!(lossrec_tcp::map::wire_mss(1460, false), 1460);
/// ```
pub fn wire_mss(mss: u16, timestamps: bool) -> u16 {
    mss.saturating_add(if timestamps { 12 } else { 0 })
}

/// The engine MSS (payload per full segment) for a peer's MSS option.
///
/// ```
/// assert_eq!(lossrec_tcp::map::engine_mss(Some(1460), true), 1448);
/// assert_eq!(lossrec_tcp::map::engine_mss(None, false), 536);
/// ```
pub fn engine_mss(option: Option<u16>, timestamps: bool) -> u16 {
    option
        .unwrap_or(DEFAULT_MSS)
        .saturating_sub(if timestamps { 12 } else { 0 })
        .max(1)
}

/// Writes the engine's ECN marks onto a wire segment (RFC 3168 §5, §6.1): the codepoint
/// into the TOS byte's ECN field, ECE and CWR into the flags.
pub fn put_ecn(s: &mut TcpSegment<'_>, m: EcnMarks) {
    s.set_ecn(m.ip.bits());
    if m.ece {
        s.flags |= TcpFlags::ECE;
    }
    if m.cwr {
        s.flags |= TcpFlags::CWR;
    }
}

/// The engine's ECN marks of a wire segment.
pub fn ecn_marks(s: &TcpSegment<'_>) -> EcnMarks {
    EcnMarks {
        ip: IpEcn::from_bits(s.ecn()),
        ece: s.flags.contains(TcpFlags::ECE),
        cwr: s.flags.contains(TcpFlags::CWR),
    }
}

/// Up to `max` SACK blocks in wire form, in the space whose ISN is `isn`.
pub fn wire_sack(isn: u32, blocks: &[Range], max: usize) -> SackList {
    let mut l = SackList::new();
    for b in blocks.iter().take(max) {
        l.push(SackBlock::new(
            seq::wrap(isn, b.start),
            seq::wrap(isn, b.end),
        ));
    }
    l
}

/// A segment's SACK blocks as stream offsets near `near` (empty blocks left out).
pub fn engine_sack(isn: u32, blocks: &SackList, near: u64) -> SackBlocks {
    let mut sack = SackBlocks::new();
    for b in blocks {
        let r = Range::new(
            seq::unwrap(isn, b.left, near),
            seq::unwrap(isn, b.right, near),
        );
        if !r.is_empty() {
            sack.push(r);
        }
    }
    sack
}

/// The options a SYN or SYN-ACK offers, as the engine negotiates from them. `ecn` is the
/// RFC 3168 setup the caller recognised (a SYN's ECE+CWR, a SYN-ACK's ECE alone).
pub fn syn_options(seg: &TcpSegment<'_>, ecn: bool) -> SynOptions {
    let o = &seg.options;
    SynOptions {
        ecn,
        mss: engine_mss(o.mss, o.timestamps.is_some()),
        sack_permitted: o.sack_permitted,
        timestamps: o.timestamps.is_some(),
        window_scale: o.window_scale,
    }
}

/// How a segment's ACK side reads in the engine's terms: our ISN, SND.UNA (the offset
/// the ACK and SACK numbers are unwrapped near) and the peer's window shift (0 until both
/// SYNs carried Window Scale).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AckView {
    /// Our initial sequence number.
    pub iss: u32,
    /// SND.UNA as a stream offset.
    pub snd_una: u64,
    /// The shift applied to the peer's window field (never on a SYN).
    pub peer_shift: u8,
}

/// The engine [`Ack`] a segment from the peer carries, or `None` without the ACK flag.
/// A SYN-ACK becomes the `Ack` with `syn` set (cumulative 0: it acknowledges our SYN,
/// offset −1), its window unscaled. `ts` is the segment's timestamps in the engine
/// sender's clock ([`crate::ts`]).
///
/// ```
/// use lossrec_tcp::map::{ack_of, AckView};
/// use lossrec_wire::{seq, TcpSegment};
/// let a = "10.0.0.2:80".parse().unwrap();
/// let b = "10.0.0.1:4000".parse().unwrap();
/// let mut s = TcpSegment::new(a, b, 77);
/// s.ack = Some(seq::wrap(u32::MAX, 2_896));
/// s.window = 100;
/// let view = AckView { iss: u32::MAX, snd_una: 1_448, peer_shift: 7 };
/// let ack = ack_of(&s, &view, None).unwrap();
/// assert_eq!((ack.cumulative, ack.window), (2_896, 12_800));
/// ```
pub fn ack_of(seg: &TcpSegment<'_>, view: &AckView, ts: Option<Timestamps>) -> Option<Ack> {
    let ack_no = seg.ack?;
    let ecn = ecn_marks(seg);
    if seg.flags.contains(TcpFlags::SYN) {
        return Some(Ack {
            ecn,
            cumulative: 0,
            sack: SackBlocks::new(),
            ts,
            window: u64::from(seg.window),
            syn: Some(syn_options(seg, ecn.is_setup_syn_ack())),
        });
    }
    // Offsets as they are: our FIN's sequence number is offset `end`, so its ACK is
    // `end + 1` and a SACK of it ends there too (the sender knows its FIN).
    Some(Ack {
        ecn,
        cumulative: seq::unwrap(view.iss, ack_no, view.snd_una),
        sack: engine_sack(view.iss, &seg.options.sack, view.snd_una),
        ts,
        window: u64::from(seg.window) << view.peer_shift.min(14),
        syn: None,
    })
}

/// The engine [`Segment`] a data-direction segment carries, in the space of the peer's ISN
/// `irs`, unwrapped near `near` (the highest offset taken so far). The SYN is offset 0
/// with no data (its own sequence number is offset −1); `ts` is in the engine receiver's
/// clock. An ECT SYN is refused its ECN setup (RFC 3168 §6.1.1; Linux
/// `tcp_ecn_create_request`).
pub fn segment_of(seg: &TcpSegment<'_>, irs: u32, near: u64, ts: Option<Timestamps>) -> Segment {
    let syn = seg.flags.contains(TcpFlags::SYN);
    let start = if syn {
        0
    } else {
        seq::unwrap(irs, seg.seq, near)
    };
    let ecn = ecn_marks(seg);
    Segment {
        ecn,
        range: Range::new(start, start + seg.payload.len() as u64),
        syn: syn.then(|| syn_options(seg, ecn.is_setup_syn() && ecn.ip == IpEcn::NotEct)),
        fin: seg.flags.contains(TcpFlags::FIN),
        psh: seg.flags.contains(TcpFlags::PSH),
        ts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lossrec_wire::TcpOptions;

    fn seg<'a>() -> TcpSegment<'a> {
        TcpSegment::new(
            "10.0.0.2:80".parse().unwrap(),
            "10.0.0.1:4000".parse().unwrap(),
            0,
        )
    }

    #[test]
    fn syn_ack_is_the_engine_ack_with_its_options() {
        let mut s = seg();
        s.flags = TcpFlags::SYN;
        s.ack = Some(1001);
        s.window = 65_535;
        s.options = TcpOptions {
            mss: Some(1460),
            sack_permitted: true,
            window_scale: Some(7),
            timestamps: Some(lossrec_wire::Timestamps { val: 5, ecr: 9 }),
            ..TcpOptions::default()
        };
        s.flags |= TcpFlags::ECE;
        let view = AckView {
            iss: 1000,
            snd_una: 0,
            peer_shift: 7,
        };
        let a = ack_of(&s, &view, None).unwrap();
        assert_eq!(a.cumulative, 0);
        assert_eq!(a.window, 65_535, "a SYN's window is never scaled");
        let o = a.syn.unwrap();
        assert_eq!((o.mss, o.sack_permitted, o.timestamps), (1448, true, true));
        assert_eq!((o.window_scale, o.ecn), (Some(7), true));
    }

    #[test]
    fn ack_and_sack_unwrap_across_the_wrap() {
        let iss = u32::MAX - 100;
        let mut s = seg();
        s.ack = Some(seq::wrap(iss, 5_000));
        s.options
            .sack
            .push(SackBlock::new(seq::wrap(iss, 6_448), seq::wrap(iss, 7_896)));
        let view = AckView {
            iss,
            snd_una: 4_000,
            peer_shift: 0,
        };
        let a = ack_of(&s, &view, None).unwrap();
        assert_eq!(a.cumulative, 5_000);
        assert_eq!(a.sack.as_slice(), &[Range::new(6_448, 7_896)]);
        s.ack = None;
        assert!(ack_of(&s, &view, None).is_none());
    }

    #[test]
    fn ecn_marks_round_trip() {
        let m = EcnMarks {
            ip: IpEcn::Ce,
            ece: true,
            cwr: false,
        };
        let mut s = seg();
        put_ecn(&mut s, m);
        assert_eq!(ecn_marks(&s), m);
    }

    #[test]
    fn data_segment_and_syn() {
        let irs = 7;
        let mut s = seg();
        s.seq = seq::wrap(irs, 1_448);
        s.payload = lossrec_wire::Payload::Zeros(1_448);
        s.flags = TcpFlags::FIN;
        let d = segment_of(&s, irs, 0, None);
        assert_eq!(
            (d.range, d.fin, d.syn),
            (Range::new(1_448, 2_896), true, None)
        );
        let mut syn = seg();
        syn.seq = irs;
        syn.flags = TcpFlags::SYN | TcpFlags::ECE | TcpFlags::CWR;
        let d = segment_of(&syn, irs, 0, None);
        assert_eq!(d.range, Range::new(0, 0));
        assert!(d.syn.unwrap().ecn);
        syn.set_ecn(lossrec_wire::ECN_ECT0);
        assert!(!segment_of(&syn, irs, 0, None).syn.unwrap().ecn);
    }
}

//! The engine's `Sender` as a user-space TCP client: its [`Transmit`]s become real
//! segments (`lossrec_wire` encodes them: 32-bit sequence numbers, options, checksums) and
//! the peer's segments become [`Ack`]s.
//!
//! Mapping (RFC 9293 §3.4, RFC 7323): stream offset `x` is `ISN + 1 + x`; the SYN-ACK's
//! sequence number gives the peer's ISN, and its options become the `Ack::syn` the sender
//! negotiates from; our FIN takes offset `end` (one past the last byte) as it takes that
//! sequence number, so its ACK (`end + 1`) and a SACK of it reach the engine unchanged. Window fields are scaled by the
//! peer's shift once both SYNs carried one (never on a SYN, RFC 7323 §2.2). TSecr comes
//! back as the 32 low bits of our microsecond clock and is widened against `now`. The
//! peer's FIN (the server closing after reading everything) is acknowledged here: the
//! sender only sends.
//!
//! Once the SYN-ACK is taken the connection is synchronised and every later segment
//! passes [`crate::accept`] first (RFC 5961, Linux `tcp_validate_incoming`): a SYN-ACK
//! with another ISN, an RST off RCV.NXT or an ACK of data never sent changes nothing; it
//! is counted ([`Self::accept_stats`]) and answered, within the rate limit, by the ACK
//! [`Self::take_replies`] hands out. An RST exactly at RCV.NXT resets the connection
//! ([`Self::is_reset`]).

use std::net::SocketAddrV4;

use lossrec::{Ack, Config, Instant, Range, SackBlocks, Sender, SynOptions, Timestamps, Transmit};
use lossrec_wire::{encode_ipv4_into, seq, Payload, SackBlock, TcpFlags, TcpOptions, TcpSegment};

use crate::accept::{after, AcceptStats, Guard, Seg, Tcb, Verdict};

/// The receive window we advertise (we receive no data), before scaling.
const OUR_WINDOW: u64 = 65_535;
/// The shift we offer on our SYN.
const OUR_WSCALE: u8 = 7;

/// One engine connection.
pub struct EngineSender {
    pub sender: Sender,
    local: SocketAddrV4,
    remote: SocketAddrV4,
    isn: u32,
    peer_isn: Option<u32>,
    peer_wscale: Option<u8>,
    offered_wscale: bool,
    /// The peer's FIN, once seen: our ACK acknowledges it.
    peer_fin: bool,
    fin_at: Option<u64>,
    ip_id: u16,
    /// RCV.NXT and the window (bytes) of the last ACK we sent (Linux `rcv_wup`, `rcv_wnd`).
    rcv_wup: u32,
    rcv_wnd: u32,
    /// One past the highest sequence number sent (SYN and FIN counted).
    snd_max: u32,
    /// The largest window the peer offered, in bytes (MAX.SND.WND).
    max_window: u32,
    /// The acceptance checks' limit, counters, reset flag and pending replies.
    guard: Guard,
}

impl EngineSender {
    pub fn new(
        cfg: Config,
        now: Instant,
        local: SocketAddrV4,
        remote: SocketAddrV4,
        isn: u32,
    ) -> Result<EngineSender, lossrec::ConfigError> {
        Ok(EngineSender {
            sender: Sender::new(cfg, now)?,
            local,
            remote,
            isn,
            peer_isn: None,
            peer_wscale: None,
            offered_wscale: false,
            peer_fin: false,
            fin_at: None,
            ip_id: 0,
            rcv_wup: 0,
            rcv_wnd: 0,
            snd_max: isn,
            max_window: 0,
            guard: Guard::default(),
        })
    }

    /// What the acceptance checks did on this connection.
    pub fn accept_stats(&self) -> &AcceptStats {
        self.guard.stats()
    }

    /// The peer reset the connection with an acceptable RST (RFC 5961 §3.2): nothing more
    /// is to be sent or taken.
    pub fn is_reset(&self) -> bool {
        self.guard.is_reset()
    }

    /// Moves the ACKs answering invalid segments (challenge and duplicate ACKs) to `out`.
    pub fn take_replies(&mut self, out: &mut Vec<Vec<u8>>) {
        self.guard.take_replies(out);
    }

    /// The sequence state the acceptance checks read.
    fn tcb(&self) -> Tcb {
        Tcb {
            iss: self.isn,
            irs: self.peer_isn,
            rcv_nxt: self.ack_field().unwrap_or(0),
            rcv_wup: self.rcv_wup,
            rcv_wnd: self.rcv_wnd,
            snd_una: seq::wrap(self.isn, self.sender.snd_una()),
            snd_nxt: self.snd_max,
            max_window: self.max_window,
            fin_in: self.peer_fin,
        }
    }

    /// `end` (a wire sequence number) was sent.
    fn sent_to(&mut self, end: u32) {
        if after(end, self.snd_max) {
            self.snd_max = end;
        }
    }

    /// The window field we announce, and what it means in bytes.
    fn window_field(&self) -> (u16, u32) {
        let f = (OUR_WINDOW << OUR_WSCALE >> self.our_shift()).min(65_535) as u16;
        (f, u32::from(f) << self.our_shift())
    }

    pub fn local(&self) -> SocketAddrV4 {
        self.local
    }

    fn ack_field(&self) -> Option<u32> {
        self.peer_isn
            .map(|i| i.wrapping_add(1).wrapping_add(u32::from(self.peer_fin)))
    }

    fn shift(&self) -> u8 {
        match (self.offered_wscale, self.peer_wscale) {
            (true, Some(s)) => s.min(14),
            _ => 0,
        }
    }

    /// Encodes one transmit, appending the IPv4 packet to `out`.
    pub fn encode(&mut self, tx: &Transmit, out: &mut Vec<u8>) {
        let mut s = TcpSegment::new(self.local, self.remote, seq::wrap(self.isn, tx.range.start));
        self.ip_id = self.ip_id.wrapping_add(1);
        s.ip_id = self.ip_id;
        s.payload = Payload::Zeros(tx.range.len() as usize);
        s.options.timestamps = tx.ts.map(|t| lossrec_wire::Timestamps {
            val: t.val as u32,
            ecr: t.ecr as u32,
        });
        if let Some(syn) = tx.syn {
            s.seq = self.isn;
            s.flags = TcpFlags::SYN;
            s.window = OUR_WINDOW as u16;
            s.options.mss = Some(wire_mss(syn.mss, syn.timestamps));
            s.options.sack_permitted = syn.sack_permitted;
            s.options.window_scale = syn.window_scale.map(|_| OUR_WSCALE);
            self.offered_wscale = syn.window_scale.is_some();
            self.sent_to(self.isn.wrapping_add(1));
        } else {
            s.ack = self.ack_field();
            (s.window, self.rcv_wnd) = self.window_field();
            self.rcv_wup = s.ack.unwrap_or(0);
            self.sent_to(seq::wrap(self.isn, tx.range.end));
        }
        if tx.fin {
            s.flags |= TcpFlags::FIN;
            self.fin_at = Some(tx.range.end);
            self.sent_to(seq::wrap(self.isn, tx.range.end + 1));
        }
        if tx.psh {
            s.flags |= TcpFlags::PSH;
        }
        lossrec_sim::pcap::put_ecn(&mut s, tx.ecn);
        // Our own segments always fit (payload below 64 KiB).
        let _ = encode_ipv4_into(&s, out);
    }

    fn our_shift(&self) -> u8 {
        if self.offered_wscale && self.peer_wscale.is_some() {
            OUR_WSCALE
        } else {
            0
        }
    }

    /// A pure ACK of the peer's FIN (the engine has no receive side).
    pub fn fin_ack(&mut self, out: &mut Vec<u8>) {
        self.pure_ack(out);
    }

    /// A pure ACK: `<SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>` (also the challenge ACK of
    /// RFC 5961 §3.2 and §4.2, and RFC 793's reply to an unacceptable segment).
    fn pure_ack(&mut self, out: &mut Vec<u8>) {
        let mut s = TcpSegment::new(self.local, self.remote, self.snd_max);
        s.ack = self.ack_field();
        (s.window, self.rcv_wnd) = self.window_field();
        self.rcv_wup = s.ack.unwrap_or(0);
        self.ip_id = self.ip_id.wrapping_add(1);
        s.ip_id = self.ip_id;
        let _ = encode_ipv4_into(&s, out);
    }

    /// Runs the acceptance checks on `seg`: `true` when it is to be taken; otherwise it
    /// was counted, answered if the rate limit allows, and (an acceptable RST) reset us.
    fn acceptable(&mut self, now: Instant, seg: &TcpSegment<'_>) -> bool {
        if self.guard.is_reset() {
            return false;
        }
        let (v, sent) = self.guard.judge(&self.tcb(), &Seg::of(seg), now);
        match v {
            Verdict::Accept | Verdict::SameSyn => return true,
            Verdict::Reset => {}
            Verdict::Drop { .. } if sent => {
                let mut b = Vec::with_capacity(60);
                self.pure_ack(&mut b);
                self.guard.push_reply(b);
            }
            Verdict::Drop { .. } => {}
        }
        false
    }

    /// Turns a segment from the peer into the engine's `Ack`; returns `None` for segments
    /// that carry nothing for the sender or fail the acceptance checks (then counted, and
    /// perhaps answered: see [`Self::take_replies`]). Sets `fin` when the segment carried
    /// the peer's first FIN (answer with [`Self::fin_ack`]).
    pub fn ack_of(&mut self, now: Instant, seg: &TcpSegment<'_>, fin: &mut bool) -> Option<Ack> {
        if !self.acceptable(now, seg) {
            return None;
        }
        let ack_no = seg.ack?;
        let ts = seg.options.timestamps.map(|t| Timestamps {
            val: u64::from(t.val),
            ecr: widen_us(now, t.ecr),
        });
        if seg.flags.contains(TcpFlags::SYN) {
            if self.peer_isn.is_none() {
                // SYN-SENT → ESTABLISHED: the window we offered on our SYN is what the
                // peer may fill until our first ACK announces one (RFC 7323 §2.2).
                self.peer_isn = Some(seg.seq);
                self.peer_wscale = seg.options.window_scale;
                self.rcv_wup = seg.seq.wrapping_add(1);
                self.rcv_wnd = OUR_WINDOW as u32;
                self.max_window = u32::from(seg.window);
            }
            let marks = lossrec_sim::pcap::ecn_marks(seg);
            return Some(Ack {
                ecn: marks,
                cumulative: 0,
                sack: SackBlocks::new(),
                ts,
                window: u64::from(seg.window),
                syn: Some(SynOptions {
                    ecn: marks.is_setup_syn_ack(),
                    mss: engine_mss(seg.options.mss, seg.options.timestamps.is_some()),
                    sack_permitted: seg.options.sack_permitted,
                    timestamps: seg.options.timestamps.is_some(),
                    window_scale: seg.options.window_scale,
                }),
            });
        }
        self.peer_isn?;
        let window = u64::from(seg.window) << self.shift();
        self.max_window = self.max_window.max(window.min(u64::from(u32::MAX)) as u32);
        if seg.flags.contains(TcpFlags::FIN) && !self.peer_fin {
            self.peer_fin = true;
            *fin = true;
        }
        // Offsets as they are: our FIN's sequence number is offset `end`, so its ACK is
        // `end + 1` and Linux's SACK of it ends there too; the sender keeps a bare FIN on
        // its scoreboard and counts one that rode on the last segment with the data.
        let near = self.sender.snd_una();
        let cumulative = seq::unwrap(self.isn, ack_no, near);
        let mut sack = SackBlocks::new();
        for b in &seg.options.sack {
            let r = Range::new(
                seq::unwrap(self.isn, b.left, near),
                seq::unwrap(self.isn, b.right, near),
            );
            if !r.is_empty() {
                sack.push(r);
            }
        }
        Some(Ack {
            ecn: lossrec_sim::pcap::ecn_marks(seg),
            cumulative,
            sack,
            ts,
            window,
            syn: None,
        })
    }
}

/// The MSS option for an engine MSS: the engine's MSS is the payload of a full segment,
/// the option's excludes TCP options (RFC 9293 §3.7.1; RFC 7323 §5.4 subtracts the 12
/// bytes of timestamps), as Linux's `tcp_mss_to_mtu`/`tcp_current_mss` do.
pub fn wire_mss(mss: u16, timestamps: bool) -> u16 {
    mss.saturating_add(if timestamps { 12 } else { 0 })
}

/// The engine MSS (payload per full segment) for a peer's MSS option.
pub fn engine_mss(option: Option<u16>, timestamps: bool) -> u16 {
    option
        .unwrap_or(536)
        .saturating_sub(if timestamps { 12 } else { 0 })
        .max(1)
}

/// Widens a 32-bit echo of our microsecond clock to the full value nearest `now`.
pub fn widen_us(now: Instant, v: u32) -> u64 {
    let now_us = now.as_micros();
    let back = (now_us as u32).wrapping_sub(v);
    if back < (1 << 31) {
        now_us.saturating_sub(u64::from(back))
    } else {
        now_us + u64::from(v.wrapping_sub(now_us as u32))
    }
}

/// SACK blocks in wire form relative to `isn` (used by the engine receiver).
pub fn wire_sack(isn: u32, blocks: &[Range], max: usize) -> lossrec_wire::SackList {
    let mut l = lossrec_wire::SackList::new();
    for b in blocks.iter().take(max) {
        l.push(SackBlock::new(
            seq::wrap(isn, b.start),
            seq::wrap(isn, b.end),
        ));
    }
    l
}

/// Options for a segment carrying only timestamps.
pub fn ts_options(ts: Option<lossrec::Timestamps>) -> TcpOptions {
    TcpOptions {
        timestamps: ts.map(|t| lossrec_wire::Timestamps {
            val: t.val as u32,
            ecr: t.ecr as u32,
        }),
        ..TcpOptions::default()
    }
}

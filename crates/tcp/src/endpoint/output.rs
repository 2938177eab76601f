//! What an [`Endpoint`] sends: the sender's transmissions, the receiver's ACKs (and its FIN
//! after the peer's), and the pure ACK that answers a FIN or an invalid segment. Every
//! segment carries the connection's timestamps once both SYNs offered them: TSval from the
//! one clock, TSecr = the one TS.Recent ([`crate::ts`]).

use lossrec::{Ack, Instant, Range, Transmit};
use lossrec_wire::{encode_ipv4_into, seq, Payload, TcpFlags, TcpSegment};

use super::Endpoint;
use crate::accept::after;
use crate::map::{put_ecn, wire_mss, wire_sack};

impl Endpoint {
    /// A segment from us to the peer, its IP ID the next.
    fn segment(&mut self, seq: u32) -> TcpSegment<'static> {
        let mut s = TcpSegment::new(self.local, self.remote, seq);
        self.ip_id = self.ip_id.wrapping_add(1);
        s.ip_id = self.ip_id;
        s
    }

    /// `end` (a wire sequence number) was sent.
    fn sent_to(&mut self, end: u32) {
        if after(end, self.snd_max) {
            self.snd_max = end;
        }
    }

    /// The window field we announce and what it means in bytes: the receiver's window, or
    /// a sending endpoint's fixed one, scaled by our shift.
    fn window_field(&self) -> (u16, u32) {
        let shift = self.shift(false);
        let bytes = match &self.receiver {
            Some(r) => r.window(),
            None => u64::from(self.cfg.send_only_window) << self.cfg.window_scale,
        };
        let f = (bytes >> shift).min(65_535) as u16;
        (f, u32::from(f) << shift)
    }

    /// The acknowledgment field and the window of an ACK leaving now (Linux `tcp_select_window`
    /// records `rcv_wup` and `rcv_wnd` as it goes).
    fn put_ack(&mut self, s: &mut TcpSegment<'_>) {
        s.ack = self.rcv_nxt();
        (s.window, self.rcv_wnd) = self.window_field();
        self.rcv_wup = s.ack.unwrap_or(0);
    }

    /// The timestamps of a segment leaving at `now`, once negotiated (or on our SYN when
    /// we offer them).
    fn put_ts(&mut self, now: Instant, s: &mut TcpSegment<'_>, on: bool) {
        if on {
            s.options.timestamps = Some(self.ts.stamp(now));
        }
    }

    /// Encodes one of the sender's transmissions, appending the IPv4 packet to `out`, with
    /// a payload of zeros (the engine counts bytes and never holds them: the simulator and
    /// the wire lab send zeros; an application sends its bytes with
    /// [`encode_transmit_bytes`](Self::encode_transmit_bytes)).
    pub fn encode_transmit(&mut self, now: Instant, tx: &Transmit, out: &mut Vec<u8>) {
        self.encode_with(now, tx, Payload::Zeros(tx.range.len() as usize), out);
    }

    /// Encodes one of the sender's transmissions carrying the application's bytes:
    /// `stream[tx.range]`, where `stream` holds the bytes written so far from stream
    /// offset 0. Fails, writing nothing, when `stream` does not hold the whole range.
    pub fn encode_transmit_bytes(
        &mut self,
        now: Instant,
        tx: &Transmit,
        stream: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), PayloadError> {
        let (a, b) = (tx.range.start, tx.range.end);
        let bytes = usize::try_from(a)
            .ok()
            .zip(usize::try_from(b).ok())
            .and_then(|(a, b)| stream.get(a..b))
            .ok_or(PayloadError {
                start: a,
                end: b,
                held: stream.len() as u64,
            })?;
        self.encode_with(now, tx, Payload::Bytes(bytes), out);
        Ok(())
    }

    fn encode_with(
        &mut self,
        now: Instant,
        tx: &Transmit,
        payload: Payload<'_>,
        out: &mut Vec<u8>,
    ) {
        let mut s = self.segment(seq::wrap(self.iss, tx.range.start));
        s.payload = payload;
        if let Some(syn) = tx.syn {
            s.seq = self.iss;
            s.flags = TcpFlags::SYN;
            s.window = self.cfg.send_only_window.min(65_535) as u16;
            s.options.mss = Some(wire_mss(syn.mss, syn.timestamps));
            s.options.sack_permitted = syn.sack_permitted;
            s.options.window_scale = syn.window_scale.map(|_| self.cfg.window_scale);
            self.our_shift = s.options.window_scale;
            self.ts_offered = syn.timestamps;
            self.sent_to(self.iss.wrapping_add(1));
        } else {
            self.put_ack(&mut s);
            self.sent_to(seq::wrap(self.iss, tx.range.end));
        }
        // RFC 7323 §3.2: on every segment once the SYNs agreed (the engine says so).
        self.put_ts(now, &mut s, tx.ts.is_some());
        if tx.fin {
            s.flags |= TcpFlags::FIN;
            self.sent_to(seq::wrap(self.iss, tx.range.end + 1));
        }
        if tx.psh {
            s.flags |= TcpFlags::PSH;
        }
        put_ecn(&mut s, tx.ecn);
        // Our own segments always fit (payload below 64 KiB).
        let _ = encode_ipv4_into(&s, out);
    }

    /// A pure ACK: `<SEQ=SND.NXT><ACK=RCV.NXT><CTL=ACK>` with the window, timestamps and
    /// (a receiver's) SACK blocks (the ACK of the peer's FIN; the challenge ACK of RFC 5961
    /// §3.2 and §4.2; RFC 793's reply to an unacceptable segment; Linux `tcp_send_ack`).
    pub fn ack_now(&mut self, now: Instant, out: &mut Vec<u8>) {
        if self.irs.is_none() {
            return;
        }
        let snd_nxt = match self.sender {
            Some(_) => self.snd_max,
            None => self.iss.wrapping_add(1 + u32::from(self.fin_out)),
        };
        let mut s = self.segment(snd_nxt);
        self.put_ack(&mut s);
        self.put_ts(now, &mut s, self.ts_offered && self.peer_ts);
        if let (Some(r), Some(irs)) = (&self.receiver, self.irs) {
            if r.sack_in_use() {
                let blocks: Vec<Range> = r.out_of_order().collect();
                s.options.sack = wire_sack(irs, &blocks, s.options.max_sack_blocks());
            }
        }
        let _ = encode_ipv4_into(&s, out);
    }

    /// Encodes every ACK the receiver has queued (and our FIN once the peer's is in),
    /// after the replies to invalid segments, one IPv4 packet per `Vec`.
    pub fn poll_acks(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) {
        self.guard.take_replies(out);
        let Some(irs) = self.irs else { return };
        let Some(r) = self.receiver.as_mut() else {
            return;
        };
        if self.guard.is_reset() {
            // RFC 9293 §3.10.7.4: a reset connection sends nothing more.
            while r.poll_ack(now).is_some() {}
            return;
        }
        while let Some(ack) = self.receiver.as_mut().and_then(|r| r.poll_ack(now)) {
            let mut buf = Vec::with_capacity(80);
            self.encode_ack(now, irs, &ack, &mut buf);
            out.push(buf);
        }
    }

    /// One of the receiver's ACKs (its SYN-ACK included) on the wire.
    fn encode_ack(&mut self, now: Instant, irs: u32, ack: &Ack, out: &mut Vec<u8>) {
        let fin_in = self.receiver.as_ref().is_some_and(|r| r.fin_received());
        // A client's ACK leaves from SND.NXT; a server's FIN is its only sequence number.
        let own = match self.sender {
            Some(_) => self.snd_max,
            None => self.iss.wrapping_add(1),
        };
        let mut s = self.segment(own);
        self.put_ts(now, &mut s, ack.ts.is_some());
        // The engine's ACK already counts the FIN's sequence number, and SACKs a FIN
        // above a hole (`tcp_data_queue_ofo`).
        s.ack = Some(seq::wrap(irs, ack.cumulative));
        if let Some(syn) = ack.syn {
            s.seq = self.iss;
            s.ack = Some(irs.wrapping_add(1));
            s.flags = TcpFlags::SYN;
            // RFC 7323 §2.2: the window on a SYN is never scaled.
            s.window = ack.window.min(65_535) as u16;
            s.options.mss = Some(wire_mss(syn.mss, syn.timestamps));
            s.options.sack_permitted = syn.sack_permitted;
            s.options.window_scale = syn.window_scale;
            self.our_shift = syn.window_scale;
            self.ts_offered = syn.timestamps;
            (self.rcv_wup, self.rcv_wnd) = (irs.wrapping_add(1), u32::from(s.window));
        } else {
            let shift = self.shift(false);
            s.window = (ack.window >> shift).min(65_535) as u16;
            (self.rcv_wup, self.rcv_wnd) = (s.ack.unwrap_or(0), u32::from(s.window) << shift);
            // Blocks that do not fit beside the other options are dropped from the end.
            let max = s.options.max_sack_blocks();
            s.options.sack = wire_sack(irs, ack.sack.as_slice(), max);
            // A receiving endpoint closes after the peer (a client closes by its sender).
            if self.sender.is_none() {
                if fin_in && !self.fin_out {
                    self.fin_out = true;
                    s.flags |= TcpFlags::FIN;
                } else if self.fin_out {
                    s.seq = s.seq.wrapping_add(1);
                }
            }
        }
        put_ecn(&mut s, ack.ecn);
        let _ = encode_ipv4_into(&s, out);
    }
}

/// A transmission whose bytes the caller does not hold
/// ([`Endpoint::encode_transmit_bytes`]): the stream range and how many bytes were given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PayloadError {
    /// First stream offset of the transmission.
    pub start: u64,
    /// One past its last.
    pub end: u64,
    /// Bytes of the stream the caller held.
    pub held: u64,
}

impl std::fmt::Display for PayloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "transmission of stream bytes {}..{} but only {} bytes were given",
            self.start, self.end, self.held
        )
    }
}

impl std::error::Error for PayloadError {}

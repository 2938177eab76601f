//! [`Endpoint`]: one TCP connection whose data side is the engine's [`Sender`] (an active
//! opener that sends) or whose receive side is the engine's [`Receiver`] (a passive opener
//! that receives), speaking real segments.
//!
//! What the endpoint owns, and the engine does not: the ISNs and the 32-bit wrap, the
//! window shifts and the window fields, the SYN rules (a SYN-ACK taken once, as the
//! engine's `Ack` with `syn`), the peer's FIN (acknowledged; a receiving endpoint closes
//! after it), the acceptance checks of a synchronised connection ([`crate::accept`]: RFC
//! 5961, RFC 793 §3.3, Linux `tcp_validate_incoming`) with their replies and RST handling,
//! and the Timestamps option: one TSval clock and **one TS.Recent** for everything the
//! connection sends ([`crate::ts`]).
//!
//! The driver contract (`lossrec` crate doc): hand the endpoint one segment
//! ([`Endpoint::input`], which feeds the engine), then drain what it sends
//! ([`Endpoint::encode_transmit`] for each `Sender::poll_transmit`, or
//! [`Endpoint::poll_acks`]), then the next segment.

use std::net::SocketAddrV4;

use lossrec::{Ack, Instant, Receiver, Segment, Sender, Timestamps};
use lossrec_wire::{seq, TcpFlags, TcpSegment};

use crate::accept::{after, AcceptStats, Drop, Guard, Reply, Seg, Tcb, Verdict};
use crate::map::{self, AckView};
use crate::ts::{receiver_ts, sender_ts, TsClock, TsState};

mod output;
pub use output::PayloadError;

/// What an endpoint is given besides its engine half.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EndpointConfig {
    /// The TSval clock (milliseconds by default, as Linux's `tcp_time_stamp`).
    pub ts_clock: TsClock,
    /// The shift a sending endpoint offers on its SYN (it receives no data, so it announces
    /// [`EndpointConfig::send_only_window`] scaled by it). A receiving endpoint offers what
    /// its engine receiver's SYN-ACK says.
    pub window_scale: u8,
    /// The receive window a sending endpoint announces, bytes.
    pub send_only_window: u32,
}

impl Default for EndpointConfig {
    fn default() -> EndpointConfig {
        EndpointConfig {
            ts_clock: TsClock::default(),
            window_scale: 7,
            send_only_window: 65_535,
        }
    }
}

/// What one segment from the peer did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Input {
    /// The `Ack` handed to the engine's sender (`on_ack` was called with it).
    pub ack: Option<Ack>,
    /// The `Segment` handed to the engine's receiver (`on_segment` was called with it).
    pub segment: Option<Segment>,
    /// The segment carried the peer's first FIN and this endpoint has no receiver: answer
    /// it with [`Endpoint::ack_now`] (a receiver answers it in [`Endpoint::poll_acks`]).
    pub fin: bool,
    /// The acceptance checks dropped it (counted in [`Endpoint::accept_stats`]; a reply,
    /// if any, waits in [`Endpoint::take_replies`]).
    pub dropped: bool,
}

/// One TCP connection over the engine (see the module doc).
pub struct Endpoint {
    /// The engine's sender: this endpoint sends data.
    pub sender: Option<Sender>,
    /// The engine's receiver: this endpoint receives data.
    pub receiver: Option<Receiver>,
    cfg: EndpointConfig,
    local: SocketAddrV4,
    remote: SocketAddrV4,
    /// ISS and IRS (RFC 793 §3.2).
    iss: u32,
    irs: Option<u32>,
    /// The shifts offered on our SYN (or SYN-ACK) and on the peer's; both must be there for
    /// either to apply (RFC 7323 §2.2).
    our_shift: Option<u8>,
    peer_shift: Option<u8>,
    /// The peer's FIN was taken (a sending endpoint; a receiver knows its own).
    peer_fin: bool,
    /// Our FIN went out (a receiving endpoint, after the peer's).
    fin_out: bool,
    /// One past the highest sequence number sent (SYN and FIN counted; Linux `snd_nxt`).
    snd_max: u32,
    /// SND.UNA when there is no sender to ask.
    snd_una: u32,
    /// The highest in-window offset taken (where data sequence numbers are unwrapped).
    high: u64,
    /// RCV.NXT and the window (bytes) of the last ACK sent (Linux `rcv_wup`, `rcv_wnd`),
    /// and MAX.SND.WND (Linux `max_window`).
    rcv_wup: u32,
    rcv_wnd: u32,
    max_window: u32,
    /// Both SYNs carried Timestamps.
    ts_offered: bool,
    peer_ts: bool,
    ts: TsState,
    ip_id: u16,
    /// The acceptance checks' rate limit, counters, reset flag and pending replies.
    guard: Guard,
}

impl Endpoint {
    fn with(cfg: EndpointConfig, local: SocketAddrV4, remote: SocketAddrV4, iss: u32) -> Self {
        Endpoint {
            sender: None,
            receiver: None,
            cfg,
            local,
            remote,
            iss,
            irs: None,
            our_shift: None,
            peer_shift: None,
            peer_fin: false,
            fin_out: false,
            snd_max: iss,
            snd_una: iss,
            high: 0,
            rcv_wup: 0,
            rcv_wnd: 0,
            max_window: 0,
            ts_offered: false,
            peer_ts: false,
            ts: TsState::new(cfg.ts_clock),
            ip_id: 0,
            guard: Guard::default(),
        }
    }

    /// An active opener that sends `sender`'s data from `local` to `remote` with initial
    /// sequence number `iss`; its first transmission is the SYN.
    pub fn client(
        sender: Sender,
        cfg: EndpointConfig,
        local: SocketAddrV4,
        remote: SocketAddrV4,
        iss: u32,
    ) -> Endpoint {
        Endpoint {
            sender: Some(sender),
            ..Endpoint::with(cfg, local, remote, iss)
        }
    }

    /// A passive opener at `local` whose `receiver` takes the data of the peer at
    /// `remote`; `iss` is its SYN-ACK's sequence number.
    pub fn server(
        receiver: Receiver,
        cfg: EndpointConfig,
        local: SocketAddrV4,
        remote: SocketAddrV4,
        iss: u32,
    ) -> Endpoint {
        Endpoint {
            receiver: Some(receiver),
            ..Endpoint::with(cfg, local, remote, iss)
        }
    }

    /// A client that also receives: the peer's data goes to `receiver` (configured as the
    /// handshake agrees: SACK, timestamps; it starts without a SYN of its own), whose ACKs
    /// ride on our data ([`Endpoint::encode_transmit`] carries its RCV.NXT and window) or
    /// leave as pure ACKs from [`Endpoint::poll_acks`]. Both directions echo the one
    /// TS.Recent (RFC 7323 §4.3).
    pub fn with_receiver(mut self, receiver: Receiver) -> Endpoint {
        self.receiver = Some(receiver);
        self
    }

    /// Our address.
    pub fn local(&self) -> SocketAddrV4 {
        self.local
    }

    /// The peer's address.
    pub fn remote(&self) -> SocketAddrV4 {
        self.remote
    }

    /// The connection's timestamps (clock and TS.Recent).
    pub fn timestamps(&self) -> &TsState {
        &self.ts
    }

    /// What the acceptance checks did on this connection.
    pub fn accept_stats(&self) -> &AcceptStats {
        self.guard.stats()
    }

    /// The peer reset the connection with an acceptable RST (RFC 5961 §3.2): nothing more
    /// is to be sent or taken (RFC 9293 §3.10.7.4).
    pub fn is_reset(&self) -> bool {
        self.guard.is_reset()
    }

    /// Moves the ACKs answering invalid segments (challenge and duplicate ACKs) to `out`.
    pub fn take_replies(&mut self, out: &mut Vec<Vec<u8>>) {
        self.guard.take_replies(out);
    }

    /// RCV.NXT as a wire sequence number (the peer's FIN counted), once synchronised.
    fn rcv_nxt(&self) -> Option<u32> {
        let irs = self.irs?;
        Some(match &self.receiver {
            Some(r) => seq::wrap(irs, r.delivered() + u64::from(r.fin_received())),
            None => irs.wrapping_add(1).wrapping_add(u32::from(self.peer_fin)),
        })
    }

    /// The shift applied to a window field: the peer's on what it announces (`peer`), ours
    /// on what we announce; 0 unless both SYNs offered scaling.
    fn shift(&self, peer: bool) -> u8 {
        match (self.our_shift, self.peer_shift) {
            (Some(o), Some(p)) => (if peer { p } else { o }).min(14),
            _ => 0,
        }
    }

    /// The sequence state the acceptance checks read.
    fn tcb(&self) -> Tcb {
        let (snd_una, snd_nxt) = match &self.sender {
            Some(s) => (seq::wrap(self.iss, s.snd_una()), self.snd_max),
            None => (
                self.snd_una,
                self.iss.wrapping_add(1 + u32::from(self.fin_out)),
            ),
        };
        Tcb {
            iss: self.iss,
            irs: self.irs,
            rcv_nxt: self.rcv_nxt().unwrap_or(0),
            rcv_wup: self.rcv_wup,
            rcv_wnd: self.rcv_wnd,
            snd_una,
            snd_nxt,
            max_window: self.max_window,
            fin_in: self.peer_fin || self.receiver.as_ref().is_some_and(|r| r.fin_received()),
        }
    }

    /// Runs the acceptance checks on `seg`: `Some(true)` when it is to be taken;
    /// `Some(false)` for data outside the window, which still goes to a receiver (it drops
    /// it and answers with its ACK and DSACK, as Linux's `tcp_send_dupack` does); `None`
    /// when dropped: counted, answered if the rate limit allows, and (an acceptable RST)
    /// resetting us.
    fn acceptable(&mut self, now: Instant, seg: &TcpSegment<'_>) -> Option<bool> {
        let (v, sent) = self.guard.judge(&self.tcb(), &Seg::of(seg), now);
        match v {
            Verdict::Accept | Verdict::SameSyn => Some(true),
            Verdict::Reset => None,
            Verdict::Drop {
                why: Drop::OutOfWindow,
                reply: Reply::DupAck { limited: false },
            } if self.receiver.is_some() => Some(false),
            Verdict::Drop { .. } => {
                if sent {
                    let mut b = Vec::with_capacity(80);
                    self.ack_now(now, &mut b);
                    self.guard.push_reply(b);
                }
                None
            }
        }
    }

    /// The segment's timestamps as the engine half reads them: TSval as sent, TSecr in
    /// that half's clock (`to_engine`).
    fn engine_ts(
        &self,
        now: Instant,
        seg: &TcpSegment<'_>,
        to_engine: fn(Instant) -> u64,
    ) -> Option<Timestamps> {
        seg.options.timestamps.map(|t| Timestamps {
            val: u64::from(t.val),
            ecr: self.ts.echo(t.ecr, now).map_or(0, to_engine),
        })
    }

    /// One segment from the peer: the acceptance checks, TS.Recent, then the engine half —
    /// `Sender::on_ack` with the ACK it carries, or `Receiver::on_segment` with its data.
    /// The caller then drains the engine (the driver contract, module doc).
    pub fn input(&mut self, now: Instant, seg: &TcpSegment<'_>) -> Input {
        let mut out = Input::default();
        if self.guard.is_reset() {
            out.dropped = true;
            return out;
        }
        let syn = seg.flags.contains(TcpFlags::SYN);
        let first_syn = syn && self.irs.is_none();
        // Before the peer's SYN is taken a sender judges the SYN-ACK (SYN-SENT's rules); a
        // receiver takes only a SYN (LISTEN).
        let judged = self.irs.is_some() || self.sender.is_some();
        let accepted = match (judged, syn) {
            (true, _) => self.acceptable(now, seg),
            (false, true) => Some(true),
            (false, false) => None,
        };
        let Some(in_window) = accepted else {
            out.dropped = true;
            return out;
        };
        if first_syn {
            self.irs = Some(seg.seq);
            self.peer_shift = seg.options.window_scale;
            self.peer_ts = seg.options.timestamps.is_some();
            if let Some(t) = seg.options.timestamps {
                self.ts.take_syn(t.val);
            }
        } else if let Some(t) = seg.options.timestamps.filter(|_| in_window && !syn) {
            self.ts.take(t.val, seg.seq, self.rcv_wup);
        }
        if self.sender.is_some() {
            self.input_ack(now, seg, first_syn, &mut out);
        }
        // A receiving endpoint takes every segment (its handshake too); a client's receiver
        // takes the peer's data and FIN.
        let data = !seg.payload.is_empty() || seg.flags.contains(TcpFlags::FIN);
        if self.receiver.is_some() && (self.sender.is_none() || (data && !syn)) {
            self.input_data(now, seg, in_window, &mut out);
        }
        out
    }

    /// A sending endpoint: the ACK side of `seg` into the sender.
    fn input_ack(&mut self, now: Instant, seg: &TcpSegment<'_>, first_syn: bool, out: &mut Input) {
        if first_syn {
            // SYN-SENT → ESTABLISHED: the window we offered on our SYN is what the peer
            // may fill until our first ACK announces one (RFC 7323 §2.2).
            self.rcv_wup = seg.seq.wrapping_add(1);
            self.rcv_wnd = self.cfg.send_only_window;
            self.max_window = u32::from(seg.window);
        }
        if self.irs.is_none() {
            return;
        }
        let syn = seg.flags.contains(TcpFlags::SYN);
        if !syn {
            let window = u64::from(seg.window) << self.shift(true);
            self.max_window = self.max_window.max(window.min(u64::from(u32::MAX)) as u32);
            let fin = seg.flags.contains(TcpFlags::FIN);
            if fin && !self.peer_fin && self.receiver.is_none() {
                self.peer_fin = true;
                out.fin = true;
            }
        }
        let ts = self.engine_ts(now, seg, sender_ts);
        let peer_shift = self.shift(true);
        let Some(s) = self.sender.as_mut() else {
            return;
        };
        let view = AckView {
            iss: self.iss,
            snd_una: s.snd_una(),
            peer_shift,
        };
        if let Some(ack) = map::ack_of(seg, &view, ts) {
            s.on_ack(now, &ack);
            out.ack = Some(ack);
        }
    }

    /// A receiving endpoint: the data side of `seg` into the receiver.
    /// `in_window`: the segment passed the checks (not data outside the window).
    fn input_data(&mut self, now: Instant, seg: &TcpSegment<'_>, in_window: bool, out: &mut Input) {
        let Some(irs) = self.irs else { return };
        if in_window {
            if let Some(a) = seg.ack.filter(|&a| after(a, self.snd_una)) {
                self.snd_una = a;
            }
            let w = u32::from(seg.window) << self.shift(true);
            self.max_window = self.max_window.max(w);
        }
        let ts = self.engine_ts(now, seg, receiver_ts);
        let Some(r) = self.receiver.as_mut() else {
            return;
        };
        let segment = map::segment_of(seg, irs, self.high, ts);
        let rcv_nxt = r.delivered() + u64::from(r.fin_received());
        if segment.range.end <= rcv_nxt + r.window() {
            self.high = self.high.max(segment.range.end);
        }
        r.on_segment(now, &segment);
        out.segment = Some(segment);
    }
}

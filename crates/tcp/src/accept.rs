//! Which incoming segments a synchronised connection takes: RFC 793's acceptability tests
//! as RFC 5961 hardens them, decided the way Linux does (`tcp_validate_incoming`,
//! `tcp_sequence`, `tcp_reset_check`, the RFC 5961 checks at the top of `tcp_ack`).
//!
//! A value in, a value out: [`accept`] takes the connection's sequence state ([`Tcb`], all
//! 32-bit wire sequence numbers) and the segment's ([`Seg`]) and returns a [`Verdict`]; the
//! endpoint applies it. The ACK a verdict asks for passes the per-connection rate limit
//! ([`OowLimit`], Linux `__tcp_oow_rate_limited`), and [`AcceptStats`] counts every
//! verdict under Linux's MIB name where one exists. Nothing here knows the engine: the
//! checks read wire sequence numbers only ([`crate::Endpoint`] applies them).
//!
//! In a synchronised state, in Linux's order:
//!
//! 1. **Sequence** (RFC 793 §3.3 "segment acceptability", Linux `tcp_sequence`): the
//!    segment is acceptable when `SEG.SEQ + SEG.LEN` is not before RCV.WUP (the RCV.NXT
//!    of the last window we announced) and `SEG.SEQ` is not after the announced right
//!    edge RCV.WUP + RCV.WND. Otherwise: a SYN goes to step 4 (challenge); an RST is
//!    dropped silently unless it sits at RCV.NXT − 1 after the peer's FIN (Linux
//!    `tcp_reset_check`); anything else is dropped with a duplicate ACK (RFC 793: "an
//!    acknowledgment should be sent in reply"), rate-limited for segments without data
//!    (Linux `tcp_oow_rate_limited`, `TCPACKSkippedSeq`).
//! 2. **RST** (RFC 5961 §3.2): exactly at RCV.NXT (or RCV.NXT − 1 after the peer's FIN)
//!    resets; anywhere else in the window gets a challenge ACK and changes nothing.
//! 3. **SYN** (RFC 5961 §4.2): any SYN, whatever its sequence, gets a challenge ACK and
//!    changes nothing (`TCPSYNChallenge`) — except a retransmission of the SYN we already
//!    took (same ISN), which is the handshake repeating and goes back to the endpoint
//!    ([`Verdict::SameSyn`]).
//! 4. **ACK field** (RFC 5961 §5.2, Linux `tcp_ack`): an ACK acknowledging data never sent
//!    (after SND.NXT, the highest sequence number sent) is dropped — silently, as Linux
//!    does in ESTABLISHED (RFC 793 asks for an ACK; Linux gives none there, which avoids
//!    an ACK war); one older than SND.UNA − MAX.SND.WND (Linux bounds MAX.SND.WND by the
//!    bytes acknowledged so far) gets a challenge ACK and is dropped. A segment without
//!    ACK that is neither SYN nor RST is dropped (Linux `SKB_DROP_REASON_TCP_FLAGS`).
//!
//! Challenge ACKs pass one per-connection limit shared with the duplicate ACKs of step 1:
//! one per `tcp_invalid_ratelimit` (500 ms) (Linux `tcp_send_challenge_ack` →
//! `__tcp_oow_rate_limited`; the host-wide `tcp_challenge_ack_limit` is off by default
//! since Linux 6.0 and is not modelled).
//!
//! Before the connection is synchronised (our SYN sent, no SYN of the peer taken) only a
//! SYN-ACK acknowledging exactly our SYN is taken (RFC 793 §3.10 SYN-SENT: "If SEG.ACK =<
//! ISS, or SEG.ACK > SND.NXT ... discard"); Linux answers a bad one with an RST, we drop
//! it and count it. An RST in SYN-SENT is ignored, as before.

use lossrec::Instant;

/// Linux's `tcp_invalid_ratelimit` default (HZ/2): the least gap between two ACKs sent in
/// answer to invalid segments.
pub const INVALID_RATELIMIT_NS: u64 = 500_000_000;

/// `a` is before `b` in sequence space (Linux `before`).
pub fn before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// `a` is after `b` in sequence space (Linux `after`).
pub fn after(a: u32, b: u32) -> bool {
    before(b, a)
}

/// A connection's sequence state, in wire sequence numbers (RFC 793 §3.2 names).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Tcb {
    /// ISS: our initial sequence number.
    pub iss: u32,
    /// IRS: the peer's initial sequence number, once its SYN was taken (`None`: SYN-SENT).
    pub irs: Option<u32>,
    /// RCV.NXT.
    pub rcv_nxt: u32,
    /// RCV.NXT when we last announced a window (Linux `rcv_wup`): the window the peer may
    /// fill is `[rcv_wup, rcv_wup + rcv_wnd]`.
    pub rcv_wup: u32,
    /// The window we last announced, in bytes (scaled).
    pub rcv_wnd: u32,
    /// SND.UNA.
    pub snd_una: u32,
    /// The highest sequence number sent, plus one (Linux `snd_nxt`, which an RTO does
    /// not pull back).
    pub snd_nxt: u32,
    /// MAX.SND.WND: the largest window the peer offered, in bytes (Linux `max_window`).
    pub max_window: u32,
    /// The peer's FIN was taken (CLOSE-WAIT and later): an RST at RCV.NXT − 1 resets.
    pub fin_in: bool,
}

/// What of a segment the checks read.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Seg {
    /// SEG.SEQ.
    pub seq: u32,
    /// Payload length in bytes (without SYN and FIN).
    pub len: u32,
    /// SEG.ACK, when the ACK flag is set.
    pub ack: Option<u32>,
    /// The SYN flag.
    pub syn: bool,
    /// The FIN flag.
    pub fin: bool,
    /// The RST flag.
    pub rst: bool,
}

impl Seg {
    /// SEG.SEQ + SEG.LEN, the SYN and FIN counted (Linux `end_seq`).
    pub fn end_seq(&self) -> u32 {
        self.seq
            .wrapping_add(self.len)
            .wrapping_add(u32::from(self.syn))
            .wrapping_add(u32::from(self.fin))
    }

    /// Of a decoded segment.
    pub fn of(s: &lossrec_wire::TcpSegment<'_>) -> Seg {
        use lossrec_wire::TcpFlags;
        Seg {
            seq: s.seq,
            len: s.payload.len() as u32,
            ack: s.ack,
            syn: s.flags.contains(TcpFlags::SYN),
            fin: s.flags.contains(TcpFlags::FIN),
            rst: s.flags.contains(TcpFlags::RST),
        }
    }
}

/// Why a segment was dropped; each has its counter in [`AcceptStats`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Drop {
    /// A SYN (or SYN-ACK) in a synchronised state with another ISN (RFC 5961 §4).
    Syn,
    /// An RST in the window but not at RCV.NXT (RFC 5961 §3.2).
    RstInWindow,
    /// An RST outside the window (RFC 793 §3.10, RFC 5961 §3.2).
    RstOutOfWindow,
    /// Outside the receive window (RFC 793 §3.3; Linux `TCP_OLD_SEQUENCE`,
    /// `TCP_INVALID_SEQUENCE`).
    OutOfWindow,
    /// Acknowledges data never sent (RFC 5961 §5.2; Linux `TCP_ACK_UNSENT_DATA`).
    AckUnsent,
    /// Acknowledges below SND.UNA − MAX.SND.WND (RFC 5961 §5.2; Linux `TCP_TOO_OLD_ACK`).
    AckTooOld,
    /// Neither SYN, RST nor ACK (Linux `TCP_FLAGS`), or in SYN-SENT anything but a
    /// SYN-ACK of our SYN.
    Flags,
}

/// What the endpoint answers a dropped segment with (before the rate limit).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Nothing.
    None,
    /// An ACK of RCV.NXT from SND.NXT (`tcp_send_challenge_ack`): always rate-limited.
    Challenge,
    /// A duplicate ACK (`tcp_send_dupack`); `limited` when the segment carried no data
    /// or a SYN (`tcp_oow_rate_limited`: data is not part of an ACK loop).
    DupAck {
        /// Passes the rate limit (a segment without data, or a SYN).
        limited: bool,
    },
}

/// What to do with a segment.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Acceptable: process it.
    Accept,
    /// The peer's SYN again, same ISN (a retransmission during the handshake): the
    /// endpoint handles it as a handshake segment.
    SameSyn,
    /// An acceptable RST: the connection is reset (Linux `tcp_reset`, `EstabResets`).
    Reset,
    /// Drop it, answering with `reply`.
    Drop {
        /// Why.
        why: Drop,
        /// The answer, before the rate limit.
        reply: Reply,
    },
}

const fn drop(why: Drop, reply: Reply) -> Verdict {
    Verdict::Drop { why, reply }
}

/// The checks, in Linux's order (module doc).
pub fn accept(tcb: &Tcb, seg: &Seg) -> Verdict {
    let Some(irs) = tcb.irs else {
        return syn_sent(tcb, seg);
    };
    if seg.syn && seg.seq == irs {
        return Verdict::SameSyn;
    }
    let edge = tcb.rcv_wup.wrapping_add(tcb.rcv_wnd);
    let in_window = !before(seg.end_seq(), tcb.rcv_wup) && !after(seg.seq, edge);
    let reset_check = tcb.fin_in && seg.seq == tcb.rcv_nxt.wrapping_sub(1);
    if !in_window {
        return match (seg.syn, seg.rst) {
            (true, _) => drop(Drop::Syn, Reply::Challenge),
            (false, true) if reset_check => Verdict::Reset,
            (false, true) => drop(Drop::RstOutOfWindow, Reply::None),
            (false, false) => {
                let limited = seg.len == 0;
                drop(Drop::OutOfWindow, Reply::DupAck { limited })
            }
        };
    }
    if seg.rst {
        if seg.seq == tcb.rcv_nxt || reset_check {
            return Verdict::Reset;
        }
        return drop(Drop::RstInWindow, Reply::Challenge);
    }
    if seg.syn {
        return drop(Drop::Syn, Reply::Challenge);
    }
    let Some(ack) = seg.ack else {
        return drop(Drop::Flags, Reply::None);
    };
    // Linux `tcp_ack`: `max_window = min(max_window, bytes_acked)`; the SYN counts.
    let acked = tcb.snd_una.wrapping_sub(tcb.iss);
    let max_window = tcb.max_window.min(acked);
    if before(ack, tcb.snd_una.wrapping_sub(max_window)) {
        return drop(Drop::AckTooOld, Reply::Challenge);
    }
    if after(ack, tcb.snd_nxt) {
        return drop(Drop::AckUnsent, Reply::None);
    }
    Verdict::Accept
}

/// SYN-SENT: only a SYN-ACK of our SYN (RFC 793 §3.10, Linux
/// `tcp_rcv_synsent_state_process`).
fn syn_sent(tcb: &Tcb, seg: &Seg) -> Verdict {
    let ours = tcb.iss.wrapping_add(1);
    match (seg.syn, seg.ack, seg.rst) {
        (true, Some(a), false) if a == ours => Verdict::Accept,
        (_, Some(a), _) if a != ours => drop(Drop::AckUnsent, Reply::None),
        _ => drop(Drop::Flags, Reply::None),
    }
}

/// The per-connection limit on ACKs answering invalid segments (Linux
/// `tcp_sock.last_oow_ack_time`, `__tcp_oow_rate_limited`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct OowLimit {
    last: Option<Instant>,
}

impl OowLimit {
    /// Whether an ACK may go at `now` (and if so, it is taken as sent).
    pub fn allow(&mut self, now: Instant) -> bool {
        if let Some(l) = self.last {
            if now >= l && now.as_nanos() - l.as_nanos() < INVALID_RATELIMIT_NS {
                return false;
            }
        }
        self.last = Some(now);
        true
    }
}

/// Declares [`AcceptStats`] with each counter's MIB name, serialised under that name.
macro_rules! accept_counters {
    ($($(#[$m:meta])* $field:ident = $name:literal),+ $(,)?) => {
        /// What the acceptance checks did, per connection or summed over a run.
        #[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
        pub struct AcceptStats { $($(#[$m])* #[serde(rename = $name)] pub $field: u64),+ }
        impl AcceptStats {
            /// Every counter's name.
            pub const NAMES: &'static [&'static str] = &[$($name),+];
            /// Adds `o`'s counters to these.
            pub fn add(&mut self, o: &AcceptStats) { $(self.$field += o.$field;)+ }
            /// `(name, value)` for every counter.
            pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
                [$(($name, self.$field)),+].into_iter()
            }
        }
    };
}

accept_counters! {
    /// SYNs (and SYN-ACKs) with another ISN in a synchronised state (`TCPSYNChallenge`).
    syn_challenge = "TCPSYNChallenge",
    /// Challenge ACKs sent (`TCPChallengeACK`).
    challenge_acks = "TCPChallengeACK",
    /// Challenge ACKs the rate limit withheld (`TCPACKSkippedChallenge`).
    challenge_skipped = "TCPACKSkippedChallenge",
    /// Duplicate ACKs for out-of-window segments the rate limit withheld (`TCPACKSkippedSeq`).
    seq_skipped = "TCPACKSkippedSeq",
    /// RSTs in the window but not at RCV.NXT, challenged (no MIB; drop reason `TCP_RESET`).
    rst_in_window = "TCPRstInWindow",
    /// RSTs outside the window, dropped (no MIB; `TCP_INVALID_SEQUENCE` with RST).
    rst_out_of_window = "TCPRstOutOfWindow",
    /// Other segments outside the window (no MIB; `TCP_OLD_SEQUENCE`, `TCP_INVALID_SEQUENCE`).
    out_of_window = "TCPInvalidSequence",
    /// ACKs of data never sent (no MIB; `TCP_ACK_UNSENT_DATA`).
    ack_unsent = "TCPAckUnsentData",
    /// ACKs older than SND.UNA − MAX.SND.WND (no MIB; `TCP_TOO_OLD_ACK`).
    ack_too_old = "TCPTooOldAck",
    /// Segments without ACK, SYN or RST (no MIB; `TCP_FLAGS`).
    bad_flags = "TCPBadFlags",
    /// Acceptable RSTs: the connection was reset (`EstabResets`).
    resets = "EstabResets",
}

impl AcceptStats {
    /// Counts `v`; `sent` says whether its reply passed the rate limit.
    pub fn count(&mut self, v: &Verdict, sent: bool) {
        let Verdict::Drop { why, reply } = *v else {
            self.resets += u64::from(*v == Verdict::Reset);
            return;
        };
        match why {
            Drop::Syn => self.syn_challenge += 1,
            Drop::RstInWindow => self.rst_in_window += 1,
            Drop::RstOutOfWindow => self.rst_out_of_window += 1,
            Drop::OutOfWindow => self.out_of_window += 1,
            Drop::AckUnsent => self.ack_unsent += 1,
            Drop::AckTooOld => self.ack_too_old += 1,
            Drop::Flags => self.bad_flags += 1,
        }
        match (reply, sent) {
            (Reply::Challenge, true) => self.challenge_acks += 1,
            (Reply::Challenge, false) => self.challenge_skipped += 1,
            (Reply::DupAck { .. }, false) => self.seq_skipped += 1,
            _ => {}
        }
    }
}

/// One synchronised connection's side of the checks, the same for both endpoints: the
/// reply rate limit, the counters, whether an acceptable RST reset it, and the ACKs
/// answering invalid segments until the driver takes them.
#[derive(Clone, Debug, Default)]
pub struct Guard {
    limit: OowLimit,
    stats: AcceptStats,
    reset: bool,
    replies: Vec<Vec<u8>>,
}

impl Guard {
    /// Judges `seg` against `tcb` ([`accept`]), counts it, and applies the rate limit to
    /// its reply: the verdict and whether to send that reply. An acceptable RST resets.
    pub fn judge(&mut self, tcb: &Tcb, seg: &Seg, now: Instant) -> (Verdict, bool) {
        let v = accept(tcb, seg);
        let sent = reply_allowed(&v, &mut self.limit, now);
        self.stats.count(&v, sent);
        if v == Verdict::Reset {
            self.reset = true;
        }
        (v, sent)
    }

    /// What the checks did on this connection.
    pub fn stats(&self) -> &AcceptStats {
        &self.stats
    }

    /// The peer reset the connection with an acceptable RST (RFC 5961 §3.2).
    pub fn is_reset(&self) -> bool {
        self.reset
    }

    /// Queues an encoded reply (a challenge or duplicate ACK).
    pub fn push_reply(&mut self, packet: Vec<u8>) {
        self.replies.push(packet);
    }

    /// Moves the queued replies to `out`.
    pub fn take_replies(&mut self, out: &mut Vec<Vec<u8>>) {
        out.append(&mut self.replies);
    }
}

/// Applies the rate limit to `v`'s reply at `now`: whether to send it.
pub fn reply_allowed(v: &Verdict, limit: &mut OowLimit, now: Instant) -> bool {
    match *v {
        Verdict::Drop {
            reply: Reply::Challenge | Reply::DupAck { limited: true },
            ..
        } => limit.allow(now),
        Verdict::Drop {
            reply: Reply::DupAck { limited: false },
            ..
        } => true,
        _ => false,
    }
}

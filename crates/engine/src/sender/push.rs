//! Where PSH goes.
//!
//! RFC flavour: on the segment carrying the last byte of each `write` (RFC 9293 §3.9.1
//! "PUSH", as a sender that pushes every write does), and its retransmissions.
//!
//! Linux flavour: PSH is a property of the socket buffer (skb) a packet is cut from, plus
//! one rule in `__tcp_transmit_skb`:
//! - `tcp_sendmsg_locked` (net/ipv4/tcp.c) appends a write to the unsent tail skb while it
//!   is shorter than `size_goal` (`tcp_xmit_size_goal`: the largest multiple of the MSS
//!   within half the peer's largest window, `tcp_bound_to_half_wnd`, and the GSO limit),
//!   clearing that skb's PSH first (`if (!copied) … &= ~TCPHDR_PSH`); it starts new skbs
//!   as they fill. A full skb is marked when `forced_push()` holds (`write_seq >
//!   pushed_seq + max_window / 2`), and `tcp_push` marks the tail skb when the write ends
//!   (`tcp_mark_push`, which also sets `pushed_seq = write_seq`).
//! - `tcp_write_xmit` sends an skb as packets of at most `min(cwnd quota, tso segs)`
//!   segments (`tcp_cwnd_test` — at most half the cwnd —, `tcp_tso_autosize`: the pacing
//!   rate's bytes per 1 ms, at least `tcp_min_tso_segs`), never across skbs;
//!   `tso_fragment` keeps the mark on the unsent tail, so a packet carries it only when it
//!   ends where the skb ends.
//! - `__tcp_transmit_skb` sets PSH on every packet of more than one segment ("to expedite
//!   GRO flush at receiver").
//!
//! The engine hands out one MSS at a time, so a multi-segment packet is a run of
//! segments sent at one instant; on the wire (after GSO) only its last segment carries
//! PSH, and packetdrill, gathering segments into a script line, takes the last one's
//! flags. A retransmission carries the mark of the bytes it repeats (a single-segment
//! `tcp_retransmit_skb` of the skb, or of its head after `tcp_fragment` moved the mark to
//! the tail).

use std::collections::VecDeque;

use super::Sender;
use crate::scoreboard::SentSeg;
use crate::time::Instant;
use sizing::size_goal;

/// The unsent skbs (Linux flavour) or write ends (RFC flavour), and the packet being cut.
#[derive(Clone, Debug, Default)]
pub(super) struct Push {
    /// Unsent data cut as `tcp_sendmsg` would: each entry is an skb's end offset and
    /// whether it carries the push mark. The first starts at SND.NXT.
    skbs: VecDeque<Skb>,
    /// Linux `tp->pushed_seq`.
    pushed_seq: u64,
    /// The multi-segment packet under way.
    packet: Option<Packet>,
    /// Written data not yet cut into `skbs`. Writes that arrive while data waits here
    /// join it: the earlier one's end would be marked only if an skb happened to end
    /// there, which `size_goal` rarely allows.
    uncut_front: Option<Uncut>,
    /// What the last segment handed out changed (`undo`), once `record` asked.
    undo: Option<Box<undo::PushUndo>>,
}

/// An unsent skb: its end offset, and in the top bit whether it carries the push mark
/// (one word, so that the queue stays small).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Skb(u64);

const MARK: u64 = 1 << 63;

impl Skb {
    fn new(end: u64, mark: bool) -> Skb {
        Skb(end | if mark { MARK } else { 0 })
    }
    fn end(self) -> u64 {
        self.0 & !MARK
    }
    fn mark(self) -> bool {
        self.0 & MARK != 0
    }
    fn set_end(&mut self, end: u64) {
        self.0 = end | (self.0 & MARK);
    }
    fn set_mark(&mut self, mark: bool) {
        *self = Skb::new(self.end(), mark);
    }
}

/// A write (or its rest) waiting to be cut into skbs.
#[derive(Copy, Clone, Debug)]
struct Uncut {
    next: u64,
    end: u64,
    /// Nothing of it was copied yet (its first copy clears the tail skb's mark).
    first: bool,
}

/// The most skbs kept cut ahead of SND.NXT.
const MAX_SKBS: usize = 4;

/// A packet of several segments being handed out one segment at a time.
#[derive(Copy, Clone, Debug)]
struct Packet {
    at: Instant,
    /// Where its next segment starts.
    next: u64,
    left: u16,
    size: u16,
    rtx: bool,
}

/// What one new segment carries: PSH on the wire, and the push mark retransmissions keep.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) struct PushFlags {
    pub wire: bool,
    pub mark: bool,
    /// The last segment of its packet.
    pub ends_packet: bool,
}

impl Push {
    /// `bytes` more were written after `[0, written)`.
    fn on_write(&mut self, linux: bool, g: WriteGeometry, written: u64, bytes: u64) {
        let end = written + bytes;
        if !linux {
            self.skbs.push_back(Skb::new(end, true));
            return;
        }
        match &mut self.uncut_front {
            Some(w) => w.end = end,
            None => {
                self.uncut_front = Some(Uncut {
                    next: written,
                    end,
                    first: true,
                })
            }
        }
        if self.skbs.capacity() == 0 {
            self.skbs.reserve_exact(MAX_SKBS);
        }
        self.cut_writes(g);
    }

    /// The unsent skb at `snd_nxt`: its end, and whether it is the write queue's tail
    /// (`None` when nothing is cut yet).
    fn send_head(&self, snd_nxt: u64) -> Option<(u64, bool)> {
        let i = self.skbs.iter().position(|s| s.end() > snd_nxt)?;
        let tail = i + 1 == self.skbs.len() && self.uncut_front.is_none();
        Some((self.skbs[i].end(), tail))
    }

    /// More skbs are wanted before the next segment is sent.
    fn wants_cut(&self) -> bool {
        self.uncut_front.is_some() && self.skbs.len() < MAX_SKBS / 2
    }

    /// Cuts written data into skbs as `tcp_sendmsg_locked` does, up to `MAX_SKBS` of them
    /// (the rest waits in `uncut_front`, so a large write costs no more memory than a small one).
    fn cut_writes(&mut self, g: WriteGeometry) {
        // What `tcp_push_one` and `__tcp_push_pending_frames` send while the write is
        // being copied: SND.NXT and the packets in flight as they would be.
        let mut sim = (g.snd_nxt, g.in_flight);
        while self.skbs.len() < MAX_SKBS {
            let Some(mut w) = self.uncut_front else {
                return;
            };
            // The unsent tail skb: what was sent of an skb is an skb of its own
            // (`tso_fragment`), so the tail's unsent part starts at SND.NXT at the latest.
            let n = self.skbs.len();
            let tail_start = if n >= 2 {
                self.skbs[n - 2].end()
            } else {
                g.snd_nxt
            };
            let tail_start = tail_start.max(sim.0);
            let mut len = match self.skbs.back().map(|s| s.end()) {
                Some(e) if e > sim.0 => e - tail_start,
                _ => g.size_goal,
            };
            if len >= g.size_goal {
                self.skbs.push_back(Skb::new(w.next, false));
                len = 0;
            }
            let copy = (g.size_goal - len).min(w.end - w.next);
            let tail = self.skbs.back_mut().expect("an skb was just ensured");
            if w.first {
                // `if (!copied) TCP_SKB_CB(skb)->tcp_flags &= ~TCPHDR_PSH`
                tail.set_mark(false);
                w.first = false;
            }
            w.next += copy;
            tail.set_end(w.next);
            if w.next == w.end {
                // tcp_push → tcp_mark_push on the tail skb.
                tail.set_mark(true);
                self.pushed_seq = w.end;
                self.uncut_front = None;
                continue;
            }
            let forced = w.next > self.pushed_seq.saturating_add(g.max_window / 2);
            self.uncut_front = Some(w);
            if len + copy < g.size_goal {
                continue;
            }
            // tcp.c `forced_push()`: a full skb is pushed once more than half the
            // largest window was written since the last push; then everything the window
            // allows goes. Otherwise a full skb at the head of the queue goes as one
            // packet (`tcp_push_one`).
            if forced {
                if let Some(tail) = self.skbs.back_mut() {
                    tail.set_mark(true);
                }
                self.pushed_seq = w.next;
                self.sim_send(g, &mut sim, true);
            } else if tail_start <= sim.0 {
                self.sim_send(g, &mut sim, false);
            }
        }
    }

    /// Packets `tcp_write_xmit` sends from the unsent skbs during a write (`all`, or one
    /// with `push_one`): each at most min(half the window, the window left, `tso segs`)
    /// segments; a packet cut from an skb leaves the rest an skb of its own, which keeps
    /// the mark (`tso_fragment`).
    fn sim_send(&mut self, g: WriteGeometry, sim: &mut (u64, u64), all: bool) {
        loop {
            let quota = (g.cwnd / 2).max(1).min(g.cwnd.saturating_sub(sim.1));
            let Some(i) = self.skbs.iter().position(|s| s.end() > sim.0) else {
                return;
            };
            if quota == 0 {
                return;
            }
            let head_end = self.skbs[i].end();
            let sent_end = (sim.0 + quota.min(g.tso_segs) * g.mss).min(head_end);
            if sent_end < head_end {
                self.skbs.insert(i, Skb::new(sent_end, false));
            }
            sim.1 += (sent_end - sim.0).div_ceil(g.mss);
            sim.0 = sent_end;
            if !all {
                return;
            }
        }
    }

    /// Segment `[start, end)` of new data leaves at `now`; `segs`: how many segments of
    /// `mss` the packet it starts may hold (used only when it starts one).
    fn on_send(
        &mut self,
        linux: bool,
        now: Instant,
        r: (u64, u64),
        mss: u64,
        segs: u64,
    ) -> PushFlags {
        let (start, end) = r;
        let mut mark = false;
        let mut skb_end = None;
        self.undo_begin();
        while let Some(&skb) = self.skbs.front() {
            let (e, m) = (skb.end(), skb.mark());
            if e > end {
                skb_end.get_or_insert(e);
                break;
            }
            mark |= m && e == end;
            skb_end = Some(e);
            self.undo_popped(skb);
            self.skbs.pop_front();
        }
        if !linux {
            return PushFlags {
                wire: mark,
                mark,
                ends_packet: true,
            };
        }
        let in_skb = skb_end.map_or(segs, |e| e.saturating_sub(start).div_ceil(mss));
        self.cut(false, now, r, mark, segs.min(in_skb))
    }

    /// The next segment of the packet under way, or the first of a new one of `n`
    /// segments (`tcp_mss_split_point`, `tcp_retransmit_skb`'s `segs`).
    fn cut(&mut self, rtx: bool, now: Instant, r: (u64, u64), mark: bool, n: u64) -> PushFlags {
        let (start, end) = r;
        let (left, size) = match self.packet {
            Some(p) if p.rtx == rtx && p.at == now && p.next == start => (p.left, p.size),
            _ => {
                let n = u16::try_from(n.max(1)).unwrap_or(u16::MAX);
                (n, n)
            }
        };
        let left = left - 1;
        self.packet = (left > 0).then_some(Packet {
            at: now,
            next: end,
            left,
            size,
            rtx,
        });
        PushFlags {
            wire: left == 0 && (size > 1 || mark),
            mark,
            ends_packet: left == 0,
        }
    }
}

/// What `tcp_sendmsg` needs to cut a write into skbs.
#[derive(Copy, Clone, Debug)]
struct WriteGeometry {
    snd_nxt: u64,
    size_goal: u64,
    max_window: u64,
    mss: u64,
    /// cwnd and packets in flight, segments; `tcp_tso_segs`.
    cwnd: u64,
    in_flight: u64,
    tso_segs: u64,
}

impl Sender {
    fn push_linux(&self) -> bool {
        self.alg.rules.skb_push_and_tso
    }

    /// The application wrote `bytes` after `[0, written)`.
    pub(super) fn push_on_write(&mut self, written: u64, bytes: u64) {
        let g = self.write_geometry(true);
        let linux = self.push_linux();
        self.push.on_write(linux, g, written, bytes);
    }

    /// What cutting a write needs now; `sends`: model what `tcp_sendmsg` sends while it
    /// copies (only at the write itself; data cut later was queued behind a full window).
    fn write_geometry(&self, sends: bool) -> WriteGeometry {
        let mss = self.mss.max(1);
        WriteGeometry {
            snd_nxt: self.core.sb.snd_nxt(),
            size_goal: size_goal(mss, self.peer.max_window),
            max_window: self.peer.max_window,
            mss,
            cwnd: if sends { self.cwnd / mss } else { 0 },
            in_flight: self.core.sb.flight_size().div_ceil(mss),
            tso_segs: self.tso_max_segs(),
        }
    }

    /// PSH for new data `[start, end)` sent at `now` with `room` bytes of window left
    /// before it.
    pub(super) fn push_on_send(
        &mut self,
        now: Instant,
        start: u64,
        end: u64,
        room: u64,
    ) -> PushFlags {
        let linux = self.push_linux();
        if self.push.wants_cut() {
            let g = self.write_geometry(false);
            self.push.cut_writes(g);
        }
        let mss = self.mss.max(1);
        // tcp_cwnd_test: the quota, at most half the window (two packets in flight).
        let flight = self.core.sb.flight_size();
        let half = (flight.saturating_add(room) / mss / 2).max(1);
        let quota = (room / mss).min(half).max(1);
        let segs = if linux {
            quota.min(self.tso_max_segs())
        } else {
            1
        };
        self.push.on_send(linux, now, (start, end), mss, segs)
    }

    /// PSH for retransmitting `seg` at `now` with `room` bytes of window (call before the
    /// scoreboard records it). Linux flavour: `tcp_xmit_retransmit_queue` resends an skb —
    /// a new-data packet, less what SACKs split off — as packets of at most the quota and
    /// `tso segs` (no half-window rule there); a lone segment carries only its mark.
    pub(super) fn push_on_retransmit(&mut self, now: Instant, seg: &SentSeg, room: u64) -> bool {
        if !self.push_linux() {
            return seg.psh;
        }
        let mss = self.mss.max(1);
        let run = self.core.sb.lost_run(seg.start).max(1);
        let n = run.min(room / mss).min(self.tso_max_segs());
        self.push.undo_begin();
        self.push
            .cut(true, now, (seg.start, seg.end), seg.psh, n)
            .wire
    }

    /// A packet handed out at `at` is under way and its next segment starts at `end`
    /// (the segment that ended at `end` did not end the packet).
    pub(super) fn push_packet_continues(&self, at: Instant, end: u64) -> bool {
        self.push
            .packet
            .is_some_and(|p| p.at == at && p.next == end)
    }
}

mod defer;
mod sizing;
#[cfg(test)]
mod tests;
mod undo;

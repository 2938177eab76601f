//! Inbound packets (`<` lines): the script's peer talking to the engine. SYN and SYN-ACK
//! options go to the sender's handshake; ACK fields (cumulative, SACK, window, timestamps)
//! to `Sender::on_ack`; data and FIN to the engine's `Receiver`, whose ACKs the runner
//! sends (see `Runner::drain`); RST ends the connection.
//!
//! Sequence numbers are packetdrill's relative ones in both directions: the engine's SYN and
//! the peer's SYN are 0, so `ack 1001` acknowledges the engine's stream offsets `[0, 1000)`
//! and the peer's `1:1001(1000)` is its offsets `[0, 1000)`.

use crate::ast::*;
use crate::runner::{fail, Runner, Step};
use crate::syscall::unsupported;
use crate::wire::{seq_of, Sent};
use lossrec::receiver::WindowModel;
use lossrec::{
    Ack, EcnMarks, Instant, IpEcn, Range, Receiver, ReceiverConfig, SackBlocks, Segment,
    SynOptions, Timestamps, Transmit, Why,
};

/// The peer's options on one packet.
#[derive(Default)]
struct Opts {
    mss: u16,
    sack_ok: bool,
    wscale: Option<u8>,
    ts: Option<(u32, u32)>,
    sack: Vec<(u32, u32)>,
}

fn opts(p: &Packet) -> Opts {
    let mut o = Opts::default();
    if let Options::List(l) = &p.options {
        for x in l {
            match x {
                TcpOption::Mss(m) => o.mss = *m,
                TcpOption::SackOk => o.sack_ok = true,
                TcpOption::Wscale(w) => o.wscale = Some((*w).min(14)),
                TcpOption::Timestamp { val, ecr } => o.ts = Some((*val, *ecr)),
                TcpOption::Sack(b) => o.sack.extend(b.iter().copied()),
                TcpOption::Nop | TcpOption::Eol | TcpOption::Other(_) => {}
            }
        }
    }
    o
}

/// The packet's ECN marks (RFC 3168): the `[…]` codepoint (none: Not-ECT, as packetdrill
/// sends it) and the `E`/`W` flags; `None` for `[ect01]`, which names no one codepoint.
fn ecn_marks(p: &Packet) -> Option<EcnMarks> {
    let ip = match p.ecn {
        None | Some(Ecn::NotEct) => IpEcn::NotEct,
        Some(Ecn::Ect0) => IpEcn::Ect0,
        Some(Ecn::Ect1) => IpEcn::Ect1,
        Some(Ecn::Ce) => IpEcn::Ce,
        Some(Ecn::Ect01) => return None,
    };
    Some(EcnMarks {
        ip,
        ece: p.flags.ece,
        cwr: p.flags.cwr,
    })
}

/// The engine `Segment` of the peer's data line `p`, through [`lossrec_tcp::map::segment_of`]:
/// the line as a wire segment (relative sequence numbers are a space whose ISN is
/// `peer_isn`), its timestamps passed as written (packetdrill's TS values are the
/// script's, not a clock).
fn data_segment(p: &Packet, o: &Opts, marks: EcnMarks, peer_isn: u32, near: u64) -> Segment {
    let addr = std::net::SocketAddrV4::new(std::net::Ipv4Addr::UNSPECIFIED, 0);
    let mut w = lossrec_wire::TcpSegment::new(addr, addr, p.start);
    w.payload = lossrec_wire::Payload::Zeros(p.len as usize);
    if p.flags.fin {
        w.flags |= lossrec_wire::TcpFlags::FIN;
    }
    if p.flags.psh {
        w.flags |= lossrec_wire::TcpFlags::PSH;
    }
    lossrec_tcp::map::put_ecn(&mut w, marks);
    let ts = o.ts.map(|(val, ecr)| Timestamps {
        val: u64::from(val),
        ecr: u64::from(ecr),
    });
    lossrec_tcp::map::segment_of(&w, peer_isn, near, ts)
}

impl Runner<'_> {
    pub(crate) fn inbound(&mut self, line: usize, p: &Packet) -> Step {
        self.log(self.now, p.to_string());
        let f = p.flags;
        let Some(marks) = ecn_marks(p) else {
            return unsupported(
                line,
                "`[ect01]` on an inbound packet (it must say which codepoint it carries)",
            );
        };
        if f.urg {
            return unsupported(line, "urgent data (URG)");
        }
        if matches!(p.options, Options::Any) {
            return unsupported(
                line,
                "`<...>` on an inbound packet (it must say which options it carries)",
            );
        }
        if self.reset {
            return Err(fail(line, "inbound packet after the connection was reset"));
        }
        if self.sender.is_none() {
            return Err(fail(
                line,
                "inbound packet before the connection exists (no `listen` or `connect` yet)",
            ));
        }
        let o = opts(p);
        if f.rst {
            // RFC 9293 §3.10.7.4: the connection is gone; nothing more is sent.
            self.reset = true;
            self.sender = None;
            self.log(self.now, "# connection reset by the peer");
            return Ok(());
        }
        let syn_opts = SynOptions {
            mss: o.mss,
            sack_permitted: o.sack_ok,
            timestamps: o.ts.is_some(),
            window_scale: o.wscale,
            // RFC 3168 §6.1.1; a SYN that is itself ECT is refused, as Linux's
            // `tcp_ecn_create_request` does.
            ecn: if f.ack {
                marks.is_setup_syn_ack()
            } else {
                marks.is_setup_syn() && marks.ip == IpEcn::NotEct
            },
        };
        if f.syn && !f.ack {
            if !self.passive {
                return unsupported(line, "an inbound SYN on an actively opened connection");
            }
            let ts = o.ts.map(|(val, _)| Timestamps {
                val: u64::from(val),
                ecr: 0,
            });
            let now = self.now;
            self.sender
                .as_mut()
                .expect("checked")
                .on_syn(now, &syn_opts, ts);
            self.peer_wscale = o.wscale;
            self.peer_isn = p.start;
            return Ok(());
        }
        if !f.ack {
            // RFC 9293 §3.10.7.4 (fifth check): a segment without ACK is dropped.
            self.log(self.now, "# dropped: no ACK bit (RFC 9293 §3.10.7.4)");
            return Ok(());
        }
        let Some(ack_seq) = p.ack else {
            // `< . 1:10001(10000) win 320`: packetdrill fills in an ACK of nothing new.
            if p.len > 0 || f.fin {
                self.receive(p, &o, marks)?;
            }
            return Ok(());
        };
        if (p.len > 0 || f.fin) && !f.syn {
            // RFC 9293 §3.10.7.4 / Linux `tcp_ack()`: an ACK of data never sent discards
            // the whole segment (its data, FIN and timestamp).
            let s = self.sender.as_ref().expect("checked");
            let acked = u64::from(ack_seq.wrapping_sub(self.local_isn).wrapping_sub(1));
            if acked > s.snd_nxt() + u64::from(self.fin_sent) {
                self.log(self.now, "# dropped: it acknowledges data never sent");
                return Ok(());
            }
            self.receive(p, &o, marks)?;
        }
        self.ack(line, p, &o, ack_seq, syn_opts, marks)
    }

    /// The peer's data or FIN, into the engine's receiver.
    fn receive(&mut self, p: &Packet, o: &Opts, marks: EcnMarks) -> Step {
        if self.receiver.is_none() {
            let s = self.sender.as_ref().expect("checked");
            let cfg = ReceiverConfig {
                // The sender's handshake agreed (or refused) ECN for both directions.
                ecn: s.ecn_enabled(),
                // Linux's quick-ACK mode at the start of a connection: every segment is
                // ACKed at once, as these scripts expect.
                delayed_ack: None,
                sack: s.sack_enabled(),
                dsack: true,
                timestamps: s.timestamps_enabled(),
                mss: 1460,
                window: 16 << 20,
                window_model: WindowModel::Fixed,
                quickack_segments: 16,
            };
            self.receiver = Some(Receiver::new(cfg, self.now));
        }
        // A longer line is one GSO packet, delivered whole as after GRO (one ACK);
        // `--mss` only sets its segment size (see `tcpi_rcv_mss`). The segment reaches the
        // engine through `lossrec-tcp`'s mapping, as a wire segment would: the peer's byte
        // `seq` is stream offset `seq - ISN - 1`, unwrapped near the highest offset taken.
        let seg = data_segment(p, o, marks, self.peer_isn, self.rcv_high);
        self.rcv_high = self.rcv_high.max(seg.range.end);
        let now = self.now;
        self.receiver
            .as_mut()
            .expect("made above")
            .on_segment(now, &seg);
        Ok(())
    }

    /// The ACK fields of an inbound packet, for the sender.
    fn ack(
        &mut self,
        line: usize,
        p: &Packet,
        o: &Opts,
        ack_seq: u32,
        syn: SynOptions,
        marks: EcnMarks,
    ) -> Step {
        let isn = self.local_isn;
        if ack_seq == isn {
            return Err(fail(
                line,
                format!("inbound `ack {ack_seq}` acknowledges nothing: the SYN is sequence {isn}"),
            ));
        }
        let sender = self.sender.as_ref().expect("checked");
        let mut cumulative = u64::from(ack_seq.wrapping_sub(isn).wrapping_sub(1));
        // The FIN takes one sequence number after the last byte: a bare FIN has it on the
        // scoreboard; one on the last data segment is acknowledged with the data.
        let written = sender.bytes_written();
        let piggybacked = sender.scoreboard().snd_nxt() == written;
        if self.fin_sent && piggybacked && cumulative == written + 1 {
            cumulative = written;
        }
        // RFC 5681 §2: a segment carrying data or a FIN is not a duplicate ACK; unless it
        // acknowledges something new it tells the sender nothing.
        let una = sender.scoreboard().snd_una();
        if (p.len > 0 || p.flags.fin) && cumulative <= una && !p.flags.syn {
            return Ok(());
        }
        let ts = o.ts.map(|(val, ecr)| Timestamps {
            val: u64::from(val),
            ecr: self.map_ecr(ecr),
        });
        let mut blocks = SackBlocks::new();
        for &(a, b) in &o.sack {
            if a == isn || b == isn {
                return Err(fail(
                    line,
                    format!("a SACK edge of {isn} (the SYN) lies before the first data byte"),
                ));
            }
            let off = |x: u32| u64::from(x.wrapping_sub(isn).wrapping_sub(1));
            blocks.push(Range::new(off(a), off(b)));
        }
        let ack = if p.flags.syn {
            if self.passive {
                return unsupported(line, "an inbound SYN-ACK on a passively opened connection");
            }
            self.peer_wscale = o.wscale;
            self.peer_isn = p.start;
            Ack {
                ecn: marks,
                cumulative,
                sack: blocks,
                ts,
                window: u64::from(p.win.unwrap_or(u32::MAX)),
                syn: Some(syn),
            }
        } else {
            let window = match (p.win, self.peer_wscale) {
                (None, _) => u64::from(u32::MAX),
                (Some(w), Some(s)) => u64::from(w) << s,
                (Some(w), None) => u64::from(w),
            };
            Ack {
                ecn: marks,
                cumulative,
                sack: blocks,
                ts,
                window,
                syn: None,
            }
        };
        let now = self.now;
        self.sender.as_mut().expect("checked").on_ack(now, &ack);
        Ok(())
    }

    /// The receiver's ACKs, after the sender's transmissions of this instant (`sent`): they
    /// ride on its data (Linux piggybacks them; a D-SACK on the first segment, the SACK
    /// blocks on every one while out-of-order data is held), else each leaves as a pure
    /// ACK at SND.NXT.
    pub(crate) fn receiver_acks(
        &mut self,
        now: Instant,
        sent: &mut Vec<Sent>,
        snd_nxt: u64,
        ack: u32,
    ) {
        let Some(rcv) = self.receiver.as_mut() else {
            return;
        };
        let isn = self.peer_isn;
        let rel = |blocks: &[Range]| -> Vec<(u32, u32)> {
            let s = |o: u64| seq_of(o).wrapping_add(isn);
            blocks.iter().map(|r| (s(r.start), s(r.end))).collect()
        };
        let mut acks = Vec::new();
        while let Some(a) = rcv.poll_ack(now) {
            acks.push(a);
        }
        // RFC 3168 §6.1.3 (Linux `tcp_ecn_send`): ECE on every segment while owed.
        let ece = rcv.ecn_echo();
        if let Some(last) = acks.last() {
            self.rcv_sack = rel(last.sack_blocks());
        }
        if sent.iter().any(|x| x.t.syn.is_none()) {
            let first = acks
                .last()
                .map_or(self.rcv_sack.clone(), |a| rel(a.sack.as_slice()));
            for (i, x) in sent.iter_mut().filter(|x| x.t.syn.is_none()).enumerate() {
                x.t.ecn.ece |= ece;
                x.sack = if i == 0 {
                    first.clone()
                } else {
                    self.rcv_sack.clone()
                };
            }
            return;
        }
        let fin_sent = self.fin_sent || sent.iter().any(|x| x.t.fin);
        for a in acks {
            sent.push(Sent {
                at: now,
                t: Transmit {
                    ecn: a.ecn,
                    range: Range::new(snd_nxt, snd_nxt),
                    why: Why::HandshakeAck,
                    syn: None,
                    fin: false,
                    psh: false,
                    ts: a.ts.map(|ts| Timestamps {
                        val: ts.val + 1,
                        ecr: ts.ecr,
                    }),
                },
                ack,
                sack: rel(a.sack.as_slice()),
                why: "ack",
                seq_bump: u32::from(fin_sent),
            });
        }
    }

    /// The engine TSval a script's inbound `TS ecr` stands for: the TSval of a matched
    /// outbound packet whose script line carried that `TS val`; else interpolated from the
    /// first such pair (script values in the engine's microsecond units); else the TSval of
    /// the latest matched outbound packet. 0 stays 0.
    fn map_ecr(&self, ecr: u32) -> u64 {
        if ecr == 0 {
            return 0;
        }
        if let Some(&(_, v)) = self.ts_map.iter().rev().find(|(s, _)| *s == ecr) {
            return v;
        }
        if let Some(&(s0, v0)) = self.ts_map.first() {
            return (v0 as i64 + (i64::from(ecr) - i64::from(s0))).max(0) as u64;
        }
        self.last_ts_val.unwrap_or(u64::from(ecr))
    }
}

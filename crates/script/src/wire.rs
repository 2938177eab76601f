//! Between the engine's stream offsets and packetdrill's relative sequence numbers: what an
//! engine transmission looks like as a script packet, how an expected `>` line is compared
//! with it, and how several same-instant segments merge into one TSO-style line.
//!
//! Relative numbering: the SYN is sequence 0, so stream offset `o` is sequence `o + 1`; the
//! ACK number is what the engine's receiver has taken from the script's peer (1 + bytes,
//! + 1 for the peer's FIN).

use crate::ast::{fmt_secs, Ecn, Flags, Options, Packet, TcpOption};
use lossrec::{Instant, IpEcn, Transmit};

/// One engine transmission and when it left: a sender segment, or a pure ACK the
/// engine's receiver sent for the peer's data or FIN.
#[derive(Clone, Debug)]
pub struct Sent {
    pub at: Instant,
    pub t: Transmit,
    /// The ACK number it carried (relative).
    pub ack: u32,
    /// SACK blocks (relative), for the receiver's pure ACKs.
    pub sack: Vec<(u32, u32)>,
    /// Why it was sent (`new`, `rto`, …; `ack` for the receiver's).
    pub why: &'static str,
    /// 1 when the engine's FIN precedes it (a pure ACK after our FIN is one sequence later).
    pub seq_bump: u32,
}

/// An outbound packet as the script sees it: one engine segment, or several merged.
#[derive(Clone, Debug)]
pub struct Seen {
    pub at: Instant,
    pub flags: Flags,
    /// The IP ECN codepoint (RFC 3168 §5).
    pub ecn: IpEcn,
    pub start: u32,
    pub end: u32,
    pub len: u32,
    pub ack: Option<u32>,
    pub options: Vec<TcpOption>,
    /// Why the engine sent each merged segment.
    pub why: Vec<&'static str>,
    /// How many engine segments this covers.
    pub segments: usize,
}

/// Microseconds since the script's start.
pub fn usecs(t: Instant) -> i64 {
    i64::try_from(t.as_micros()).unwrap_or(i64::MAX)
}

/// Sequence number of stream offset `o` (SYN = 0).
pub fn seq_of(o: u64) -> u32 {
    (o.wrapping_add(1)) as u32
}

impl Seen {
    /// The script view of one transmission. `passive`: the engine answered a SYN; `isn`:
    /// the engine's initial sequence number in script space.
    pub fn of(s: &Sent, passive: bool, isn: u32) -> Seen {
        let t = &s.t;
        let mut options = Vec::new();
        let ts = t.ts.map(|ts| TcpOption::Timestamp {
            val: ts.val as u32,
            ecr: ts.ecr as u32,
        });
        let (flags, start, end, ack) = if let Some(syn) = t.syn {
            // Linux's SYN option layout, so expected lines read naturally.
            options.push(TcpOption::Mss(syn.mss));
            match (syn.sack_permitted, ts.clone()) {
                (true, Some(ts)) => options.extend([TcpOption::SackOk, ts]),
                (true, None) => options.extend([TcpOption::Nop, TcpOption::Nop, TcpOption::SackOk]),
                (false, Some(ts)) => options.extend([TcpOption::Nop, TcpOption::Nop, ts]),
                (false, None) => {}
            }
            if let Some(w) = syn.window_scale {
                options.extend([TcpOption::Nop, TcpOption::Wscale(w)]);
            }
            let flags = Flags {
                syn: true,
                ack: passive,
                ece: t.ecn.ece,
                cwr: t.ecn.cwr,
                ..Flags::default()
            };
            (flags, isn, isn, passive.then_some(s.ack))
        } else {
            if let Some(ts) = ts {
                options.extend([TcpOption::Nop, TcpOption::Nop, ts]);
            }
            if !s.sack.is_empty() {
                options.extend([
                    TcpOption::Nop,
                    TcpOption::Nop,
                    TcpOption::Sack(s.sack.clone()),
                ]);
            }
            let flags = Flags {
                ack: true,
                psh: t.psh,
                fin: t.fin,
                ece: t.ecn.ece,
                cwr: t.ecn.cwr,
                ..Flags::default()
            };
            let start = seq_of(t.range.start)
                .wrapping_add(s.seq_bump)
                .wrapping_add(isn);
            let end = seq_of(t.range.end)
                .wrapping_add(s.seq_bump)
                .wrapping_add(isn);
            (flags, start, end, Some(s.ack))
        };
        Seen {
            at: s.at,
            flags,
            ecn: t.ecn.ip,
            start,
            end,
            len: end.wrapping_sub(start),
            ack,
            options,
            why: vec![s.why],
            segments: 1,
        }
    }

    /// Appends the next segment of a TSO-style burst; false if it cannot continue this one.
    pub fn absorb(&mut self, next: &Seen) -> bool {
        if next.at != self.at
            || next.flags.syn
            || self.flags.fin
            || next.start != self.end
            || next.len == 0
            || next.ack != self.ack
            || next.ecn != self.ecn
        {
            return false;
        }
        self.end = next.end;
        self.len = self.end.wrapping_sub(self.start);
        // packetdrill's `aggregate_packets` copies the headers of the last packet; CWR
        // stays the first segment's (Linux sets it on the TSO packet, SKB_GSO_TCP_ECN).
        self.flags.psh = next.flags.psh;
        self.flags.ece = next.flags.ece;
        self.flags.fin |= next.flags.fin;
        self.why.extend(next.why.iter().copied());
        self.segments += next.segments;
        true
    }

    /// The TS val the engine put on this packet.
    pub fn ts_val(&self) -> Option<u32> {
        self.options.iter().find_map(|o| match o {
            TcpOption::Timestamp { val, .. } => Some(*val),
            _ => None,
        })
    }

    /// `0.200000 > P. 1:1001(1000) ack 1 <…>  (new)`.
    pub fn render(&self) -> String {
        let ecn = match self.ecn {
            IpEcn::NotEct => "",
            IpEcn::Ect0 => "[ect0] ",
            IpEcn::Ect1 => "[ect1] ",
            IpEcn::Ce => "[ce] ",
        };
        let mut s = format!(
            "{} > {ecn}{} {}:{}({})",
            fmt_secs(usecs(self.at)),
            self.flags,
            self.start,
            self.end,
            self.len
        );
        if let Some(a) = self.ack {
            s += &format!(" ack {a}");
        }
        if !self.options.is_empty() {
            s += &Options::List(self.options.clone()).to_string();
        }
        let mut why = self.why.clone();
        why.dedup();
        s += &format!("  ({})", why.join(","));
        if self.segments > 1 {
            s += &format!(" [{} segments]", self.segments);
        }
        s
    }
}

/// The options that matter for comparison, ignoring order, `nop` and `eol`.
#[derive(Debug, Default, PartialEq)]
struct Norm {
    mss: Option<u16>,
    sack_ok: bool,
    wscale: Option<u8>,
    ts_ecr: Option<u32>,
    sack: Vec<(u32, u32)>,
}

fn norm(opts: &[TcpOption]) -> Norm {
    let mut n = Norm::default();
    for o in opts {
        match o {
            TcpOption::Mss(m) => n.mss = Some(*m),
            TcpOption::SackOk => n.sack_ok = true,
            TcpOption::Wscale(w) => n.wscale = Some(*w),
            TcpOption::Timestamp { ecr, .. } => n.ts_ecr = Some(*ecr),
            TcpOption::Sack(b) => n.sack.extend(b.iter().copied()),
            TcpOption::Nop | TcpOption::Eol | TcpOption::Other(_) => {}
        }
    }
    n
}

/// The first field where `actual` differs from the expected packet: `(field, expected,
/// actual)`. TS val, the window and option order are not compared (see the crate docs);
/// nor PSH with `ignore_psh`.
pub fn compare(exp: &Packet, act: &Seen, ignore_psh: bool) -> Result<(), (String, String, String)> {
    let d = |f: &str, e: String, a: String| Err((f.to_string(), e, a));
    if exp.flags.syn != act.flags.syn {
        return d("flags", exp.flags.to_string(), act.flags.to_string());
    }
    if exp.start != act.start {
        return d("tcp_seq", exp.start.to_string(), act.start.to_string());
    }
    if exp.len != act.len {
        return d(
            "payload length",
            format!("{}:{}({})", exp.start, exp.end, exp.len),
            format!("{}:{}({})", act.start, act.end, act.len),
        );
    }
    let mut flags = act.flags;
    if ignore_psh {
        flags.psh = exp.flags.psh;
    }
    if exp.flags != flags {
        return d("flags", exp.flags.to_string(), act.flags.to_string());
    }
    // The codepoint is checked only when the line gives one (packetdrill's ECN_NOCHECK).
    if let Some(e) = exp.ecn {
        let ok = match e {
            Ecn::NotEct => act.ecn == IpEcn::NotEct,
            Ecn::Ect0 => act.ecn == IpEcn::Ect0,
            Ecn::Ect1 => act.ecn == IpEcn::Ect1,
            Ecn::Ce => act.ecn == IpEcn::Ce,
            Ecn::Ect01 => matches!(act.ecn, IpEcn::Ect0 | IpEcn::Ect1),
        };
        if !ok {
            let a = match act.ecn {
                IpEcn::NotEct => "noecn",
                IpEcn::Ect0 => "ect0",
                IpEcn::Ect1 => "ect1",
                IpEcn::Ce => "ce",
            };
            return d("ip ecn", format!("[{}]", e.name()), format!("[{a}]"));
        }
    }
    if let Some(a) = exp.ack {
        if act.ack != Some(a) {
            return d(
                "tcp_ack_seq",
                a.to_string(),
                act.ack.map_or("none".into(), |x| x.to_string()),
            );
        }
    }
    let list = |o: &[TcpOption]| Options::List(o.to_vec()).to_string().trim().to_string();
    match &exp.options {
        Options::Any => Ok(()),
        Options::None if act.options.is_empty() => Ok(()),
        Options::None => d("tcp options", "none".into(), list(&act.options)),
        Options::List(l) => {
            let (e, a) = (norm(l), norm(&act.options));
            let field = if e.mss != a.mss {
                "mss"
            } else if e.sack_ok != a.sack_ok {
                "sackOK"
            } else if e.wscale != a.wscale {
                "wscale"
            } else if e.ts_ecr.is_some() != a.ts_ecr.is_some() {
                "timestamps"
            } else if e.ts_ecr != a.ts_ecr {
                "TS ecr"
            } else if e.sack != a.sack {
                "sack"
            } else {
                return Ok(());
            };
            d(&format!("tcp option {field}"), list(l), list(&act.options))
        }
    }
}

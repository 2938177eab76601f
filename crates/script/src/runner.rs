//! Running a parsed script against the engine in virtual time.
//!
//! Time starts at 0 and only moves forward: before each event the engine's deadline is
//! fired (at the deadline) while it falls at or before the event's time, and every
//! transmission is queued with the instant it left. A `>` line consumes the oldest queued
//! transmissions; other lines first check that nothing queued is older than their time
//! minus the tolerance (that would be a packet the script did not expect).

use std::collections::VecDeque;

use crate::ast::*;
use crate::expr;
use crate::report::{Failure, ScriptReport};
use crate::syscall;
use crate::wire::{usecs, Seen, Sent};
use crate::ScriptOptions;
use lossrec::{Ack, Config, Instant, Range, SackBlocks, Sender, SynOptions, Timestamps};

/// Bound on timer firings while waiting for one event (a stuck deadline is an engine bug).
const MAX_FIRINGS: usize = 100_000;
/// Bound on transmissions after one input.
const MAX_BURST: usize = 1_000_000;

pub(crate) struct Runner<'a> {
    pub opts: &'a ScriptOptions,
    /// Preset + header + script knobs; CLI `--set`s are applied when the sender is made.
    pub cfg: Config,
    pub sender: Option<Sender>,
    pub passive: bool,
    pub listen_fd: Option<i64>,
    pub conn_fd: Option<i64>,
    pub now: Instant,
    pending: VecDeque<Sent>,
    /// Actual time of the previous event: the base of relative times.
    prev_actual: i64,
    /// Expected time of the previous event: the base of the dynamic tolerance.
    prev_expected: i64,
    /// Window scale applied to the peer's windows (from its SYN or SYN-ACK).
    peer_wscale: Option<u8>,
    /// (script TS val, engine TS val) of matched outbound packets.
    ts_map: Vec<(u32, u64)>,
    last_ts_val: Option<u64>,
    fin_sent: bool,
    tol_us: i64,
    tol_pct: f64,
    pub report: ScriptReport,
}

pub(crate) type Step = Result<(), Failure>;

pub(crate) fn fail(line: usize, message: impl Into<String>) -> Failure {
    Failure {
        line,
        col: 0,
        message: message.into(),
        expected: None,
        actual: None,
    }
}

impl<'a> Runner<'a> {
    pub fn new(opts: &'a ScriptOptions, cfg: Config, tol_us: u64, tol_pct: f64) -> Self {
        Runner {
            opts,
            cfg,
            sender: None,
            passive: false,
            listen_fd: None,
            conn_fd: None,
            now: Instant::ZERO,
            pending: VecDeque::new(),
            prev_actual: 0,
            prev_expected: 0,
            peer_wscale: None,
            ts_map: Vec::new(),
            last_ts_val: None,
            fin_sent: false,
            tol_us: tol_us as i64,
            tol_pct,
            report: ScriptReport::default(),
        }
    }

    pub fn log(&mut self, at: Instant, what: impl AsRef<str>) {
        let line = format!("{} {}", fmt_secs(usecs(at)), what.as_ref());
        self.report.log.push(line);
    }

    fn resolve(&self, tv: TimeVal) -> i64 {
        if tv.relative {
            self.prev_actual.saturating_add(tv.usecs)
        } else {
            tv.usecs
        }
    }

    /// packetdrill's tolerance: the larger of the fixed one and a percentage of the gap
    /// since the previous event's expected time.
    fn tolerance(&self, expected: i64) -> i64 {
        let dynamic = (expected - self.prev_expected) as f64 * self.tol_pct / 100.0;
        self.tol_us.max(dynamic as i64)
    }

    pub fn run(&mut self, script: &Script) {
        for ev in &script.events {
            // An engine bug (a debug invariant) must not abort a whole run of scripts.
            let res = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.event(ev)));
            let res = res.unwrap_or_else(|p| {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                Err(fail(ev.line, format!("the engine panicked: {msg}")))
            });
            if let Err(f) = res {
                self.report.fail(f);
                return;
            }
        }
        if !self.pending.is_empty() {
            let line = script.events.last().map_or(0, |e| e.line);
            let actual = self.pending_text(self.pending.len());
            let mut f = fail(
                line,
                "unexpected outbound packet: the engine sent it but no `>` line after this one \
                 expects it (the script ended)",
            );
            f.actual = Some(actual);
            self.report.fail(f);
        }
    }

    fn event(&mut self, ev: &Event) -> Step {
        if let EventKind::Packet(p) = &ev.kind {
            if p.dir == Direction::Outbound {
                return self.outbound(ev.line, ev.time, p);
            }
        }
        let expected = match ev.time {
            Time::Any => usecs(self.now),
            Time::At(a) | Time::Range(a, _) | Time::Blocking(a, _) => self.resolve(a),
        };
        let tol = self.tolerance(expected);
        let now = usecs(self.now);
        if expected < now - tol {
            return Err(fail(
                ev.line,
                format!(
                    "time goes backward: this event is at {} sec but the previous one happened \
                     at {} sec",
                    fmt_secs(expected),
                    fmt_secs(now)
                ),
            ));
        }
        let at = Instant::from_micros(expected.max(now) as u64);
        self.fire_until(ev.line, at, false)?;
        self.check_unexpected(ev.line, usecs(at) - tol)?;
        self.now = at;
        match &ev.kind {
            EventKind::Packet(p) => self.inbound(ev.line, p)?,
            EventKind::Syscall(c) => syscall::run(self, ev.line, c)?,
            EventKind::Code(stmts) => self.code(ev.line, stmts)?,
            EventKind::Shell(cmd) => syscall::shell(self, ev.line, cmd)?,
        }
        self.drain(ev.line)?;
        self.prev_actual = usecs(at);
        self.prev_expected = expected;
        Ok(())
    }

    /// Fires the engine's deadline (at the deadline) while it is at or before `limit`;
    /// with `until_sent`, stops as soon as something is queued.
    fn fire_until(&mut self, line: usize, limit: Instant, until_sent: bool) -> Step {
        for _ in 0..MAX_FIRINGS {
            if until_sent && !self.pending.is_empty() {
                return Ok(());
            }
            let Some(s) = self.sender.as_mut() else {
                return Ok(());
            };
            let Some(d) = s.poll_timeout() else {
                return Ok(());
            };
            if d > limit {
                return Ok(());
            }
            let at = d.max(self.now);
            s.on_timeout(at);
            self.now = at;
            self.log(at, "# timer fired");
            self.drain(line)?;
        }
        Err(fail(line, "the engine's deadline keeps firing without end"))
    }

    /// Queues every transmission the engine has now, and logs its events.
    pub fn drain(&mut self, line: usize) -> Step {
        let Some(s) = self.sender.as_mut() else {
            return Ok(());
        };
        let now = self.now;
        let mut sent = Vec::new();
        while let Some(t) = s.poll_transmit(now) {
            sent.push(Sent { at: now, t });
            if sent.len() > MAX_BURST {
                return Err(fail(line, "the engine keeps transmitting without end"));
            }
        }
        let mut events = Vec::new();
        while let Some(e) = s.poll_event() {
            let mut fields = Vec::new();
            e.kind
                .for_each_field(|k, v| fields.push(format!("{k}={v}")));
            events.push(format!("# {} {}", e.kind.name(), fields.join(" ")));
        }
        for e in events {
            self.log(now, e);
        }
        for x in sent {
            let text = Seen::of(&x, self.passive).render();
            self.report.log.push(format!("{text}  [sent]"));
            self.fin_sent |= x.t.fin;
            self.pending.push_back(x);
        }
        Ok(())
    }

    fn pending_text(&self, n: usize) -> String {
        self.pending
            .iter()
            .take(n)
            .map(|x| Seen::of(x, self.passive).render())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Fails if a queued transmission left before `before` (µs): no line expected it.
    fn check_unexpected(&self, line: usize, before: i64) -> Step {
        let n = self
            .pending
            .iter()
            .take_while(|x| usecs(x.at) < before)
            .count();
        if n == 0 {
            return Ok(());
        }
        let mut f = fail(
            line,
            "unexpected outbound packet: the engine sent it before this line and no `>` line \
             expects it",
        );
        f.actual = Some(self.pending_text(n));
        Err(f)
    }

    fn outbound(&mut self, line: usize, time: Time, p: &Packet) -> Step {
        let (lo, hi, expected, tol) = match time {
            Time::Any => (i64::MIN, i64::MAX, None, 0),
            Time::At(a) => {
                let e = self.resolve(a);
                let t = self.tolerance(e);
                (e - t, e + t, Some(e), t)
            }
            Time::Range(a, b) | Time::Blocking(a, b) => {
                let (e, e2) = (self.resolve(a), self.resolve(b));
                let t = self.tolerance(e);
                (e - t, e2 + t, Some(e), t)
            }
        };
        let when = expected.map_or("*".to_string(), fmt_secs);
        let limit = if hi == i64::MAX {
            Instant::MAX
        } else {
            Instant::from_micros(hi.max(0) as u64)
        };
        self.fire_until(line, limit, true)?;
        let Some(first) = self.pending.front() else {
            let next = self
                .sender
                .as_ref()
                .and_then(|s| s.poll_timeout())
                .map_or("none".to_string(), |d| {
                    format!("{} sec", fmt_secs(usecs(d)))
                });
            let msg = if hi == i64::MAX {
                "expected outbound packet at any time (`*`), but the engine sent nothing and \
                 has no deadline armed"
                    .to_string()
            } else {
                format!(
                    "expected outbound packet at {when} sec, but the engine sent nothing by {} sec \
                     (its next deadline: {next})",
                    fmt_secs(hi)
                )
            };
            let mut f = fail(line, msg);
            f.expected = Some(format!("{when} {p}"));
            return Err(f);
        };
        let mut seen = Seen::of(first, self.passive);
        let mut used = 1;
        while seen.len < p.len {
            let Some(next) = self.pending.get(used) else {
                break;
            };
            if !seen.absorb(&Seen::of(next, self.passive)) {
                break;
            }
            used += 1;
        }
        let at = usecs(seen.at);
        let mismatch = |msg: String| {
            let mut f = fail(line, msg);
            f.expected = Some(format!("{when} {p}"));
            f.actual = Some(seen.render());
            f
        };
        if let Err((field, e, a)) = crate::wire::compare(p, &seen) {
            // The expected packet went out later: the earlier ones are unexpected.
            let later = self.pending.iter().skip(1).position(|x| {
                let s = Seen::of(x, self.passive);
                s.start == p.start && s.flags.syn == p.flags.syn
            });
            if let (Some(k), "tcp_seq") = (later, field.as_str()) {
                let mut f = fail(
                    line,
                    format!(
                        "unexpected outbound packet: the engine sent {} packet(s) before the one \
                         this line expects",
                        k + 1
                    ),
                );
                f.expected = Some(format!("{when} {p}"));
                f.actual = Some(self.pending_text(k + 1));
                return Err(f);
            }
            return Err(mismatch(format!(
                "outbound packet mismatch in {field}: expected {e}, actual {a}"
            )));
        }
        if at < lo || at > hi {
            return Err(mismatch(format!(
                "timing error: expected outbound packet at {when} sec (tolerance {} sec) but it \
                 happened at {} sec",
                fmt_secs(tol),
                fmt_secs(at)
            )));
        }
        // Remember how the script's TS val maps to the engine's (for inbound TS ecr).
        if let (Options::List(l), Some(val)) = (&p.options, seen.ts_val()) {
            for o in l {
                if let TcpOption::Timestamp { val: sv, .. } = o {
                    self.ts_map.push((*sv, u64::from(val)));
                }
            }
        }
        if let Some(v) = self.pending.get(used - 1).and_then(|x| x.t.ts) {
            self.last_ts_val = Some(v.val);
        }
        self.pending.drain(..used);
        self.log(seen.at, format!("matched line {line}: {p}"));
        self.prev_actual = at;
        self.prev_expected = expected.unwrap_or(at);
        Ok(())
    }

    fn inbound(&mut self, line: usize, p: &Packet) -> Step {
        self.log(self.now, p.to_string());
        let unsupported =
            |what: &str| Err(fail(line, format!("unsupported at line {line}: {what}")));
        let f = p.flags;
        if f.rst || f.fin || f.urg || f.ece || f.cwr {
            return unsupported(&format!(
                "inbound flags `{}` (the script's peer sends only SYN, SYN-ACK and ACKs)",
                f
            ));
        }
        if p.len > 0 {
            return unsupported("inbound data (the engine under test is a sender only)");
        }
        if matches!(p.options, Options::Any) {
            return unsupported(
                "`<...>` on an inbound packet (it must say which options it carries)",
            );
        }
        let opts = match &p.options {
            Options::List(l) => l.clone(),
            _ => Vec::new(),
        };
        let (mut mss, mut sack_ok, mut wscale, mut ts, mut sack) = (0, false, None, None, vec![]);
        for o in &opts {
            match o {
                TcpOption::Mss(m) => mss = *m,
                TcpOption::SackOk => sack_ok = true,
                TcpOption::Wscale(w) => wscale = Some((*w).min(14)),
                TcpOption::Timestamp { val, ecr } => ts = Some((*val, *ecr)),
                TcpOption::Sack(b) => sack.extend(b.iter().copied()),
                TcpOption::Nop | TcpOption::Eol => {}
            }
        }
        let Some(sender) = self.sender.as_mut() else {
            return Err(fail(
                line,
                "inbound packet before the connection exists (no `listen` or `connect` yet)",
            ));
        };
        let syn_opts = SynOptions {
            mss,
            sack_permitted: sack_ok,
            timestamps: ts.is_some(),
            window_scale: wscale,
        };
        if f.syn && !f.ack {
            if !self.passive {
                return unsupported("an inbound SYN on an actively opened connection");
            }
            let ts = ts.map(|(val, _)| Timestamps {
                val: u64::from(val),
                ecr: 0,
            });
            sender.on_syn(self.now, &syn_opts, ts);
            self.peer_wscale = wscale;
            return Ok(());
        }
        let Some(ack_seq) = p.ack.filter(|_| f.ack) else {
            return unsupported("an inbound segment without `.` and `ack N`");
        };
        if ack_seq == 0 {
            return Err(fail(
                line,
                "inbound `ack 0` acknowledges nothing: the SYN is sequence 0",
            ));
        }
        let mut cumulative = u64::from(ack_seq) - 1;
        // The FIN takes one sequence number after the last byte.
        let written = sender.bytes_written();
        if self.fin_sent && cumulative == written + 1 {
            cumulative = written;
        }
        let ts = ts.map(|(val, ecr)| Timestamps {
            val: u64::from(val),
            ecr: self.map_ecr(ecr),
        });
        let mut blocks = SackBlocks::new();
        for (a, b) in sack {
            if a == 0 || b == 0 {
                return Err(fail(
                    line,
                    "a SACK edge of 0 lies before the first data byte",
                ));
            }
            blocks.push(Range::new(u64::from(a) - 1, u64::from(b) - 1));
        }
        let sender = self.sender.as_mut().expect("checked above");
        let ack = if f.syn {
            if self.passive {
                return unsupported("an inbound SYN-ACK on a passively opened connection");
            }
            self.peer_wscale = wscale;
            Ack {
                cumulative,
                sack: blocks,
                ts,
                window: u64::from(p.win.unwrap_or(u32::MAX)),
                syn: Some(syn_opts),
            }
        } else {
            let window = match (p.win, self.peer_wscale) {
                (None, _) => u64::from(u32::MAX),
                (Some(w), Some(s)) => u64::from(w) << s,
                (Some(w), None) => u64::from(w),
            };
            Ack {
                cumulative,
                sack: blocks,
                ts,
                window,
                syn: None,
            }
        };
        sender.on_ack(self.now, &ack);
        Ok(())
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

    fn code(&mut self, line: usize, stmts: &[Stmt]) -> Step {
        let Some(s) = self.sender.as_ref() else {
            return Err(fail(line, "%{ }% before the connection exists"));
        };
        let info = s.info();
        let stats = s.stats().clone();
        let lookup = |n: &str| -> Option<i64> {
            info.get(n)
                .or_else(|| stats.get(n))
                .map(|v| i64::try_from(v).unwrap_or(i64::MAX))
                .or_else(|| {
                    expr::CA_STATES
                        .iter()
                        .find(|(c, _)| *c == n)
                        .map(|(_, v)| *v)
                })
        };
        for st in stmts {
            match st {
                Stmt::Assert {
                    line: l,
                    expr: e,
                    text,
                    message,
                } => {
                    let v = expr::eval(e, &lookup)
                        .map_err(|m| fail(*l, format!("in `{text}`: {m}")))?;
                    let mut names = Vec::new();
                    expr::names(e, &mut names);
                    let values = names
                        .iter()
                        .map(|n| format!("{n} = {}", lookup(n).unwrap_or(0)))
                        .collect::<Vec<_>>()
                        .join(", ");
                    if !v.truthy() {
                        let msg = match message {
                            Some(m) => expr::eval(m, &lookup)
                                .map(|v| format!(" ({v})"))
                                .unwrap_or_default(),
                            None => String::new(),
                        };
                        let mut f = fail(*l, format!("assertion failed: {text}{msg}"));
                        f.expected = Some(text.clone());
                        f.actual = Some(values);
                        return Err(f);
                    }
                    self.log(self.now, format!("assert {text}: ok ({values})"));
                }
                Stmt::Print { line: l, args } => {
                    let vals = args
                        .iter()
                        .map(|a| expr::eval(a, &lookup).map(|v| v.to_string()))
                        .collect::<Result<Vec<_>, _>>()
                        .map_err(|m| fail(*l, m))?;
                    self.log(self.now, format!("print: {}", vals.join(" ")));
                }
            }
        }
        Ok(())
    }
}

//! Running a parsed script against the engine in virtual time.
//!
//! Time starts at 0 and only moves forward: before each event the engine's deadline is
//! fired (at the deadline) while it falls at or before the event's time, and every
//! transmission is queued with the instant it left. A `>` line consumes the oldest queued
//! transmissions; other lines first check that nothing queued is older than their time
//! minus the tolerance (that would be a packet the script did not expect).

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;

use crate::ast::*;
use crate::eval::Value;
use crate::report::{Failure, ScriptReport};
use crate::syscall;
use crate::wire::{seq_of, usecs, Seen, Sent};
use crate::ScriptOptions;
use lossrec::{Config, Instant, Receiver, Sender};

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
    pub(crate) peer_wscale: Option<u8>,
    /// (script TS val, engine TS val) of matched outbound packets.
    pub(crate) ts_map: Vec<(u32, u64)>,
    pub(crate) last_ts_val: Option<u64>,
    pub(crate) fin_sent: bool,
    /// The engine's receiving side for the peer's data and FIN (made on the first one).
    pub(crate) receiver: Option<Receiver>,
    /// The root qdisc drops everything (`tc qdisc … limit 0`): every transmission fails
    /// locally and the engine is told so; nothing reaches the wire.
    pub(crate) local_drop: bool,
    /// The peer reset the connection: the engine stops.
    pub(crate) reset: bool,
    /// Bytes of the peer's data the application has read.
    pub(crate) read_bytes: u64,
    /// `shutdown(SHUT_RD)` was called: reads return 0.
    pub(crate) shut_rd: bool,
    /// The current line is a blocking call (`+0...0.1 read(…)`).
    pub(crate) blocking: bool,
    /// The script's initial sequence numbers: the engine's (from its `> S`/`> S.` line) and
    /// the peer's (from its `< S`/`< S.` line); packetdrill scripts usually use 0.
    pub(crate) local_isn: u32,
    /// The highest stream offset of the peer's data taken (inbound sequence numbers are
    /// unwrapped near it).
    pub(crate) rcv_high: u64,
    pub(crate) peer_isn: u32,
    /// SACK blocks the receiver reports (relative), carried by every data segment while it
    /// holds out-of-order data, as Linux's `tcp_established_options` does.
    pub(crate) rcv_sack: Vec<(u32, u32)>,
    /// `%{ }%` variables (Python globals).
    pub(crate) vars: BTreeMap<String, Value>,
    /// `--mss=N`: the segment size of the peer's GSO packets.
    pub(crate) peer_gso: Option<u32>,
    /// Where the script lives: `defaults.sh` is looked up from there.
    pub script_dir: Option<PathBuf>,
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
            receiver: None,
            local_drop: false,
            reset: false,
            read_bytes: 0,
            shut_rd: false,
            blocking: false,
            local_isn: 0,
            peer_isn: 0,
            rcv_high: 0,
            rcv_sack: Vec::new(),
            vars: BTreeMap::new(),
            script_dir: None,
            peer_gso: None,
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
        self.peer_gso = script.mss;
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
        if !self.pending.is_empty() && !self.opts.lenient {
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
        if let EventKind::Packet(Packet {
            options: Options::List(l),
            ..
        }) = &ev.kind
        {
            if let Some(TcpOption::Other(name)) =
                l.iter().find(|o| matches!(o, TcpOption::Other(_)))
            {
                return syscall::unsupported(ev.line, format!("TCP option `{name}`"));
            }
        }
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
            EventKind::Syscall(c) => {
                self.blocking = matches!(ev.time, Time::Blocking(..));
                syscall::run(self, ev.line, c)?
            }
            EventKind::Code(stmts) => crate::code::run(self, ev.line, stmts)?,
            EventKind::Shell(cmd) => syscall::shell(self, ev.line, cmd)?,
            EventKind::Unsupported(what) => return syscall::unsupported(ev.line, what),
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
        let ack = self.rcv_ack();
        let Some(s) = self.sender.as_mut() else {
            return Ok(());
        };
        let now = self.now;
        let mut sent = Vec::new();
        let bump = u32::from(self.fin_sent);
        let mut dropped = Vec::new();
        if self.local_drop {
            s.allow_transmit_failures();
        }
        while let Some(t) = s.poll_transmit(now) {
            if self.local_drop {
                // `tcp_transmit_skb` fails at once; the engine stops until the next input.
                s.transmit_failed(now, &t)
                    .map_err(|e| fail(line, format!("the engine refused a failed send: {e}")))?;
                dropped.push(t);
                continue;
            }
            let why = t.why.name();
            // Only a pure ACK sits past our FIN; a retransmission (of data, or of the FIN)
            // keeps its own sequence numbers.
            let pure_ack = t.range.is_empty() && !t.fin;
            sent.push(Sent {
                at: now,
                t,
                ack,
                sack: Vec::new(),
                why,
                seq_bump: if pure_ack { bump } else { 0 },
            });
            if sent.len() > MAX_BURST {
                return Err(fail(line, "the engine keeps transmitting without end"));
            }
        }
        let snd_nxt = s.snd_nxt();
        self.receiver_acks(now, &mut sent, snd_nxt, ack);
        self.log_local_drops(now, ack, dropped, &mut sent);
        let Some(s) = self.sender.as_mut() else {
            return Ok(());
        };
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
            let text = Seen::of(&x, self.passive, self.local_isn).render();
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
            .map(|x| Seen::of(x, self.passive, self.local_isn).render())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The ACK number the engine sends: 1 + the peer's bytes received in order, + 1 for
    /// its FIN.
    pub(crate) fn rcv_ack(&self) -> u32 {
        let rel = self.receiver.as_ref().map_or(1, |r| {
            seq_of(r.delivered()).wrapping_add(u32::from(r.fin_received()))
        });
        rel.wrapping_add(self.peer_isn)
    }

    /// Fails if a queued transmission left before `before` (µs): no line expected it
    /// (packetdrill's own rule, `--lenient`, only looks when a `>` line comes).
    fn check_unexpected(&self, line: usize, before: i64) -> Step {
        if self.opts.lenient {
            return Ok(());
        }
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
        if p.flags.syn {
            // packetdrill takes the engine's ISN in script space from this line.
            self.local_isn = p.start;
        }
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
        let mut seen = Seen::of(first, self.passive, self.local_isn);
        let mut used = 1;
        while seen.len < p.len {
            let Some(next) = self.pending.get(used) else {
                break;
            };
            if !seen.absorb(&Seen::of(next, self.passive, self.local_isn)) {
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
        if let Err((field, e, a)) = crate::wire::compare(p, &seen, self.opts.ignore_psh) {
            // The expected packet went out later: the earlier ones are unexpected.
            let later = self.pending.iter().skip(used).position(|x| {
                let s = Seen::of(x, self.passive, self.local_isn);
                s.start == p.start && s.flags.syn == p.flags.syn
            });
            if let (Some(k), "tcp_seq") = (later, field.as_str()) {
                let mut f = fail(
                    line,
                    format!(
                        "unexpected outbound packet: the engine sent {} packet(s) before the one \
                         this line expects",
                        k + used
                    ),
                );
                f.expected = Some(format!("{when} {p}"));
                f.actual = Some(self.pending_text(k + used));
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
        if let Some(v) = self
            .pending
            .get(used - 1)
            .and_then(|x| x.t.ts)
            .filter(|_| seen.why != ["ack"])
        {
            self.last_ts_val = Some(v.val);
        }
        self.pending.drain(..used);
        self.log(seen.at, format!("matched line {line}: {p}"));
        self.prev_actual = at;
        self.prev_expected = expected.unwrap_or(at);
        Ok(())
    }
}

//! System-call lines and shell commands, mapped onto the engine: `listen` makes a passive
//! sender, `connect` an active one, `write`/`send` hand it bytes, `close`/`shutdown` end the
//! stream; `setsockopt` and `sysctl` adjust the configuration before the connection exists.

use crate::ast::Syscall;
use crate::runner::{fail, Runner, Step};
use crate::shell::{self, Action};
use crate::sysctl::{self, Effect};
use lossrec::Sender;

/// Socket options that change nothing for this engine, and why.
const IGNORED_SOCKOPTS: &[(&str, &str)] = &[
    ("SO_REUSEADDR", "no addresses here"),
    ("SO_REUSEPORT", "no addresses here"),
    ("TCP_NODELAY", "the engine sends at once (no Nagle)"),
    ("SO_SNDBUF", "the engine's send buffer is unbounded"),
    ("SO_RCVBUF", "the peer's window comes from the script"),
    ("SO_KEEPALIVE", "no keepalives in a script's lifetime"),
    ("TCP_QUICKACK", "the engine's receiver ACKs at once"),
    ("IP_TOS", "no IP header here"),
    ("IPV6_TCLASS", "no IP header here"),
    ("IP_MTU_DISCOVER", "no path MTU here"),
    ("SO_LINGER", "the script ends before any linger"),
];

pub(crate) fn unsupported<T>(
    line: usize,
    what: impl std::fmt::Display,
) -> Result<T, crate::report::Failure> {
    Err(fail(line, format!("unsupported: {what} at line {line}")))
}

fn fd_arg(c: &Syscall, line: usize) -> Result<i64, crate::report::Failure> {
    c.args.first().and_then(|a| a.parse().ok()).ok_or_else(|| {
        fail(
            line,
            format!("`{}` needs a file descriptor as its first argument", c.name),
        )
    })
}

pub(crate) fn run(r: &mut Runner, line: usize, c: &Syscall) -> Step {
    let text = format!(
        "{}({}) = {}{}",
        c.name,
        c.args.join(", "),
        c.result,
        c.errno.as_ref().map_or(String::new(), |e| format!(" {e}"))
    );
    r.log(r.now, &text);
    let errno_ok = |c: &Syscall| c.result >= 0 && c.errno.is_none();
    match c.name.as_str() {
        "socket" => {
            if c.result < 0 {
                return unsupported(line, "a failing socket()");
            }
            Ok(())
        }
        "bind" | "fcntl" => Ok(()),
        "setsockopt" => setsockopt(r, line, c),
        "listen" => {
            if r.sender.is_some() {
                return unsupported(line, "a second connection (one per script)");
            }
            r.listen_fd = Some(fd_arg(c, line)?);
            r.passive = true;
            make_sender(r, line, true)
        }
        "connect" => {
            let ok = c.result == 0 || c.errno.as_deref() == Some("EINPROGRESS");
            if !ok {
                return unsupported(line, format!("connect() returning {}", c.result));
            }
            if r.sender.is_some() {
                return unsupported(line, "a second connection (one per script)");
            }
            r.conn_fd = Some(fd_arg(c, line)?);
            make_sender(r, line, false)
        }
        "accept" => {
            if !errno_ok(c) {
                return unsupported(line, "a failing accept()");
            }
            if Some(fd_arg(c, line)?) != r.listen_fd {
                return Err(fail(line, "accept() on a socket that is not listening"));
            }
            r.conn_fd = Some(c.result);
            Ok(())
        }
        "write" | "send" => {
            let fd = fd_arg(c, line)?;
            if r.conn_fd != Some(fd) {
                return Err(fail(
                    line,
                    format!("{}() on fd {fd}, which is not the connection", c.name),
                ));
            }
            let n: u64 = c
                .args
                .get(2)
                .and_then(|a| a.parse().ok())
                .ok_or_else(|| fail(line, format!("{}() needs a byte count as its third argument", c.name)))?;
            if !errno_ok(c) || c.result as u64 != n {
                return unsupported(
                    line,
                    format!("a short or failing write (the engine always takes all {n} bytes)"),
                );
            }
            let now = r.now;
            if let Some(s) = r.sender.as_mut() {
                s.write(now, n);
            }
            Ok(())
        }
        "read" | "recv" => read(r, line, c),
        "poll" => crate::sockets::poll(r, line, c),
        "getsockopt" => crate::sockets::getsockopt(r, line, c),
        "close" | "shutdown" => {
            let fd = fd_arg(c, line)?;
            let how = c.args.get(1).map(String::as_str).unwrap_or("SHUT_RDWR");
            if c.name == "shutdown" && how == "SHUT_RD" {
                r.shut_rd = true;
                return Ok(());
            }
            r.shut_rd |= c.name == "close" || how == "SHUT_RDWR";
            if r.conn_fd == Some(fd) {
                let now = r.now;
                if let Some(s) = r.sender.as_mut() {
                    s.close(now);
                }
            } else if r.listen_fd != Some(fd) {
                return Err(fail(line, format!("{}() on unknown fd {fd}", c.name)));
            }
            Ok(())
        }
        other => unsupported(
            line,
            format!("system call `{other}` (supported: socket, setsockopt, getsockopt, bind, listen, accept, connect, write, send, read, recv, poll, close, shutdown, fcntl)"),
        ),
    }
}

/// `read(fd, ..., N) = M`: the application takes M bytes the peer sent (in order).
fn read(r: &mut Runner, line: usize, c: &Syscall) -> Step {
    let fd = fd_arg(c, line)?;
    if r.conn_fd != Some(fd) {
        return Err(fail(
            line,
            format!("{}() on fd {fd}, which is not the connection", c.name),
        ));
    }
    let (arrived, fin) = r
        .receiver
        .as_ref()
        .map_or((0, false), |x| (x.delivered(), x.fin_received()));
    let ready = arrived - r.read_bytes;
    if r.shut_rd && c.result == 0 {
        return Ok(()); // after shutdown(SHUT_RD) a read returns 0
    }
    if r.blocking && ready == 0 && !fin && c.result > 0 {
        // packetdrill runs it in a thread that the later lines' data wakes up.
        return unsupported(line, format!("a blocking {}() that waits for data", c.name));
    }
    if c.result < 0 {
        if c.errno.as_deref() == Some("EAGAIN") && ready == 0 && !fin {
            return Ok(());
        }
        return Err(fail(
            line,
            format!(
                "{}() = {} {}: but {ready} byte(s) are ready{}",
                c.name,
                c.result,
                c.errno.as_deref().unwrap_or(""),
                if fin {
                    " and the peer's FIN arrived"
                } else {
                    ""
                }
            ),
        ));
    }
    let want = c.result as u64;
    if want > ready
        || (want == 0 && !fin)
        || (want < ready
            && c.args
                .get(2)
                .and_then(|a| a.parse::<u64>().ok())
                .is_some_and(|n| n > want))
    {
        return Err(fail(
            line,
            format!(
                "{}() returns {want} in the script, but {ready} byte(s) are ready{}",
                c.name,
                if fin { " (then the peer's FIN)" } else { "" }
            ),
        ));
    }
    r.read_bytes += want;
    Ok(())
}

/// The seed every script's sender gets (`Sender::set_seed`).
pub const SCRIPT_SEED: u64 = 0x5c12_1b7e_5eed;

fn make_sender(r: &mut Runner, line: usize, passive: bool) -> Step {
    let mut cfg = r.cfg.clone();
    for (axis, value) in &r.opts.sets {
        cfg.set(axis, value)
            .map_err(|e| fail(line, format!("--set {axis}={value}: {e}")))?;
    }
    cfg.handshake = true;
    r.report.config = cfg
        .axes()
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    let now = r.now;
    let s = if passive {
        Sender::new_passive(cfg, now)
    } else {
        Sender::new(cfg, now)
    };
    let mut s = s.map_err(|e| fail(line, format!("bad configuration: {e}")))?;
    // A script's packets are exact, so the sender's randomness (the optimistic-ACK
    // defence's skip positions) is the same on every run.
    s.set_seed(SCRIPT_SEED);
    r.sender = Some(s);
    let desc = r
        .report
        .config
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ");
    r.log(now, format!("# engine: {desc}"));
    Ok(())
}

fn setsockopt(r: &mut Runner, line: usize, c: &Syscall) -> Step {
    let opt = c.args.get(2).map(String::as_str).unwrap_or("");
    if let Some((_, why)) = IGNORED_SOCKOPTS.iter().find(|(o, _)| *o == opt) {
        r.log(r.now, format!("# {opt} ignored: {why}"));
        return Ok(());
    }
    let value = c.args.get(3).map(String::as_str).unwrap_or("");
    let (axis, v) = match opt {
        "TCP_CONGESTION" => ("cc", value.trim_matches('"').to_string()),
        // The MSS the SYN advertises (Linux `user_mss`); the engine's `mss` axis is the
        // payload with timestamps, 12 bytes less.
        "TCP_MAXSEG" => {
            let n: u64 = value
                .trim_matches(|c| c == '[' || c == ']')
                .parse()
                .map_err(|_| fail(line, format!("TCP_MAXSEG `{value}`: expected [N]")))?;
            ("mss", n.saturating_sub(12).to_string())
        }
        _ => return unsupported(line, format!("setsockopt option `{opt}`")),
    };
    if r.sender.is_some() {
        return unsupported(
            line,
            format!("{opt} after listen/connect (the engine's configuration is fixed then)"),
        );
    }
    let what = format!("setsockopt {opt}");
    sysctl::apply(&mut r.cfg, &what, &Effect::Set(vec![(axis, v)]))
        .or_else(|m| unsupported(line, m))
}

pub(crate) fn shell(r: &mut Runner, line: usize, cmd: &str) -> Step {
    r.log(r.now, format!("`{}`", cmd.replace('\n', "; ")));
    for action in shell::parse(cmd) {
        match action {
            Action::Set(k, v) => knob(r, line, &k, &v)?,
            Action::Defaults(path) => defaults(r, line, &path)?,
            Action::NoEffect(what, why) => {
                r.log(r.now, format!("# `{what}`: no effect here: {why}"))
            }
            Action::Unsupported(what) => return unsupported(line, what),
            Action::LocalDrop(on) => local_drop(r, on),
        }
    }
    Ok(())
}

/// `tc qdisc … limit 0` and what replaces it.
fn local_drop(r: &mut Runner, on: bool) {
    if r.local_drop != on {
        let what = if on {
            "every transmission now fails locally (reported to the engine)"
        } else {
            "transmissions leave again"
        };
        r.log(r.now, format!("# qdisc: {what}"));
    }
    r.local_drop = on;
}

/// One `net.ipv4.KEY=VALUE` assignment.
fn knob(r: &mut Runner, line: usize, key: &str, value: &str) -> Step {
    let what = format!("{key}={value}");
    let effect = sysctl::sysctl(key, value).or_else(|m| unsupported(line, m))?;
    if let Effect::Ignore(why) = effect {
        r.log(r.now, format!("# {what}: no effect here: {why}"));
        return Ok(());
    }
    if r.sender.is_some() {
        return unsupported(
            line,
            format!(
                "sysctl {what} after listen/connect (the engine's configuration is fixed then)"
            ),
        );
    }
    sysctl::apply(&mut r.cfg, &what, &effect).or_else(|m| unsupported(line, m))?;
    r.log(r.now, format!("# {what}: set"));
    Ok(())
}

/// packetdrill's `defaults.sh`: the copy next to the script if there is one (each of its
/// lines as a command), else the built-in list of what it sets.
fn defaults(r: &mut Runner, line: usize, path: &str) -> Step {
    let file = r.script_dir.as_ref().map(|d| d.join(path));
    match file.as_ref().and_then(|f| std::fs::read_to_string(f).ok()) {
        Some(text) => {
            r.log(r.now, format!("# {}: applying", file.unwrap().display()));
            for action in shell::parse(&text) {
                match action {
                    Action::Set(k, v) => knob(r, line, &k, &v)?,
                    Action::Defaults(_) => {}
                    Action::NoEffect(what, why) => {
                        r.log(r.now, format!("# `{what}`: no effect here: {why}"))
                    }
                    Action::Unsupported(what) => {
                        r.log(r.now, format!("# {what}: no effect here (in defaults.sh)"))
                    }
                    Action::LocalDrop(on) => local_drop(r, on),
                }
            }
        }
        None => {
            r.log(
                r.now,
                format!("# {path}: not found, applying packetdrill's defaults"),
            );
            for (k, v) in sysctl::BUILTIN_DEFAULTS {
                knob(r, line, k, v)?;
            }
        }
    }
    Ok(())
}

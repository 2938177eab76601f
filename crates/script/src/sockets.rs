//! `poll` and `getsockopt` on the connection: what the application would see.
//!
//! - `poll([{fd=4, events=POLLIN|POLLOUT, revents=…}], 1, T) = N` is evaluated when the
//!   line runs: `POLLOUT` always (the engine's send buffer is unbounded), `POLLIN` when the
//!   peer's data or FIN waits to be read, `POLLRDHUP` after the peer's FIN; the script's
//!   `revents` and result must match. It is judged when the line starts: a blocking poll
//!   (`+0...0.040 poll(…)`) that Linux would wake later fails here.
//! - `getsockopt(4, SOL_TCP, TCP_INFO, {tcpi_x=V, …}, …) = 0` compares each listed field
//!   with the engine's `tcp_info` (as `%{ }%` reads it).

use crate::ast::Syscall;
use crate::runner::{fail, Runner, Step};
use crate::syscall::unsupported;

const FLAGS: &[(&str, u32)] = &[
    ("POLLIN", 0x1),
    ("POLLPRI", 0x2),
    ("POLLOUT", 0x4),
    ("POLLERR", 0x8),
    ("POLLHUP", 0x10),
    ("POLLRDNORM", 0x40),
    ("POLLWRNORM", 0x100),
    ("POLLRDHUP", 0x2000),
];

fn flags(text: &str, line: usize) -> Result<u32, crate::report::Failure> {
    let mut v = 0;
    for f in text.split('|').map(str::trim).filter(|f| !f.is_empty()) {
        if f == "0" {
            continue;
        }
        let Some((_, bit)) = FLAGS.iter().find(|(n, _)| *n == f) else {
            return unsupported(line, format!("poll flag `{f}`"));
        };
        v |= bit;
    }
    Ok(v)
}

/// `key=value` pairs of a `{…}` structure argument.
fn fields(arg: &str) -> Vec<(String, String)> {
    arg.trim_matches(|c: char| c == '[' || c == ']' || c == '{' || c == '}' || c.is_whitespace())
        .split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

pub(crate) fn poll(r: &mut Runner, line: usize, c: &Syscall) -> Step {
    let arg = c.args.first().map(String::as_str).unwrap_or("");
    if arg.matches("fd=").count() != 1 {
        return unsupported(line, "poll() on other than one descriptor");
    }
    let f = fields(arg);
    let get = |k: &str| f.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let fd: i64 = get("fd").and_then(|v| v.parse().ok()).unwrap_or(-1);
    let events = flags(get("events").unwrap_or("0"), line)?;
    let want = flags(get("revents").unwrap_or("0"), line)?;
    let (ready, fin) = r
        .receiver
        .as_ref()
        .map_or((0, false), |x| (x.delivered(), x.fin_received()));
    let mut have = 0x4 | 0x100; // writable: the send buffer is unbounded
    if ready > r.read_bytes || fin {
        have |= 0x1 | 0x40;
    }
    if fin {
        have |= 0x2000;
    }
    if Some(fd) != r.conn_fd {
        return Err(fail(
            line,
            format!("poll() on fd {fd}, which is not the connection"),
        ));
    }
    let got = have & (events | 0x8 | 0x10);
    if got == 0 && c.result == 0 && want == 0 {
        return Ok(()); // nothing ready, as the script says (the engine never blocks here)
    }
    if got != want || c.result != i64::from(got != 0) {
        let names = |v: u32| {
            let n: Vec<&str> = FLAGS
                .iter()
                .filter(|(_, b)| v & b != 0)
                .map(|(n, _)| *n)
                .collect();
            if n.is_empty() {
                "0".to_string()
            } else {
                n.join("|")
            }
        };
        return Err(fail(
            line,
            format!(
                "poll(): expected revents={} = {}, actual revents={} = {}",
                names(want),
                c.result,
                names(got),
                i64::from(got != 0)
            ),
        ));
    }
    Ok(())
}

pub(crate) fn getsockopt(r: &mut Runner, line: usize, c: &Syscall) -> Step {
    let opt = c.args.get(2).map(String::as_str).unwrap_or("");
    if opt != "TCP_INFO" {
        return unsupported(line, format!("getsockopt option `{opt}`"));
    }
    let Some(s) = r.sender.as_ref() else {
        return Err(fail(
            line,
            "getsockopt(TCP_INFO) before the connection exists",
        ));
    };
    let info = s.info();
    let stats = s.stats();
    for (k, v) in fields(c.args.get(3).map(String::as_str).unwrap_or("")) {
        let actual = info
            .get(&k)
            .or_else(|| stats.get(&k))
            .or_else(|| crate::code::extra(r, s, &k));
        let Some(actual) = actual else {
            return unsupported(line, format!("tcp_info field `{k}`"));
        };
        let want = crate::expr::CA_STATES
            .iter()
            .find(|(n, _)| *n == v)
            .map(|(_, x)| *x as u64)
            .or_else(|| (v == "TCP_ESTABLISHED").then_some(1))
            .or_else(|| v.parse().ok())
            .ok_or_else(|| {
                fail(
                    line,
                    format!("getsockopt(TCP_INFO): `{k}={v}` is not a number"),
                )
            })?;
        if actual != want {
            return Err(fail(
                line,
                format!("getsockopt(TCP_INFO): expected {k}={want}, actual {k}={actual}"),
            ));
        }
    }
    Ok(())
}

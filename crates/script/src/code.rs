//! `%{ … }%` blocks at run time: assertions, prints and assignments over the engine's
//! `tcp_info`, its MIB counters, `TCP_CA_*` constants and the script's own variables.
//!
//! Beyond the engine's [`lossrec::TcpInfo`] (which has `tcpi_reord_seen`) this adds the
//! fields Linux's loss-recovery scripts read: `tcpi_min_rtt` (µs, Linux `tcp_min_rtt`),
//! `tcpi_delivered` (packets delivered, the SYN included as Linux counts it) and
//! `tcpi_state` (1, `TCP_ESTABLISHED`, once the handshake completed) and `tcpi_rcv_mss`
//! (the largest segment the engine's receiver has seen, Linux `icsk_ack.rcv_mss`).

use crate::ast::Stmt;
use crate::eval::{self, Value};
use crate::expr::{self, EXTRA_TCPI};
use crate::runner::{fail, Runner, Step};
use crate::syscall::unsupported;
use lossrec::Sender;

/// The extra `tcpi_*` fields (see the module doc).
pub(crate) fn extra(r: &Runner, s: &Sender, name: &str) -> Option<u64> {
    let mss = s.mss().max(1);
    Some(match name {
        // Linux `tcp_measure_rcv_mss`: the GSO segment size (`--mss`) of a GRO packet, else
        // its length; before data, the connection's MSS.
        "tcpi_rcv_mss" => r.receiver.as_ref().map_or(s.mss(), |x| {
            r.peer_gso
                .map_or(x.rcv_mss(), |g| x.rcv_mss().min(u64::from(g)))
        }),
        "tcpi_min_rtt" => s.rtt().min_rtt().map_or(0, |d| d.as_micros() as u64),
        "tcpi_delivered" => {
            1 + s.snd_una().div_ceil(mss) + s.scoreboard().sacked_bytes().div_ceil(mss)
        }
        "tcpi_state" => u64::from(s.is_established()),
        _ => return None,
    })
}

pub(crate) fn run(r: &mut Runner, line: usize, stmts: &[Stmt]) -> Step {
    let Some(s) = r.sender.as_ref() else {
        return Err(fail(line, "%{ }% before the connection exists"));
    };
    let info = s.info();
    let stats = s.stats().clone();
    let extras: Vec<(&str, u64)> = EXTRA_TCPI
        .iter()
        .filter_map(|n| extra(r, s, n).map(|v| (*n, v)))
        .collect();
    for st in stmts {
        let vars = r.vars.clone();
        let lookup = |n: &str| -> Option<Value> {
            if let Some(v) = vars.get(n) {
                return Some(v.clone());
            }
            info.get(n)
                .or_else(|| stats.get(n))
                .or_else(|| extras.iter().find(|(e, _)| *e == n).map(|(_, v)| *v))
                .map(|v| Value::Int(i64::try_from(v).unwrap_or(i64::MAX)))
                .or_else(|| {
                    expr::CA_STATES
                        .iter()
                        .find(|(c, _)| *c == n)
                        .map(|(_, v)| Value::Int(*v))
                })
        };
        // A Linux `tcp_info` field this engine does not report.
        let mut read = Vec::new();
        stmt_names(st, &mut read);
        if let Some(n) = read
            .iter()
            .find(|n| n.starts_with("tcpi_") && lookup(n).is_none())
        {
            return unsupported(stmt_line(st), format!("tcp_info field `{n}`"));
        }
        match st {
            Stmt::Assert {
                line: l,
                expr: e,
                text,
                message,
            } => {
                let v =
                    eval::eval(e, &lookup).map_err(|m| fail(*l, format!("in `{text}`: {m}")))?;
                let mut names = Vec::new();
                eval::names(e, &mut names);
                let values = names
                    .iter()
                    .map(|n| format!("{n} = {}", lookup(n).map_or("?".into(), |v| v.to_string())))
                    .collect::<Vec<_>>()
                    .join(", ");
                if !v.truthy() {
                    let msg = match message {
                        Some(m) => eval::eval(m, &lookup)
                            .map(|v| format!(" ({v})"))
                            .unwrap_or_default(),
                        None => String::new(),
                    };
                    let mut f = fail(*l, format!("assertion failed: {text}{msg}"));
                    f.expected = Some(text.clone());
                    f.actual = Some(values);
                    return Err(f);
                }
                r.log(r.now, format!("assert {text}: ok ({values})"));
            }
            Stmt::Print { line: l, args } => {
                let vals = args
                    .iter()
                    .map(|a| eval::eval(a, &lookup).map(|v| v.to_string()))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|m| fail(*l, m))?;
                r.log(r.now, format!("print: {}", vals.join(" ")));
            }
            Stmt::Assign {
                line: l,
                name,
                op,
                expr: e,
            } => {
                let v = eval::eval(e, &lookup).map_err(|m| fail(*l, m))?;
                let v = match op {
                    None => v,
                    Some(op) => {
                        let old = lookup(name)
                            .ok_or_else(|| fail(*l, format!("`{name}` is not defined")))?;
                        eval::apply(*op, old, v).map_err(|m| fail(*l, m))?
                    }
                };
                r.log(r.now, format!("{name} = {v}"));
                r.vars.insert(name.clone(), v);
            }
        }
    }
    Ok(())
}

fn stmt_line(st: &Stmt) -> usize {
    match st {
        Stmt::Assert { line, .. } | Stmt::Print { line, .. } | Stmt::Assign { line, .. } => *line,
    }
}

fn stmt_names(st: &Stmt, out: &mut Vec<String>) {
    match st {
        Stmt::Assert { expr, message, .. } => {
            eval::names(expr, out);
            if let Some(m) = message {
                eval::names(m, out);
            }
        }
        Stmt::Print { args, .. } => args.iter().for_each(|a| eval::names(a, out)),
        Stmt::Assign { expr, .. } => eval::names(expr, out),
    }
}

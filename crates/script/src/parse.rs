//! The script parser: packetdrill's line syntax into [`Script`]. Every error names the line,
//! the column and the offending token; parsing continues at the next line so that one run
//! reports every bad line.

use crate::ast::*;
use crate::expr;
use crate::lex::{shorten_quotes, ParseError, Scanner};
use crate::packet_line::packet;
use std::collections::BTreeSet;

/// Parses a whole script; `Err` holds every error found, in line order.
pub fn parse(text: &str) -> Result<Script, Vec<ParseError>> {
    let mut s = Scanner::new(text);
    let mut script = Script::default();
    let mut errors = Vec::new();
    loop {
        while matches!(s.peek(), Some(' ' | '\t' | '\r' | '\n')) {
            s.bump();
        }
        if s.is_eof() {
            break;
        }
        let res = if s.starts_with("//") {
            comment_line(&mut s, &mut script)
        } else if s.starts_with("/*") {
            block_comment(&mut s)
        } else if s.starts_with("--") {
            option_line(&mut s, &mut script)
        } else {
            event(&mut s, &mut script).map(|e| script.events.push(e))
        };
        if let Err(e) = res {
            // Multi-line constructs swallow the rest of the file when unterminated.
            let fatal = [
                "unterminated `%{`",
                "unterminated `/*`",
                "unterminated shell",
            ]
            .iter()
            .any(|p| e.message.starts_with(p));
            errors.push(e);
            if fatal {
                break;
            }
            s.skip_line();
        }
    }
    let assigned: BTreeSet<&str> = script
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Code(stmts) => Some(stmts),
            _ => None,
        })
        .flatten()
        .filter_map(|st| match st {
            Stmt::Assign { name, .. } => Some(name.as_str()),
            _ => None,
        })
        .collect();
    errors.extend(expr::check_names(&script.free_names, &assigned));
    errors.sort_by_key(|e| (e.line, e.col));
    for e in &mut errors {
        e.message = shorten_quotes(&e.message);
    }
    if errors.is_empty() {
        Ok(script)
    } else {
        Err(errors)
    }
}

/// `// …`, honouring `// lossrec: preset=NAME set=axis=value …`.
fn comment_line(s: &mut Scanner, script: &mut Script) -> Result<(), ParseError> {
    let line = s.line();
    s.eat("//");
    s.skip_spaces();
    if !s.eat("lossrec:") {
        s.rest_of_line();
        return Ok(());
    }
    loop {
        s.skip_spaces();
        if matches!(s.peek(), None | Some('\n')) {
            return Ok(());
        }
        let m = s.mark();
        let word = s.take_while(|c| !c.is_whitespace());
        if let Some(name) = word.strip_prefix("preset=") {
            script.header.preset = Some((line, name.to_string()));
        } else if let Some((axis, value)) =
            word.strip_prefix("set=").and_then(|kv| kv.split_once('='))
        {
            script
                .header
                .sets
                .push((line, axis.to_string(), value.to_string()));
        } else {
            return Err(s.error_at(
                m,
                format!("bad lossrec directive `{word}`: expected preset=NAME or set=AXIS=VALUE"),
            ));
        }
    }
}

fn block_comment(s: &mut Scanner) -> Result<(), ParseError> {
    let m = s.mark();
    s.eat("/*");
    while !s.is_eof() {
        if s.eat("*/") {
            return Ok(());
        }
        s.bump();
    }
    Err(s.error_at(m, "unterminated `/*` comment"))
}

/// `--tolerance_usecs=N`, `--tolerance_percent=N` (packetdrill's command-line options).
fn option_line(s: &mut Scanner, script: &mut Script) -> Result<(), ParseError> {
    let m = s.mark();
    let word = s.take_while(|c| !c.is_whitespace());
    let (key, value) = word.split_once('=').unwrap_or((&word, ""));
    let bad = |s: &Scanner| s.error_at(m, format!("bad value in `{word}`"));
    match key {
        "--tolerance_usecs" => script.tolerance_usecs = Some(value.parse().map_err(|_| bad(s))?),
        "--tolerance_percent" => {
            let p: f64 = value.parse().map_err(|_| bad(s))?;
            if !(0.0..=100.0).contains(&p) {
                return Err(bad(s));
            }
            script.tolerance_percent = Some(p);
        }
        // The segment size of the peer's GSO packets (`< . 1:10001(10000)` arrives as ten).
        "--mss" => {
            script.mss = Some(
                value
                    .parse()
                    .ok()
                    .filter(|&m| m > 0)
                    .ok_or_else(|| bad(s))?,
            )
        }
        // Addressing and the tun device's set-up do not exist here; these change nothing.
        "--ip_version" | "--local_ip" | "--remote_ip" | "--bind_port" | "--connect_port"
        | "--gateway_ip" | "--netmask_ip" | "--mtu" | "--init_scripts" | "--verbose"
        | "--non_fatal" | "--speed" => {}
        k if k.len() > 2
            && k[2..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
        {
            script
                .unsupported
                .push((m.line, format!("packetdrill option `{k}`")));
        }
        _ => return Err(s.error_at(m, format!("bad option `{key}`"))),
    }
    if !s.at_line_end() {
        return Err(s.error(format!("unexpected `{}` after option", s.peek_word())));
    }
    Ok(())
}

fn event(s: &mut Scanner, script: &mut Script) -> Result<Event, ParseError> {
    let line = s.line();
    // An untimed command line (`` `…` `` alone) runs when reached, like `+0`.
    let time = if s.peek() == Some('`') {
        Time::At(TimeVal {
            relative: true,
            usecs: 0,
        })
    } else {
        time(s)?
    };
    s.skip_spaces();
    let kind = match s.peek() {
        Some('<' | '>') if other_protocol(s).is_some() => {
            let proto = other_protocol(s).unwrap_or_default();
            s.rest_of_line();
            EventKind::Unsupported(format!("{proto} packets"))
        }
        Some('<') => {
            s.bump();
            EventKind::Packet(packet(s, Direction::Inbound)?)
        }
        Some('>') => {
            s.bump();
            EventKind::Packet(packet(s, Direction::Outbound)?)
        }
        Some('%') if s.starts_with("%{") => EventKind::Code(code(s, script)?),
        Some('`') => EventKind::Shell(shell(s)?),
        Some(c) if c.is_ascii_alphabetic() || c == '_' => EventKind::Syscall(syscall(s)?),
        _ => {
            return Err(s.error(format!(
                "expected a packet (`<` or `>`), `%{{`, a `shell command` or a system call \
                 after the time, found `{}`",
                s.peek_word()
            )))
        }
    };
    if !s.at_line_end() {
        return Err(s.error(format!("unexpected `{}` at end of line", s.peek_word())));
    }
    Ok(Event { line, time, kind })
}

/// `< icmp …`, `> udp …`: packet lines of other protocols (after an optional `[tos]`).
fn other_protocol(s: &Scanner) -> Option<String> {
    let mut probe = *s;
    probe.bump();
    probe.skip_spaces();
    if probe.peek() == Some('[') {
        probe.take_while(|c| c != ']');
        probe.bump();
        probe.skip_spaces();
    }
    let word = probe.ident();
    ["icmp", "udp", "gre", "mpls"]
        .contains(&word.as_str())
        .then(|| word.to_uppercase())
}

fn time(s: &mut Scanner) -> Result<Time, ParseError> {
    if s.eat("*") {
        return Ok(Time::Any);
    }
    let a = time_val(s)?;
    // `+0...0.1`, `+0 ... 0.1`, `+0 ...0.1`: spaces around the separator are allowed.
    let save = *s;
    s.skip_spaces();
    if s.eat("...") {
        s.skip_spaces();
        return Ok(Time::Blocking(a, time_val(s)?));
    }
    if s.eat("~") {
        s.skip_spaces();
        return Ok(Time::Range(a, time_val(s)?));
    }
    *s = save;
    Ok(Time::At(a))
}

/// `0.100`, `+.1`, `+0`, `2`: seconds with at most six decimals.
fn time_val(s: &mut Scanner) -> Result<TimeVal, ParseError> {
    let m = s.mark();
    let relative = s.eat("+");
    let int = s.take_while(|c| c.is_ascii_digit());
    let mut frac = String::new();
    if s.peek() == Some('.') && !s.starts_with("...") {
        s.bump();
        frac = s.take_while(|c| c.is_ascii_digit());
    }
    if int.is_empty() && frac.is_empty() {
        let found = s.peek_word();
        return Err(s.error_at(
            m,
            format!("expected a time (`0.100`, `+.1`, `*`), found `{found}`"),
        ));
    }
    if frac.len() > 6 {
        return Err(s.error_at(m, "time has more than six decimals (microseconds)"));
    }
    let secs: i64 = if int.is_empty() {
        0
    } else {
        int.parse()
            .ok()
            .filter(|&v: &i64| v < 1_000_000_000)
            .ok_or_else(|| s.error_at(m, format!("time `{int}` is too large")))?
    };
    let micros: i64 = format!("{frac:0<6}").parse().unwrap_or(0);
    Ok(TimeVal {
        relative,
        usecs: secs * 1_000_000 + micros,
    })
}

fn syscall(s: &mut Scanner) -> Result<Syscall, ParseError> {
    let name = s.ident();
    s.skip_spaces();
    if !s.eat("(") {
        return Err(s.error(format!(
            "expected `(` after `{name}`, found `{}`",
            s.peek_word()
        )));
    }
    let open = s.mark();
    let mut depth = 0usize;
    let mut quote = None;
    let mut args = Vec::new();
    let mut cur = String::new();
    loop {
        let Some(c) = s.peek() else {
            return Err(s.error_at(open, "unterminated argument list (missing `)`)"));
        };
        // Arguments may span lines (`[{fd=4,\n events=…}]`, a list broken after a comma);
        // a line that ends without a comma or an open bracket ends the list.
        if c == '\n' && depth == 0 && !cur.trim().is_empty() {
            return Err(s.error_at(open, "unterminated argument list (missing `)`)"));
        }
        s.bump();
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')') if depth == 0 => break,
            (None, ')' | ']' | '}') => depth = depth.saturating_sub(1),
            (None, ',') if depth == 0 => {
                args.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() || !args.is_empty() {
        args.push(cur.trim().to_string());
    }
    s.skip_spaces();
    if !s.eat("=") {
        return Err(s.error(format!(
            "expected `= RESULT` after `{name}(…)`, found `{}`",
            s.peek_word()
        )));
    }
    s.skip_spaces();
    let neg = s.eat("-");
    let result = if s.eat("0x") {
        let m = s.mark();
        let hex = s.take_while(|c| c.is_ascii_hexdigit());
        i64::from_str_radix(&hex, 16)
            .map_err(|_| s.error_at(m, format!("bad hexadecimal result `0x{hex}`")))?
    } else {
        s.number("a system call result")? as i64
    };
    let result = if neg { -result } else { result };
    s.skip_spaces();
    // `= -1 (Invalid argument)`, `= 0x2 (flags O_RDWR)`: a comment on the result.
    if s.peek() == Some('(') {
        while !matches!(s.peek(), None | Some('\n') | Some(')')) {
            s.bump();
        }
        if !s.eat(")") {
            return Err(s.error("unterminated result text (missing `)`)"));
        }
        s.skip_spaces();
    }
    let errno = if s.peek().is_some_and(|c| c.is_ascii_uppercase()) {
        let e = s.ident();
        s.skip_spaces();
        if s.eat("(") {
            while !matches!(s.peek(), None | Some('\n') | Some(')')) {
                s.bump();
            }
            if !s.eat(")") {
                return Err(s.error("unterminated errno text (missing `)`)"));
            }
        }
        Some(e)
    } else {
        None
    };
    Ok(Syscall {
        name,
        args,
        result,
        errno,
    })
}

fn shell(s: &mut Scanner) -> Result<String, ParseError> {
    let m = s.mark();
    s.eat("`");
    // A command block may span lines (packetdrill runs it with the shell).
    let body = s.take_while(|c| c != '`');
    if !s.eat("`") {
        return Err(s.error_at(m, "unterminated shell command `…` (no closing backquote)"));
    }
    Ok(body.trim().to_string())
}

fn code(s: &mut Scanner, script: &mut Script) -> Result<Vec<Stmt>, ParseError> {
    let open = s.mark();
    s.eat("%{");
    let (line, col) = (s.mark().line, s.mark().col);
    let body_start = s.mark();
    while !s.is_eof() && !s.starts_with("}%") {
        s.bump();
    }
    if s.is_eof() {
        return Err(s.error_at(open, "unterminated `%{` (no matching `}%`)"));
    }
    let body = s.since(body_start);
    s.eat("}%");
    let (stmts, free) = expr::parse_code(&body, line, col)?;
    script.free_names.extend(free);
    Ok(stmts)
}

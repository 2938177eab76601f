//! Packet lines: `[ecn] FLAGS start:end(len) [ack N] [win N] [<options>]`, with
//! packetdrill's relative sequence numbers and TCP option names.

use crate::ast::*;
use crate::lex::{ParseError, Scanner};

/// TCP options in packetdrill's grammar that the engine does not model.
const OTHER_OPTIONS: &[&str] = &[
    "FO", "FOEXP", "md5", "mptcp", "accecn", "AccECN", "AccECN0", "AccECN1", "exp", "tarr",
];

pub(crate) fn packet(s: &mut Scanner, dir: Direction) -> Result<Packet, ParseError> {
    s.skip_spaces();
    let mut ecn = None;
    if s.peek() == Some('[') {
        let m = s.mark();
        s.bump();
        let word = s.ident();
        ecn = Some(match word.as_str() {
            "noecn" => Ecn::NotEct,
            "ect0" => Ecn::Ect0,
            "ect1" => Ecn::Ect1,
            "ce" => Ecn::Ce,
            "ect01" => Ecn::Ect01,
            _ => {
                return Err(s.error_at(
                    m,
                    format!(
                        "unknown ECN codepoint `[{word}]` (valid: noecn, ect0, ect1, ect01, ce)"
                    ),
                ))
            }
        });
        if !s.eat("]") {
            return Err(s.error(format!("expected `]`, found `{}`", s.peek_word())));
        }
        s.skip_spaces();
    }
    let m = s.mark();
    let word = s.take_while(|c| !c.is_whitespace());
    if word.is_empty() {
        return Err(s.error_at(m, "missing TCP flags (`S`, `.`, `P.` …)"));
    }
    let flags = Flags::parse(&word).map_err(|c| {
        s.error_at(
            m,
            format!("bad flags `{word}`: unknown flag `{c}` (valid: F S R P . U E W)"),
        )
    })?;
    s.skip_spaces();
    let m = s.mark();
    let start = s.number_max("sequence number", u64::from(u32::MAX))? as u32;
    if !s.eat(":") {
        return Err(s.error_at(
            m,
            format!(
                "bad seq range `{}`: expected `start:end(len)`",
                s.word_at(m)
            ),
        ));
    }
    let end = s.number_max("sequence number", u64::from(u32::MAX))? as u32;
    if !s.eat("(") {
        return Err(s.error_at(
            m,
            format!("missing `(len)` after the sequence range `{start}:{end}`"),
        ));
    }
    let len = s.number_max("length", u64::from(u32::MAX))? as u32;
    if !s.eat(")") {
        return Err(s.error(format!(
            "expected `)` after the length, found `{}`",
            s.peek_word()
        )));
    }
    if end.wrapping_sub(start) != len {
        return Err(s.error_at(
            m,
            format!(
                "bad seq range `{start}:{end}({len})`: {start}:{end} spans {} bytes, not {len}",
                end.wrapping_sub(start)
            ),
        ));
    }
    let mut p = Packet {
        dir,
        ecn,
        flags,
        start,
        end,
        len,
        ack: None,
        win: None,
        options: Options::None,
    };
    let mut seen_options = false;
    loop {
        if s.at_line_end() {
            return Ok(p);
        }
        let m = s.mark();
        if s.peek() == Some('<') {
            if seen_options {
                return Err(s.error("a second option list"));
            }
            p.options = options(s)?;
            seen_options = true;
            continue;
        }
        let word = s.ident();
        if word == "urg" {
            // The urgent pointer: parsed; the `U` flag is unsupported when the line runs.
            s.skip_spaces();
            s.number_max("urg", u64::from(u32::MAX))?;
            continue;
        }
        let slot = match word.as_str() {
            "ack" => &mut p.ack,
            "win" => &mut p.win,
            _ => {
                let found = if word.is_empty() { s.peek_word() } else { word };
                return Err(s.error_at(
                    m,
                    format!(
                        "unexpected `{found}` in packet (expected `ack N`, `win N` or `<options>`)"
                    ),
                ));
            }
        };
        if slot.is_some() {
            return Err(s.error_at(m, format!("`{word}` given twice")));
        }
        s.skip_spaces();
        *slot = Some(s.number_max(&word, u64::from(u32::MAX))? as u32);
    }
}

fn options(s: &mut Scanner) -> Result<Options, ParseError> {
    let open = s.mark();
    s.eat("<");
    s.skip_spaces();
    if s.eat("...") {
        s.skip_spaces();
        if !s.eat(">") {
            return Err(s.error(format!(
                "expected `>` after `<...`, found `{}`",
                s.peek_word()
            )));
        }
        return Ok(Options::Any);
    }
    let mut list = Vec::new();
    loop {
        s.skip_spaces();
        let m = s.mark();
        let name = s.ident();
        let opt = match name.as_str() {
            "nop" => TcpOption::Nop,
            "eol" => TcpOption::Eol,
            "sackOK" => TcpOption::SackOk,
            "mss" => {
                s.skip_spaces();
                TcpOption::Mss(s.number_max("mss", 65535)? as u16)
            }
            "wscale" => {
                s.skip_spaces();
                TcpOption::Wscale(s.number_max("wscale", 255)? as u8)
            }
            "TS" => {
                s.skip_spaces();
                keyword(s, "val")?;
                let val = s.number_max("TS val", u64::from(u32::MAX))? as u32;
                s.skip_spaces();
                keyword(s, "ecr")?;
                let ecr = s.number_max("TS ecr", u64::from(u32::MAX))? as u32;
                TcpOption::Timestamp { val, ecr }
            }
            "sack" => {
                let mut blocks = Vec::new();
                loop {
                    s.skip_spaces();
                    if !s.peek().is_some_and(|c| c.is_ascii_digit()) {
                        break;
                    }
                    let bm = s.mark();
                    let a = s.number_max("SACK edge", u64::from(u32::MAX))? as u32;
                    if !s.eat(":") {
                        return Err(s.error_at(bm, "bad SACK block: expected `start:end`"));
                    }
                    let b = s.number_max("SACK edge", u64::from(u32::MAX))? as u32;
                    blocks.push((a, b));
                }
                if blocks.is_empty() {
                    return Err(s.error_at(m, "`sack` needs at least one `start:end` block"));
                }
                TcpOption::Sack(blocks)
            }
            "" => {
                if matches!(s.peek(), None | Some('\n')) {
                    return Err(s.error_at(open, "unterminated option list (missing `>`)"));
                }
                return Err(s.error(format!("expected a TCP option, found `{}`", s.peek_word())));
            }
            // Options packetdrill knows that the engine does not (TCP Fast Open, MD5,
            // AccECN, MPTCP, experimental): kept, and unsupported when the line runs.
            n if OTHER_OPTIONS.contains(&n) => {
                s.take_while(|c| c != ',' && c != '>' && c != '\n');
                TcpOption::Other(n.to_string())
            }
            _ => {
                return Err(s.error_at(
                    m,
                    format!(
                    "unknown TCP option `{name}` (known: nop, eol, mss, sackOK, wscale, TS, sack)"
                ),
                ))
            }
        };
        list.push(opt);
        s.skip_spaces();
        if s.eat(",") {
            continue;
        }
        if s.eat(">") {
            return Ok(Options::List(list));
        }
        if matches!(s.peek(), None | Some('\n')) {
            return Err(s.error_at(open, "unterminated option list (missing `>`)"));
        }
        return Err(s.error(format!(
            "expected `,` or `>` in the option list, found `{}`",
            s.peek_word()
        )));
    }
}

fn keyword(s: &mut Scanner, k: &str) -> Result<(), ParseError> {
    let m = s.mark();
    let w = s.ident();
    if w != k {
        let found = if w.is_empty() { s.peek_word() } else { w };
        return Err(s.error_at(m, format!("expected `{k}`, found `{found}`")));
    }
    s.skip_spaces();
    Ok(())
}

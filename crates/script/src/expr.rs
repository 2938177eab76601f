//! `%{ … }%` blocks: a small Python subset — `assert EXPR[, MESSAGE]` and `print(…)` over
//! `tcpi_*` fields, MIB counters and `TCP_CA_*` constants, with Python's operators.

use crate::ast::{BinOp, CmpOp, Expr, Stmt};

use crate::expr_tokens::{check_size, is_ident, tokenize, Tok, Token, KEYWORDS};
use crate::lex::ParseError;
use lossrec::{Stats, TcpInfo};
use std::collections::BTreeSet;

/// `tcpi_*` fields the runner adds to the engine's [`TcpInfo`].
pub const EXTRA_TCPI: &[&str] = &[
    "tcpi_min_rtt",
    "tcpi_delivered",
    "tcpi_state",
    "tcpi_rcv_mss",
];

/// Linux's constants as packetdrill scripts use them: `tcp_ca_state` names, TCP states
/// (`tcpi_state`), `tcpi_options` bits.
pub const CA_STATES: &[(&str, i64)] = &[
    ("TCP_CA_Open", 0),
    ("TCP_CA_Disorder", 1),
    ("TCP_CA_CWR", 2),
    ("TCP_CA_Recovery", 3),
    ("TCP_CA_Loss", 4),
    ("TCP_ESTABLISHED", 1),
    ("TCP_SYN_SENT", 2),
    ("TCP_SYN_RECV", 3),
    ("TCP_FIN_WAIT1", 4),
    ("TCP_FIN_WAIT2", 5),
    ("TCP_TIME_WAIT", 6),
    ("TCP_CLOSE", 7),
    ("TCP_CLOSE_WAIT", 8),
    ("TCP_LAST_ACK", 9),
    ("TCP_LISTEN", 10),
    ("TCP_CLOSING", 11),
    ("TCPI_OPT_TIMESTAMPS", 1),
    ("TCPI_OPT_SACK", 2),
    ("TCPI_OPT_WSCALE", 4),
    ("TCPI_OPT_ECN", 8),
    ("TCPI_OPT_ECN_SEEN", 16),
    ("TCPI_OPT_SYN_DATA", 32),
];

/// True if `name` can be evaluated: a `tcpi_*` field, a MIB counter or a constant.
pub fn is_known_name(name: &str) -> bool {
    TcpInfo::default().get(name).is_some()
        || EXTRA_TCPI.contains(&name)
        || Stats::NAMES.contains(&name)
        || CA_STATES.iter().any(|(n, _)| *n == name)
        || matches!(name, "True" | "False")
}

/// A name read in a block that is neither a `tcpi_*` field, a counter nor a constant:
/// a script variable if some block assigns it, else an error (see [`check_names`]).
#[derive(Clone, Debug, PartialEq)]
pub struct FreeName {
    pub name: String,
    pub line: usize,
    pub col: usize,
}

/// Parses the body of a `%{ … }%` block starting at `line:col`; also returns the names it
/// reads that are not known fields (for [`check_names`] once the whole script is read).
pub fn parse_code(
    body: &str,
    line: usize,
    col: usize,
) -> Result<(Vec<Stmt>, Vec<FreeName>), ParseError> {
    let toks = tokenize(body, line, col)?;
    check_size(&toks)?;
    let mut p = Parser {
        toks,
        pos: 0,
        src: body.lines().map(str::to_string).collect(),
        first_line: line,
        first_col: col,
        free: Vec::new(),
    };
    let mut stmts = Vec::new();
    loop {
        while p.peek().tok == Tok::End {
            p.pos += 1;
        }
        if p.peek().tok == Tok::Eof {
            return Ok((stmts, p.free));
        }
        stmts.push(p.statement()?);
    }
}

/// Python's rule for the whole script: a name must be assigned in some block. Unknown
/// `tcpi_*` fields are not errors here: the runner reports them as unsupported when the
/// line runs (a field of Linux's `tcp_info` the engine does not report).
pub fn check_names(free: &[FreeName], assigned: &BTreeSet<&str>) -> Vec<ParseError> {
    free.iter()
        .filter(|f| !assigned.contains(f.name.as_str()) && !f.name.starts_with("tcpi_"))
        .map(|f| ParseError {
            line: f.line,
            col: f.col,
            message: format!(
                "unknown name `{}`: not a tcpi_* field, a MIB counter (TCPTimeouts, …), a \
                 TCP_CA_* constant or a variable assigned in a %{{ }}% block",
                f.name
            ),
        })
        .collect()
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    src: Vec<String>,
    first_line: usize,
    first_col: usize,
    free: Vec<FreeName>,
}

impl Parser {
    fn peek(&self) -> &Token {
        &self.toks[self.pos.min(self.toks.len() - 1)]
    }
    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }
    fn err(&self, t: &Token, msg: String) -> ParseError {
        ParseError {
            line: t.line,
            col: t.col,
            message: msg,
        }
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(&self.peek().tok, Tok::Op(o) if *o == op)
    }
    fn expect_op(&mut self, op: &'static str) -> Result<(), ParseError> {
        if self.is_op(op) {
            self.next();
            Ok(())
        } else {
            let t = self.peek().clone();
            Err(self.err(&t, format!("expected `{op}`, found `{}`", t.text)))
        }
    }
    /// Source text between two tokens (for assertion messages).
    fn text_between(&self, a: &Token, b: &Token) -> String {
        if a.line == b.line {
            let l = &self.src[a.line - self.first_line];
            let off = if a.line == self.first_line {
                self.first_col
            } else {
                1
            };
            let chars: Vec<char> = l.chars().collect();
            let (i, j) = (a.col - off, (b.col - off).min(chars.len()));
            chars[i.min(j)..j]
                .iter()
                .collect::<String>()
                .trim()
                .to_string()
        } else {
            self.toks[self.index_of(a)..self.index_of(b)]
                .iter()
                .map(|t| t.text.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        }
    }
    fn index_of(&self, t: &Token) -> usize {
        self.toks
            .iter()
            .position(|x| x.line == t.line && x.col == t.col)
            .unwrap_or(0)
    }

    fn statement(&mut self) -> Result<Stmt, ParseError> {
        let t = self.next();
        let stmt = match &t.tok {
            Tok::Name(n) if n == "assert" => {
                let first = self.peek().clone();
                let expr = self.expr()?;
                let last = self.peek().clone();
                let text = self.text_between(&first, &last);
                let message = if self.is_op(",") {
                    self.next();
                    Some(self.expr()?)
                } else {
                    None
                };
                Stmt::Assert {
                    line: t.line,
                    expr,
                    text,
                    message,
                }
            }
            Tok::Name(n) if n == "print" => {
                let mut args = Vec::new();
                if self.is_op("(") {
                    self.next();
                    while !self.is_op(")") {
                        args.push(self.expr()?);
                        if !self.is_op(")") {
                            self.expect_op(",")?;
                        }
                    }
                    self.next();
                } else {
                    args.push(self.expr()?);
                }
                Stmt::Print { line: t.line, args }
            }
            Tok::Name(n) if is_ident(n) && self.assign_op().is_some() => {
                let op = self.assign_op().flatten();
                self.next();
                let expr = self.expr()?;
                Stmt::Assign {
                    line: t.line,
                    name: n.clone(),
                    op,
                    expr,
                }
            }
            _ => {
                return Err(self.err(
                    &t,
                    format!(
                        "unsupported statement starting with `{}` in %{{ }}% (only `assert`, \
                         `print` and assignments)",
                        t.text
                    ),
                ))
            }
        };
        let end = self.peek().clone();
        if end.tok != Tok::End {
            return Err(self.err(
                &end,
                format!("unexpected `{}` after the statement", end.text),
            ));
        }
        Ok(stmt)
    }

    /// `Some(None)` for `=`, `Some(Some(op))` for `+=` `-=` `*=`, `None` otherwise.
    fn assign_op(&self) -> Option<Option<BinOp>> {
        match &self.peek().tok {
            Tok::Op("=") => Some(None),
            Tok::Op("+=") => Some(Some(BinOp::Add)),
            Tok::Op("-=") => Some(Some(BinOp::Sub)),
            Tok::Op("*=") => Some(Some(BinOp::Mul)),
            _ => None,
        }
    }

    fn expr(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.and()?;
        while self.peek().tok == Tok::Name("or".into()) {
            self.next();
            e = Expr::Or(Box::new(e), Box::new(self.and()?));
        }
        Ok(e)
    }
    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.not()?;
        while self.peek().tok == Tok::Name("and".into()) {
            self.next();
            e = Expr::And(Box::new(e), Box::new(self.not()?));
        }
        Ok(e)
    }
    fn not(&mut self) -> Result<Expr, ParseError> {
        if self.peek().tok == Tok::Name("not".into()) {
            self.next();
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.comparison()
    }
    fn comparison(&mut self) -> Result<Expr, ParseError> {
        let first = self.bitor()?;
        let mut rest = Vec::new();
        loop {
            let op = match &self.peek().tok {
                Tok::Op("==") => CmpOp::Eq,
                Tok::Op("!=") => CmpOp::Ne,
                Tok::Op("<") => CmpOp::Lt,
                Tok::Op("<=") => CmpOp::Le,
                Tok::Op(">") => CmpOp::Gt,
                Tok::Op(">=") => CmpOp::Ge,
                _ => break,
            };
            self.next();
            rest.push((op, self.bitor()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Compare(Box::new(first), rest)
        })
    }
    /// Python's binary levels below comparison: `|`, `^`, `&`, `<<`/`>>`.
    fn bitor(&mut self) -> Result<Expr, ParseError> {
        self.binary_level(0)
    }
    fn binary_level(&mut self, level: usize) -> Result<Expr, ParseError> {
        const LEVELS: &[&[(&str, BinOp)]] = &[
            &[("|", BinOp::BitOr)],
            &[("^", BinOp::BitXor)],
            &[("&", BinOp::BitAnd)],
            &[("<<", BinOp::Shl), (">>", BinOp::Shr)],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.arith();
        };
        let mut e = self.binary_level(level + 1)?;
        while let Some((_, op)) = ops.iter().find(|(o, _)| self.is_op(o)) {
            self.next();
            e = Expr::Binary(*op, Box::new(e), Box::new(self.binary_level(level + 1)?));
        }
        Ok(e)
    }
    fn arith(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.term()?;
        loop {
            let op = match &self.peek().tok {
                Tok::Op("+") => BinOp::Add,
                Tok::Op("-") => BinOp::Sub,
                _ => return Ok(e),
            };
            self.next();
            e = Expr::Binary(op, Box::new(e), Box::new(self.term()?));
        }
    }
    fn term(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.unary()?;
        loop {
            let op = match &self.peek().tok {
                Tok::Op("*") => BinOp::Mul,
                Tok::Op("/") => BinOp::Div,
                Tok::Op("//") => BinOp::FloorDiv,
                Tok::Op("%") => BinOp::Mod,
                _ => return Ok(e),
            };
            self.next();
            e = Expr::Binary(op, Box::new(e), Box::new(self.unary()?));
        }
    }
    fn unary(&mut self) -> Result<Expr, ParseError> {
        if self.is_op("-") {
            self.next();
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.is_op("+") {
            self.next();
            return self.unary();
        }
        if self.is_op("~") {
            self.next();
            return Ok(Expr::Invert(Box::new(self.unary()?)));
        }
        self.atom()
    }
    fn atom(&mut self) -> Result<Expr, ParseError> {
        let t = self.next();
        match t.tok.clone() {
            Tok::Int(v) => Ok(Expr::Int(v)),
            Tok::Float(v) => Ok(Expr::Float(v)),
            Tok::Str(v) => Ok(Expr::Str(v)),
            Tok::Op("(") => {
                let e = self.expr()?;
                if !self.is_op(",") {
                    self.expect_op(")")?;
                    return Ok(e);
                }
                let mut items = vec![e];
                while self.is_op(",") {
                    self.next();
                    if self.is_op(")") {
                        break;
                    }
                    items.push(self.expr()?);
                }
                self.expect_op(")")?;
                Ok(Expr::Tuple(items))
            }
            Tok::Name(n) if matches!(n.as_str(), "abs" | "min" | "max") && self.is_op("(") => {
                self.next();
                let mut args = Vec::new();
                while !self.is_op(")") {
                    args.push(self.expr()?);
                    if !self.is_op(")") {
                        self.expect_op(",")?;
                    }
                }
                self.next();
                let ok = if n == "abs" {
                    args.len() == 1
                } else {
                    !args.is_empty()
                };
                if !ok {
                    return Err(self.err(&t, format!("wrong number of arguments to `{n}`")));
                }
                Ok(Expr::Call(n, args))
            }
            Tok::Name(n) if is_known_name(&n) => Ok(Expr::Name(n)),
            Tok::Name(n) if is_ident(&n) && !KEYWORDS.contains(&n.as_str()) => {
                self.free.push(FreeName {
                    name: n.clone(),
                    line: t.line,
                    col: t.col,
                });
                Ok(Expr::Name(n))
            }
            _ => Err(self.err(&t, format!("expected a value, found `{}`", t.text))),
        }
    }
}

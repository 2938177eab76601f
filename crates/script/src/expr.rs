//! `%{ … }%` blocks: a small Python subset — `assert EXPR[, MESSAGE]` and `print(…)` over
//! `tcpi_*` fields, MIB counters and `TCP_CA_*` constants, with Python's operators.

use crate::ast::{BinOp, CmpOp, Expr, Stmt};
use crate::lex::{ParseError, Scanner};
use lossrec::{Stats, TcpInfo};

/// Linux's `tcp_ca_state` names, as packetdrill scripts use them.
pub const CA_STATES: &[(&str, i64)] = &[
    ("TCP_CA_Open", 0),
    ("TCP_CA_Disorder", 1),
    ("TCP_CA_CWR", 2),
    ("TCP_CA_Recovery", 3),
    ("TCP_CA_Loss", 4),
];

/// True if `name` can be evaluated: a `tcpi_*` field, a MIB counter or a constant.
pub fn is_known_name(name: &str) -> bool {
    TcpInfo::default().get(name).is_some()
        || Stats::NAMES.contains(&name)
        || CA_STATES.iter().any(|(n, _)| *n == name)
        || matches!(name, "True" | "False")
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Int(i64),
    Float(f64),
    Str(String),
    Op(&'static str),
    /// End of a statement: newline at depth 0 or `;`.
    End,
    Eof,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    line: usize,
    col: usize,
    text: String,
}

const OPS: &[&str] = &[
    "==", "!=", "<=", ">=", "//", "<", ">", "+", "-", "*", "/", "%", "(", ")", ",",
];

fn tokenize(body: &str, line: usize, col: usize) -> Result<Vec<Token>, ParseError> {
    let mut s = Scanner::at(body, line, col);
    let mut out = Vec::new();
    let mut depth = 0usize;
    loop {
        s.skip_spaces();
        let m = s.mark();
        let push = |out: &mut Vec<Token>, tok, text: String| {
            out.push(Token {
                tok,
                line: m.line,
                col: m.col,
                text,
            })
        };
        let Some(c) = s.peek() else {
            push(&mut out, Tok::End, String::new());
            push(&mut out, Tok::Eof, "end of block".into());
            return Ok(out);
        };
        if c == '#' {
            while !matches!(s.peek(), None | Some('\n')) {
                s.bump();
            }
        } else if c == '\n' || c == ';' {
            s.bump();
            if depth == 0 {
                push(&mut out, Tok::End, "end of line".into());
            }
        } else if c == '\\' && s.peek_at(1) == Some('\n') {
            s.bump();
            s.bump();
        } else if c.is_ascii_alphabetic() || c == '_' {
            let w = s.ident();
            push(&mut out, Tok::Name(w.clone()), w);
        } else if c.is_ascii_digit() || (c == '.' && s.peek_at(1).is_some_and(|d| d.is_ascii_digit())) {
            let w = s.take_while(|c| c.is_ascii_alphanumeric() || c == '.');
            let tok = if let Some(hex) = w.strip_prefix("0x") {
                i64::from_str_radix(hex, 16).ok().map(Tok::Int)
            } else if w.contains('.') {
                w.parse().ok().map(Tok::Float)
            } else {
                w.parse().ok().map(Tok::Int)
            };
            let tok = tok.ok_or_else(|| s.error_at(m, format!("bad number `{w}`")))?;
            push(&mut out, tok, w);
        } else if c == '"' || c == '\'' {
            s.bump();
            let body = s.take_while(|x| x != c && x != '\n');
            if !s.eat(&c.to_string()) {
                return Err(s.error_at(m, "unterminated string"));
            }
            push(&mut out, Tok::Str(body.clone()), format!("{c}{body}{c}"));
        } else if let Some(op) = OPS.iter().find(|op| s.starts_with(op)) {
            s.eat(op);
            match *op {
                "(" => depth += 1,
                ")" => depth = depth.saturating_sub(1),
                _ => {}
            }
            push(&mut out, Tok::Op(op), op.to_string());
        } else {
            return Err(s.error_at(m, format!("unexpected `{c}` in %{{ }}% block")));
        }
    }
}

/// Parses the body of a `%{ … }%` block starting at `line:col`.
pub fn parse_code(body: &str, line: usize, col: usize) -> Result<Vec<Stmt>, ParseError> {
    let toks = tokenize(body, line, col)?;
    let mut p = Parser {
        toks,
        pos: 0,
        src: body.lines().map(str::to_string).collect(),
        first_line: line,
        first_col: col,
    };
    let mut stmts = Vec::new();
    loop {
        while p.peek().tok == Tok::End {
            p.pos += 1;
        }
        if p.peek().tok == Tok::Eof {
            return Ok(stmts);
        }
        stmts.push(p.statement()?);
    }
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    src: Vec<String>,
    first_line: usize,
    first_col: usize,
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
        self.peek().tok == Tok::Op(leak(op))
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
            let off = if a.line == self.first_line { self.first_col } else { 1 };
            let chars: Vec<char> = l.chars().collect();
            let (i, j) = (a.col - off, (b.col - off).min(chars.len()));
            chars[i.min(j)..j].iter().collect::<String>().trim().to_string()
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
            _ => {
                return Err(self.err(
                    &t,
                    format!(
                        "unsupported statement starting with `{}` in %{{ }}% (only `assert` and `print`)",
                        t.text
                    ),
                ))
            }
        };
        let end = self.peek().clone();
        if end.tok != Tok::End {
            return Err(self.err(&end, format!("unexpected `{}` after the statement", end.text)));
        }
        Ok(stmt)
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
        let first = self.arith()?;
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
            rest.push((op, self.arith()?));
        }
        Ok(if rest.is_empty() {
            first
        } else {
            Expr::Compare(Box::new(first), rest)
        })
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
                self.expect_op(")")?;
                Ok(e)
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
                let ok = if n == "abs" { args.len() == 1 } else { !args.is_empty() };
                if !ok {
                    return Err(self.err(&t, format!("wrong number of arguments to `{n}`")));
                }
                Ok(Expr::Call(n, args))
            }
            Tok::Name(n) if is_known_name(&n) => Ok(Expr::Name(n)),
            Tok::Name(n) if n.starts_with("tcpi_") => Err(self.err(
                &t,
                format!(
                    "unknown tcp_info field `{n}` (this engine reports: {})",
                    TcpInfo::default()
                        .fields()
                        .iter()
                        .map(|(f, _)| *f)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
            Tok::Name(n) => Err(self.err(
                &t,
                format!(
                    "unknown name `{n}`: not a tcpi_* field, a MIB counter (TCPTimeouts, …) \
                     or a TCP_CA_* constant"
                ),
            )),
            _ => Err(self.err(&t, format!("expected a value, found `{}`", t.text))),
        }
    }
}

/// Operators are `'static` in tokens; compare through the table.
fn leak(op: &str) -> &'static str {
    OPS.iter().find(|o| **o == op).copied().unwrap_or("")
}

/// A value during evaluation (Python's int, float, bool, str).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
}

impl core::fmt::Display for Value {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Bool(true) => f.write_str("True"),
            Value::Bool(false) => f.write_str("False"),
            Value::Str(s) => f.write_str(s),
        }
    }
}

impl Value {
    fn num(&self) -> Result<f64, String> {
        match self {
            Value::Int(v) => Ok(*v as f64),
            Value::Float(v) => Ok(*v),
            Value::Bool(b) => Ok(f64::from(u8::from(*b))),
            Value::Str(s) => Err(format!("`{s}` is a string, not a number")),
        }
    }
    fn int(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::Bool(b) => Some(i64::from(*b)),
            _ => None,
        }
    }
    pub fn truthy(&self) -> bool {
        match self {
            Value::Int(v) => *v != 0,
            Value::Float(v) => *v != 0.0,
            Value::Bool(b) => *b,
            Value::Str(s) => !s.is_empty(),
        }
    }
}

/// Evaluates `e`, looking names up with `lookup`.
pub fn eval(e: &Expr, lookup: &dyn Fn(&str) -> Option<i64>) -> Result<Value, String> {
    Ok(match e {
        Expr::Int(v) => Value::Int(*v),
        Expr::Float(v) => Value::Float(*v),
        Expr::Str(s) => Value::Str(s.clone()),
        Expr::Name(n) => match n.as_str() {
            "True" => Value::Bool(true),
            "False" => Value::Bool(false),
            _ => Value::Int(lookup(n).ok_or_else(|| format!("`{n}` has no value"))?),
        },
        Expr::Neg(x) => match eval(x, lookup)? {
            Value::Float(v) => Value::Float(-v),
            v => Value::Int(v.int().ok_or("cannot negate a string")?.wrapping_neg()),
        },
        Expr::Not(x) => Value::Bool(!eval(x, lookup)?.truthy()),
        Expr::And(a, b) => {
            let a = eval(a, lookup)?;
            if a.truthy() {
                eval(b, lookup)?
            } else {
                a
            }
        }
        Expr::Or(a, b) => {
            let a = eval(a, lookup)?;
            if a.truthy() {
                a
            } else {
                eval(b, lookup)?
            }
        }
        Expr::Binary(op, a, b) => binary(*op, eval(a, lookup)?, eval(b, lookup)?)?,
        Expr::Compare(first, rest) => {
            let mut left = eval(first, lookup)?;
            for (op, e) in rest {
                let right = eval(e, lookup)?;
                let ok = match (&left, &right) {
                    (Value::Str(a), Value::Str(b)) => compare(*op, a.cmp(b)),
                    _ => {
                        let (a, b) = (left.num()?, right.num()?);
                        match a.partial_cmp(&b) {
                            Some(o) => compare(*op, o),
                            None => *op == CmpOp::Ne,
                        }
                    }
                };
                if !ok {
                    return Ok(Value::Bool(false));
                }
                left = right;
            }
            Value::Bool(true)
        }
        Expr::Call(f, args) => {
            let vals = args
                .iter()
                .map(|a| eval(a, lookup))
                .collect::<Result<Vec<_>, _>>()?;
            match f.as_str() {
                "abs" => match &vals[0] {
                    Value::Float(v) => Value::Float(v.abs()),
                    v => Value::Int(v.int().ok_or("abs of a string")?.wrapping_abs()),
                },
                _ => {
                    let mut best = vals[0].clone();
                    for v in &vals[1..] {
                        let better = if f == "min" {
                            v.num()? < best.num()?
                        } else {
                            v.num()? > best.num()?
                        };
                        if better {
                            best = v.clone();
                        }
                    }
                    best
                }
            }
        }
    })
}

fn compare(op: CmpOp, o: core::cmp::Ordering) -> bool {
    use core::cmp::Ordering::*;
    match op {
        CmpOp::Eq => o == Equal,
        CmpOp::Ne => o != Equal,
        CmpOp::Lt => o == Less,
        CmpOp::Le => o != Greater,
        CmpOp::Gt => o == Greater,
        CmpOp::Ge => o != Less,
    }
}

fn binary(op: BinOp, a: Value, b: Value) -> Result<Value, String> {
    if let (Some(x), Some(y), false) = (a.int(), b.int(), op == BinOp::Div) {
        let v = match op {
            BinOp::Add => x.checked_add(y),
            BinOp::Sub => x.checked_sub(y),
            BinOp::Mul => x.checked_mul(y),
            BinOp::FloorDiv | BinOp::Mod if y == 0 => return Err("division by zero".into()),
            BinOp::FloorDiv => Some(x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0)),
            BinOp::Mod => Some(x - y * (x.div_euclid(y) - i64::from(y < 0 && x.rem_euclid(y) != 0))),
            BinOp::Div => None,
        };
        return v.map(Value::Int).ok_or_else(|| "integer overflow".into());
    }
    let (x, y) = (a.num()?, b.num()?);
    if y == 0.0 && matches!(op, BinOp::Div | BinOp::FloorDiv | BinOp::Mod) {
        return Err("division by zero".into());
    }
    Ok(Value::Float(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        BinOp::FloorDiv => (x / y).floor(),
        BinOp::Mod => x - y * (x / y).floor(),
    }))
}

/// Every name an expression reads, in first-use order (for failure messages).
pub fn names(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Name(n) => {
            let constant = matches!(n.as_str(), "True" | "False")
                || CA_STATES.iter().any(|(c, _)| c == n);
            if !out.contains(n) && !constant {
                out.push(n.clone())
            }
        }
        Expr::Neg(x) | Expr::Not(x) => names(x, out),
        Expr::Binary(_, a, b) | Expr::And(a, b) | Expr::Or(a, b) => {
            names(a, out);
            names(b, out);
        }
        Expr::Compare(a, rest) => {
            names(a, out);
            for (_, x) in rest {
                names(x, out);
            }
        }
        Expr::Call(_, args) => args.iter().for_each(|a| names(a, out)),
        Expr::Int(_) | Expr::Float(_) | Expr::Str(_) => {}
    }
}

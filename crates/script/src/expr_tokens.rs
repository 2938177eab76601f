//! Tokens of `%{ … }%` blocks: names, numbers (decimal, `0x`), strings, Python's operators;
//! a newline or `;` outside parentheses ends a statement, `#` starts a comment.

use crate::lex::{ParseError, Scanner};

/// Python keywords that cannot name a variable.
pub(crate) const KEYWORDS: &[&str] = &[
    "and", "or", "not", "assert", "print", "in", "is", "if", "else",
];

pub(crate) fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
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
pub(crate) struct Token {
    pub(crate) tok: Tok,
    pub(crate) line: usize,
    pub(crate) col: usize,
    pub(crate) text: String,
}

const OPS: &[&str] = &[
    "==", "!=", "<=", ">=", "+=", "-=", "*=", "//", "<<", ">>", "<", ">", "+", "-", "*", "/", "%",
    "(", ")", ",", "=", "&", "|", "^", "~",
];

pub(crate) fn tokenize(body: &str, line: usize, col: usize) -> Result<Vec<Token>, ParseError> {
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
            push(&mut out, Tok::End, "end of block".into());
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
        } else if c.is_ascii_digit()
            || (c == '.' && s.peek_at(1).is_some_and(|d| d.is_ascii_digit()))
        {
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

/// Parentheses (and `not`, unary `-`, `+`, `~`) nested at most this deep in a statement.
/// Python's own parser stops at 200 parentheses; scripts nest a handful.
pub const MAX_NESTING: usize = 100;
/// Operators in one statement at most. A chain `a + b + …` is a tree as deep as it is
/// long, and evaluating it recurses once per operator.
pub const MAX_OPERATORS: usize = 250;

/// The recursive parser and evaluator stay within a small stack: each statement nests at
/// most [`MAX_NESTING`] deep and holds at most [`MAX_OPERATORS`] operators (issue 13: a
/// 10,000-deep assertion overflowed the stack).
pub(crate) fn check_size(toks: &[Token]) -> Result<(), ParseError> {
    let (mut depth, mut unary, mut ops) = (0usize, 0usize, 0usize);
    let mut prev_is_value = false;
    for t in toks {
        let too = |message: String| ParseError {
            line: t.line,
            col: t.col,
            message,
        };
        let prefix = match &t.tok {
            Tok::End | Tok::Eof => {
                (depth, unary, ops) = (0, 0, 0);
                prev_is_value = false;
                continue;
            }
            Tok::Op("(") => {
                depth += 1;
                true
            }
            Tok::Op(")") => {
                depth = depth.saturating_sub(1);
                false
            }
            Tok::Op("-" | "+" | "~") if !prev_is_value => true,
            Tok::Name(n) if n == "not" => true,
            _ => false,
        };
        unary = if prefix { unary + 1 } else { 0 };
        if depth.max(unary) > MAX_NESTING {
            return Err(too(format!(
                "expression nested too deeply (more than {MAX_NESTING} levels of \
                 parentheses, `not` or signs)"
            )));
        }
        let operator = matches!(&t.tok, Tok::Op(o) if *o != "(" && *o != ")" && *o != ",")
            || matches!(&t.tok, Tok::Name(n) if matches!(n.as_str(), "and" | "or" | "not"));
        ops += usize::from(operator);
        if ops > MAX_OPERATORS {
            return Err(too(format!(
                "too many operators in one statement (more than {MAX_OPERATORS})"
            )));
        }
        prev_is_value = matches!(
            &t.tok,
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::Op(")")
        ) || matches!(&t.tok, Tok::Name(n) if !KEYWORDS.contains(&n.as_str()));
    }
    Ok(())
}

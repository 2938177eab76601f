//! The scenario's size limits, checked while the text is read (issue 26 item 7).
//!
//! `toml` builds the whole document before serde sees a field, and the parser reads it
//! twice (the spanned tree for error locations, the serde structs), so a limit checked on
//! the structs comes after the memory is spent: 3,000,000 `[[background]]` tables took
//! 11 GB before "at most 64 sources". This pass runs first, over `toml_parser`'s lexer (a
//! stream of tokens, nothing kept), and stops at the first table or array element past a
//! limit; what it keeps is one counter per open bracket. Syntax it does not follow it
//! skips: the full parse that comes next reports it.
//!
//! Limits: the file's size ([`MAX_SCENARIO_BYTES`]); `[[background]]` tables
//! ([`MAX_SOURCES`]); `workload.writes` entries ([`MAX_WRITES`]); as many elements in any
//! other array; tables in all; values in all; nesting depth.

use super::workload::MAX_WRITES;
use crate::background::MAX_SOURCES;
use crate::span::line_col;
use crate::ScenarioError;
use toml_parser::lexer::{Token, TokenKind};
use toml_parser::Source;

/// The largest scenario read, in bytes (16 MiB): far beyond any hand-written scenario,
/// small enough that reading one stays within a few hundred megabytes.
pub const MAX_SCENARIO_BYTES: usize = 16 << 20;
/// Elements in one array (other than `workload.writes`, which has its own limit).
const MAX_ARRAY: usize = MAX_WRITES;
/// Table headers (`[…]`, `[[…]]`) in all: the schema has about twenty, and 64 sources.
const MAX_TABLES: usize = 1024;
/// Values in all: a full `writes` list is three per entry.
const MAX_VALUES: usize = 3 * MAX_WRITES + 100_000;
/// Arrays and inline tables inside one another.
const MAX_DEPTH: usize = 32;

/// The error for a file over [`MAX_SCENARIO_BYTES`].
pub fn too_large(origin: &str, bytes: u64) -> ScenarioError {
    ScenarioError {
        origin: origin.into(),
        line: None,
        column: None,
        field: None,
        message: format!(
            "the file is {bytes} bytes; a scenario may be at most 16 MiB ({MAX_SCENARIO_BYTES} \
             bytes)"
        ),
    }
}

/// Checks every limit; the error names the first table or element past one.
pub fn check(text: &str, origin: &str) -> Result<(), ScenarioError> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(too_large(origin, text.len() as u64));
    }
    let mut scan = Scan {
        text,
        stack: Vec::new(),
        table: String::new(),
        key: String::new(),
        expect_value: false,
        line_start: true,
        tables: 0,
        sources: 0,
        values: 0,
    };
    let mut tokens = Source::new(text)
        .lex()
        .filter(|t| !matches!(t.kind(), TokenKind::Whitespace | TokenKind::Comment));
    while let Some(t) = tokens.next() {
        scan.token(t, &mut tokens).map_err(|(t, field, message)| {
            let (line, column) = line_col(text, t.span().start());
            ScenarioError {
                origin: origin.into(),
                line: Some(line),
                column: Some(column),
                field: field.as_deref().map(super::words::short),
                message,
            }
        })?;
    }
    Ok(())
}

/// An open array (its dotted path, elements so far, whether the next token starts one) or
/// inline table (its path and the key being read).
enum Open {
    Array {
        path: String,
        count: usize,
        expect: bool,
    },
    Table {
        path: String,
        key: String,
        expect: bool,
    },
}

/// A limit passed at a token: (token, field, message).
type Over = (Token, Option<String>, String);

struct Scan<'a> {
    text: &'a str,
    stack: Vec<Open>,
    /// The current `[table]`'s path.
    table: String,
    /// The key being read at the top level.
    key: String,
    expect_value: bool,
    line_start: bool,
    tables: usize,
    sources: usize,
    values: usize,
}

fn starts_value(k: TokenKind) -> bool {
    !matches!(
        k,
        TokenKind::Comma
            | TokenKind::Dot
            | TokenKind::Equals
            | TokenKind::Newline
            | TokenKind::RightSquareBracket
            | TokenKind::RightCurlyBracket
            | TokenKind::Eof
    )
}

fn join(table: &str, key: &str) -> String {
    if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    }
}

impl Scan<'_> {
    fn token(&mut self, t: Token, rest: &mut impl Iterator<Item = Token>) -> Result<(), Over> {
        let k = t.kind();
        match self.stack.last_mut() {
            None if k == TokenKind::Newline => {
                self.line_start = true;
                self.expect_value = false;
                self.key.clear();
            }
            None if self.line_start && k == TokenKind::LeftSquareBracket => self.header(t, rest)?,
            None if self.expect_value => {
                self.expect_value = false;
                let path = join(&self.table, &self.key);
                self.value(t, path)?;
            }
            None if k == TokenKind::Equals => self.expect_value = true,
            None => {
                self.line_start = false;
                self.push_key(t);
            }
            Some(Open::Array {
                path,
                count,
                expect,
            }) => match k {
                TokenKind::Comma => *expect = true,
                TokenKind::RightSquareBracket => {
                    self.stack.pop();
                }
                _ if *expect && starts_value(k) => {
                    *expect = false;
                    *count += 1;
                    let limit = if path == "workload.writes" {
                        MAX_WRITES
                    } else {
                        MAX_ARRAY
                    };
                    if *count > limit {
                        return Err((t, Some(path.clone()), format!("at most {limit} entries")));
                    }
                    let inner = format!("{path}[{}]", *count - 1);
                    self.value(t, inner)?;
                }
                _ => {}
            },
            Some(Open::Table { path, key, expect }) => match k {
                TokenKind::Comma => key.clear(),
                TokenKind::RightCurlyBracket => {
                    self.stack.pop();
                }
                TokenKind::Equals => *expect = true,
                _ if *expect && starts_value(k) => {
                    *expect = false;
                    let inner = join(path, key);
                    self.value(t, inner)?;
                }
                _ if !*expect => {
                    if let Some(raw) = self.text.get(t.span().start()..t.span().end()) {
                        key.push_str(raw.trim_matches(['"', '\'']));
                    }
                }
                _ => {}
            },
        }
        Ok(())
    }

    /// A key's token (bare, quoted or a dot) at the top level.
    fn push_key(&mut self, t: Token) {
        if let Some(raw) = self.text.get(t.span().start()..t.span().end()) {
            // Bounded by the file: a key is part of it.
            self.key.push_str(raw.trim_matches(['"', '\'']));
        }
    }

    /// A value starts at `t`, at `path`: counted, and an array or inline table is opened.
    fn value(&mut self, t: Token, path: String) -> Result<(), Over> {
        self.values += 1;
        if self.values > MAX_VALUES {
            return Err((t, None, format!("more than {MAX_VALUES} values in all")));
        }
        let open = match t.kind() {
            TokenKind::LeftSquareBracket => Open::Array {
                path,
                count: 0,
                expect: true,
            },
            TokenKind::LeftCurlyBracket => Open::Table {
                path,
                key: String::new(),
                expect: false,
            },
            _ => return Ok(()),
        };
        if self.stack.len() >= MAX_DEPTH {
            return Err((
                t,
                Some(path_of(&open).to_string()),
                format!("arrays and tables nested more than {MAX_DEPTH} deep"),
            ));
        }
        self.stack.push(open);
        Ok(())
    }

    /// `[table]` or `[[array.of.tables]]`, from its first `[`.
    fn header(&mut self, t: Token, rest: &mut impl Iterator<Item = Token>) -> Result<(), Over> {
        self.line_start = false;
        self.tables += 1;
        if self.tables > MAX_TABLES {
            return Err((t, None, format!("more than {MAX_TABLES} tables")));
        }
        let mut path = String::new();
        let mut array = false;
        for u in rest.by_ref() {
            match u.kind() {
                TokenKind::LeftSquareBracket if path.is_empty() => array = true,
                TokenKind::Newline | TokenKind::Eof => {
                    self.line_start = true;
                    break;
                }
                TokenKind::RightSquareBracket => {
                    if array {
                        // The second `]` of `]]`.
                        rest.next();
                    }
                    break;
                }
                _ => {
                    if let Some(raw) = self.text.get(u.span().start()..u.span().end()) {
                        path.push_str(raw.trim_matches(['"', '\'']));
                    }
                }
            }
        }
        if array && path == "background" {
            self.sources += 1;
            if self.sources > MAX_SOURCES {
                return Err((
                    t,
                    Some("background".into()),
                    format!("at most {MAX_SOURCES} sources"),
                ));
            }
            path = format!("background[{}]", self.sources - 1);
        }
        self.table = path;
        self.key.clear();
        self.expect_value = false;
        Ok(())
    }
}

fn path_of(o: &Open) -> &str {
    match o {
        Open::Array { path, .. } | Open::Table { path, .. } => path,
    }
}

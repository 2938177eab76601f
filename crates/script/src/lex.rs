//! A character cursor with line and column tracking, and the parse error type.

use core::fmt;

/// A parse error at a 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub col: usize,
    pub message: String,
}

impl ParseError {
    /// `origin:line:col: message`.
    pub fn render(&self, origin: &str) -> String {
        format!("{origin}:{}:{}: {}", self.line, self.col, self.message)
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// A cursor over the script text.
#[derive(Clone)]
pub struct Scanner {
    chars: Vec<char>,
    pos: usize,
    line: usize,
    col: usize,
}

/// Saved cursor position, for error locations.
#[derive(Copy, Clone, Debug)]
pub struct Mark {
    pub pos: usize,
    pub line: usize,
    pub col: usize,
}

impl Scanner {
    pub fn new(text: &str) -> Self {
        Scanner::at(text, 1, 1)
    }
    /// A scanner whose first character is at `line:col` of some larger text.
    pub fn at(text: &str, line: usize, col: usize) -> Self {
        Scanner {
            chars: text.chars().collect(),
            pos: 0,
            line,
            col,
        }
    }
    pub fn mark(&self) -> Mark {
        Mark {
            pos: self.pos,
            line: self.line,
            col: self.col,
        }
    }
    pub fn line(&self) -> usize {
        self.line
    }
    pub fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }
    pub fn peek_at(&self, n: usize) -> Option<char> {
        self.chars.get(self.pos + n).copied()
    }
    pub fn is_eof(&self) -> bool {
        self.pos >= self.chars.len()
    }
    pub fn starts_with(&self, s: &str) -> bool {
        s.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
    }
    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }
    /// Consumes `s` if the text continues with it.
    pub fn eat(&mut self, s: &str) -> bool {
        if self.starts_with(s) {
            for _ in s.chars() {
                self.bump();
            }
            true
        } else {
            false
        }
    }
    /// Text between a mark and the cursor.
    pub fn since(&self, m: Mark) -> String {
        self.chars[m.pos..self.pos].iter().collect()
    }
    /// Skips spaces and tabs (not newlines).
    pub fn skip_spaces(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\r')) {
            self.bump();
        }
    }
    /// Skips spaces and a trailing `//` or one-line `/* */` comment; true if the line ends.
    pub fn at_line_end(&mut self) -> bool {
        self.skip_spaces();
        if self.starts_with("/*") {
            let save = self.clone();
            self.eat("/*");
            while !self.is_eof() && !self.starts_with("*/") && self.peek() != Some('\n') {
                self.bump();
            }
            if !self.eat("*/") {
                *self = save;
                return false;
            }
            self.skip_spaces();
        }
        if self.starts_with("//") {
            while !matches!(self.peek(), None | Some('\n')) {
                self.bump();
            }
        }
        matches!(self.peek(), None | Some('\n'))
    }
    /// Moves past the end of the current line.
    pub fn skip_line(&mut self) {
        while let Some(c) = self.bump() {
            if c == '\n' {
                break;
            }
        }
    }
    /// The rest of the current line (without the newline), consumed.
    pub fn rest_of_line(&mut self) -> String {
        let m = self.mark();
        while !matches!(self.peek(), None | Some('\n')) {
            self.bump();
        }
        self.since(m)
    }
    /// A run of characters satisfying `f`.
    pub fn take_while(&mut self, f: impl Fn(char) -> bool) -> String {
        let m = self.mark();
        while self.peek().is_some_and(&f) {
            self.bump();
        }
        self.since(m)
    }
    /// The whitespace-delimited word starting at a mark, for error messages.
    pub fn word_at(&self, m: Mark) -> String {
        self.chars[m.pos..]
            .iter()
            .take_while(|c| !c.is_whitespace())
            .collect()
    }
    /// The next whitespace-delimited word (not consumed), for error messages.
    pub fn peek_word(&self) -> String {
        let w: String = self.chars[self.pos..]
            .iter()
            .take_while(|c| !c.is_whitespace())
            .collect();
        if w.is_empty() {
            match self.peek() {
                None => "end of file".into(),
                Some('\n') => "end of line".into(),
                Some(c) => c.to_string(),
            }
        } else {
            w
        }
    }
    pub fn error_at(&self, m: Mark, message: impl Into<String>) -> ParseError {
        ParseError {
            line: m.line,
            col: m.col,
            message: message.into(),
        }
    }
    pub fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.mark(), message)
    }
    /// An unsigned decimal integer that fits `u64`.
    pub fn number(&mut self, what: &str) -> Result<u64, ParseError> {
        let m = self.mark();
        let digits = self.take_while(|c| c.is_ascii_digit());
        if digits.is_empty() {
            let found = self.peek_word();
            return Err(self.error_at(m, format!("expected {what}, found `{found}`")));
        }
        digits
            .parse()
            .map_err(|_| self.error_at(m, format!("{what} `{digits}` is too large")))
    }
    /// An unsigned integer no larger than `max`.
    pub fn number_max(&mut self, what: &str, max: u64) -> Result<u64, ParseError> {
        let m = self.mark();
        let n = self.number(what)?;
        if n > max {
            return Err(self.error_at(m, format!("{what} `{n}` is larger than {max}")));
        }
        Ok(n)
    }
    /// Identifier characters: letters, digits, `_`.
    pub fn ident(&mut self) -> String {
        self.take_while(|c| c.is_ascii_alphanumeric() || c == '_')
    }
}

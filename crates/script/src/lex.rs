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

/// A cursor over the script text. It borrows the text and holds a byte offset, so a copy
/// (a look-ahead, a saved position to return to) costs nothing: the parser's work is linear
/// in the script's length (issue 26 item 6; it once held a `Vec<char>` and copied it per
/// event).
#[derive(Clone, Copy)]
pub struct Scanner<'a> {
    text: &'a str,
    /// Byte offset of the next character.
    pos: usize,
    line: usize,
    col: usize,
}

/// The longest author's text an error message quotes; longer is cut (see [`shorten_quotes`]).
pub const QUOTE_MAX: usize = 80;
/// The longest run of a message outside backticks: the parser's own words are shorter, so
/// a longer run is author's text that a stray backtick in it left unquoted.
const PLAIN_MAX: usize = 400;

/// `message` with every backtick-quoted run longer than [`QUOTE_MAX`] characters cut to its
/// first [`QUOTE_MAX`], an ellipsis and, after the quote, its full length (`` `aaaa…` (1000000
/// characters) ``): a 100 MB token must not make a 100 MB message (issue 26 item 8).
pub fn shorten_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(4 * PLAIN_MAX));
    let mut note = None;
    for (i, run) in message.split('`').enumerate() {
        if i > 0 {
            // A cut run's length follows its closing quote, or precedes the next opening.
            let note = note.take().map(|n| format!(" ({n} characters)"));
            let closing = i % 2 == 0;
            if !closing {
                out.push_str(note.as_deref().unwrap_or_default());
            }
            out.push('`');
            if closing {
                out.push_str(note.as_deref().unwrap_or_default());
            }
        }
        let max = if i % 2 == 1 { QUOTE_MAX } else { PLAIN_MAX };
        match run.char_indices().nth(max) {
            None => out.push_str(run),
            Some((cut, _)) => {
                out.push_str(&run[..cut]);
                out.push('…');
                note = Some(run.chars().count());
            }
        }
    }
    if let Some(n) = note {
        out.push_str(&format!(" ({n} characters)"));
    }
    out
}

/// Saved cursor position (`pos` is a byte offset), for error locations.
#[derive(Copy, Clone, Debug)]
pub struct Mark {
    pub pos: usize,
    pub line: usize,
    pub col: usize,
}

impl<'a> Scanner<'a> {
    pub fn new(text: &'a str) -> Self {
        Scanner::at(text, 1, 1)
    }
    /// A scanner whose first character is at `line:col` of some larger text.
    pub fn at(text: &'a str, line: usize, col: usize) -> Self {
        Scanner {
            text,
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
    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }
    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }
    /// The character `n` ahead (a short look-ahead: walks `n` characters).
    pub fn peek_at(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }
    pub fn is_eof(&self) -> bool {
        self.pos >= self.text.len()
    }
    pub fn starts_with(&self, s: &str) -> bool {
        self.rest().starts_with(s)
    }
    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
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
        self.text[m.pos..self.pos].to_string()
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
            let save = *self;
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
    /// The whitespace-delimited word starting at `pos`.
    fn word_from(&self, pos: usize) -> String {
        let rest = &self.text[pos..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        rest[..end].to_string()
    }
    /// The whitespace-delimited word starting at a mark, for error messages.
    pub fn word_at(&self, m: Mark) -> String {
        self.word_from(m.pos)
    }
    /// The next whitespace-delimited word (not consumed), for error messages.
    pub fn peek_word(&self) -> String {
        let w = self.word_from(self.pos);
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

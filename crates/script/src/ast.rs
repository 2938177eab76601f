//! The typed form of a script: one [`Event`] per timed line, each with its line number.

use core::fmt;

/// A parsed script.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Script {
    pub events: Vec<Event>,
    /// `// lossrec: preset=NAME set=axis=value …` comment lines.
    pub header: Header,
    /// `--tolerance_usecs=N` option lines.
    pub tolerance_usecs: Option<u64>,
    /// `--tolerance_percent=N` option lines.
    pub tolerance_percent: Option<f64>,
    /// `--mss=N`: the peer's data arrives in segments of at most N bytes (packetdrill cooks
    /// a longer inbound line as a GSO packet of N-byte segments).
    pub mss: Option<u32>,
    /// Names read in `%{ }%` blocks that are not fields or constants (checked at the end).
    pub free_names: Vec<crate::expr::FreeName>,
    /// Valid packetdrill lines this runner does not model: `(line, feature)`; the run
    /// reports the first as "unsupported: FEATURE at line N".
    pub unsupported: Vec<(usize, String)>,
}

/// What `// lossrec:` comment lines ask for.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// `(line, preset name)`.
    pub preset: Option<(usize, String)>,
    /// `(line, axis, value)` in order.
    pub sets: Vec<(usize, String, String)>,
}

/// One timed line.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// 1-based line where the event starts.
    pub line: usize,
    pub time: Time,
    pub kind: EventKind,
}

/// When an event happens, as written.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Time {
    /// `*`: any time.
    Any,
    /// `0.100` or `+.1`.
    At(TimeVal),
    /// `0.1~0.2` or `+.1~+.11`: anywhere in the range (outbound packets).
    Range(TimeVal, TimeVal),
    /// `0...0.1`: a blocking system call from start to end (run at its start here).
    Blocking(TimeVal, TimeVal),
}

/// One time value: absolute (since the script's start) or relative (to the previous event).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TimeVal {
    pub relative: bool,
    pub usecs: i64,
}

impl fmt::Display for TimeVal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.relative { "+" } else { "" };
        write!(f, "{sign}{}", fmt_secs(self.usecs))
    }
}

/// Seconds with six decimals, as packetdrill prints times.
pub fn fmt_secs(usecs: i64) -> String {
    let neg = if usecs < 0 { "-" } else { "" };
    let u = usecs.unsigned_abs();
    format!("{neg}{}.{:06}", u / 1_000_000, u % 1_000_000)
}

/// What a line does.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    Packet(Packet),
    Syscall(Syscall),
    /// `%{ … }%`: assertions on `tcpi_*` and counters.
    Code(Vec<Stmt>),
    /// `` `…` ``: a command block (see `shell.rs`).
    Shell(String),
    /// Valid packetdrill the runner does not model (an ICMP or UDP packet line, …): the
    /// feature, reported as unsupported when the line runs.
    Unsupported(String),
}

/// `<` (the script's peer sends to the engine) or `>` (the engine must send).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Direction {
    Inbound,
    Outbound,
}

/// TCP header flags as written (`S.`, `P.`, `F.` …; `.` is ACK).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub fin: bool,
    pub syn: bool,
    pub rst: bool,
    pub psh: bool,
    pub ack: bool,
    pub urg: bool,
    pub ece: bool,
    pub cwr: bool,
}

impl Flags {
    /// Parses packetdrill's flag letters; `Err(c)` names the first unknown one.
    pub fn parse(s: &str) -> Result<Flags, char> {
        let mut f = Flags::default();
        if s == "-" {
            return Ok(f); // packetdrill's "no flags"
        }
        for c in s.chars() {
            match c {
                'F' => f.fin = true,
                'S' => f.syn = true,
                'R' => f.rst = true,
                'P' => f.psh = true,
                '.' => f.ack = true,
                'U' => f.urg = true,
                'E' => f.ece = true,
                'W' => f.cwr = true,
                _ => return Err(c),
            }
        }
        Ok(f)
    }
}

impl fmt::Display for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (on, c) in [
            (self.fin, 'F'),
            (self.syn, 'S'),
            (self.rst, 'R'),
            (self.psh, 'P'),
            (self.urg, 'U'),
            (self.ack, '.'),
            (self.ece, 'E'),
            (self.cwr, 'W'),
        ] {
            if on {
                write!(f, "{c}")?;
            }
        }
        Ok(())
    }
}

/// The IP ECN codepoint written before the flags: `[noecn]`, `[ect0]`, `[ect1]`, `[ce]`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Ecn {
    NotEct,
    Ect0,
    Ect1,
    Ce,
    /// `[ect01]`: either ECT codepoint.
    Ect01,
}

impl Ecn {
    /// The annotation's word: `noecn`, `ect0`, `ect1`, `ce`, `ect01`.
    pub fn name(self) -> &'static str {
        match self {
            Ecn::NotEct => "noecn",
            Ecn::Ect0 => "ect0",
            Ecn::Ect1 => "ect1",
            Ecn::Ce => "ce",
            Ecn::Ect01 => "ect01",
        }
    }
}

/// A packet line.
#[derive(Clone, Debug, PartialEq)]
pub struct Packet {
    pub dir: Direction,
    /// The IP ECN field, when the line gives one.
    pub ecn: Option<Ecn>,
    pub flags: Flags,
    /// Relative sequence numbers as packetdrill prints them: `start:end(len)`.
    pub start: u32,
    pub end: u32,
    pub len: u32,
    pub ack: Option<u32>,
    pub win: Option<u32>,
    pub options: Options,
}

/// A packet's option list.
#[derive(Clone, Debug, PartialEq)]
pub enum Options {
    /// No `<…>`: the packet has no options.
    None,
    /// `<...>`: any options (outbound only).
    Any,
    List(Vec<TcpOption>),
}

/// One TCP option.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TcpOption {
    Nop,
    Eol,
    Mss(u16),
    SackOk,
    Wscale(u8),
    Timestamp {
        val: u32,
        ecr: u32,
    },
    /// Relative sequence numbers `start:end`.
    Sack(Vec<(u32, u32)>),
    /// An option packetdrill knows and the engine does not (`FO`, `md5`, …): unsupported
    /// when its line runs.
    Other(String),
}

impl fmt::Display for TcpOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TcpOption::Nop => f.write_str("nop"),
            TcpOption::Eol => f.write_str("eol"),
            TcpOption::Mss(m) => write!(f, "mss {m}"),
            TcpOption::SackOk => f.write_str("sackOK"),
            TcpOption::Wscale(w) => write!(f, "wscale {w}"),
            TcpOption::Timestamp { val, ecr } => write!(f, "TS val {val} ecr {ecr}"),
            TcpOption::Other(name) => write!(f, "{name} …"),
            TcpOption::Sack(blocks) => {
                f.write_str("sack")?;
                for (a, b) in blocks {
                    write!(f, " {a}:{b}")?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Options::None => Ok(()),
            Options::Any => f.write_str(" <...>"),
            Options::List(l) => {
                let parts: Vec<String> = l.iter().map(|o| o.to_string()).collect();
                write!(f, " <{}>", parts.join(","))
            }
        }
    }
}

impl fmt::Display for Packet {
    /// The line as packetdrill would print it, without the time.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dir = match self.dir {
            Direction::Inbound => '<',
            Direction::Outbound => '>',
        };
        write!(f, "{dir} ")?;
        if let Some(e) = self.ecn {
            write!(f, "[{}] ", e.name())?;
        }
        write!(
            f,
            "{} {}:{}({})",
            self.flags, self.start, self.end, self.len
        )?;
        if let Some(a) = self.ack {
            write!(f, " ack {a}")?;
        }
        if let Some(w) = self.win {
            write!(f, " win {w}")?;
        }
        write!(f, "{}", self.options)
    }
}

/// `name(arg, …) = result [ERRNO (text)]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Syscall {
    pub name: String,
    /// Arguments as written, split at top-level commas and trimmed.
    pub args: Vec<String>,
    pub result: i64,
    pub errno: Option<String>,
}

/// A statement inside `%{ … }%`.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `assert EXPR[, MESSAGE]`; `text` is the expression as written.
    Assert {
        line: usize,
        expr: Expr,
        text: String,
        message: Option<Expr>,
    },
    /// `print(EXPR, …)` or `print EXPR`: the values go to the verbose log.
    Print { line: usize, args: Vec<Expr> },
    /// `NAME = EXPR` or `NAME += EXPR` (`op` is the operator of an augmented assignment):
    /// a script variable, kept across blocks as Python's globals are.
    Assign {
        line: usize,
        name: String,
        op: Option<BinOp>,
        expr: Expr,
    },
}

/// An expression inside `%{ … }%` (Python's syntax and semantics for the subset).
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Int(i64),
    Float(f64),
    Str(String),
    /// A `tcpi_*` field, a MIB counter or a `TCP_CA_*` constant.
    Name(String),
    Neg(Box<Expr>),
    /// `~x`.
    Invert(Box<Expr>),
    Not(Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `a < b <= c`: Python's chained comparison.
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// `abs`, `min`, `max`.
    Call(String, Vec<Expr>),
    /// `(a, b, …)`: the right operand of `'…%d…' % (a, b)`.
    Tuple(Vec<Expr>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: true division.
    Div,
    /// `//`: floor division.
    FloorDiv,
    Mod,
    /// `&`, `|`, `^`, `<<`, `>>` on integers (`tcpi_options & TCPI_OPT_SACK`).
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

//! What a run produced: pass/fail, the failures with line numbers and expected vs actual,
//! and the log of every packet in and out.

use core::fmt;

/// One failure, at a script line (0 when it concerns the whole run, e.g. a bad `--set`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub line: usize,
    /// Column for parse errors; 0 otherwise.
    pub col: usize,
    pub message: String,
    /// The script's packet or expression, when there is one.
    pub expected: Option<String>,
    /// What the engine did instead.
    pub actual: Option<String>,
}

/// The result of running one script.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptReport {
    /// File name or other label used in messages.
    pub origin: String,
    pub passed: bool,
    /// Empty when passed. A run stops at its first runtime failure, as packetdrill does;
    /// parse errors are all listed.
    pub failures: Vec<Failure>,
    /// Every packet in and out, system call, assertion and engine event, with its time.
    pub log: Vec<String>,
    /// The configuration the engine ran with (`axis=value` pairs), once known.
    pub config: Vec<(String, String)>,
    /// Whether [`fmt::Display`] includes the log.
    pub verbose: bool,
}

impl ScriptReport {
    /// Records a failure; its message quotes at most a short prefix of the author's text
    /// ([`crate::lex::shorten_quotes`]).
    pub(crate) fn fail(&mut self, mut f: Failure) {
        self.passed = false;
        f.message = crate::lex::shorten_quotes(&f.message);
        self.failures.push(f);
    }
}

impl fmt::Display for ScriptReport {
    /// packetdrill's style: `file:line: message`, then the script and actual packets.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.verbose {
            for l in &self.log {
                writeln!(f, "{l}")?;
            }
        }
        if self.passed {
            return writeln!(f, "PASS {}", self.origin);
        }
        writeln!(f, "FAIL {}", self.origin)?;
        for x in &self.failures {
            if x.col > 0 {
                writeln!(f, "{}:{}:{}: {}", self.origin, x.line, x.col, x.message)?;
            } else if x.line > 0 {
                writeln!(f, "{}:{}: {}", self.origin, x.line, x.message)?;
            } else {
                writeln!(f, "{}: {}", self.origin, x.message)?;
            }
            if let Some(e) = &x.expected {
                writeln!(f, "  expected: {e}")?;
            }
            if let Some(a) = &x.actual {
                for (i, l) in a.lines().enumerate() {
                    let label = if i == 0 {
                        "  actual:   "
                    } else {
                        "            "
                    };
                    writeln!(f, "{label}{l}")?;
                }
            }
        }
        Ok(())
    }
}

/// `N passed, M failed` for a set of runs.
pub fn summary<'a>(reports: impl IntoIterator<Item = &'a ScriptReport>) -> String {
    let (mut pass, mut fail) = (0, 0);
    for r in reports {
        if r.passed {
            pass += 1;
        } else {
            fail += 1;
        }
    }
    format!("{pass} passed, {fail} failed")
}

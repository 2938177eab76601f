//! The per-ACK tables as their documents print them (segments), for side-by-side reports.
//! Column alignment: RFC 6937 §3.1's tables were read column by column from the RFC's
//! text; RFC 9937 §8's are digest §11.5's; the seed's (slides) lost their send-row
//! alignment, so only their cwnd and pipe rows and the worked sndcnt table are kept.

/// One published table; a `None` row was not printed (or is not recoverable).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Published {
    pub source: &'static str,
    /// The ACK numbers of the columns.
    pub acks: &'static [u32],
    pub cwnd: Option<&'static [u64]>,
    pub pipe: Option<&'static [u64]>,
    /// "" where nothing was sent.
    pub sent: Option<&'static [&'static str]>,
    pub bound: Option<&'static [&'static str]>,
}

/// Prints the table in the same layout as [`super::Table`]'s `Display`.
impl core::fmt::Display for Published {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        writeln!(f, "{} (published)", self.source)?;
        write!(f, "{:<6}", "ack#")?;
        for a in self.acks {
            write!(f, "{a:>4}")?;
        }
        writeln!(f)?;
        let nums = |f: &mut core::fmt::Formatter<'_>, name: &str, v: Option<&[u64]>| {
            if let Some(v) = v {
                write!(f, "{name:<6}")?;
                for x in v {
                    write!(f, "{x:>4}")?;
                }
                writeln!(f)?;
            }
            Ok(())
        };
        let strs = |f: &mut core::fmt::Formatter<'_>, name: &str, v: Option<&[&str]>| {
            if let Some(v) = v {
                write!(f, "{name:<6}")?;
                for x in v {
                    write!(f, "{x:>4}")?;
                }
                writeln!(f)?;
            }
            Ok(())
        };
        nums(f, "cwnd:", self.cwnd)?;
        nums(f, "pipe:", self.pipe)?;
        strs(f, "sent:", self.sent)?;
        strs(f, "RB:", self.bound)
    }
}

/// Regenerates a table for a reduction.
pub type Generator = fn(lossrec::config::Reduction) -> super::Table;

/// Every published table with the generator and reduction that regenerate it, for reports
/// (`generator(reduction)` printed beside the published table).
pub fn all() -> Vec<(Published, Generator, lossrec::config::Reduction)> {
    use super::{rfc6937_burst_loss as burst, rfc6937_single_loss as single};
    use super::{rfc9937_figure1 as fig1, rfc9937_figure2 as fig2};
    use lossrec::config::Reduction as R;
    vec![
        (RFC6937_SINGLE_RFC6675, single, R::Rfc6675),
        (RFC6937_SINGLE_RATE_HALVING, single, R::RateHalving),
        (RFC6937_SINGLE_PRR, single, R::Prr6937Ssrb),
        (RFC6937_BURST_RFC6675, burst, R::Rfc6675),
        (RFC6937_BURST_RATE_HALVING, burst, R::RateHalving),
        (RFC6937_BURST_PRR_CRB, burst, R::Prr6937Crb),
        (RFC6937_BURST_PRR_SSRB, burst, R::Prr6937Ssrb),
        (RFC9937_FIG1_RFC6675, fig1, R::Rfc6675),
        (RFC9937_FIG1_PRR, fig1, R::Prr),
        (RFC9937_FIG2_RFC6675, fig2, R::Rfc6675),
        (RFC9937_FIG2_PRR, fig2, R::Prr),
        (SEED003_RFC3517, single, R::Rfc6675),
        (SEED003_RATE_HALVING, single, R::RateHalving),
    ]
}

const ACKS_1_19: &[u32] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
];
const ACKS_15_19: &[u32] = &[15, 16, 17, 18, 19];
const ACKS_1_22: &[u32] = &[
    1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22,
];

pub const RFC6937_SINGLE_RFC6675: Published = Published {
    source: "RFC 6937 §3.1, single loss, RFC 6675",
    acks: ACKS_1_19,
    cwnd: Some(&[
        20, 20, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11, 11,
    ]),
    pipe: Some(&[
        19, 19, 18, 18, 17, 16, 15, 14, 13, 12, 11, 10, 10, 10, 10, 10, 10, 10, 10,
    ]),
    sent: Some(&[
        "N", "N", "R", "", "", "", "", "", "", "", "", "N", "N", "N", "N", "N", "N", "N", "N",
    ]),
    bound: None,
};

pub const RFC6937_SINGLE_RATE_HALVING: Published = Published {
    source: "RFC 6937 §3.1, single loss, Rate-Halving (Linux)",
    acks: ACKS_1_19,
    cwnd: Some(&[
        20, 20, 19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11,
    ]),
    pipe: Some(&[
        19, 19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10,
    ]),
    sent: Some(&[
        "N", "N", "R", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N",
    ]),
    bound: None,
};

/// PRR (either bound: identical for a single loss). The pipe row as printed repeats 18 at
/// ACK #5 and is one column late from there on (see the tests).
pub const RFC6937_SINGLE_PRR: Published = Published {
    source: "RFC 6937 §3.1, single loss, PRR",
    acks: ACKS_1_19,
    cwnd: None,
    pipe: Some(&[
        19, 19, 18, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 10,
    ]),
    sent: Some(&[
        "N", "N", "R", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N", "", "", "N", "N",
    ]),
    bound: Some(&[
        "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "s", "s",
    ]),
};

pub const RFC6937_BURST_RFC6675: Published = Published {
    source: "RFC 6937 §3.1, burst loss, RFC 6675",
    acks: ACKS_15_19,
    cwnd: Some(&[20, 20, 11, 11, 11]),
    pipe: Some(&[19, 19, 4, 10, 10]),
    sent: Some(&["N", "N", "7R", "R", "R"]),
    bound: None,
};

pub const RFC6937_BURST_RATE_HALVING: Published = Published {
    source: "RFC 6937 §3.1, burst loss, Rate-Halving (Linux)",
    acks: ACKS_15_19,
    cwnd: Some(&[20, 20, 5, 5, 5]),
    pipe: Some(&[19, 19, 4, 4, 4]),
    sent: Some(&["N", "N", "R", "R", "R"]),
    bound: None,
};

pub const RFC6937_BURST_PRR_CRB: Published = Published {
    source: "RFC 6937 §3.1, burst loss, PRR-CRB",
    acks: ACKS_15_19,
    cwnd: None,
    pipe: Some(&[19, 19, 4, 4, 4]),
    sent: Some(&["N", "N", "R", "R", "R"]),
    bound: Some(&["", "", "b", "b", "b"]),
};

pub const RFC6937_BURST_PRR_SSRB: Published = Published {
    source: "RFC 6937 §3.1, burst loss, PRR-SSRB",
    acks: ACKS_15_19,
    cwnd: None,
    pipe: Some(&[19, 19, 4, 5, 6]),
    sent: Some(&["N", "N", "2R", "2R", "2R"]),
    bound: Some(&["", "", "bd", "d", "d"]),
};

pub const RFC9937_FIG1_RFC6675: Published = Published {
    source: "RFC 9937 §8 Figure 1, RFC 6675",
    acks: ACKS_1_22,
    cwnd: Some(&[
        20, 20, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10,
    ]),
    pipe: Some(&[
        19, 19, 18, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9,
    ]),
    sent: Some(&[
        "N", "N", "R", "", "", "", "", "", "", "", "", "", "N", "N", "N", "N", "N", "N", "N", "N",
        "N", "N",
    ]),
    bound: None,
};

/// As printed; ACK #19 applies the proportional part at inflight = ssthresh, which the
/// §6.2 pseudocode does not (digest §11.5).
pub const RFC9937_FIG1_PRR: Published = Published {
    source: "RFC 9937 §8 Figure 1, PRR",
    acks: ACKS_1_22,
    cwnd: Some(&[
        20, 20, 19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 10,
    ]),
    pipe: Some(&[
        19, 19, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 11, 10, 10, 9, 9,
    ]),
    sent: Some(&[
        "N", "N", "R", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N", "", "N", "",
        "N", "N",
    ]),
    bound: None,
};

pub const RFC9937_FIG2_RFC6675: Published = Published {
    source: "RFC 9937 §8 Figure 2, RFC 6675",
    acks: ACKS_15_19,
    cwnd: Some(&[20, 20, 10, 10, 10]),
    pipe: Some(&[19, 19, 4, 9, 9]),
    sent: Some(&["N", "N", "6R", "R", "R"]),
    bound: None,
};

pub const RFC9937_FIG2_PRR: Published = Published {
    source: "RFC 9937 §8 Figure 2, PRR",
    acks: ACKS_15_19,
    cwnd: Some(&[20, 20, 5, 5, 5]),
    pipe: Some(&[19, 19, 4, 4, 4]),
    sent: Some(&["N", "N", "R", "R", "R"]),
    bound: None,
};

/// Seed 003, slide "PRR Example" — in fact RFC 6937's RFC 3517/6675 table (the slide says
/// "Assume ssthresh is 12", which no row supports). The send row lost its alignment.
pub const SEED003_RFC3517: Published = Published {
    source: "seed 003 (IMC'11 slides), RFC 3517 table",
    acks: ACKS_1_19,
    cwnd: RFC6937_SINGLE_RFC6675.cwnd,
    pipe: RFC6937_SINGLE_RFC6675.pipe,
    sent: None,
    bound: None,
};

/// Seed 003, slide "Rate-Halving (Linux)".
pub const SEED003_RATE_HALVING: Published = Published {
    source: "seed 003 (IMC'11 slides), Rate-Halving (Linux)",
    acks: ACKS_1_19,
    cwnd: RFC6937_SINGLE_RATE_HALVING.cwnd,
    pipe: RFC6937_SINGLE_RATE_HALVING.pipe,
    sent: None,
    bound: None,
};

/// Seed 003, slide "PRR": its pipe row has 20 values for 19 ACKs (18 printed four times).
pub const SEED003_PRR_PIPE: &[u64] = &[
    19, 19, 18, 18, 18, 18, 17, 17, 16, 16, 15, 15, 14, 14, 13, 13, 12, 12, 11, 10,
];

/// Seed 003's worked PRR table: (ACK #, pr_delivered, snd_cnt, pr_out).
pub const SEED003_PRR_SNDCNT: &[(u32, u64, u64, u64)] = &[(3, 1, 1, 1), (4, 2, 0, 1), (5, 3, 1, 2)];

//! Malformed lines give errors naming the file, line, column and the bad token.

use lossrec_script::{run_script, ScriptOptions};

/// Runs `text` and returns the failure lines of its report.
fn errors(text: &str) -> Vec<String> {
    let r = run_script(text, "t.pkt", &ScriptOptions::default());
    assert!(!r.passed, "should not pass:\n{text}");
    r.to_string()
        .lines()
        .filter(|l| l.starts_with("t.pkt:"))
        .map(str::to_string)
        .collect()
}

/// The single error of `text`, which must start with `t.pkt:LINE:COL:` and contain `frag`.
fn one_error(text: &str, line: usize, col: usize, frag: &str) {
    let e = errors(text);
    assert_eq!(e.len(), 1, "{e:?}");
    let prefix = format!("t.pkt:{line}:{col}: ");
    assert!(e[0].starts_with(&prefix), "want {prefix}…, got {}", e[0]);
    assert!(e[0].contains(frag), "want {frag:?} in {}", e[0]);
}

const HEAD: &str = "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1) = 0\n";

#[test]
fn bad_flags() {
    one_error(
        &format!("{HEAD}+0 > X. 1:1001(1000) ack 1\n"),
        3,
        6,
        "bad flags `X.`: unknown flag `X`",
    );
}

#[test]
fn bad_seq_range() {
    one_error(
        &format!("{HEAD}+0 > . 1-1001(1000) ack 1\n"),
        3,
        8,
        "bad seq range `1-1001(1000)`",
    );
    one_error(
        &format!("{HEAD}\n+0 > . 1:1001(999) ack 1\n"),
        4,
        8,
        "1:1001 spans 1000 bytes, not 999",
    );
}

#[test]
fn missing_len() {
    one_error(
        &format!("{HEAD}+0 > . 1:1001 ack 1\n"),
        3,
        8,
        "missing `(len)` after the sequence range `1:1001`",
    );
}

#[test]
fn unknown_option() {
    one_error(
        &format!("{HEAD}+0 < . 1:1(0) ack 1 win 257 <nop,nop,colour red>\n"),
        3,
        38,
        "unknown TCP option `colour`",
    );
    one_error(
        &format!("{HEAD}+0 < . 1:1(0) ack 1 win 257 <sack 1:2\n"),
        3,
        29,
        "unterminated option list",
    );
}

#[test]
fn unknown_tcpi_name_in_assert() {
    // A Linux tcp_info field the engine does not report is valid packetdrill: the run
    // names it as unsupported at its line (the block's third line).
    let e = errors(&format!(
        "{HEAD}+0 %{{\nassert tcpi_snd_cwnd == 10\nassert tcpi_bogus == 2\n}}%\n"
    ));
    assert_eq!(
        e,
        ["t.pkt:5: unsupported: tcp_info field `tcpi_bogus` at line 5"]
    );
    one_error(
        &format!("{HEAD}+0 %{{ assert TCPNoSuchCounter > 1 }}%\n"),
        3,
        14,
        "unknown name `TCPNoSuchCounter`",
    );
}

#[test]
fn unterminated_code_block() {
    one_error(
        &format!("{HEAD}+0 %{{ assert tcpi_snd_cwnd == 10\n+0 > . 1:1001(1000) ack 1\n"),
        3,
        4,
        "unterminated `%{` (no matching `}%`)",
    );
}

#[test]
fn other_malformed_lines() {
    one_error("  write(4, ..., 10) = 10\n", 1, 3, "expected a time");
    one_error("0 write(4, ..., 10) 10\n", 1, 21, "expected `= RESULT`");
    one_error(
        "0 write(4, ..., 10 = 10\n",
        1,
        9,
        "unterminated argument list",
    );
    one_error(
        "0 < . 1:1(0) ack 1 win 257 foo\n",
        1,
        28,
        "unexpected `foo` in packet",
    );
    one_error("0 < . 1:1(0) ack 1 ack 2\n", 1, 20, "`ack` given twice");
    one_error("0 `sysctl -q x=1\n", 1, 3, "unterminated shell command");
    one_error("0 %{ assert (1 == 1 }%\n", 1, 21, "expected `)`");
    one_error("0 %{ import os }%\n", 1, 6, "unsupported statement");
    one_error("0 %{ assert y == 1 }%\n", 1, 13, "unknown name `y`");
    one_error("0.1234567 write(4, ..., 1) = 1\n", 1, 1, "six decimals");
    // An option packetdrill has and this runner does not model is valid syntax.
    assert_eq!(
        errors("--frobnicate=1\n"),
        ["t.pkt:1: unsupported: packetdrill option `--frobnicate` at line 1"]
    );
    one_error(
        "--tolerance_usecs=soon\n",
        1,
        1,
        "bad value in `--tolerance_usecs=soon`",
    );
    one_error(
        "// lossrec: colour=red\n",
        1,
        13,
        "bad lossrec directive `colour=red`",
    );
}

/// One run reports every bad line, each with its own line number.
#[test]
fn all_errors_are_reported_in_order() {
    let e = errors(&format!(
        "{HEAD}+0 > X. 1:1001(1000) ack 1\n+0 > . 1:1001(1000) ack 1\n+0 > . 1:1001 ack 1\n"
    ));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].starts_with("t.pkt:3:"), "{}", e[0]);
    assert!(e[1].starts_with("t.pkt:5:"), "{}", e[1]);
}

/// Comments of both kinds, blank lines, and the header are not events.
#[test]
fn comments_are_skipped() {
    let text = "// header\n/* block\ncomment */\n\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3 // trailing\n";
    let s = lossrec_script::parse(text).unwrap();
    assert_eq!(s.events.len(), 1);
    assert_eq!(s.events[0].line, 5);
}

//! Issue 13 item 8: scripts built to break the runner get a clear failure naming the
//! line, never a crash; a script that checks nothing does not pass.

use lossrec_script::{run_script, ScriptOptions};

const HEAD: &str = "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1) = 0\n";

/// Runs `text` on a thread with a 2 MiB stack (Rust's default for spawned threads, less
/// than a main thread's 8 MiB): deep recursion would overflow it and abort the test.
fn report(text: String) -> lossrec_script::ScriptReport {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || run_script(&text, "t.pkt", &ScriptOptions::default()))
        .unwrap()
        .join()
        .unwrap()
}

fn assert_fails_at(text: String, line: usize, frag: &str) {
    let r = report(text);
    assert!(!r.passed, "passed:\n{r}");
    let shown = r.to_string();
    assert!(
        shown.contains(&format!("t.pkt:{line}:")) && shown.contains(frag),
        "want t.pkt:{line}: … {frag:?}, got:\n{shown}"
    );
}

#[test]
fn assertion_nested_ten_thousand_deep_is_an_error_not_a_crash() {
    let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
    assert_fails_at(
        format!("{HEAD}+0 %{{ assert {deep} == 1 }}%\n"),
        3,
        "nested too deeply",
    );
}

#[test]
fn ten_thousand_nots_or_minuses_are_an_error_not_a_crash() {
    let nots = "not ".repeat(10_000);
    assert_fails_at(
        format!("{HEAD}+0 %{{ assert {nots}False }}%\n"),
        3,
        "nested too deeply",
    );
    let minus = "-".repeat(10_000);
    assert_fails_at(
        format!("{HEAD}+0 %{{ assert {minus}1 == 1 }}%\n"),
        3,
        "nested too deeply",
    );
}

/// A left-leaning chain builds a tree as deep as it is long: evaluating (and dropping)
/// it recurses once per operator.
#[test]
fn a_chain_of_a_hundred_thousand_operators_is_an_error_not_a_crash() {
    let chain = vec!["1"; 100_000].join(" + ");
    assert_fails_at(
        format!("{HEAD}+0 %{{ assert {chain} > 0 }}%\n"),
        3,
        "too many operators",
    );
}

/// The most the limits allow still runs on a 2 MiB stack (a debug build): 100 nested
/// parentheses around a chain of 250 operators.
#[test]
fn the_most_the_limits_allow_still_runs() {
    let chain = vec!["1"; 250].join(" + ");
    let nested = format!("{}{chain}{}", "(".repeat(100), ")".repeat(100));
    let r = report(format!("{HEAD}+0 %{{ assert {nested} == 250 }}%\n"));
    assert!(r.passed, "{r}");
    let r = report(format!(
        "{HEAD}+0 %{{ assert {} == 249 }}%\n",
        vec!["1"; 249].join(" + ")
    ));
    assert!(!r.to_string().contains("operators"), "{r}");
}

#[test]
fn an_empty_script_checked_nothing_and_fails() {
    for text in ["", "// only a comment\n", "\n\n   \n"] {
        let r = report(text.to_string());
        assert!(!r.passed, "{text:?} passed");
        assert!(r.to_string().contains("checked nothing"), "{r}");
    }
}

/// Commands check nothing about the engine either.
#[test]
fn a_script_of_commands_checked_nothing() {
    let r = report(
        "0 `sysctl -q net.ipv4.tcp_sack=0`\n+0 `sysctl -q net.ipv4.tcp_reordering=5`\n".to_string(),
    );
    assert!(!r.passed, "passed:\n{r}");
    assert!(r.to_string().contains("checked nothing"), "{r}");
}

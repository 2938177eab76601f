//! Runtime behaviour: mismatches, unexpected and missing packets, timing, assertions,
//! unsupported constructs, configuration mapping, active open and timestamps.

use lossrec_script::{run_script, summary, ScriptOptions, ScriptReport};

/// Passive open with MSS 1000, SACK, wscale 7, no timestamps; ends at 0.1 s (line 6).
const OPEN: &str = "\
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  bind(3, ..., ...) = 0
+0  listen(3, 1) = 0
+0  < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>
+0  > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>
+.1 < . 1:1(0) ack 1 win 257
+0  accept(3, ..., ...) = 4
";

fn run(body: &str) -> ScriptReport {
    run_with(body, &ScriptOptions::default())
}
fn run_with(body: &str, opts: &ScriptOptions) -> ScriptReport {
    run_script(&format!("{OPEN}{body}"), "t.pkt", opts)
}
/// Asserts failure at `line` whose text contains every fragment.
fn fails_at(r: &ScriptReport, line: usize, frags: &[&str]) {
    assert!(!r.passed, "should fail:\n{r}");
    let f = &r.failures[0];
    assert_eq!(f.line, line, "{r}");
    let text = r.to_string();
    assert!(text.contains(&format!("t.pkt:{line}: ")), "{text}");
    for frag in frags {
        assert!(text.contains(frag), "want {frag:?} in:\n{text}");
    }
}

#[test]
fn passing_script() {
    let r = run("+0 write(4, ..., 2000) = 2000\n+0 > P. 1:2001(2000) ack 1\n+.1 < . 1:1(0) ack 2001 win 257\n");
    assert!(r.passed, "{r}");
    assert_eq!(r.to_string(), "PASS t.pkt\n");
    assert_eq!(summary([&r, &r]), "2 passed, 0 failed");
}

#[test]
fn wrong_expectation_shows_expected_and_actual() {
    let r = run(
        "+0 write(4, ..., 2000) = 2000\n+0 > . 1:1001(1000) ack 1\n+0 > . 1001:2001(1000) ack 1\n",
    );
    // The second segment carries PSH (the last byte of the write).
    fails_at(
        &r,
        10,
        &[
            "outbound packet mismatch in flags: expected ., actual P.",
            "expected: 0.100000 > . 1001:2001(1000) ack 1",
            "actual:   0.100000 > P. 1001:2001(1000) ack 1  (new)",
        ],
    );
    assert_eq!(summary([&r]), "0 passed, 1 failed");
    let r = run("+0 write(4, ..., 2000) = 2000\n+0 > P. 1:2001(2000) ack 2\n");
    fails_at(&r, 9, &["tcp_ack_seq: expected 2, actual 1"]);
}

#[test]
fn tso_line_must_cover_whole_segments() {
    let r = run("+0 write(4, ..., 3000) = 3000\n+0 > . 1:1501(1500) ack 1\n");
    fails_at(
        &r,
        9,
        &[
            "payload length: expected 1:1501(1500), actual 1:2001(2000)",
            "[2 segments]",
        ],
    );
}

#[test]
fn missing_packet() {
    let r = run(
        "+0 write(4, ..., 1000) = 1000\n+0 > P. 1:1001(1000) ack 1\n+.5 > P. 1:1001(1000) ack 1\n",
    );
    fails_at(
        &r,
        10,
        &[
            "expected outbound packet at 0.600000 sec, but the engine sent nothing by 0.662500 sec",
            "next deadline: 1.100000 sec",
        ],
    );
}

#[test]
fn unexpected_packet_at_the_end() {
    let r = run("+0 write(4, ..., 1000) = 1000\n");
    fails_at(
        &r,
        8,
        &[
            "unexpected outbound packet",
            "the script ended",
            "0.100000 > P. 1:1001(1000) ack 1",
        ],
    );
}

#[test]
fn unexpected_packet_before_a_line() {
    // The RTO fires at 1.1 s; the script does not expect the retransmission.
    let r = run("+0 write(4, ..., 1000) = 1000\n+0 > P. 1:1001(1000) ack 1\n+1.5 < . 1:1(0) ack 1001 win 257\n");
    fails_at(
        &r,
        10,
        &[
            "unexpected outbound packet",
            "before this line",
            "1.100000 > P. 1:1001(1000) ack 1  (rto)",
        ],
    );
}

#[test]
fn unexpected_packet_before_the_expected_one() {
    let r = run("+0 write(4, ..., 3000) = 3000\n+0 > . 1001:2001(1000) ack 1\n");
    fails_at(
        &r,
        9,
        &[
            "the engine sent 1 packet(s) before the one this line expects",
            "0.100000 > . 1:1001(1000) ack 1",
        ],
    );
}

#[test]
fn timing() {
    // The RTO fires at 1.1 s: expecting it at 0.6 s (tolerance 12.5 % of 0.5 s) fails.
    let body = "+0 write(4, ..., 1000) = 1000\n+0 > P. 1:1001(1000) ack 1\n";
    let r = run(&format!("{body}+.5 > P. 1:1001(1000) ack 1\n"));
    fails_at(
        &r,
        10,
        &["expected outbound packet at 0.600000 sec, but the engine sent nothing by 0.662500"],
    );
    let r = run(&format!("{body}+1.3 > P. 1:1001(1000) ack 1\n"));
    fails_at(
        &r,
        10,
        &[
            "timing error: expected outbound packet at 1.400000 sec",
            "happened at 1.100000 sec",
        ],
    );
    // Within the dynamic tolerance (12.5 % of 1.05 s), a range, and any time.
    for t in ["+1.05", "+.9~+1.2", "*"] {
        let r = run(&format!("{body}{t} > P. 1:1001(1000) ack 1\n"));
        assert!(r.passed, "{t}: {r}");
    }
    // The fixed tolerance can be widened.
    let opts = ScriptOptions {
        tolerance_us: Some(300_000),
        ..ScriptOptions::default()
    };
    assert!(run_with(&format!("{body}+1.3 > P. 1:1001(1000) ack 1\n"), &opts).passed);
    // A relative time counts from the previous event's actual time.
    let r = run(&format!(
        "{body}* > P. 1:1001(1000) ack 1\n+2 > P. 1:1001(1000) ack 1\n"
    ));
    assert!(r.passed, "{r}");
}

#[test]
fn time_going_backward() {
    let r = run("0.05 write(4, ..., 1000) = 1000\n");
    fails_at(&r, 8, &["time goes backward"]);
}

#[test]
fn assertion_failure_names_values() {
    let r = run("+0 %{\nassert tcpi_snd_cwnd == 10\nassert tcpi_snd_cwnd * 2 < tcpi_rto // 1000 and tcpi_ca_state == 4, tcpi_ca_state\n}%\n");
    fails_at(
        &r,
        10,
        &[
            "assertion failed: tcpi_snd_cwnd * 2 < tcpi_rto // 1000 and tcpi_ca_state == 4 (0)",
            "tcpi_snd_cwnd = 10, tcpi_rto = 1000000, tcpi_ca_state = 0",
        ],
    );
}

#[test]
fn expressions() {
    let r = run("+0 %{\n\
         assert tcpi_snd_cwnd == 10 and (tcpi_rto / 1000 == 1000 or False)\n\
         assert 0 <= tcpi_ca_state < TCP_CA_Disorder != 2\n\
         assert not tcpi_unacked; assert -7 // 2 == -4 and -7 % 2 == 1 and 7 / 2 == 3.5\n\
         assert abs(-3) == max(1, 3) == min(5, 3) and tcpi_snd_ssthresh == 0x7fffffff\n\
         assert TCPTimeouts + TCPLossProbes == 0 and tcpi_snd_mss == 1000\n\
         print(tcpi_rtt, 'rtt')\n\
         }%\n");
    assert!(r.passed, "{r}");
    assert!(
        r.log.iter().any(|l| l.ends_with("print: 100000 rtt")),
        "{:?}",
        r.log
    );
}

#[test]
fn unsupported_constructs() {
    for (line, frag) in [
        (
            "+0 sendfile(4, 5, [0], 1000) = 1000",
            "system call `sendfile`",
        ),
        (
            "+0 `ip route change default initcwnd 4`",
            "shell command `ip route change default initcwnd 4`",
        ),
        (
            "+0 `tc qdisc replace dev tun0 root netem delay 10ms`",
            "qdisc `netem`",
        ),
        ("+0 write(4, ..., 1000) = 500", "a short or failing write"),
        (
            "+0 < [ect01] P. 1:1001(1000) ack 1 win 257",
            "`[ect01]` on an inbound",
        ),
        ("+0 < U. 1:1(0) ack 1 win 257", "urgent data"),
        (
            "+0 setsockopt(4, SOL_TCP, TCP_CORK, [1], 4) = 0",
            "setsockopt option `TCP_CORK`",
        ),
        (
            "+0 `sysctl -q net.ipv4.tcp_sack=0`",
            "sysctl net.ipv4.tcp_sack=0 after listen/connect",
        ),
        (
            "+0 %{ assert tcpi_pacing_rate > 0 }%",
            "tcp_info field `tcpi_pacing_rate`",
        ),
    ] {
        let r = run(&format!("{line}\n"));
        fails_at(&r, 8, &[&format!("unsupported: {frag}"), "at line 8"]);
    }
    // Knobs without an engine axis change nothing and say so in the verbose log.
    let opts = ScriptOptions {
        verbose: true,
        ..ScriptOptions::default()
    };
    let r = run_with("+0 `sysctl -q net.ipv4.tcp_min_rtt_wlen=0`\n", &opts);
    assert!(r.passed, "{r}");
    assert!(
        r.log
            .iter()
            .any(|l| l.contains("tcp_min_rtt_wlen=0: no effect here")),
        "{:?}",
        r.log
    );
    // Knobs whose engine axis value does not exist (yet).
    for (knob, frag) in [
        ("tcp_frto=3", "expected 0 to 2"),
        ("tcp_recovery=8", "only bits 0x1"),
    ] {
        let r = run_script(
            &format!("0 `sysctl -q net.ipv4.{knob}`\n"),
            "t.pkt",
            &ScriptOptions::default(),
        );
        fails_at(&r, 1, &["unsupported: ", "at line 1", frag]);
    }
}

#[test]
fn knobs_map_onto_axes() {
    let script = "\
0 `../common/defaults.sh
sysctl -q net.ipv4.tcp_sack=0 net.ipv4.tcp_reordering=5; echo 0 > /proc/sys/net/ipv4/tcp_early_retrans`
+0 `sysctl -q net.ipv4.tcp_rto_min_us=200000 && sysctl net.ipv4.tcp_fack=0`
+0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0 setsockopt(3, SOL_TCP, TCP_CONGESTION, \"cubic\", 5) = 0
+0 setsockopt(3, SOL_TCP, TCP_NODELAY, [1], 4) = 0
+0 listen(3, 1) = 0
";
    let r = run_script(script, "t.pkt", &ScriptOptions::default());
    assert!(r.passed, "{r}");
    let get = |k: &str| r.config.iter().find(|(a, _)| a == k).unwrap().1.clone();
    assert_eq!(get("sack"), "false");
    assert_eq!(get("dupthresh"), "5");
    assert_eq!(get("probe"), "none");
    assert_eq!(get("min_rto_ms"), "200");
    assert_eq!(get("cc"), "cubic");
}

/// `tcp_early_retrans` and `tcp_recovery` resolve against the preset: TLP keeps the
/// preset's era, RACK takes over from early retransmit.
#[test]
fn tlp_and_rack_knobs() {
    let run = |header: &str, knobs: &str| {
        let script = format!(
            "{header}\n0 `sysctl -q {knobs}`\n+0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1) = 0\n"
        );
        let r = run_script(&script, "t.pkt", &ScriptOptions::default());
        assert!(r.passed, "{r}");
        move |k: &str| r.config.iter().find(|(a, _)| a == k).unwrap().1.clone()
    };
    let get = run("// lossrec: preset=rfc", "net.ipv4.tcp_early_retrans=3");
    assert_eq!(
        (get("probe"), get("early_retransmit")),
        ("tlp-linux".into(), "er-tlp".into())
    );
    let get = run(
        "// lossrec: preset=tlp-draft",
        "net.ipv4.tcp_early_retrans=3",
    );
    assert_eq!(get("probe"), "tlp-draft");
    let get = run(
        "// lossrec: preset=rfc",
        "net.ipv4.tcp_recovery=1 net.ipv4.tcp_early_retrans=3",
    );
    assert_eq!(get("loss_detection"), "rack-linux");
    assert_eq!(
        (get("probe"), get("early_retransmit")),
        ("tlp-linux".into(), "off".into())
    );
    let get = run(
        "// lossrec: preset=linux",
        "net.ipv4.tcp_recovery=5 net.ipv4.tcp_early_retrans=0",
    );
    assert_eq!(get("rack_no_dupthresh"), "true");
    assert_eq!(get("probe"), "none");
    let get = run("// lossrec: preset=linux-rh", "net.ipv4.tcp_recovery=0");
    assert_eq!(get("loss_detection"), "fack", "a non-RACK detector stays");
    let get = run("// lossrec: preset=linux", "net.ipv4.tcp_recovery=0");
    assert_eq!(get("loss_detection"), "dupthresh");
}

#[test]
fn header_and_options_choose_the_configuration() {
    let body = "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1) = 0\n";
    let get = |r: &ScriptReport, k: &str| r.config.iter().find(|(a, _)| a == k).unwrap().1.clone();
    let header = "// lossrec: preset=linux-classic set=dupthresh=4\n";
    let r = run_script(
        &format!("{header}{body}"),
        "t.pkt",
        &ScriptOptions::default(),
    );
    assert!(r.passed, "{r}");
    assert_eq!(get(&r, "rtt_estimator"), "linux");
    assert_eq!(get(&r, "dupthresh"), "4");
    // Options override the header: preset first, sets last.
    let opts = ScriptOptions {
        preset: Some("rfc".into()),
        sets: vec![("dupthresh".into(), "7".into())],
        ..ScriptOptions::default()
    };
    let r = run_script(&format!("{header}{body}"), "t.pkt", &opts);
    assert_eq!(get(&r, "rtt_estimator"), "rfc6298");
    assert_eq!(get(&r, "dupthresh"), "7");
    // Bad names fail with the line (or the option).
    let r = run_script(
        &format!("// lossrec: preset=bogus\n{body}"),
        "t.pkt",
        &ScriptOptions::default(),
    );
    fails_at(&r, 1, &["unknown preset `bogus`"]);
    let r = run_script(
        &format!("\n// lossrec: set=colour=red\n{body}"),
        "t.pkt",
        &ScriptOptions::default(),
    );
    fails_at(&r, 2, &["unknown axis `colour`"]);
    // The directive is quoted as written, so its own punctuation cannot run into the
    // message's (the fuzzer wrote `set=…=rec:` and got `rec:: unknown axis`).
    let r = run_script(
        &format!("\n// lossrec: set=dupthresh=3:\n{body}"),
        "t.pkt",
        &ScriptOptions::default(),
    );
    fails_at(&r, 2, &["`set=dupthresh=3:`: "]);
    let opts = ScriptOptions {
        sets: vec![("dupthresh".into(), "zero".into())],
        ..ScriptOptions::default()
    };
    let r = run_script(body, "t.pkt", &opts);
    assert!(
        !r.passed && r.to_string().contains("t.pkt: `--set dupthresh=zero`: "),
        "{r}"
    );
}

#[test]
fn cli_set_changes_the_outcome() {
    let body = "+0 write(4, ..., 10000) = 10000\n+0 > P. 1:10001(10000) ack 1\n";
    assert!(run(body).passed);
    let opts = ScriptOptions {
        sets: vec![("initial_cwnd".into(), "4".into())],
        ..ScriptOptions::default()
    };
    let r = run_with(body, &opts);
    fails_at(
        &r,
        9,
        &["payload length: expected 1:10001(10000), actual 1:4001(4000)"],
    );
}

/// Active open with timestamps: the script's TS vals map onto the engine's, so the
/// inbound echo gives the engine an exact RTT sample.
#[test]
fn active_open_with_timestamps() {
    let script = "\
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  fcntl(3, F_SETFL, O_RDWR|O_NONBLOCK) = 0
+0  connect(3, ..., ...) = -1 EINPROGRESS (Operation now in progress)
+0  > S 0:0(0) <mss 1460,sackOK,TS val 100 ecr 0,nop,wscale 8>
+.05 < S. 0:0(0) ack 1 win 65535 <mss 1000,sackOK,TS val 700 ecr 100,nop,wscale 6>
+0  > . 1:1(0) ack 1 <nop,nop,TS val 150 ecr 700>
+0  write(3, ..., 3000) = 3000
+0  > P. 1:3001(3000) ack 1 <nop,nop,TS val 150 ecr 700>
+.03 < . 1:1(0) ack 3001 win 100 <nop,nop,TS val 750 ecr 150>
+0  write(3, ..., 1000) = 1000
+0  > P. 3001:4001(1000) ack 1 <...>
// SRTT 50 ms from the SYN; the 30 ms sample: 7/8 * 50 + 1/8 * 30.
+0  %{ assert tcpi_rtt == 47500 }%
";
    let r = run_script(script, "t.pkt", &ScriptOptions::default());
    assert!(r.passed, "{r}");
    // The outbound TS ecr is checked: the engine echoes the peer's latest TSval.
    let bad = script.replace(
        "TS val 150 ecr 700>\n+0  write",
        "TS val 150 ecr 701>\n+0  write",
    );
    let r = run_script(&bad, "t.pkt", &ScriptOptions::default());
    fails_at(&r, 6, &["tcp option TS ecr"]);
    // An option list without TS is a mismatch when the engine sends one.
    let bad = script.replace("<nop,nop,TS val 150 ecr 700>\n+0  write", "\n+0  write");
    let r = run_script(&bad, "t.pkt", &ScriptOptions::default());
    fails_at(
        &r,
        6,
        &["tcp options: expected none, actual <nop,nop,TS val 50001 ecr 700>"],
    );
}

/// Window scaling: the peer's `win` is shifted by the wscale of its SYN.
#[test]
fn window_is_scaled() {
    // 250 << 3 = 2000 bytes: two segments fit.
    let body = "+0 write(4, ..., 5000) = 5000\n+0 > . 1:10001(10000) ack 1\n";
    let open = OPEN
        .replace(
            "+.1 < . 1:1(0) ack 1 win 257",
            "+.1 < . 1:1(0) ack 1 win 250",
        )
        .replace("nop,nop,nop,wscale 7", "nop,nop,nop,wscale 3");
    let r = run_script(&format!("{open}{body}"), "t.pkt", &ScriptOptions::default());
    fails_at(&r, 9, &["actual 1:2001(2000)"]);
}

/// `close` with data still queued puts FIN on the last segment; the peer's ACK one past
/// the last byte covers it.
#[test]
fn fin_rides_on_the_last_segment() {
    let r = run("+0 write(4, ..., 20000) = 20000\n+0 close(4) = 0\n+0 > . 1:10001(10000) ack 1\n+.1 < . 1:1(0) ack 10001 win 257\n+0 > FP. 10001:20001(10000) ack 1\n+.1 < . 1:1(0) ack 20002 win 257\n+0 %{ assert tcpi_unacked == 0 and tcpi_bytes_acked == 20000 }%\n");
    assert!(r.passed, "{r}");
}

/// Linux (and RFC 9293 §3.10.4) sends a bare FIN when `close` comes after the last data
/// segment left.
#[test]
fn bare_fin_after_close() {
    let r = run("+0 write(4, ..., 2000) = 2000\n+0 > P. 1:2001(2000) ack 1\n+0 close(4) = 0\n+0 > F. 2001:2001(0) ack 1\n");
    assert!(r.passed, "{r}");
}

/// Sender silly-window avoidance (RFC 9293 §3.8.6.2.1, RFC 1122 §4.2.3.4; Linux's
/// tcp_snd_wnd_test): with 2048 bytes of window and more data queued, send two full
/// segments, not a third 48-byte one.
#[test]
fn no_silly_window_segment() {
    let open = OPEN.replace(
        "+.1 < . 1:1(0) ack 1 win 257",
        "+.1 < . 1:1(0) ack 1 win 16",
    );
    let body = "+0 write(4, ..., 5000) = 5000\n+0 > . 1:2001(2000) ack 1\n";
    let r = run_script(&format!("{open}{body}"), "t.pkt", &ScriptOptions::default());
    assert!(r.passed, "{r}");
}

/// `tcp_frto` resolves against the preset: Linux's undo machinery keeps DSACK and
/// timestamp undo without F-RTO; elsewhere it switches RFC 5682 F-RTO.
#[test]
fn frto_knob() {
    let detection = |header: &str, v: u32| {
        let script = format!(
            "{header}\n0 `sysctl -q net.ipv4.tcp_frto={v}`\n+0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 listen(3, 1) = 0\n"
        );
        let r = run_script(&script, "t.pkt", &ScriptOptions::default());
        assert!(r.passed, "{r}");
        let d = r.config.iter().find(|(a, _)| a == "spurious_detection");
        d.unwrap().1.clone()
    };
    assert_eq!(detection("// lossrec: preset=linux", 2), "linux");
    assert_eq!(detection("// lossrec: preset=linux", 0), "linux-no-frto");
    assert_eq!(detection("// lossrec: preset=linux-3.17", 1), "linux");
    assert_eq!(detection("// lossrec: preset=rfc", 2), "frto");
    assert_eq!(detection("// lossrec: preset=rfc", 0), "none");
}

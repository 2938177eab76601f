//! The packetdrill environment of a Linux test host: command blocks and `defaults.sh`, the
//! peer's data, FIN and RST, packetdrill's rule for unexpected packets (`lenient`), PSH
//! comparison, ECN and other valid syntax reported as unsupported at its line.

use std::path::PathBuf;

use lossrec_script::{run_file, run_script, ScriptOptions, ScriptReport};

const OPEN: &str = "\
0   socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
+0  bind(3, ..., ...) = 0
+0  listen(3, 1) = 0
+0  < S 0:0(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>
+0  > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 8>
+.1 < . 1:1(0) ack 1 win 257
+0  accept(3, ..., ...) = 4
";

fn run_opts(body: &str, opts: &ScriptOptions) -> ScriptReport {
    run_script(&format!("{OPEN}{body}"), "t.pkt", opts)
}
fn run(body: &str) -> ScriptReport {
    run_opts(body, &ScriptOptions::default())
}
fn get(r: &ScriptReport, axis: &str) -> String {
    r.config.iter().find(|(a, _)| a == axis).unwrap().1.clone()
}

/// A scratch directory under the target dir, removed on drop.
struct Dir(PathBuf);
impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("lossrec-script-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
}
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn defaults_sh_next_to_the_script_is_applied() {
    let dir = Dir::new("defaults");
    std::fs::create_dir_all(dir.0.join("common")).unwrap();
    std::fs::create_dir_all(dir.0.join("tcp")).unwrap();
    std::fs::write(
        dir.0.join("common/defaults.sh"),
        "#!/bin/bash\nip tcp_metrics flush all > /dev/null 2>&1\nsysctl -q net.ipv4.tcp_reordering=7\n\
         sysctl -q net.ipv4.tcp_early_retrans=4 net.ipv4.tcp_recovery=1\ntc qdisc add dev tun0 root pfifo\n",
    )
    .unwrap();
    let script = dir.0.join("tcp/t.pkt");
    std::fs::write(
        &script,
        format!("// lossrec: preset=rfc\n`../common/defaults.sh\nsysctl -q net.ipv4.tcp_min_tso_segs=2 net.ipv4.tcp_timestamps=0`\n{OPEN}"),
    )
    .unwrap();
    let r = run_file(
        &script,
        &ScriptOptions {
            verbose: true,
            ..ScriptOptions::default()
        },
    );
    assert!(r.passed, "{r}");
    assert_eq!(get(&r, "dupthresh"), "7");
    assert_eq!(get(&r, "loss_detection"), "rack-linux");
    // The block's own knobs come after the defaults.
    assert_eq!(get(&r, "timestamps"), "false");
    assert!(r
        .log
        .iter()
        .any(|l| l.contains("tc qdisc add dev tun0 root pfifo`: no effect here")));
}

#[test]
fn builtin_defaults_when_the_file_is_absent() {
    let r = run_script(
        &format!("// lossrec: preset=rfc\n`./defaults.sh`\n{OPEN}"),
        "nowhere/t.pkt",
        &ScriptOptions::default(),
    );
    assert!(r.passed, "{r}");
    assert_eq!(get(&r, "cc"), "cubic");
    assert_eq!(get(&r, "loss_detection"), "rack-linux");
    assert_eq!(get(&r, "probe"), "tlp-linux");
}

#[test]
fn peer_data_fin_and_reads() {
    let r = run(
        "+0 < P. 1:1001(1000) ack 1 win 257\n+0 > . 1:1(0) ack 1001\n+0 read(4, ..., 1000) = 1000\n\
         +.1 < F. 1001:1001(0) ack 1 win 257\n+0 > . 1:1(0) ack 1002\n+0 read(4, ..., 1000) = 0\n",
    );
    assert!(r.passed, "{r}");
    // Reading more than arrived is a failure at that line.
    let r = run("+0 < P. 1:1001(1000) ack 1 win 257\n+0 > . 1:1(0) ack 1001\n+0 read(4, ..., 2000) = 2000\n");
    assert!(!r.passed);
    assert_eq!(r.failures[0].line, 10, "{r}");
    assert!(r.to_string().contains("1000 byte(s) are ready"), "{r}");
}

#[test]
fn data_segments_carry_the_ack_of_received_data() {
    let r = run(
        "+0 < P. 1:501(500) ack 1 win 257\n+0 > . 1:1(0) ack 501\n+0 write(4, ..., 1000) = 1000\n+0 > P. 1:1001(1000) ack 501\n",
    );
    assert!(r.passed, "{r}");
}

#[test]
fn reset_stops_the_engine() {
    let r = run("+0 write(4, ..., 1000) = 1000\n+0 > P. 1:1001(1000) ack 1\n+.1 < R. 1:1(0) ack 1 win 0\n+3 %{ assert True }%\n");
    assert!(!r.passed);
    assert!(
        r.to_string().contains("before the connection exists"),
        "{r}"
    );
    let r = run("+0 < R. 1:1(0) ack 1 win 0\n+0 < . 1:1(0) ack 1 win 257\n");
    assert!(
        r.to_string().contains("after the connection was reset"),
        "{r}"
    );
}

#[test]
fn lenient_follows_packetdrill_for_unexpected_packets() {
    // The engine sends the data; no line expects it.
    let body = "+0 write(4, ..., 2000) = 2000\n+.2 < . 1:1(0) ack 2001 win 257\n";
    let strict = run(body);
    assert!(!strict.passed);
    assert!(
        strict.to_string().contains("unexpected outbound packet"),
        "{strict}"
    );
    let lenient = ScriptOptions {
        lenient: true,
        ..ScriptOptions::default()
    };
    assert!(run_opts(body, &lenient).passed);
    // A later `>` line still meets the unexpected packet first.
    let r = run_opts(
        "+0 write(4, ..., 1000) = 1000\n+.05 write(4, ..., 1000) = 1000\n+0 > P. 1001:2001(1000) ack 1\n",
        &lenient,
    );
    assert!(!r.passed, "{r}");
    assert!(
        r.to_string().contains("before the one this line expects"),
        "{r}"
    );
}

#[test]
fn psh_is_compared_unless_ignored() {
    let body = "+0 write(4, ..., 2000) = 2000\n+0 > . 1:2001(2000) ack 1\n";
    let r = run(body);
    assert!(
        r.to_string()
            .contains("mismatch in flags: expected ., actual P."),
        "{r}"
    );
    let opts = ScriptOptions {
        ignore_psh: true,
        ..ScriptOptions::default()
    };
    assert!(run_opts(body, &opts).passed);
    // Other flags still count.
    let r = run_opts(
        "+0 write(4, ..., 2000) = 2000\n+0 > F. 1:2001(2000) ack 1\n",
        &opts,
    );
    assert!(!r.passed);
}

#[test]
fn valid_syntax_without_a_model_is_unsupported_at_its_line() {
    // Accurate ECN (tcp_ecn=3) has no model; RFC 3168 ECN has (see `ecn_*` below).
    let r = run_script(
        &format!("`sysctl -q net.ipv4.tcp_ecn=3`\n{OPEN}"),
        "t.pkt",
        &ScriptOptions::default(),
    );
    assert!(r.to_string().contains("Accurate ECN"), "{r}");
    assert!(r.to_string().contains("unsupported"), "{r}");
    let r = run("+0 `tc qdisc replace dev tun0 root netem delay 10ms`\n");
    assert!(r.to_string().contains("unsupported: qdisc `netem`"), "{r}");
    let r = run_script(
        "--strict_segments=1\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n",
        "t.pkt",
        &ScriptOptions::default(),
    );
    assert_eq!(
        r.failures[0].message,
        "unsupported: packetdrill option `--strict_segments` at line 1"
    );
}

#[test]
fn multi_line_command_blocks_and_no_effect_knobs() {
    let r = run_script(
        &format!(
            "// lossrec: preset=linux\n`sysctl -q net.ipv4.tcp_tso_win_divisor=100\n\
             ../common/set_sysctls.py /proc/sys/net/ipv4/tcp_slow_start_after_idle=1 \\\n\t /proc/sys/net/ipv4/tcp_reordering=9`\n{OPEN}\
             +0 `/tmp/sysctl_restore_${{PPID}}.sh`\n"
        ),
        "t.pkt",
        &ScriptOptions {
            verbose: true,
            ..ScriptOptions::default()
        },
    );
    assert!(r.passed, "{r}");
    assert_eq!(get(&r, "dupthresh"), "9");
    assert_eq!(get(&r, "slow_start_after_idle"), "true");
    let knob = "tcp_tso_win_divisor=100: no effect here";
    assert!(
        r.log.iter().any(|l| l.contains(knob)),
        "{knob}: {:?}",
        r.log
    );
}

#[test]
fn poll_and_getsockopt_tcp_info() {
    let r = run(
        "+0 poll([{fd=4, events=POLLIN|POLLOUT, revents=POLLOUT}], 1, 0) = 1\n\
         +0 < P. 1:101(100) ack 1 win 257\n+0 > . 1:1(0) ack 101\n\
         +0 poll([{fd=4,\n   events=POLLIN, revents=POLLIN}], 1, 0) = 1\n\
         +0 getsockopt(4, SOL_TCP, TCP_INFO, {tcpi_ca_state=TCP_CA_Open, tcpi_snd_cwnd=10, tcpi_state=1}, [104]) = 0\n",
    );
    assert!(r.passed, "{r}");
    let r = run("+0 poll([{fd=4, events=POLLIN, revents=POLLIN}], 1, 0) = 1\n");
    assert!(
        r.to_string()
            .contains("poll(): expected revents=POLLIN = 1, actual revents=0 = 0"),
        "{r}"
    );
    let r = run("+0 getsockopt(4, SOL_TCP, TCP_INFO, {tcpi_snd_cwnd=11}, [104]) = 0\n");
    assert!(
        r.to_string()
            .contains("expected tcpi_snd_cwnd=11, actual tcpi_snd_cwnd=10"),
        "{r}"
    );
    let r = run("+0 getsockopt(4, SOL_TCP, TCP_INFO, {tcpi_pmtu=1500}, [104]) = 0\n");
    assert!(
        r.to_string()
            .contains("unsupported: tcp_info field `tcpi_pmtu` at line 8"),
        "{r}"
    );
}

#[test]
fn other_valid_syntax_parses() {
    // Bitwise operators and Linux's constants in %{ }%.
    let r = run("+0 %{ assert (6 & TCPI_OPT_SACK) != 0 and (1 << 3 | 1) == 9 and ~0 == -1 and TCP_ESTABLISHED == 1 }%\n");
    assert!(r.passed, "{r}");
    // Spaces around `...`, hexadecimal results with a comment, arguments across lines.
    let r = run("+0 ... 0.010 fcntl(4, F_GETFL) = 0x2 (flags O_RDWR)\n+0 setsockopt(4, SOL_SOCKET, SO_REUSEADDR,\n   [1], 4) = 0\n");
    assert!(r.passed, "{r}");
    // Other protocols' packet lines and no-flag segments.
    let r = run("+0 < icmp unreachable frag_needed mtu 1200 [1:1461(1460)]\n");
    assert_eq!(r.failures[0].message, "unsupported: ICMP packets at line 8");
    let r = run("+0 < - 1:1001(1000) win 257\n");
    assert!(r.passed, "a segment without ACK is dropped: {r}");
    // After shutdown(SHUT_RD) a read returns 0; a blocking read that waits is unsupported.
    assert!(run("+0 shutdown(4, SHUT_RD) = 0\n+0 read(4, ..., 1000) = 0\n").passed);
    let r = run("+0...0.1 read(4, ..., 1000) = 1000\n");
    assert_eq!(
        r.failures[0].message,
        "unsupported: a blocking read() that waits for data at line 8"
    );
}

#[test]
fn data_carries_the_receivers_sack_blocks() {
    // While the peer's data has a hole, every data segment carries the SACK option.
    let r = run(
        "+0 < P. 1001:2001(1000) ack 1 win 257\n+0 > . 1:1(0) ack 1 <nop,nop,sack 1001:2001>\n\
         +0 write(4, ..., 2000) = 2000\n+0 > P. 1:2001(2000) ack 1 <nop,nop,sack 1001:2001>\n\
         +.01 < . 1:1001(1000) ack 2001 win 257\n+0 > . 2001:2001(0) ack 2001\n\
         +0 write(4, ..., 1000) = 1000\n+0 > P. 2001:3001(1000) ack 2001\n",
    );
    assert!(r.passed, "{r}");
}

#[test]
fn tcp_maxseg_is_the_advertised_mss() {
    let r = run_script(
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 setsockopt(3, SOL_TCP, TCP_MAXSEG, [1100], 4) = 0\n\
         +0 bind(3, ..., ...) = 0\n+0 listen(3, 1) = 0\n+0 < S 0:0(0) win 32792 <mss 1300,nop,wscale 7>\n\
         +0 > S. 0:0(0) ack 1 <mss 1100,nop,wscale 8>\n+.1 < . 1:1(0) ack 1 win 257\n+0 accept(3, ..., ...) = 4\n\
         +0 write(4, ..., 2200) = 2200\n+0 > P. 1:2201(2200) ack 1\n+0 %{ assert tcpi_snd_mss == 1100 }%\n",
        "t.pkt",
        &ScriptOptions::default(),
    );
    assert!(r.passed, "{r}");
}

#[test]
fn initial_sequence_numbers_come_from_the_script() {
    // packetdrill takes the peer's ISN from its SYN and the engine's from the `> S.` line.
    let r = run_script(
        "0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 bind(3, ..., ...) = 0\n+0 listen(3, 1) = 0\n\
         +0 < S 999000:999000(0) win 32792 <mss 1000,sackOK,nop,nop,nop,wscale 7>\n\
         +0 > S. 1234:1234(0) ack 999001 <mss 1460,nop,nop,sackOK,nop,wscale 8>\n\
         +.1 < . 999001:999001(0) ack 1235 win 257\n+0 accept(3, ..., ...) = 4\n\
         +0 write(4, ..., 2000) = 2000\n+0 > P. 1235:3235(2000) ack 999001\n\
         +.1 < . 999001:999001(0) ack 2235 win 257 <sack 3235:3235,nop,nop>\n\
         +0 < P. 999001:999501(500) ack 3235 win 257\n+0 > . 3235:3235(0) ack 999501\n",
        "t.pkt",
        &ScriptOptions::default(),
    );
    // The SACK block `3235:3235` is empty and ignored; the data is acknowledged.
    assert!(r.passed, "{r}");
}

#[test]
fn a_segment_acking_unsent_data_is_discarded() {
    let r = run(
        "+0 < F. 1:1(0) ack 9999 win 257\n+0 < P. 1:1001(1000) ack 1 win 257\n+0 > . 1:1(0) ack 1001\n",
    );
    assert!(r.passed, "the FIN must not count: {r}");
}

#[test]
fn gso_packets_and_outbound_ecn() {
    // One ACK for a GRO packet; `--mss` sets the segment size the receiver measures.
    let r = run_script(
        &format!(
            "--mss=1000\n{OPEN}+0 < . 1:4001(4000) win 257\n+0 > . 1:1(0) ack 4001\n\
             +0 %{{ assert tcpi_rcv_mss == 1000, tcpi_rcv_mss }}%\n"
        ),
        "t.pkt",
        &ScriptOptions::default(),
    );
    assert!(r.passed, "{r}");
    // Without ECN agreed, data is Not-ECT: `[ect0]` is a mismatch, `[noecn]` matches and
    // no annotation checks nothing (packetdrill's ECN_NOCHECK).
    let r = run("+0 write(4, ..., 1000) = 1000\n+0 > [ect0] P. 1:1001(1000) ack 1\n");
    assert!(
        r.to_string()
            .contains("mismatch in ip ecn: expected [ect0], actual [noecn]"),
        "{r}"
    );
    assert!(run("+0 write(4, ..., 1000) = 1000\n+0 > [noecn] P. 1:1001(1000) ack 1\n").passed);
}

/// RFC 3168 §6.1.1 through the runner: `tcp_ecn` maps onto `ecn`; an ECN-setup SYN gets
/// `SE.` only when accepted, and the data is then ECT(0) (`[ect01]` matches it too).
#[test]
fn ecn_setup_follows_tcp_ecn() {
    let open = OPEN
        .replace("< S 0", "< SEW 0")
        .replace("> S. 0", "> SE. 0");
    let data = "+0 write(4, ..., 1000) = 1000\n+0 > [ect01] P. 1:1001(1000) ack 1\n";
    for v in [1, 2] {
        let r = run_script(
            &format!("`sysctl -q net.ipv4.tcp_ecn={v}`\n{open}{data}"),
            "t.pkt",
            &ScriptOptions::default(),
        );
        assert!(r.passed, "tcp_ecn={v}: {r}");
        assert_eq!(get(&r, "ecn"), if v == 1 { "on" } else { "accept" });
    }
    let r = run_script(
        &format!("`sysctl -q net.ipv4.tcp_ecn=0`\n{open}"),
        "t.pkt",
        &ScriptOptions::default(),
    );
    assert!(
        r.to_string()
            .contains("mismatch in flags: expected S.E, actual S."),
        "{r}"
    );
    // `[ect01]` names no one codepoint to send.
    let r = run("+0 < [ect01] P. 1:1001(1000) ack 1 win 257\n");
    assert!(r.to_string().contains("unsupported: `[ect01]`"), "{r}");
}

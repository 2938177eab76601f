//! Untimed command lines (`` `…` ``) as a Linux packetdrill host runs them: what each
//! command does to this engine. `sysctl`, `set_sysctls.py` and `echo V > /proc/sys/…`
//! assign knobs (mapped onto axes by [`crate::sysctl`]); `defaults.sh` applies
//! packetdrill's production defaults; `tc qdisc` picks the tun device's queueing (`fq`
//! turns the engine's pacing on, `pacing=fq`; a FIFO qdisc changes nothing, the presets
//! do not pace; a qdisc that drops everything is unsupported); housekeeping commands
//! (`ip tcp_metrics flush`, the sysctl restore script) change nothing here.

/// What one command does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Assign a knob: `(key with dots, value)`, e.g. `("net.ipv4.tcp_sack", "0")`.
    Set(String, String),
    /// Run packetdrill's defaults script; the path as written (relative to the script).
    Defaults(String),
    /// Accepted; no effect on this engine, and why (shown with `--verbose`).
    NoEffect(String, String),
    /// A command whose effect this runner cannot reproduce: the feature it needs.
    Unsupported(String),
    /// The root qdisc drops every packet the stack sends (`true`: `limit 0`), or no longer
    /// does (`false`: any other root qdisc): each transmission fails locally and the
    /// engine hears of it (`Sender::transmit_failed`), as Linux's `tcp_transmit_skb` does.
    LocalDrop(bool),
}

/// The actions of a command block, in order. Lines joined by `\` continue; `#` starts a
/// comment; `;` and `&&` separate commands; output redirections are dropped.
pub fn parse(block: &str) -> Vec<Action> {
    let joined = block.replace("\\\n", " ");
    let mut out = Vec::new();
    for line in joined.lines() {
        let line = line.split('#').next().unwrap_or("");
        for cmd in line.split(';').flat_map(|c| c.split("&&")) {
            let words = words(cmd);
            if !words.is_empty() {
                out.extend(command(&words, cmd.trim()));
            }
        }
    }
    out
}

/// Words of one command (quotes group, `$((…))` stays one word) without redirections
/// (`> /dev/null`, `2>&1`).
fn words(cmd: &str) -> Vec<String> {
    let mut split = Vec::new();
    let (mut cur, mut quote) = (String::new(), None);
    for c in cmd.chars() {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => cur.push(c),
            (None, '"' | '\'') => quote = Some(c),
            (None, c) if c.is_whitespace() => {
                if !cur.is_empty() {
                    split.push(std::mem::take(&mut cur));
                }
            }
            (None, c) => cur.push(c),
        }
    }
    if !cur.is_empty() {
        split.push(cur);
    }
    let mut out = Vec::new();
    let mut it = split.into_iter().peekable();
    while let Some(w) = it.next() {
        if w.ends_with(">&1") {
            continue;
        }
        if (w == ">" || w == "2>") && it.peek().is_some_and(|x| x == "/dev/null") {
            it.next();
            continue;
        }
        out.push(w);
    }
    out
}

fn unquote(v: &str) -> String {
    v.trim_matches(|c| c == '"' || c == '\'').to_string()
}

/// `/proc/sys/net/ipv4/tcp_sack` or `net/ipv4/tcp_sack` → `net.ipv4.tcp_sack`.
fn proc_key(path: &str) -> String {
    path.trim_start_matches("/proc/sys/").replace('/', ".")
}

/// The key `echo N > /sys/module/tcp_cubic/parameters/hystart_detect` assigns.
pub const HYSTART_DETECT: &str = "module.tcp_cubic.hystart_detect";

/// The key a `tc qdisc … fq` line assigns: who paces (`fq`, or `off` with `nopacing`).
pub const QDISC_PACING: &str = "tc.qdisc.pacing";

fn command(w: &[String], text: &str) -> Vec<Action> {
    let none = |why: &str| vec![Action::NoEffect(text.to_string(), why.to_string())];
    let first = w[0].as_str();
    match first {
        "sysctl" => {
            let kvs: Vec<Action> = w[1..]
                .iter()
                .filter(|x| !x.starts_with('-'))
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| Action::Set(proc_key(k), unquote(v)))
                .collect();
            if kvs.is_empty() {
                return vec![Action::Unsupported(format!(
                    "`{text}` (reads, sets nothing)"
                ))];
            }
            kvs
        }
        f if f.ends_with("defaults.sh") => vec![Action::Defaults(f.to_string())],
        f if f.ends_with("set_sysctls.py") => w[1..]
            .iter()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| Action::Set(proc_key(k), unquote(v)))
            .collect(),
        "echo" if w.len() == 4 && w[2] == ">" => {
            let path = w[3].as_str();
            if path.starts_with("/proc/sys/") {
                vec![Action::Set(proc_key(path), unquote(&w[1]))]
            } else if path.ends_with("tcp_cubic/parameters/hystart_detect") {
                // The module parameter, mapped like a sysctl (`crate::sysctl`).
                vec![Action::Set(HYSTART_DETECT.into(), unquote(&w[1]))]
            } else {
                vec![Action::Unsupported(format!("writing `{path}`"))]
            }
        }
        "tc" => match local_drop(w) {
            Some(true) => vec![Action::LocalDrop(true)],
            Some(false) => qdisc(w, text)
                .into_iter()
                .chain([Action::LocalDrop(false)])
                .collect(),
            None => qdisc(w, text),
        },
        "ip" if w.get(1).is_some_and(|x| x == "tcp_metrics") => {
            none("the engine keeps no route metrics")
        }
        f if f.contains("sysctl_restore") => none("restores the host's sysctls after the script"),
        _ => vec![Action::Unsupported(format!("shell command `{text}`"))],
    }
}

/// Whether `tc qdisc add|replace|change dev DEV root KIND [limit N]` makes the root
/// qdisc drop everything (`limit 0`: pfifo and friends refuse every packet, `qdisc_drop`
/// → `NET_XMIT_DROP`) or not; `None` for any other `tc` command.
fn local_drop(w: &[String]) -> Option<bool> {
    let op = w.get(2).map(String::as_str);
    if w.get(1).map(String::as_str) != Some("qdisc")
        || !matches!(op, Some("add" | "replace" | "change"))
        || !w.iter().any(|x| x == "root")
    {
        return None;
    }
    let limit = w
        .iter()
        .position(|x| x == "limit")
        .and_then(|i| w.get(i + 1));
    Some(limit.is_some_and(|l| l == "0"))
}

/// `tc qdisc add|replace dev tun0 root KIND [limit N]`.
fn qdisc(w: &[String], text: &str) -> Vec<Action> {
    let none = |why: &str| vec![Action::NoEffect(text.to_string(), why.to_string())];
    let Some(root) = w.iter().position(|x| x == "root") else {
        return vec![Action::Unsupported(format!("`{text}`"))];
    };
    let kind = w.get(root + 1).map(String::as_str).unwrap_or("");
    let limit = w
        .iter()
        .position(|x| x == "limit")
        .and_then(|i| w.get(i + 1));
    match kind {
        _ if limit.is_some_and(|l| l == "0") => vec![Action::Unsupported(
            "a qdisc that drops every packet the stack sends (tc … limit 0)".into(),
        )],
        "fq" => fq(w, root + 2, text),
        "pfifo" | "pfifo_fast" | "fq_codel" | "noqueue" => none("no pacing, as in the engine"),
        _ => vec![Action::Unsupported(format!("qdisc `{kind}`"))],
    }
}

/// `tc qdisc … root fq [OPTIONS]` (`w[opts..]` are the options): TCP's packets wait in
/// fq until their departure time (`pacing=fq`). `nopacing` turns fq's rate enforcement
/// off; options that change fq's own pacing (`maxrate`, `low_rate_threshold`) or mark
/// ECN (`ce_threshold`) have no engine model; DRR and queue-size options do not affect
/// one TCP flow's departures (its packets carry their own stamps).
fn fq(w: &[String], opts: usize, text: &str) -> Vec<Action> {
    let mut pacing = "fq";
    for o in w.iter().skip(opts) {
        match o.as_str() {
            "nopacing" => pacing = "off",
            "pacing" => pacing = "fq",
            "maxrate" | "flow_max_rate" | "low_rate_threshold" | "ce_threshold" => {
                return vec![Action::Unsupported(format!("fq option `{o}` (`{text}`)"))]
            }
            _ => {}
        }
    }
    vec![Action::Set(QDISC_PACING.into(), pacing.into())]
}

#[cfg(test)]
mod tests {
    use super::*;
    fn set(k: &str, v: &str) -> Action {
        Action::Set(k.into(), v.into())
    }

    #[test]
    fn multi_line_blocks() {
        let a = parse(
            "../common/defaults.sh\n../common/set_sysctls.py /proc/sys/net/ipv4/tcp_slow_start_after_idle=1 \\\n\t\t /proc/sys/net/ipv4/tcp_min_tso_segs=10",
        );
        assert_eq!(
            a,
            vec![
                Action::Defaults("../common/defaults.sh".into()),
                set("net.ipv4.tcp_slow_start_after_idle", "1"),
                set("net.ipv4.tcp_min_tso_segs", "10"),
            ]
        );
    }

    #[test]
    fn sysctl_forms() {
        assert_eq!(
            parse("sysctl -q net.ipv4.tcp_ecn=2    # server agrees\nsysctl -e -q net/ipv4/tcp_pacing_ss_ratio=200"),
            vec![set("net.ipv4.tcp_ecn", "2"), set("net.ipv4.tcp_pacing_ss_ratio", "200")]
        );
        assert_eq!(
            parse("sysctl -q net.ipv4.tcp_notsent_lowat=4294967295 > /dev/null 2>&1"),
            vec![set("net.ipv4.tcp_notsent_lowat", "4294967295")]
        );
        assert_eq!(
            parse("sysctl -q net.ipv4.tcp_rmem=\"4096 540000 15728640\""),
            vec![set("net.ipv4.tcp_rmem", "4096 540000 15728640")]
        );
    }

    #[test]
    fn qdiscs() {
        assert_eq!(
            parse("tc qdisc replace dev tun0 root fq")[0],
            set(QDISC_PACING, "fq")
        );
        assert_eq!(
            parse("tc qdisc replace dev tun0 root fq quantum 3028 initial_quantum 15140")[0],
            set(QDISC_PACING, "fq")
        );
        assert_eq!(
            parse("tc qdisc replace dev tun0 root fq nopacing")[0],
            set(QDISC_PACING, "off")
        );
        assert!(matches!(
            &parse("tc qdisc replace dev tun0 root fq maxrate 1mbit")[0],
            Action::Unsupported(f) if f.contains("maxrate")
        ));
        assert!(matches!(
            parse("tc qdisc add dev tun0 root pfifo")[0],
            Action::NoEffect(..)
        ));
        assert_eq!(
            parse("tc qdisc replace dev tun0 root pfifo limit 0"),
            vec![Action::LocalDrop(true)]
        );
        let restore = parse("tc qdisc replace dev tun0 root pfifo limit 1000");
        assert!(matches!(restore[0], Action::NoEffect(..)));
        assert_eq!(restore[1], Action::LocalDrop(false));
    }

    #[test]
    fn other_commands() {
        assert!(matches!(
            parse("ip tcp_metrics flush all > /dev/null 2>&1")[0],
            Action::NoEffect(..)
        ));
        assert!(matches!(
            parse("/tmp/sysctl_restore_${PPID}.sh")[0],
            Action::NoEffect(..)
        ));
        assert_eq!(
            parse("echo 3 > /sys/module/tcp_cubic/parameters/hystart_detect")[0],
            Action::Set(HYSTART_DETECT.into(), "3".into())
        );
        assert!(matches!(
            &parse("ip route change default initcwnd 4")[0],
            Action::Unsupported(_)
        ));
    }
}

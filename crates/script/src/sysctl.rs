//! Linux knobs in scripts (`` `sysctl -q net.ipv4.tcp_sack=0` ``, `setsockopt(…)`) mapped
//! onto the engine's configuration axes. A knob with no axis, or a value whose axis value
//! the engine does not have, is an "unsupported" error rather than silently ignored.

use lossrec::config::{CongestionControl, LossDetection, Probe, SpuriousDetection};
use lossrec::Config;

/// What a knob does here.
pub enum Effect {
    /// Set these axes.
    Set(Vec<(&'static str, String)>),
    /// `tcp_early_retrans=N`, whose meaning changed across Linux versions: resolved against
    /// the configuration it is applied to (see [`sysctl`]).
    EarlyRetrans(u64),
    /// `tcp_recovery=N`: bit 0x1 RACK, 0x2 static reo_wnd, 0x4 no DupThresh shortcut;
    /// clearing bit 0x1 leaves a non-RACK detector (FACK, RFC 3517) as configured.
    Recovery(u64),
    /// `tcp_frto=N`: 0 off, 1 and 2 on; resolved against the configured detector (Linux's
    /// undo machinery keeps its DSACK and timestamp parts without F-RTO).
    Frto(u64),
    /// `tcp_congestion_control=NAME`: `cubic` keeps a configured `cubic-linux` (the
    /// kernel's CUBIC is what that value models); other names set `cc`.
    Cc(String),
    /// Accepted; nothing to change here (the reason goes to the `--verbose` log).
    Ignore(String),
}

/// Maps `net.ipv4.<name>=<value>` (the prefix is optional).
///
/// | sysctl | axis |
/// |---|---|
/// | `tcp_sack` | `sack` |
/// | `tcp_timestamps` | `timestamps` (1 and 2 are on) |
/// | `tcp_reordering` | `dupthresh` |
/// | `tcp_early_retrans` | 0 `early_retransmit=off`, `probe=none`; 1 `rfc5827` with `er_disable_on_reordering`; 2 the same with `er_delayed` (Linux 3.5-4.10); 3 and 4 turn TLP on: the configured TLP value if it has one (a preset chose the era), else `tlp-linux`. 3 also means delayed ER (`er-tlp`, the TLP draft's §4.2 enhancement, Linux 3.10-4.10) unless RACK is the detector (ER was removed in 4.11, "subsumed by RACK"); 4 is TLP without ER |
/// | `tcp_recovery` | bit 0x1 `loss_detection=rack-linux` (clear: `dupthresh` if RACK was configured, else unchanged); 0x2 `rack_static_reo_wnd`; 0x4 `rack_no_dupthresh` |
/// | `tcp_frto` | `spurious_detection`: with `linux` or `linux-no-frto` configured (the `linux` and `linux-3.17` presets), 0 → `linux-no-frto`, 1 and 2 → `linux` (Linux's F-RTO with DSACK and timestamp undo); otherwise 0 → `none`, 1 and 2 → `frto` (RFC 5682: SACK-enhanced when SACK is negotiated, basic otherwise — Linux 2.6's value 1, basic F-RTO even with SACK, is not modelled) |
/// | `tcp_rto_min_us` | `min_rto_ms` (whole milliseconds) |
/// | `tcp_rto_max_ms` | `max_rto_ms` |
/// | `tcp_congestion_control` | `cc` (`cubic` keeps a configured `cubic-linux`) |
/// | `tcp_slow_start_after_idle` | `slow_start_after_idle` |
/// | `tcp_min_tso_segs` | `min_tso_segs` (where PSH goes) |
/// | `tcp_ecn` | `ecn`: 0 `off`, 1 `on`, 2 `accept` (RFC 3168; Accurate ECN's 3-5 are unsupported) |
/// | `tcp_pacing_ss_ratio`, `tcp_pacing_ca_ratio` | `pacing_ss_ratio`, `pacing_ca_ratio` |
/// | `tc qdisc … root fq` (with `nopacing`: off) | `pacing`: `fq` |
/// | tcp_cubic's `hystart_detect` (`echo N > /sys/module/…`) | `hystart`: 0 `off`, 1 `ack-train`, 2 `delay`, 3 `on` |
/// | any other knob (`tcp_tso_win_divisor`, `tcp_rmem`, `tcp_ecn_option`, …) | no effect here (logged with the reason) |
pub fn sysctl(key: &str, value: &str) -> Result<Effect, String> {
    let name = key.strip_prefix("net.ipv4.").unwrap_or(key);
    let num = || {
        value
            .parse::<u64>()
            .map_err(|_| format!("`{key}={value}`: expected a number"))
    };
    let on = |v: bool| if v { "true" } else { "false" }.to_string();
    Ok(Effect::Set(match name {
        "tcp_sack" => vec![("sack", on(num()? != 0))],
        "tcp_timestamps" => vec![("timestamps", on(num()? != 0))],
        "tcp_reordering" => vec![("dupthresh", num()?.to_string())],
        "tcp_early_retrans" => match num()? {
            n @ 0..=4 => return Ok(Effect::EarlyRetrans(n)),
            _ => return Err(format!("`{key}={value}`: expected 0 to 4")),
        },
        "tcp_recovery" => {
            let v = num()?;
            if v & !7 != 0 {
                return Err(format!(
                    "`{key}={value}`: only bits 0x1 (RACK), 0x2 (static reo_wnd) and 0x4 \
                     (no DupThresh shortcut) have engine axes"
                ));
            }
            return Ok(Effect::Recovery(v));
        }
        "tcp_frto" => match num()? {
            n @ 0..=2 => return Ok(Effect::Frto(n)),
            _ => return Err(format!("`{key}={value}`: expected 0 to 2")),
        },
        "tcp_rto_min_us" => {
            let us = num()?;
            if us % 1000 != 0 {
                return Err(format!(
                    "`{key}={value}`: min_rto_ms takes whole milliseconds"
                ));
            }
            vec![("min_rto_ms", (us / 1000).to_string())]
        }
        "tcp_rto_max_ms" => vec![("max_rto_ms", num()?.to_string())],
        "tcp_congestion_control" => return Ok(Effect::Cc(value.to_string())),
        "tcp_slow_start_after_idle" => vec![("slow_start_after_idle", on(num()? != 0))],
        "tcp_min_tso_segs" => vec![("min_tso_segs", num()?.to_string())],
        "tcp_ecn" => match num()? {
            0 => vec![("ecn", "off".to_string())],
            1 => vec![("ecn", "on".to_string())],
            2 => vec![("ecn", "accept".to_string())],
            _ => {
                return Err(format!(
                    "`{key}={value}`: Accurate ECN (tcp_ecn 3 to 5) is not in the engine; \
                     0 (off), 1 (on) and 2 (accept) map onto `ecn`"
                ))
            }
        },
        "tcp_pacing_ss_ratio" => vec![("pacing_ss_ratio", num()?.to_string())],
        "tcp_pacing_ca_ratio" => vec![("pacing_ca_ratio", num()?.to_string())],
        crate::shell::QDISC_PACING => vec![("pacing", value.to_string())],
        crate::shell::HYSTART_DETECT => {
            let mode = match num()? {
                0 => "off",
                1 => "ack-train",
                2 => "delay",
                3 => "on",
                _ => return Err(format!("`{key}={value}`: expected 0 to 3")),
            };
            vec![("hystart", mode.to_string())]
        }
        _ => return Ok(Effect::Ignore(no_effect(name, value))),
    }))
}

/// Applies one effect to `cfg`; a bad axis value becomes an "unsupported" message.
pub fn apply(cfg: &mut Config, what: &str, effect: &Effect) -> Result<(), String> {
    let resolved;
    let sets = match effect {
        Effect::Set(sets) => sets,
        Effect::Ignore(_) => return Ok(()),
        Effect::EarlyRetrans(n) => {
            resolved = early_retrans(cfg, *n);
            &resolved
        }
        Effect::Recovery(bits) => {
            resolved = recovery(cfg, *bits);
            &resolved
        }
        Effect::Frto(n) => {
            resolved = frto(cfg, *n);
            &resolved
        }
        Effect::Cc(name) => {
            let keep = name == "cubic" && cfg.cc == CongestionControl::CubicLinux;
            resolved = vec![("cc", if keep { "cubic-linux" } else { name }.to_string())];
            &resolved
        }
    };
    for (axis, value) in sets {
        cfg.set(axis, value)
            .map_err(|e| format!("`{what}` needs {axis}={value}, which the engine lacks: {e}"))?;
    }
    Ok(())
}

/// `tcp_early_retrans=n` against `cfg` (see the table on [`sysctl`]).
fn early_retrans(cfg: &Config, n: u64) -> Vec<(&'static str, String)> {
    let on = |v: bool| if v { "true" } else { "false" }.to_string();
    let tlp = match cfg.probe {
        Probe::None => Probe::TlpLinux,
        p => p,
    };
    let rack = cfg.loss_detection.is_rack();
    let (er, delayed, probe) = match n {
        0 => ("off", false, Probe::None),
        1 => ("rfc5827", false, Probe::None),
        2 => ("rfc5827", true, Probe::None),
        3 if !rack => ("er-tlp", true, tlp),
        _ => ("off", false, tlp),
    };
    vec![
        ("early_retransmit", er.into()),
        ("er_delayed", on(delayed)),
        ("er_disable_on_reordering", on(er != "off")),
        ("probe", probe.to_string()),
    ]
}

/// `tcp_frto=n` against `cfg` (see the table on [`sysctl`]).
fn frto(cfg: &Config, n: u64) -> Vec<(&'static str, String)> {
    let linux = matches!(
        cfg.spurious_detection,
        SpuriousDetection::Linux | SpuriousDetection::LinuxNoFrto
    );
    let d = match (linux, n) {
        (true, 0) => SpuriousDetection::LinuxNoFrto,
        (true, _) => SpuriousDetection::Linux,
        (false, 0) => SpuriousDetection::None,
        (false, _) => SpuriousDetection::Frto,
    };
    vec![("spurious_detection", d.to_string())]
}

/// `tcp_recovery=bits` against `cfg`.
fn recovery(cfg: &Config, bits: u64) -> Vec<(&'static str, String)> {
    let on = |v: bool| if v { "true" } else { "false" }.to_string();
    let detection = if bits & 1 == 1 {
        LossDetection::RackLinux
    } else if cfg.loss_detection.is_rack() {
        LossDetection::DupThresh
    } else {
        cfg.loss_detection
    };
    vec![
        ("loss_detection", detection.to_string()),
        ("rack_static_reo_wnd", on(bits & 2 != 0)),
        ("rack_no_dupthresh", on(bits & 4 != 0)),
    ]
}

/// Why a knob without an engine axis changes nothing here.
fn no_effect(name: &str, value: &str) -> String {
    let why = match name {
        "tcp_fack" => "tcp_fack has no effect since Linux 4.15",
        "tcp_dsack" if value == "1" => "the engine always honours DSACK",
        "tcp_no_metrics_save" => "the engine keeps no route metrics",
        "tcp_rmem" | "tcp_wmem" => {
            "the engine's buffers are unbounded (window scale 8 as for these)"
        }
        "tcp_tso_win_divisor" => "the engine does not defer sending to build larger TSO packets",
        "tcp_tso_rtt_log" => "the engine sizes TSO packets with the default (9)",
        "tcp_ecn_option" => "the AccECN option needs Accurate ECN, which the engine lacks",
        "tcp_notsent_lowat" => "the engine's send buffer is unbounded",
        _ => "no engine axis for this knob",
    };
    why.to_string()
}

/// packetdrill's `defaults.sh` (gtests/net/common), used when the script's copy is not
/// found next to it: the knobs it sets that the engine reads or reports.
pub const BUILTIN_DEFAULTS: &[(&str, &str)] = &[
    ("net.ipv4.tcp_timestamps", "1"),
    ("net.ipv4.tcp_frto", "2"),
    ("net.ipv4.tcp_sack", "1"),
    ("net.ipv4.tcp_dsack", "1"),
    ("net.ipv4.tcp_fack", "0"),
    ("net.ipv4.tcp_reordering", "3"),
    ("net.ipv4.tcp_congestion_control", "cubic"),
    ("net.ipv4.tcp_slow_start_after_idle", "0"),
    ("net.ipv4.tcp_early_retrans", "4"),
    ("net.ipv4.tcp_recovery", "1"),
    ("net.ipv4.tcp_ecn", "0"),
];

//! Linux knobs in scripts (`` `sysctl -q net.ipv4.tcp_sack=0` ``, `setsockopt(…)`) mapped
//! onto the engine's configuration axes. A knob with no axis, or a value whose axis value
//! the engine does not have, is an "unsupported" error rather than silently ignored.

use lossrec::Config;

/// What a knob does here.
pub enum Effect {
    /// Set these axes.
    Set(Vec<(&'static str, String)>),
    /// Accepted; nothing to change (the reason goes to the log).
    Ignore(&'static str),
}

/// Maps `net.ipv4.<name>=<value>` (the prefix is optional).
///
/// | sysctl | axis |
/// |---|---|
/// | `tcp_sack` | `sack` |
/// | `tcp_timestamps` | `timestamps` (1 and 2 are on) |
/// | `tcp_reordering` | `dupthresh` |
/// | `tcp_early_retrans` | as Linux 3.5-4.10: 0 `early_retransmit=off`; 1 `rfc5827` with `er_disable_on_reordering`; 2 the same with `er_delayed`; 3 `er-tlp`, delayed, and `probe=rfc8985`; 4 `probe=rfc8985` only (3 and 4 need the TLP axis value, so they are unsupported until it exists) |
/// | `tcp_recovery` | `loss_detection` (bit 0: `rack`, else `dupthresh`) |
/// | `tcp_frto` | `spurious_detection` (0: `none`; 1, 2: `frto`) |
/// | `tcp_rto_min_us` | `min_rto_ms` (whole milliseconds) |
/// | `tcp_rto_max_ms` | `max_rto_ms` |
/// | `tcp_congestion_control` | `cc` |
/// | `tcp_fack`, `tcp_dsack=1`, `tcp_no_metrics_save`, `tcp_mtu_probing=0` | ignored (no effect on this engine) |
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
        "tcp_early_retrans" => {
            // Linux 3.5-4.10: 0 off, 1 ER (off for good after reordering), 2 delayed ER,
            // 3 delayed ER + TLP (with the TLP draft's enhanced ER), 4 TLP only.
            let (er, delayed, probe) = match num()? {
                0 => ("off", false, "none"),
                1 => ("rfc5827", false, "none"),
                2 => ("rfc5827", true, "none"),
                3 => ("er-tlp", true, "rfc8985"),
                4 => ("off", false, "rfc8985"),
                _ => return Err(format!("`{key}={value}`: expected 0 to 4")),
            };
            vec![
                ("early_retransmit", er.into()),
                ("er_delayed", on(delayed)),
                ("er_disable_on_reordering", on(er != "off")),
                ("probe", probe.into()),
            ]
        }
        "tcp_recovery" => {
            let v = num()?;
            if v & !1 != 0 {
                return Err(format!(
                    "`{key}={value}`: only bit 0 (RACK) has an engine axis (loss_detection)"
                ));
            }
            let d = if v & 1 == 1 { "rack" } else { "dupthresh" };
            vec![("loss_detection", d.into())]
        }
        "tcp_frto" => {
            let d = if num()? == 0 { "none" } else { "frto" };
            vec![("spurious_detection", d.into())]
        }
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
        "tcp_congestion_control" => vec![("cc", value.to_string())],
        "tcp_fack" => return Ok(Effect::Ignore("tcp_fack has no effect since Linux 4.15")),
        "tcp_no_metrics_save" => return Ok(Effect::Ignore("the engine keeps no route metrics")),
        "tcp_dsack" if value == "1" => {
            return Ok(Effect::Ignore("the engine always honours DSACK"))
        }
        "tcp_mtu_probing" if value == "0" => {
            return Ok(Effect::Ignore("the engine does not probe the MTU"))
        }
        _ => return Err(format!("sysctl `{key}={value}` has no engine equivalent")),
    }))
}

/// Applies one effect to `cfg`; a bad axis value becomes an "unsupported" message.
pub fn apply(cfg: &mut Config, what: &str, effect: &Effect) -> Result<(), String> {
    if let Effect::Set(sets) = effect {
        for (axis, value) in sets {
            cfg.set(axis, value).map_err(|e| {
                format!("`{what}` needs {axis}={value}, which the engine lacks: {e}")
            })?;
        }
    }
    Ok(())
}

/// The `key=value` assignments of one shell command, or why it is not a sysctl.
///
/// Accepted forms: `sysctl [-q] [-w] KEY=VALUE…` and `echo VALUE > /proc/sys/net/ipv4/KEY`;
/// several commands may be joined with `;` or `&&`. A command ending in `defaults.sh`
/// (packetdrill's reset of every knob to its default) is accepted and does nothing: the
/// engine starts from its preset.
pub fn shell_assignments(cmd: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for part in cmd.split(';').flat_map(|p| p.split("&&")) {
        let words: Vec<&str> = part.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [one] if one.ends_with("defaults.sh") => {}
            ["sysctl", rest @ ..] => {
                let kvs: Vec<&str> = rest
                    .iter()
                    .copied()
                    .filter(|w| !w.starts_with('-'))
                    .collect();
                if kvs.is_empty() {
                    return Err(format!("`{}` sets nothing", part.trim()));
                }
                for kv in kvs {
                    let (k, v) = kv
                        .split_once('=')
                        .ok_or_else(|| format!("`{kv}` is not KEY=VALUE"))?;
                    out.push((k.to_string(), v.trim_matches('"').to_string()));
                }
            }
            ["echo", v, ">", path] => {
                let key = path
                    .strip_prefix("/proc/sys/")
                    .ok_or_else(|| format!("`{}` writes outside /proc/sys", part.trim()))?;
                out.push((key.replace('/', "."), v.trim_matches('"').to_string()));
            }
            _ => return Err(format!("shell command `{}` is not modelled", part.trim())),
        }
    }
    Ok(out)
}

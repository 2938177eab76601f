//! Scenario TOML → [`Scenario`]: serde structs that mirror the file (unknown keys rejected),
//! then validation that turns them into the simulator's types. The schema is documented in
//! [`crate::scenario`].
//!
//! Every error is located: TOML syntax and type errors by the span `toml` reports, value
//! errors by looking the offending field's dotted path up in the parsed document.

use crate::link::{LinkSpec, QueueLimit, SpikeSpec, HEADER_BYTES};
use crate::loss::LossSpec;
use crate::reorder::ReorderSpec;
use crate::scenario::Scenario;
use crate::span::{key_path_at, line_col, path_at, span_of};
use crate::ScenarioError;
use lossrec::{Config, ConfigError, ReceiverConfig};
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::time::Duration;
use toml::de::DeTable;
use toml::Spanned;

mod background;
mod jitter;
pub(crate) mod limits;
mod models;
mod raw;
pub mod schema;
mod words;
mod workload;

use raw::*;

/// Defaults, also quoted in the schema documentation.
pub const DEFAULT_SEED: u64 = 1;
pub const DEFAULT_MAX_TIME_S: f64 = 3600.0;
pub const DEFAULT_RTT_MS: f64 = 100.0;
pub const DEFAULT_RATE_MBPS: f64 = 10.0;
pub const DEFAULT_QUEUE_PACKETS: u64 = 100;
pub const DEFAULT_SEGMENTS: u64 = 10;
pub const DEFAULT_BULK_S: f64 = 10.0;

/// Parses and validates a scenario.
///
/// The limits are checked first, while the text is read ([`limits`]); then serde reads the
/// structs. The spanned document that locates a value error is parsed only when there is
/// an error to locate, so an accepted scenario is parsed once.
pub fn parse(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    limits::check(text, origin)?;
    let raw: Raw = toml::from_str(text).map_err(|e| {
        let doc = DeTable::parse(text).ok();
        toml_error(text, origin, doc.as_ref().map(|d| d.get_ref()), &e)
    })?;
    Cx {
        text,
        origin,
        doc: OnceCell::new(),
    }
    .build(raw)
}

fn toml_error(
    text: &str,
    origin: &str,
    doc: Option<&DeTable<'_>>,
    e: &toml::de::Error,
) -> ScenarioError {
    let span = e.span();
    let (line, column) = match &span {
        Some(s) => {
            let (l, c) = line_col(text, s.start);
            (Some(l), Some(c))
        }
        None => (None, None),
    };
    let mut field = match (doc, &span) {
        (Some(d), Some(s)) => path_at(d, s.start),
        _ => None,
    };
    let mut message = words::plain(e.message().trim());
    // toml says only "duplicate key": name it (the document did not parse, so from the text).
    if let (true, Some(s)) = (message.starts_with("duplicate key"), &span) {
        if let Some(path) = key_path_at(text, s.end) {
            message = format!("duplicate key `{path}`: each key may be given once");
            field = Some(path);
        }
    }
    ScenarioError {
        origin: origin.into(),
        line,
        column,
        field: field.as_deref().map(words::short),
        message,
    }
}

/// Validation context: builds located errors.
struct Cx<'a> {
    text: &'a str,
    origin: &'a str,
    /// The spanned document, parsed on the first error (`None` if it does not parse).
    doc: OnceCell<Option<Spanned<DeTable<'a>>>>,
}

type R<T> = Result<T, ScenarioError>;

impl Cx<'_> {
    fn err(&self, field: &str, message: impl Into<String>) -> ScenarioError {
        let doc = self
            .doc
            .get_or_init(|| DeTable::parse(self.text).ok())
            .as_ref();
        let (line, column) = match doc.and_then(|d| span_of(d.get_ref(), field)) {
            Some(s) => {
                let (l, c) = line_col(self.text, s.start);
                (Some(l), Some(c))
            }
            None => (None, None),
        };
        ScenarioError {
            origin: self.origin.into(),
            line,
            column,
            field: Some(words::short(field)),
            message: words::plain(&message.into()),
        }
    }

    fn prob(&self, field: &str, v: f64) -> R<f64> {
        if (0.0..=1.0).contains(&v) {
            Ok(v)
        } else {
            Err(self.err(field, format!("must be in [0, 1], got {v}")))
        }
    }

    fn positive(&self, field: &str, v: f64) -> R<f64> {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(self.err(field, format!("must be > 0, got {v}")))
        }
    }

    /// Milliseconds (≥ 0, at most ~11 days) to nanoseconds.
    fn ms(&self, field: &str, v: f64) -> R<u64> {
        if v.is_finite() && (0.0..=1e9).contains(&v) {
            Ok((v * 1e6).round() as u64)
        } else {
            Err(self.err(
                field,
                format!("must be a duration from 0 to 1e9 ms, got {v}"),
            ))
        }
    }

    fn at_least(&self, field: &str, v: u64, min: u64) -> R<u64> {
        if v >= min {
            Ok(v)
        } else {
            Err(self.err(field, format!("must be at least {min}, got {v}")))
        }
    }

    fn config(&self, field: &str, e: ConfigError) -> ScenarioError {
        self.err(field, e.to_string())
    }

    fn build(&self, raw: Raw) -> R<Scenario> {
        let seed = raw.seed.unwrap_or(DEFAULT_SEED);
        let max_time_s =
            self.positive("max_time_s", raw.max_time_s.unwrap_or(DEFAULT_MAX_TIME_S))?;
        if max_time_s > 1e7 {
            return Err(self.err("max_time_s", "must be at most 1e7 s"));
        }
        let sender = self.sender(&raw.sender)?;
        let mss = u64::from(sender.mss);
        let (forward, reverse) = self.links(&raw.path, mss)?;
        let loss = match &raw.path.loss {
            Some(l) => self.loss("path.loss", l, true)?,
            None => LossSpec::None,
        };
        let ack_loss = match &raw.path.ack_loss {
            Some(l) => self.loss("path.ack_loss", l, false)?,
            None => LossSpec::None,
        };
        let reorder = raw
            .path
            .reorder
            .as_ref()
            .map(|r| self.reorder("path.reorder", r))
            .transpose()?;
        let ack_reorder = raw
            .path
            .ack_reorder
            .as_ref()
            .map(|r| self.reorder("path.ack_reorder", r))
            .transpose()?;
        let spikes = raw
            .path
            .delay_spikes
            .as_ref()
            .map(|s| self.spikes(s, seed))
            .transpose()?;
        let jitter = raw
            .path
            .jitter
            .as_ref()
            .map(|j| self.jitter("path.jitter", j))
            .transpose()?;
        let ack_jitter = raw
            .path
            .ack_jitter
            .as_ref()
            .map(|j| self.jitter("path.ack_jitter", j))
            .transpose()?;
        let receiver = self.receiver(&raw.receiver, &sender)?;
        let workload = self.workload(&raw.workload)?;
        let max_time_ns = (max_time_s * 1e9).round() as u64;
        let start_ns = self.ms("workload.start_ms", raw.workload.start_ms.unwrap_or(0.0))?;
        if start_ns > 0 && start_ns >= max_time_ns {
            return Err(self.err(
                "workload.start_ms",
                format!("must be before max_time_s ({max_time_s} s): no connection would start"),
            ));
        }
        let background = self.background(&raw.background, forward.rate_bps)?;
        Ok(Scenario {
            origin: self.origin.into(),
            seed,
            max_time_ns,
            start_ns,
            forward,
            reverse,
            loss,
            ack_loss,
            reorder,
            ack_reorder,
            spikes,
            jitter,
            ack_jitter,
            receiver,
            sender_alg: std::sync::Arc::new(sender.resolve(sender.sack, sender.timestamps)),
            sender: std::sync::Arc::new(sender),
            workload,
            background,
        })
    }

    fn sender(&self, t: &BTreeMap<String, toml::Value>) -> R<Config> {
        let mut c = match t.get("preset") {
            None => Config::preset("rfc").map_err(|e| self.config("sender.preset", e))?,
            Some(toml::Value::String(name)) => {
                Config::preset(name).map_err(|e| self.config("sender.preset", e))?
            }
            Some(v) => {
                return Err(self.err(
                    "sender.preset",
                    format!("expected a string, got {}", v.type_str()),
                ))
            }
        };
        for (axis, v) in t.iter().filter(|(k, _)| k.as_str() != "preset") {
            let field = format!("sender.{axis}");
            let text = match v {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => {
                    (*f as i64).to_string()
                }
                toml::Value::Float(f) => f.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => {
                    return Err(self.err(
                        &field,
                        format!(
                            "expected a string, number or boolean, got {}",
                            other.type_str()
                        ),
                    ))
                }
            };
            match c.set(axis, &text) {
                // Relations between axes are checked once all are set (keys come sorted).
                Ok(()) | Err(ConfigError::Invalid(_)) => {}
                Err(e) => return Err(self.config(&field, e)),
            }
        }
        c.validate().map_err(|e| self.config("sender", e))?;
        Ok(c)
    }

    fn queue(
        &self,
        table: &str,
        packets: Option<u64>,
        bytes: Option<u64>,
        mss: u64,
    ) -> R<Option<QueueLimit>> {
        match (packets, bytes) {
            (Some(_), Some(_)) => Err(self.err(
                &format!("{table}.queue_bytes"),
                "give queue_packets or queue_bytes, not both",
            )),
            (Some(p), None) => Ok(Some(QueueLimit::Packets(self.at_least(
                &format!("{table}.queue_packets"),
                p,
                1,
            )?))),
            (None, Some(b)) => Ok(Some(QueueLimit::Bytes(self.at_least(
                &format!("{table}.queue_bytes"),
                b,
                mss + HEADER_BYTES,
            )?))),
            (None, None) => Ok(None),
        }
    }

    fn rate(&self, field: &str, mbps: f64) -> R<u64> {
        let mbps = self.positive(field, mbps)?;
        if mbps > 1e6 {
            return Err(self.err(field, "must be at most 1e6 Mb/s"));
        }
        Ok(((mbps * 1e6).round() as u64).max(1))
    }

    fn links(&self, p: &RawPath, mss: u64) -> R<(LinkSpec, LinkSpec)> {
        let rtt = match p.rtt_ms {
            Some(v) => Some(self.ms("path.rtt_ms", v)?),
            None => None,
        };
        let fwd_delay = match p.delay_ms {
            Some(v) => self.ms("path.delay_ms", v)?,
            None => rtt.unwrap_or((DEFAULT_RTT_MS * 1e6) as u64) / 2,
        };
        let rev_default = match (rtt, p.delay_ms) {
            (Some(r), Some(_)) => r.checked_sub(fwd_delay).ok_or_else(|| {
                self.err(
                    "path.delay_ms",
                    "one-way delay_ms exceeds rtt_ms (the reverse delay would be negative)",
                )
            })?,
            _ => fwd_delay,
        };
        let rate = self.rate("path.rate_mbps", p.rate_mbps.unwrap_or(DEFAULT_RATE_MBPS))?;
        let queue = self
            .queue("path", p.queue_packets, p.queue_bytes, mss)?
            .unwrap_or(QueueLimit::Packets(DEFAULT_QUEUE_PACKETS));
        let ecn_mark_packets = p
            .ecn_mark_packets
            .map(|k| self.at_least("path.ecn_mark_packets", k, 1))
            .transpose()?;
        let forward = LinkSpec {
            rate_bps: rate,
            delay_ns: fwd_delay,
            queue,
            ecn_mark_packets,
        };
        // ACKs are never ECT (RFC 3168 §6.1.4): the reverse queue does not mark.
        let mut reverse = LinkSpec {
            delay_ns: rev_default,
            ecn_mark_packets: None,
            ..forward
        };
        if let Some(r) = &p.reverse {
            if let Some(v) = r.delay_ms {
                reverse.delay_ns = self.ms("path.reverse.delay_ms", v)?;
            }
            if let Some(v) = r.rate_mbps {
                reverse.rate_bps = self.rate("path.reverse.rate_mbps", v)?;
            }
            if let Some(q) = self.queue("path.reverse", r.queue_packets, r.queue_bytes, 0)? {
                reverse.queue = q;
            }
        }
        Ok((forward, reverse))
    }

    fn reorder(&self, table: &str, r: &RawReorder) -> R<ReorderSpec> {
        let f = |k: &str| format!("{table}.{k}");
        let fraction = self.prob(&f("fraction"), r.fraction.unwrap_or(0.0))?;
        let delay_ms = r
            .delay_ms
            .ok_or_else(|| self.err(table, "reordering needs `delay_ms`"))?;
        let delay_ns = self.ms(&f("delay_ms"), delay_ms)?;
        let delay_max_ns = match r.delay_max_ms {
            Some(m) => {
                let m = self.ms(&f("delay_max_ms"), m)?;
                if m < delay_ns {
                    return Err(self.err(&f("delay_max_ms"), "must be at least delay_ms"));
                }
                Some(m)
            }
            None => None,
        };
        let mut packets = r.packets.clone().unwrap_or_default();
        packets.sort_unstable();
        packets.dedup();
        Ok(ReorderSpec {
            packets,
            fraction,
            delay_ns,
            delay_max_ns,
        })
    }

    fn spikes(&self, s: &RawSpikes, seed: u64) -> R<SpikeSpec> {
        let t = "path.delay_spikes";
        let extra = s
            .extra_ms
            .ok_or_else(|| self.err(t, "delay spikes need `extra_ms`"))?;
        let extra_ns = self.ms(
            &format!("{t}.extra_ms"),
            self.positive(&format!("{t}.extra_ms"), extra)?,
        )?;
        let extra_max_ns = match s.extra_max_ms {
            Some(m) => {
                let field = format!("{t}.extra_max_ms");
                let m = self.ms(&field, self.positive(&field, m)?)?;
                if m < extra_ns {
                    return Err(self.err(&field, "must be at least extra_ms"));
                }
                m
            }
            None => extra_ns,
        };
        let start_ns = self.ms(&format!("{t}.start_ms"), s.start_ms.unwrap_or(0.0))?;
        let period_ns = match s.period_ms {
            Some(p) => {
                let field = format!("{t}.period_ms");
                let p = self.ms(&field, self.positive(&field, p)?)?;
                if p <= extra_max_ns {
                    let longest = if s.extra_max_ms.is_some() {
                        "extra_max_ms"
                    } else {
                        "extra_ms"
                    };
                    return Err(self.err(&field, format!("must be longer than {longest}")));
                }
                Some(p)
            }
            None => None,
        };
        if let Some(c) = s.count {
            self.at_least(&format!("{t}.count"), c, 1)?;
        }
        Ok(SpikeSpec {
            start_ns,
            period_ns,
            extra_ns,
            extra_max_ns,
            count: s.count,
            seed,
        })
    }

    fn receiver(&self, r: &RawReceiver, sender: &Config) -> R<ReceiverConfig> {
        let mut c = ReceiverConfig::default();
        c.delayed_ack = match r.delayed_ack_ms.unwrap_or(0) {
            0 => None,
            ms @ 40..=500 => Some(Duration::from_millis(ms)),
            ms => {
                return Err(self.err(
                    "receiver.delayed_ack_ms",
                    format!("must be 0 (ACK every segment) or from 40 to 500 ms, got {ms}"),
                ))
            }
        };
        c.sack = r.sack.unwrap_or(c.sack);
        c.dsack = r.dsack.unwrap_or(c.dsack);
        c.timestamps = r.timestamps.unwrap_or(c.timestamps);
        if let Some(w) = r.window_bytes {
            c.window = self.at_least("receiver.window_bytes", w, u64::from(sender.mss))?;
        }
        if let Some(m) = &r.window_model {
            c.window_model = lossrec::receiver::WindowModel::parse(m).ok_or_else(|| {
                self.err(
                    "receiver.window_model",
                    format!("expected \"linux\" or \"fixed\", got {m:?}"),
                )
            })?;
        }
        c.quickack_segments = r.quickack.unwrap_or(c.quickack_segments);
        c.mss = sender.mss;
        Ok(c)
    }
}

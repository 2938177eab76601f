//! Validation of the `[[background]]` tables (see [`crate::background`]).

use super::raw::RawBackground;
use super::{Cx, R};
use crate::background::{BurstDist, SourceKind, SourceSpec, MAX_SOURCES};
use lossrec::{Config, PRESETS};

/// Default wire size of a background packet.
pub const DEFAULT_PACKET_BYTES: u64 = 1500;

impl Cx<'_> {
    /// `forward_bps`: the forward bottleneck's rate, which a `tcp` source's `load` is a
    /// share of.
    pub(super) fn background(
        &self,
        list: &[RawBackground],
        forward_bps: u64,
    ) -> R<Vec<SourceSpec>> {
        if list.len() > MAX_SOURCES {
            return Err(self.err("background", format!("at most {MAX_SOURCES} sources")));
        }
        list.iter()
            .enumerate()
            .map(|(i, b)| self.source(&format!("background[{i}]"), b, forward_bps))
            .collect()
    }

    fn source(&self, t: &str, b: &RawBackground, forward_bps: u64) -> R<SourceSpec> {
        let f = |k: &str| format!("{t}.{k}");
        let kind = b.kind.as_deref().unwrap_or("cbr");
        if kind == "tcp" {
            return self.tcp_source(t, b, forward_bps);
        }
        for (k, set) in [
            ("load", b.load.is_some()),
            ("preset", b.preset.is_some()),
            ("max_open", b.max_open.is_some()),
        ] {
            if set {
                return Err(self.err(&f(k), "only a `tcp` source takes this key"));
            }
        }
        let rate = b
            .rate_mbps
            .ok_or_else(|| self.err(t, "a background source needs `rate_mbps`"))?;
        let rate_bps = self.rate(&f("rate_mbps"), rate)?;
        let packet_bytes = b.packet_bytes.unwrap_or(DEFAULT_PACKET_BYTES);
        if !(40..=65_535).contains(&packet_bytes) {
            return Err(self.err(
                &f("packet_bytes"),
                format!("must be from 40 to 65535, got {packet_bytes}"),
            ));
        }
        let (start_ns, stop_ns) = self.span(t, b)?;
        let burst_keys = [
            ("rate_per_s", b.rate_per_s.is_some()),
            ("mean_bytes", b.mean_bytes.is_some()),
            ("size_dist", b.size_dist.is_some()),
            ("shape", b.shape.is_some()),
            ("max_bytes", b.max_bytes.is_some()),
        ];
        let kind = match kind {
            "cbr" => {
                if let Some((k, _)) = burst_keys.iter().find(|(_, set)| *set) {
                    return Err(self.err(&f(k), "only a `bursts` source takes this key"));
                }
                SourceKind::Cbr
            }
            "bursts" => {
                let rate_per_s = self.positive(
                    &f("rate_per_s"),
                    b.rate_per_s
                        .ok_or_else(|| self.err(t, "a bursts source needs `rate_per_s`"))?,
                )?;
                let mean = b
                    .mean_bytes
                    .ok_or_else(|| self.err(t, "a bursts source needs `mean_bytes`"))?;
                let mean_bytes = self.positive(&f("mean_bytes"), mean)?;
                if mean_bytes > 1e12 {
                    return Err(self.err(&f("mean_bytes"), "must be at most 1e12"));
                }
                let dist = self.burst_dist(t, b)?;
                let max_bytes = match b.max_bytes {
                    Some(m) => self.at_least(&f("max_bytes"), m, 1)?,
                    None => u64::MAX,
                };
                SourceKind::Bursts {
                    rate_per_s,
                    mean_bytes,
                    dist,
                    max_bytes,
                }
            }
            other => {
                return Err(self.err(
                    &f("kind"),
                    format!("expected cbr, bursts or tcp, got {other:?}"),
                ))
            }
        };
        Ok(SourceSpec {
            kind,
            rate_bps,
            packet_bytes,
            start_ns,
            stop_ns,
        })
    }

    /// A `bursts` or `tcp` source's size distribution (`size_dist`, `shape`).
    fn burst_dist(&self, t: &str, b: &RawBackground) -> R<BurstDist> {
        let f = |k: &str| format!("{t}.{k}");
        Ok(match b.size_dist.as_deref().unwrap_or("pareto") {
            "pareto" => {
                let shape = b.shape.unwrap_or(1.2);
                if !(shape.is_finite() && shape > 1.0 && shape <= 100.0) {
                    return Err(self.err(
                        &f("shape"),
                        format!("a Pareto shape must be in (1, 100] (a finite mean), got {shape}"),
                    ));
                }
                BurstDist::Pareto { shape }
            }
            "lognormal" => {
                let sigma = b.shape.unwrap_or(1.0);
                if !(sigma.is_finite() && sigma > 0.0 && sigma <= 10.0) {
                    return Err(self.err(
                        &f("shape"),
                        format!("a lognormal σ must be in (0, 10], got {sigma}"),
                    ));
                }
                BurstDist::Lognormal { sigma }
            }
            d @ ("exponential" | "fixed") => {
                if b.shape.is_some() {
                    return Err(self.err(&f("shape"), "only pareto and lognormal take `shape`"));
                }
                if d == "fixed" {
                    BurstDist::Fixed
                } else {
                    BurstDist::Exponential
                }
            }
            other => {
                return Err(self.err(
                    &f("size_dist"),
                    format!("expected pareto, lognormal, exponential or fixed, got {other:?}"),
                ))
            }
        })
    }

    /// A `tcp` source: Poisson arrivals of connections whose sizes are drawn like bursts.
    fn tcp_source(&self, t: &str, b: &RawBackground, forward_bps: u64) -> R<SourceSpec> {
        let f = |k: &str| format!("{t}.{k}");
        for (k, set) in [
            ("rate_mbps", b.rate_mbps.is_some()),
            ("packet_bytes", b.packet_bytes.is_some()),
        ] {
            if set {
                return Err(self.err(
                    &f(k),
                    "a `tcp` source's senders set their own pace and segment size \
                     (use `load` or `rate_per_s`, and `preset`)",
                ));
            }
        }
        let mean = b
            .mean_bytes
            .ok_or_else(|| self.err(t, "a tcp source needs `mean_bytes`"))?;
        let mean_bytes = self.positive(&f("mean_bytes"), mean)?;
        if mean_bytes > 1e12 {
            return Err(self.err(&f("mean_bytes"), "must be at most 1e12"));
        }
        let rate_per_s = match (b.rate_per_s, b.load) {
            (Some(r), None) => self.positive(&f("rate_per_s"), r)?,
            (None, Some(l)) => {
                let l = self.positive(&f("load"), l)?;
                if l > 10.0 {
                    return Err(self.err(&f("load"), format!("must be at most 10, got {l}")));
                }
                l * forward_bps as f64 / 8.0 / mean_bytes
            }
            (Some(_), Some(_)) => {
                return Err(self.err(&f("load"), "give `load` or `rate_per_s`, not both"))
            }
            (None, None) => return Err(self.err(t, "a tcp source needs `load` or `rate_per_s`")),
        };
        let dist = self.burst_dist(t, b)?;
        let max_bytes = match b.max_bytes {
            Some(m) => self.at_least(&f("max_bytes"), m, 1)?,
            None => u64::MAX,
        };
        let name = b.preset.as_deref().unwrap_or("linux");
        Config::preset(name).map_err(|e| self.config(&f("preset"), e))?;
        let preset = PRESETS
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.name)
            .expect("Config::preset found it");
        let max_open = self.at_least(&f("max_open"), b.max_open.unwrap_or(1000), 1)?;
        if max_open > 100_000 {
            return Err(self.err(&f("max_open"), "must be at most 100000"));
        }
        let (start_ns, stop_ns) = self.span(t, b)?;
        Ok(SourceSpec {
            kind: SourceKind::Tcp {
                rate_per_s,
                mean_bytes,
                dist,
                max_bytes,
                preset,
                max_open: max_open as u32,
            },
            rate_bps: 0,
            packet_bytes: 0,
            start_ns,
            stop_ns,
        })
    }

    /// `start_ms` and `stop_ms`.
    fn span(&self, t: &str, b: &RawBackground) -> R<(u64, Option<u64>)> {
        let f = |k: &str| format!("{t}.{k}");
        let start_ns = self.ms(&f("start_ms"), b.start_ms.unwrap_or(0.0))?;
        let stop_ns = match b.stop_ms {
            Some(v) => {
                let s = self.ms(&f("stop_ms"), v)?;
                if s <= start_ns {
                    return Err(self.err(&f("stop_ms"), "must be later than start_ms"));
                }
                Some(s)
            }
            None => None,
        };
        Ok((start_ns, stop_ns))
    }
}

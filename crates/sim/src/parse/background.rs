//! Validation of the `[[background]]` tables (see [`crate::background`]).

use super::raw::RawBackground;
use super::{Cx, R};
use crate::background::{BurstDist, SourceKind, SourceSpec, MAX_SOURCES};

/// Default wire size of a background packet.
pub const DEFAULT_PACKET_BYTES: u64 = 1500;

impl Cx<'_> {
    pub(super) fn background(&self, list: &[RawBackground]) -> R<Vec<SourceSpec>> {
        if list.len() > MAX_SOURCES {
            return Err(self.err("background", format!("at most {MAX_SOURCES} sources")));
        }
        list.iter()
            .enumerate()
            .map(|(i, b)| self.source(&format!("background[{i}]"), b))
            .collect()
    }

    fn source(&self, t: &str, b: &RawBackground) -> R<SourceSpec> {
        let f = |k: &str| format!("{t}.{k}");
        let kind = b.kind.as_deref().unwrap_or("cbr");
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
                let dist = match b.size_dist.as_deref().unwrap_or("pareto") {
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
                            return Err(
                                self.err(&f("shape"), "only pareto and lognormal take `shape`")
                            );
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
                            format!(
                                "expected pareto, lognormal, exponential or fixed, got {other:?}"
                            ),
                        ))
                    }
                };
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
                return Err(self.err(&f("kind"), format!("expected cbr or bursts, got {other:?}")))
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
}

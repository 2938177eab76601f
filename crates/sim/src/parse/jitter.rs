//! Validation of the `[path.jitter]` and `[path.ack_jitter]` tables (see [`crate::jitter`]).

use super::raw::RawJitter;
use super::{Cx, R};
use crate::jitter::{JitterDist, JitterSpec};

/// Default cap on one packet's jitter, in means (uniform: its top, 2 means).
const DEFAULT_MAX_MEANS: f64 = 10.0;

impl Cx<'_> {
    pub(super) fn jitter(&self, table: &str, j: &RawJitter) -> R<JitterSpec> {
        let f = |k: &str| format!("{table}.{k}");
        let mean = j
            .mean_ms
            .ok_or_else(|| self.err(table, "jitter needs `mean_ms`"))?;
        let mean_ms = self.positive(&f("mean_ms"), mean)?;
        let mean_ns = self.ms(&f("mean_ms"), mean_ms)?;
        let dist = match j.dist.as_deref().unwrap_or("exponential") {
            "uniform" => JitterDist::Uniform,
            "exponential" => JitterDist::Exponential,
            "pareto" => {
                let shape = j.shape.unwrap_or(2.5);
                if !(shape.is_finite() && shape > 1.0 && shape <= 100.0) {
                    return Err(self.err(
                        &f("shape"),
                        format!("a Pareto shape must be in (1, 100] (a finite mean), got {shape}"),
                    ));
                }
                JitterDist::Pareto { shape }
            }
            other => {
                return Err(self.err(
                    &f("dist"),
                    format!("expected uniform, exponential or pareto, got {other:?}"),
                ))
            }
        };
        if j.shape.is_some() && !matches!(dist, JitterDist::Pareto { .. }) {
            return Err(self.err(&f("shape"), "only a pareto jitter takes `shape`"));
        }
        let default_max = match dist {
            JitterDist::Uniform => 2.0 * mean_ms,
            _ => DEFAULT_MAX_MEANS * mean_ms,
        };
        let max_ms = j.max_ms.unwrap_or(default_max);
        let max_ns = self.ms(&f("max_ms"), self.positive(&f("max_ms"), max_ms)?)?;
        if max_ns < mean_ns {
            return Err(self.err(&f("max_ms"), "must be at least mean_ms"));
        }
        Ok(JitterSpec {
            dist,
            mean_ns,
            max_ns,
            reorder: j.reorder.unwrap_or(false),
        })
    }
}

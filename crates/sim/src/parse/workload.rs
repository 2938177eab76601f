//! Validation of the `[workload]` table, whose allowed keys depend on its `kind`.

use super::raw::RawWorkload;
use super::{Cx, DEFAULT_BULK_S, DEFAULT_SEGMENTS, R};
use crate::workload::{
    Arrival, Size, SizeDist, Workload, MEMORY_BUDGET, OPEN_FLOW_BYTES, RESULT_BYTES,
};

/// Most entries a `writes` workload may list.
pub(super) const MAX_WRITES: usize = 1_000_000;

impl Cx<'_> {
    pub(super) fn workload(&self, w: &RawWorkload) -> R<Workload> {
        let kind = w.kind.as_deref().unwrap_or("flows");
        let present: Vec<&str> = [
            ("flows", w.flows.is_some()),
            ("segments", w.segments.is_some()),
            ("bytes", w.bytes.is_some()),
            ("arrival", w.arrival.is_some()),
            ("rate_per_s", w.rate_per_s.is_some()),
            ("requests", w.requests.is_some()),
            ("response_bytes", w.response_bytes.is_some()),
            ("response_segments", w.response_segments.is_some()),
            ("think_ms", w.think_ms.is_some()),
            ("duration_s", w.duration_s.is_some()),
            ("connections", w.connections.is_some()),
            ("response_dist", w.response_dist.is_some()),
            ("response_sigma", w.response_sigma.is_some()),
            ("response_max_bytes", w.response_max_bytes.is_some()),
            ("writes", w.writes.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, set)| set.then_some(k))
        .collect();
        let allowed: &[&str] = match kind {
            "flows" => &["flows", "segments", "bytes", "arrival", "rate_per_s"],
            "request-response" => &[
                "connections",
                "arrival",
                "rate_per_s",
                "requests",
                "response_bytes",
                "response_segments",
                "response_dist",
                "response_sigma",
                "response_max_bytes",
                "think_ms",
            ],
            "writes" => &["writes", "connections", "arrival", "rate_per_s"],
            "bulk" => &["flows", "duration_s"],
            other => {
                return Err(self.err(
                    "workload.kind",
                    format!(
                        "unknown workload `{other}`; valid: flows, request-response, writes, bulk"
                    ),
                ))
            }
        };
        if let Some(k) = present.iter().find(|k| !allowed.contains(k)) {
            return Err(self.err(
                &format!("workload.{k}"),
                format!(
                    "not a key of workload `{kind}` (its keys: {})",
                    allowed.join(", ")
                ),
            ));
        }
        let size =
            |seg_key: &str, seg: Option<u64>, bytes_key: &str, bytes: Option<u64>| -> R<Size> {
                match (seg, bytes) {
                    (Some(_), Some(_)) => Err(self.err(
                        &format!("workload.{bytes_key}"),
                        format!("give {seg_key} or {bytes_key}, not both"),
                    )),
                    (Some(s), None) => Ok(Size::Segments(self.at_least(
                        &format!("workload.{seg_key}"),
                        s,
                        1,
                    )?)),
                    (None, Some(b)) => Ok(Size::Bytes(self.at_least(
                        &format!("workload.{bytes_key}"),
                        b,
                        1,
                    )?)),
                    (None, None) => Ok(Size::Segments(DEFAULT_SEGMENTS)),
                }
            };
        let flows = self.at_least("workload.flows", w.flows.unwrap_or(1), 1)?;
        let workload = match kind {
            "flows" => Workload::Flows {
                flows,
                size: size("segments", w.segments, "bytes", w.bytes)?,
                arrival: self.arrival(w)?,
            },
            "request-response" => {
                let connections =
                    self.at_least("workload.connections", w.connections.unwrap_or(1), 1)?;
                let requests = self.at_least("workload.requests", w.requests.unwrap_or(1), 1)?;
                Workload::RequestResponse {
                    connections,
                    arrival: self.arrival(w)?,
                    requests,
                    response: size(
                        "response_segments",
                        w.response_segments,
                        "response_bytes",
                        w.response_bytes,
                    )?,
                    dist: self.size_dist(w)?,
                    max_bytes: match w.response_max_bytes {
                        Some(m) => self.at_least("workload.response_max_bytes", m, 1)?,
                        None => u64::MAX,
                    },
                    think_ns: self.ms("workload.think_ms", w.think_ms.unwrap_or(0.0))?,
                }
            }
            "writes" => Workload::Writes {
                writes: self.writes(w)?,
                connections: self.at_least(
                    "workload.connections",
                    w.connections.unwrap_or(1),
                    1,
                )?,
                arrival: self.arrival(w)?,
            },
            _ => {
                let d = self.positive(
                    "workload.duration_s",
                    w.duration_s.unwrap_or(DEFAULT_BULK_S),
                )?;
                Workload::Bulk {
                    flows,
                    duration_ns: self.ms("workload.duration_s", d * 1e3)?,
                }
            }
        };
        self.fits(&workload)?;
        Ok(workload)
    }

    /// A workload whose results and open flows would not fit [`MEMORY_BUDGET`] is refused
    /// now, naming the key that sizes it, rather than aborting the run on an allocation.
    fn fits(&self, w: &Workload) -> R<()> {
        let need = w.memory_estimate();
        if need <= MEMORY_BUDGET {
            return Ok(());
        }
        let key = match w {
            Workload::RequestResponse { requests, .. } if *requests > 1 => "workload.requests",
            Workload::RequestResponse { .. } | Workload::Writes { .. } => "workload.connections",
            _ => "workload.flows",
        };
        let gb = |b: u64| b as f64 / 1e9;
        let open = match w.peak_open() {
            1 => "one flow open at a time".to_string(),
            n => format!(
                "{n} flows open at once at ~{} KB each",
                OPEN_FLOW_BYTES / 1000
            ),
        };
        Err(self.err(
            key,
            format!(
                "this workload needs about {:.1} GB of simulator memory ({} results at ~{} \
                 bytes each, {open}), and a run may use at most {:.1} GB: use fewer connections, \
                 or several smaller runs",
                gb(need),
                w.results(),
                RESULT_BYTES,
                gb(MEMORY_BUDGET)
            ),
        ))
    }

    fn arrival(&self, w: &RawWorkload) -> R<Arrival> {
        let arrival = match w.arrival.as_deref().unwrap_or("sequential") {
            "sequential" => Arrival::Sequential,
            "concurrent" => Arrival::Concurrent,
            "poisson" => {
                let r = w.rate_per_s.ok_or_else(|| {
                    self.err("workload.arrival", "poisson arrivals need `rate_per_s`")
                })?;
                Arrival::Poisson {
                    rate_per_s: self.positive("workload.rate_per_s", r)?,
                }
            }
            other => {
                return Err(self.err(
                    "workload.arrival",
                    format!("unknown arrival `{other}`; valid: sequential, concurrent, poisson"),
                ))
            }
        };
        if w.rate_per_s.is_some() && !matches!(arrival, Arrival::Poisson { .. }) {
            return Err(self.err(
                "workload.rate_per_s",
                "only poisson arrivals take rate_per_s",
            ));
        }
        Ok(arrival)
    }

    fn size_dist(&self, w: &RawWorkload) -> R<SizeDist> {
        let dist = match w.response_dist.as_deref().unwrap_or("fixed") {
            "fixed" => SizeDist::Fixed,
            "exponential" => SizeDist::Exponential,
            "lognormal" => {
                let sigma = w.response_sigma.unwrap_or(1.0);
                if !(sigma.is_finite() && sigma > 0.0 && sigma <= 5.0) {
                    return Err(self.err(
                        "workload.response_sigma",
                        format!("must be in (0, 5], got {sigma}"),
                    ));
                }
                SizeDist::Lognormal { sigma }
            }
            other => {
                return Err(self.err(
                    "workload.response_dist",
                    format!("unknown distribution `{other}`; valid: fixed, exponential, lognormal"),
                ))
            }
        };
        if w.response_sigma.is_some() && !matches!(dist, SizeDist::Lognormal { .. }) {
            return Err(self.err(
                "workload.response_sigma",
                "only the lognormal distribution takes response_sigma",
            ));
        }
        Ok(dist)
    }

    /// `[[time_ms, bytes], ...]` → (ns, bytes) sorted by time (ties keep their order).
    fn writes(&self, w: &RawWorkload) -> R<Vec<(u64, u64)>> {
        let list = w.writes.as_deref().unwrap_or_default();
        if list.is_empty() {
            return Err(self.err(
                "workload.writes",
                "a writes workload needs at least one [time_ms, bytes] entry",
            ));
        }
        if list.len() > MAX_WRITES {
            return Err(self.err("workload.writes", format!("at most {MAX_WRITES} entries")));
        }
        let mut out = Vec::with_capacity(list.len());
        for (i, entry) in list.iter().enumerate() {
            let &[t, bytes] = entry.as_slice() else {
                return Err(self.err(
                    &format!("workload.writes[{i}]"),
                    format!("expected [time_ms, bytes], got {} numbers", entry.len()),
                ));
            };
            let at = self.ms(&format!("workload.writes[{i}][0]"), t)?;
            let field = format!("workload.writes[{i}][1]");
            if !(bytes.fract() == 0.0 && (1.0..=1e15).contains(&bytes)) {
                return Err(self.err(
                    &field,
                    format!("bytes must be a whole number from 1 to 1e15, got {bytes}"),
                ));
            }
            out.push((at, bytes as u64));
        }
        out.sort_by_key(|&(t, _)| t);
        Ok(out)
    }
}

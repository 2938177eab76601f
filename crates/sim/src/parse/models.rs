//! Validation of the loss-model tables, whose allowed keys depend on their `model`.

use super::raw::{RawDrop, RawLoss};
use super::{Cx, R};
use crate::loss::{DropTarget, LossSpec, SeqDrop};

impl Cx<'_> {
    pub(super) fn loss(&self, table: &str, l: &RawLoss, data: bool) -> R<LossSpec> {
        let present: Vec<&str> = [
            ("p", l.p.is_some()),
            ("p_good_bad", l.p_good_bad.is_some()),
            ("p_bad_good", l.p_bad_good.is_some()),
            ("loss_good", l.loss_good.is_some()),
            ("loss_bad", l.loss_bad.is_some()),
            ("packets", l.packets.is_some()),
            ("drops", l.drops.is_some()),
            ("count", l.count.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, set)| set.then_some(k))
        .collect();
        let model = l
            .model
            .as_deref()
            .unwrap_or(if present.is_empty() { "none" } else { "" });
        let f = |k: &str| format!("{table}.{k}");
        let allowed: &[&str] = match model {
            "none" => &[],
            "bernoulli" => &["p"],
            "gilbert-elliott" => &["p_good_bad", "p_bad_good", "loss_good", "loss_bad"],
            "drop-list" if data => &["packets", "drops"],
            "drop-list" => &["packets"],
            "tail" if data => &["count"],
            "" => return Err(self.err(table, "`model` is required when other loss keys are given")),
            other => {
                let valid = if data {
                    "none, bernoulli, gilbert-elliott, drop-list, tail"
                } else {
                    "none, bernoulli, gilbert-elliott, drop-list (ACK loss has no tail model)"
                };
                return Err(self.err(
                    &f("model"),
                    format!("unknown loss model `{other}`; valid: {valid}"),
                ));
            }
        };
        if let Some(k) = present.iter().find(|k| !allowed.contains(k)) {
            let keys = if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            };
            return Err(self.err(
                &f(k),
                format!("not a key of model `{model}` here (its keys: {keys})"),
            ));
        }
        let need = |k: &str, v: Option<f64>| {
            v.ok_or_else(|| self.err(&f(k), format!("model `{model}` needs `{k}`")))
        };
        Ok(match model {
            "bernoulli" => LossSpec::Bernoulli {
                p: self.prob(&f("p"), need("p", l.p)?)?,
            },
            "gilbert-elliott" => LossSpec::GilbertElliott {
                p_good_bad: self.prob(&f("p_good_bad"), need("p_good_bad", l.p_good_bad)?)?,
                p_bad_good: self.prob(&f("p_bad_good"), need("p_bad_good", l.p_bad_good)?)?,
                loss_good: self.prob(&f("loss_good"), l.loss_good.unwrap_or(0.0))?,
                loss_bad: self.prob(&f("loss_bad"), l.loss_bad.unwrap_or(1.0))?,
            },
            "drop-list" => {
                if l.packets.is_none() && l.drops.is_none() {
                    return Err(self.err(table, "model `drop-list` needs `packets` and/or `drops`"));
                }
                let mut packets = l.packets.clone().unwrap_or_default();
                packets.sort_unstable();
                packets.dedup();
                let drops = l
                    .drops
                    .iter()
                    .flatten()
                    .enumerate()
                    .map(|(i, d)| self.drop_rule(&format!("{table}.drops[{i}]"), d))
                    .collect::<R<Vec<_>>>()?;
                LossSpec::DropList { packets, drops }
            }
            "tail" => LossSpec::Tail {
                count: self.at_least(&f("count"), l.count.unwrap_or(1), 1)?,
            },
            _ => LossSpec::None,
        })
    }

    pub(super) fn drop_rule(&self, at: &str, d: &RawDrop) -> R<SeqDrop> {
        let target = match (d.segment, &d.seq) {
            (Some(n), None) => DropTarget::Segment(n),
            (None, Some(s)) => match s.as_slice() {
                [a, b] if a < b => DropTarget::Seq(*a, *b),
                _ => {
                    return Err(self.err(
                        &format!("{at}.seq"),
                        "must be [start, end] with start < end (stream offsets)",
                    ))
                }
            },
            (Some(_), Some(_)) => {
                return Err(self.err(&format!("{at}.seq"), "give `segment` or `seq`, not both"))
            }
            (None, None) => return Err(self.err(at, "a drop rule needs `segment` or `seq`")),
        };
        let transmission = d.transmission.unwrap_or(1);
        if transmission == 0 {
            return Err(self.err(
                &format!("{at}.transmission"),
                "transmissions count from 1 (the first)",
            ));
        }
        Ok(SeqDrop {
            flow: d.flow,
            target,
            transmission,
        })
    }
}

//! Serde structs that mirror the scenario file; unknown keys are rejected everywhere.
//! The same structs give the file's JSON Schema ([`super::schema`]), so editors check
//! exactly the keys the parser accepts.

use schemars::JsonSchema;
use serde::Deserialize;
use std::collections::BTreeMap;

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Raw {
    pub(super) seed: Option<u64>,
    pub(super) max_time_s: Option<f64>,
    #[serde(default)]
    pub(super) path: RawPath,
    #[serde(default)]
    pub(super) receiver: RawReceiver,
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    pub(super) sender: BTreeMap<String, toml::Value>,
    #[serde(default)]
    pub(super) workload: RawWorkload,
    #[serde(default)]
    pub(super) background: Vec<RawBackground>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBackground {
    pub(super) kind: Option<String>,
    pub(super) rate_mbps: Option<f64>,
    pub(super) packet_bytes: Option<u64>,
    pub(super) start_ms: Option<f64>,
    pub(super) stop_ms: Option<f64>,
    pub(super) rate_per_s: Option<f64>,
    pub(super) mean_bytes: Option<f64>,
    pub(super) size_dist: Option<String>,
    pub(super) shape: Option<f64>,
    pub(super) max_bytes: Option<u64>,
    pub(super) load: Option<f64>,
    pub(super) preset: Option<String>,
    pub(super) max_open: Option<u64>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPath {
    pub(super) rtt_ms: Option<f64>,
    pub(super) delay_ms: Option<f64>,
    pub(super) rate_mbps: Option<f64>,
    pub(super) queue_packets: Option<u64>,
    pub(super) queue_bytes: Option<u64>,
    /// Mark ECT data packets CE when this many packets are queued ahead of them.
    pub(super) ecn_mark_packets: Option<u64>,
    pub(super) reverse: Option<RawReverse>,
    pub(super) loss: Option<RawLoss>,
    pub(super) ack_loss: Option<RawLoss>,
    pub(super) reorder: Option<RawReorder>,
    pub(super) ack_reorder: Option<RawReorder>,
    pub(super) delay_spikes: Option<RawSpikes>,
    pub(super) jitter: Option<RawJitter>,
    pub(super) ack_jitter: Option<RawJitter>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawJitter {
    pub(super) dist: Option<String>,
    pub(super) mean_ms: Option<f64>,
    pub(super) max_ms: Option<f64>,
    pub(super) shape: Option<f64>,
    pub(super) reorder: Option<bool>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReverse {
    pub(super) delay_ms: Option<f64>,
    pub(super) rate_mbps: Option<f64>,
    pub(super) queue_packets: Option<u64>,
    pub(super) queue_bytes: Option<u64>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawLoss {
    pub(super) model: Option<String>,
    pub(super) p: Option<f64>,
    pub(super) p_good_bad: Option<f64>,
    pub(super) p_bad_good: Option<f64>,
    pub(super) loss_good: Option<f64>,
    pub(super) loss_bad: Option<f64>,
    pub(super) packets: Option<Vec<u64>>,
    pub(super) drops: Option<Vec<RawDrop>>,
    pub(super) count: Option<u64>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawDrop {
    pub(super) segment: Option<u64>,
    pub(super) seq: Option<Vec<u64>>,
    pub(super) transmission: Option<u32>,
    pub(super) flow: Option<u64>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReorder {
    pub(super) packets: Option<Vec<u64>>,
    pub(super) fraction: Option<f64>,
    pub(super) delay_ms: Option<f64>,
    pub(super) delay_max_ms: Option<f64>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSpikes {
    pub(super) start_ms: Option<f64>,
    pub(super) period_ms: Option<f64>,
    pub(super) extra_ms: Option<f64>,
    pub(super) extra_max_ms: Option<f64>,
    pub(super) count: Option<u64>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawReceiver {
    pub(super) delayed_ack_ms: Option<u64>,
    pub(super) sack: Option<bool>,
    pub(super) dsack: Option<bool>,
    pub(super) timestamps: Option<bool>,
    pub(super) window_bytes: Option<u64>,
    pub(super) window_model: Option<String>,
    pub(super) quickack: Option<u32>,
}

#[derive(Deserialize, Default, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawWorkload {
    pub(super) kind: Option<String>,
    pub(super) flows: Option<u64>,
    pub(super) segments: Option<u64>,
    pub(super) bytes: Option<u64>,
    pub(super) arrival: Option<String>,
    pub(super) rate_per_s: Option<f64>,
    pub(super) requests: Option<u64>,
    pub(super) response_bytes: Option<u64>,
    pub(super) response_segments: Option<u64>,
    pub(super) think_ms: Option<f64>,
    pub(super) duration_s: Option<f64>,
    pub(super) connections: Option<u64>,
    pub(super) response_dist: Option<String>,
    pub(super) response_sigma: Option<f64>,
    pub(super) response_max_bytes: Option<u64>,
    /// `[[time_ms, bytes], ...]`
    pub(super) writes: Option<Vec<Vec<f64>>>,
    /// When the first connection starts, ms (default 0).
    pub(super) start_ms: Option<f64>,
}

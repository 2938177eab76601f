//! Scenario files: the path, the endpoints and the workload of one simulation, as TOML.
//!
//! Every key is optional; unknown keys are errors. Errors name the origin (file), line,
//! column and dotted field (`path.loss.p`). Times are milliseconds unless the key says
//! otherwise; numbers may be integers or floats where a fraction makes sense.
//!
//! Sizes are checked while the file is read: at most 16 MiB
//! ([`crate::MAX_SCENARIO_BYTES`]), 64 `[[background]]` tables, 1,000,000 entries in
//! `workload.writes` or any other array, 1024 tables, nesting 32 deep. An error quotes at
//! most 80 characters of a value or key, then `…` and its length.
//!
//! ```toml
//! seed = 1                 # default 1; RunOptions::seed overrides it
//! max_time_s = 3600        # simulated-time safety limit (default 3600): unfinished flows
//!                          # report fct null
//!
//! [path]                   # the bottleneck, data direction (sender → receiver)
//! rtt_ms = 100             # base RTT (default 100): each direction gets rtt_ms / 2 ...
//! delay_ms = 50            # ... unless the one-way delay is given; with both, the reverse
//!                          # direction gets rtt_ms - delay_ms
//! rate_mbps = 10           # default 10 (Mb/s, > 0)
//! queue_packets = 100      # drop-tail limit (default 100 packets), or:
//! # queue_bytes = 150000
//! # ecn_mark_packets = 20  # mark ECT data CE with this many packets ahead (RFC 3168;
//! #                        # needs sender ecn = "on"); default: never
//!
//! [path.reverse]           # ACK direction; each key defaults to the forward value
//! rate_mbps = 10           # (delay_ms as described above)
//!
//! [path.loss]              # data-direction losses (default model = "none")
//! model = "tail"           # none | bernoulli | gilbert-elliott | drop-list | tail
//! count = 1                # tail: last `count` segments' first transmissions (default 1)
//! # bernoulli: p
//! # gilbert-elliott: p_good_bad, p_bad_good, loss_good (default 0), loss_bad (default 1)
//! # drop-list: packets = [0-based data packet indices, per flow, retransmissions counted]
//! #            and/or [[path.loss.drops]] tables:
//! #              segment = 4          # the 5th MSS-sized segment, or
//! #              seq = [0, 2896]      # stream offsets [start, end)
//! #              transmission = 1     # 1 = first (default), 2 = first retransmission, ...
//! #              flow = 0             # only this flow (default: every flow)
//!
//! [path.ack_loss]          # ACK-direction losses: none | bernoulli | gilbert-elliott |
//! model = "none"           # drop-list with `packets` (indices of ACKs, SYN-ACK excluded)
//!
//! [path.reorder]           # data-direction reordering (ACKs: [path.ack_reorder])
//! packets = [3]            # these data packet indices, and/or
//! fraction = 0.0           # this fraction at random
//! delay_ms = 20            # extra delay; uniform in [delay_ms, delay_max_ms] if a max is given
//! # delay_max_ms = 40
//!
//! [path.delay_spikes]      # both directions stall: packets arriving during a spike arrive
//! start_ms = 5000          # at its end (default start 0)
//! period_ms = 10000        # omit for a single spike
//! extra_ms = 3000          # required, < period_ms
//! # extra_max_ms = 8000    # each spike's stall uniform in [extra_ms, extra_max_ms],
//! #                        # drawn from the run's seed (< period_ms)
//! # count = 3              # at most this many spikes
//!
//! [path.jitter]            # per-packet extra delay, data direction (ACKs: [path.ack_jitter])
//! mean_ms = 5              # required (> 0)
//! dist = "exponential"     # uniform (on [0, 2·mean]) | exponential (default) | pareto
//! # shape = 2.5            # pareto: α > 1 (default 2.5)
//! # max_ms = 50            # no packet delayed more (default 10·mean; uniform: 2·mean)
//! # reorder = false        # default false: a packet never overtakes the one ahead of it
//! #                        # (held behind it); true: each packet keeps its own draw
//!
//! [receiver]
//! delayed_ack_ms = 0       # 0 (default) = ACK every segment, else 40..=500
//! sack = true              # default true
//! dsack = true             # default true
//! timestamps = true        # default true
//! # window_bytes = 16777216  # fixed: the window; linux: the most autotuning grows to
//! window_model = "linux"   # linux (default): Linux's initial window (64 KiB in whole
//!                          # segments), growth, autotuning and fixed right edge while a
//!                          # segment is missing | fixed: window_bytes on every ACK
//! # quickack = 16          # Linux quick-ACK segments at start (0 = off)
//!
//! [sender]
//! preset = "rfc"           # default "rfc"; see lossrec::PRESETS
//! mss = 1448               # any Config axis (lossrec::config::AXES) with its text value,
//! initial_cwnd = 10        # e.g. min_rto_ms = 200, cc = "cubic", handshake = false
//!
//! [workload]
//! kind = "flows"           # flows (default) | request-response | writes | bulk
//! flows = 1                # flows, bulk: connections (default 1)
//! segments = 10            # flows: size in MSS-sized segments (default 10), or bytes = ...
//! arrival = "sequential"   # flows, request-response, writes: sequential (default) |
//!                          # concurrent | poisson (connections start as the previous one
//!                          # finishes, all at t = 0, or at exponential gaps)
//! # rate_per_s = 10        # poisson: mean arrivals per second
//! # connections = 1        # request-response, writes: connections (default 1)
//! # requests = 10          # request-response: responses per connection (default 1)
//! # response_segments = 10 # or response_bytes: the (mean) response size (default 10 segments)
//! # response_dist = "fixed"   # fixed (default) | exponential | lognormal, drawn per
//! #                        # connection from its own seeded stream (the same responses
//! #                        # whatever the sender does)
//! # response_sigma = 1.0   # lognormal: σ of the underlying normal (default 1)
//! # response_max_bytes = 1000000  # cap on drawn sizes (default none)
//! # think_ms = 0           # client think time after each response (default 0)
//! # writes = [[0, 20000], [500, 10000]]  # writes: connections (default 1; with
//! #                        # connections and arrival as above) whose application writes
//! #                        # [time_ms after the connection starts, bytes], then closes
//! # duration_s = 10        # bulk: measured duration (default 10)
//! # start_ms = 0           # when the first connection starts (default 0; the others
//! #                        # arrive after it as `arrival` says); bulk measures
//! #                        # duration_s from there
//!
//! [[background]]           # traffic sharing the forward bottleneck queue (any
//! kind = "cbr"             # number of tables, at most 64): cbr | bursts | tcp
//! rate_mbps = 0.5          # cbr: the stream's rate; bursts: each burst's sending rate
//! packet_bytes = 1000      # wire bytes per packet (default 1500, 40..=65535)
//! start_ms = 0             # default 0
//! # stop_ms = 60000        # default: never
//! # bursts: rate_per_s = 5 (Poisson burst arrivals, required), mean_bytes = 60000
//! #   (required), size_dist = "pareto" (pareto (default) | lognormal | exponential |
//! #   fixed), shape = 1.2 (pareto: α > 1, default 1.2; lognormal: σ, default 1),
//! #   max_bytes = 10000000 (cap on a burst, default none)
//! # tcp: responsive background: short TCP connections (each a lossrec Sender/Receiver
//! #   pair, the [receiver] table's settings) arriving as a Poisson process, sizes drawn
//! #   as for bursts (mean_bytes required, size_dist, shape, max_bytes); the arrival rate
//! #   is rate_per_s, or load = 0.3 (the offered share of the forward rate_mbps);
//! #   preset = "linux" (the sender preset, default "linux"); max_open = 1000 (arrivals
//! #   while this many are open are turned away and counted; default 1000). They meet
//! #   the measured flows in both bottleneck queues, the jitter and the delay spikes, not
//! #   the loss or reordering models (those name the measured flows' packets).
//! ```
//!
//! Background packets and connections are not reported as flows; `RunOutput::background`
//! counts them (for `tcp` sources also connections, delivered bytes, retransmissions
//! and timeouts).
//!
//! The receiver announces the sender's MSS, so `segments` are exactly `mss`-byte segments.

use crate::background::SourceSpec;
use crate::jitter::JitterSpec;
use crate::link::{LinkSpec, SpikeSpec};
use crate::loss::LossSpec;
use crate::reorder::ReorderSpec;
use crate::workload::Workload;
use crate::ScenarioError;
use lossrec::config::resolved::Algorithms;
use lossrec::{Config, ReceiverConfig};
use std::sync::Arc;

/// A parsed, validated scenario file.
#[derive(Clone, Debug)]
pub struct Scenario {
    pub(crate) origin: String,
    pub(crate) seed: u64,
    pub(crate) max_time_ns: u64,
    pub(crate) forward: LinkSpec,
    pub(crate) reverse: LinkSpec,
    pub(crate) loss: LossSpec,
    pub(crate) ack_loss: LossSpec,
    pub(crate) reorder: Option<ReorderSpec>,
    pub(crate) ack_reorder: Option<ReorderSpec>,
    pub(crate) spikes: Option<SpikeSpec>,
    pub(crate) jitter: Option<JitterSpec>,
    pub(crate) ack_jitter: Option<JitterSpec>,
    pub(crate) receiver: ReceiverConfig,
    /// Shared by every connection of every run of this scenario (one copy).
    pub(crate) sender: Arc<Config>,
    /// `sender` resolved once, with the options it asks for: what a handshake agreeing
    /// to them gives (`Sender::with_resolved`), shared the same way.
    pub(crate) sender_alg: Arc<Algorithms>,
    pub(crate) workload: Workload,
    /// When the first connection starts (`workload.start_ms`).
    pub(crate) start_ns: u64,
    pub(crate) background: Vec<SourceSpec>,
}

impl Scenario {
    /// Parses TOML text; `origin` names it in errors (a file path, or `<dict>`).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        crate::parse::parse(text, origin)
    }

    /// Reads and parses a scenario file; errors name the path. A file larger than
    /// [`crate::MAX_SCENARIO_BYTES`] is refused without being read whole.
    pub fn from_path(path: &std::path::Path) -> Result<Scenario, ScenarioError> {
        use std::io::Read;
        let origin = path.display().to_string();
        let cannot = |e: std::io::Error| ScenarioError {
            origin: origin.clone(),
            line: None,
            column: None,
            field: None,
            message: format!("cannot read: {e}"),
        };
        let file = std::fs::File::open(path).map_err(cannot)?;
        let cap = crate::MAX_SCENARIO_BYTES as u64;
        // The size as stat gives it; a pipe says 0, so the read is capped as well.
        let size = file.metadata().map_err(cannot)?.len();
        if size > cap {
            return Err(crate::parse::limits::too_large(&origin, size));
        }
        let mut text = String::new();
        file.take(cap + 1)
            .read_to_string(&mut text)
            .map_err(cannot)?;
        Scenario::from_toml_str(&text, &origin)
    }

    /// The seed given in the file (default 1).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Where the scenario came from, as given to [`Scenario::from_toml_str`].
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The sender configuration every flow uses.
    pub fn sender_config(&self) -> &Config {
        &self.sender
    }

    /// The receiver configuration every flow uses.
    pub fn receiver_config(&self) -> &ReceiverConfig {
        &self.receiver
    }

    /// The forward (data-direction) bottleneck.
    pub fn forward(&self) -> LinkSpec {
        self.forward
    }

    /// The reverse (ACK-direction) bottleneck.
    pub fn reverse(&self) -> LinkSpec {
        self.reverse
    }

    /// The data-direction loss model.
    pub fn loss(&self) -> &LossSpec {
        &self.loss
    }

    /// The ACK-direction loss model.
    pub fn ack_loss(&self) -> &LossSpec {
        &self.ack_loss
    }

    /// Data-direction reordering, if any.
    pub fn reorder(&self) -> Option<&ReorderSpec> {
        self.reorder.as_ref()
    }

    /// ACK-direction reordering, if any.
    pub fn ack_reorder(&self) -> Option<&ReorderSpec> {
        self.ack_reorder.as_ref()
    }

    /// Delay spikes, if any (variable stalls drawn from the file's seed: a run with
    /// another seed uses [`SpikeSpec::with_seed`]).
    pub fn spikes(&self) -> Option<SpikeSpec> {
        self.spikes
    }

    /// Data-direction jitter, if any.
    pub fn jitter(&self) -> Option<&JitterSpec> {
        self.jitter.as_ref()
    }

    /// ACK-direction jitter, if any.
    pub fn ack_jitter(&self) -> Option<&JitterSpec> {
        self.ack_jitter.as_ref()
    }

    /// The workload.
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// When the first connection starts (`workload.start_ms`), nanoseconds: the
    /// simulated clock's phase at the start, which Linux's timer wheel sees (`replay`
    /// keeps a capture's phase with it).
    pub fn start_ns(&self) -> u64 {
        self.start_ns
    }

    /// The time limit, nanoseconds.
    pub fn max_time_ns(&self) -> u64 {
        self.max_time_ns
    }

    /// Mutable receiver configuration (the wire's engine receiver, studies).
    pub fn receiver_config_mut(&mut self) -> &mut ReceiverConfig {
        &mut self.receiver
    }

    /// The `[[background]]` sources.
    pub fn background(&self) -> &[SourceSpec] {
        &self.background
    }

    /// The workload's kind: `flows`, `request-response` or `bulk`.
    pub fn workload_kind(&self) -> &'static str {
        self.workload.kind()
    }

    /// Sets one sender axis as `--set axis=value` does (`preset` switches the preset and
    /// keeps nothing else); the receiver's MSS follows the sender's.
    pub fn set_sender(&mut self, axis: &str, value: &str) -> Result<(), ScenarioError> {
        let mut cfg = Config::clone(&self.sender);
        let r = if axis == "preset" {
            Config::preset(value).map(|c| cfg = c)
        } else {
            cfg.set(axis, value)
        };
        r.map_err(|e| ScenarioError {
            origin: self.origin.clone(),
            line: None,
            column: None,
            field: Some(format!("sender.{axis}")),
            message: e.to_string(),
        })?;
        self.sender_alg = Arc::new(cfg.resolve(cfg.sack, cfg.timestamps));
        self.sender = Arc::new(cfg);
        self.receiver.mss = self.sender.mss;
        Ok(())
    }
}

/// Every scenario key with its default and meaning: this module's documentation (the
/// annotated TOML above), for `lossrec scenario --defaults`. Read from the source itself
/// so the reference and the docs are one text.
pub fn reference() -> String {
    include_str!("scenario.rs")
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| {
            l.strip_prefix("//! ")
                .unwrap_or(l.trim_start_matches("//!"))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The scenario file's JSON Schema (draft 2020-12), for editors: generated from the
/// parser's structs, described by [`reference`].
pub fn json_schema() -> serde_json::Value {
    crate::parse::schema::json_schema()
}

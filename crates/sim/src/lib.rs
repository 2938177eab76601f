//! # lossrec-sim — a deterministic discrete-event simulator for the lossrec engine
//!
//! A [`Scenario`] (TOML, see [`scenario`] for the schema) describes a bottleneck path in each
//! direction, loss models, reordering, delay spikes, the sender and receiver configuration
//! and a workload; [`run`] plays it out in virtual time and returns per-flow results and
//! every fast-recovery episode ([`episodes`]), and on request a JSON-lines trace
//! ([`trace`]; to a `.jsonl` or zstd-compressed `.jsonl.zst` file, [`trace_file`]) and a
//! pcap file.
//!
//! Nothing here reads a clock or draws unseeded randomness: the same scenario and seed give
//! byte-identical results, traces and captures. Each random component (a direction's loss
//! model, reordering, workload arrivals) draws from its own stream derived from the seed
//! ([`rng`]).
//!
//! ```
//! use lossrec_sim::{run, RunOptions, Scenario};
//! let sc = Scenario::from_toml_str("[workload]\nsegments = 1\n[sender]\nhandshake = false", "<doc>").unwrap();
//! # if false {
//! let out = run(&sc, &RunOptions::default()).unwrap();
//! println!("{}", out.to_json(0.0));
//! # }
//! ```

use serde::Serialize;
use std::fmt;

pub mod background;
pub mod bench;
pub mod episodes;
mod flow;
pub mod jitter;
pub mod link;
pub mod loss;
mod outputs;
mod parse;
pub mod pcap;
pub mod queue;
pub mod reorder;
pub mod rng;
pub mod scenario;
mod sim;
pub mod sink;
mod span;
pub mod trace;
pub mod trace_file;
pub mod workload;

pub use episodes::Recovery;
pub use outputs::Outputs;
pub use parse::limits::MAX_SCENARIO_BYTES;
pub use scenario::Scenario;
pub use sink::Sinks;

/// A scenario error naming the origin (file), line, column and field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub origin: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
    /// Dotted key path, e.g. `path.loss.p`.
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // "scenario.toml:7:1: path.loss.p: must be in [0, 1]"
        write!(f, "{}", self.origin)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if let Some(c) = self.column {
            write!(f, ":{c}")?;
        }
        if let Some(k) = &self.field {
            write!(f, ": {k}")?;
        }
        write!(f, ": {}", self.message)
    }
}
impl std::error::Error for ScenarioError {}

/// What to collect besides the per-flow results.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Overrides the scenario's seed.
    pub seed: Option<u64>,
    /// Collect the JSON-lines trace.
    pub trace: bool,
    /// Collect a pcap file (Ethernet/IPv4/TCP, both directions).
    pub pcap: bool,
}

/// The kind of a [`FlowResult`] field in the exported schema ([`FlowResult::FIELDS`]).
pub trait FieldKind {
    /// `"int"`, `"float"` (may be null/NaN) or `"str"`.
    const KIND: &'static str;
    const IS_INT: bool = false;
    /// The value when the field is an integer.
    fn as_int(&self) -> Option<u64> {
        None
    }
    /// An integer becomes its gain since `before` (saturating); other kinds stay.
    fn sub_since(&mut self, _before: &Self) {}
}
impl FieldKind for u64 {
    const KIND: &'static str = "int";
    const IS_INT: bool = true;
    fn as_int(&self) -> Option<u64> {
        Some(*self)
    }
    fn sub_since(&mut self, before: &Self) {
        *self = self.saturating_sub(*before);
    }
}
impl FieldKind for Option<f64> {
    const KIND: &'static str = "float";
}
impl FieldKind for String {
    const KIND: &'static str = "str";
}

/// Declares [`FlowResult`] and its schema from one field list: the names and kinds that
/// Python, the sweep columns and the docs use are this list, never a copy of it.
macro_rules! flow_result {
    (
        $(#[$meta:meta])*
        pub struct FlowResult { $( $(#[$fmeta:meta])* pub $field:ident : $ty:ty ),* $(,)? }
    ) => {
        $(#[$meta])*
        pub struct FlowResult { $( $(#[$fmeta])* pub $field: $ty ),* }

        impl FlowResult {
            /// Every field as `(name, kind)`, in output order.
            pub const FIELDS: &'static [(&'static str, &'static str)] =
                &[$( (stringify!($field), <$ty as FieldKind>::KIND) ),*];
            /// How many fields are integers.
            pub const N_INTS: usize = 0 $( + <$ty as FieldKind>::IS_INT as usize )*;

            /// Every integer field less `before`'s: one message's counters from two
            /// snapshots of its connection (the real wire's request-response results).
            /// The integers that are not counters (`id`, `bytes`, `final_cwnd`) are the
            /// caller's to set.
            pub fn since(&self, before: &Self) -> Self {
                let mut r = self.clone();
                $( FieldKind::sub_since(&mut r.$field, &before.$field); )*
                r
            }

            /// Calls `f` with each integer field's name and value, in [`Self::FIELDS`] order.
            pub fn for_each_int(&self, mut f: impl FnMut(&'static str, u64)) {
                $( if let Some(v) = FieldKind::as_int(&self.$field) { f(stringify!($field), v); } )*
            }
        }
    };
}

flow_result! {
/// One flow's results (the `--json` contract's `flows[]` entries). For a request-response
/// workload there is one entry per response, with counters for that response alone; their
/// ids run connection by connection (`connection × requests + response`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FlowResult {
    pub id: u64,
    pub preset: String,
    /// Bytes delivered in order to the receiving application.
    pub bytes: u64,
    /// First SYN to arrival of the last data byte at the receiver (for later responses of a
    /// request-response connection: the request's arrival at the server to the response's
    /// last byte at the client); None for bulk and for flows that never completed.
    pub fct_ms: Option<f64>,
    pub data_packets_sent: u64,
    pub retransmits: u64,
    pub fast_recoveries: u64,
    pub rtos: u64,
    pub spurious_rtos: u64,
    pub tlp_probes: u64,
    pub undos: u64,
    /// Final cwnd in segments.
    pub final_cwnd: u64,
    /// Retransmissions in fast recovery (`TCPFastRetrans`).
    pub fast_retransmits: u64,
    /// Retransmissions the path dropped (the simulator's ground truth; Linux infers some
    /// of them as `TCPLostRetransmit`), and of those the ones sent in fast recovery.
    pub lost_retransmits: u64,
    pub lost_fast_retransmits: u64,
    /// Retransmissions in slow start after a timeout (`TCPSlowStartRetrans`).
    pub slow_start_retransmits: u64,
    /// Retransmission timeouts by the state they fired in (they add up to `rtos`): Open
    /// (or CWR), Disorder, fast Recovery, and Loss (a further timeout: exponential backoff).
    pub rtos_in_open: u64,
    pub rtos_in_disorder: u64,
    pub rtos_in_recovery: u64,
    pub rtos_in_loss: u64,
    /// DSACKs received.
    pub dsacks: u64,
    /// Early retransmits (RFC 5827), and those a DSACK or timestamp showed spurious.
    pub early_retransmits: u64,
    pub spurious_early_retransmits: u64,
    /// First transmissions among the message's last four segments that the path dropped
    /// (seed 002: RTO Restart matters for objects with a loss in their last segments).
    pub tail_drops: u64,
}
}

impl FlowResult {
    /// A flow that never started (the run ended first).
    pub fn not_started(id: u64, preset: &str) -> FlowResult {
        FlowResult {
            id,
            preset: preset.into(),
            ..FlowResult::default()
        }
    }
}

/// Everything one run produced.
#[derive(Clone, Debug)]
pub struct RunOutput {
    pub seed: u64,
    pub flows: Vec<FlowResult>,
    /// Simulator events processed.
    pub events: u64,
    /// Data packets put on the wire by all senders.
    pub data_packets: u64,
    /// Every fast-recovery episode, in the order they ended (or, for episodes the run
    /// ended during, at the end).
    pub recoveries: Vec<Recovery>,
    /// JSON lines, one per packet and engine event (when requested).
    pub trace: Option<String>,
    /// A pcap file's bytes (when requested and not streamed).
    pub pcap: Option<Vec<u8>>,
    /// What the trace and captures hold, and any error writing a streamed one.
    pub outputs: Outputs,
    /// Simulated time when the run ended, seconds.
    pub sim_time_s: f64,
    /// Connections whose sender had not finished when the run ended (0 for bulk).
    pub unfinished_flows: u64,
    /// The run stopped at `max_time_s` with work left.
    pub time_limit_hit: bool,
    /// Per `[[background]]` source: packets offered to the bottleneck, dropped, bursts.
    pub background: Vec<background::SourceStats>,
    /// Most connections open at once (started, not yet finished).
    pub peak_open_flows: u64,
}

#[derive(Serialize)]
struct JsonOut<'a> {
    seed: u64,
    flows: &'a [FlowResult],
    recoveries: &'a [Recovery],
    sim: JsonSim,
    /// Per `[[background]]` source, apart from the measured flows (absent without any).
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    background: &'a [background::SourceStats],
}

#[derive(Serialize)]
struct JsonSim {
    events: u64,
    wall_s: f64,
    sim_time_s: f64,
    time_limit_hit: bool,
}

impl RunOutput {
    /// The `--json` object; `wall_s` is measured by the caller (the simulator reads no clock).
    pub fn to_json(&self, wall_s: f64) -> String {
        serde_json::to_string(&self.json_out(wall_s)).expect("plain data serialises")
    }

    /// The same object indented by two spaces per level, as Python's `json.dumps(...,
    /// indent=2)` lays it out: the CLI prints it for `--json` without parsing and
    /// re-serialising every flow in Python (issue 29 item 3).
    pub fn to_json_pretty(&self, wall_s: f64) -> String {
        serde_json::to_string_pretty(&self.json_out(wall_s)).expect("plain data serialises")
    }

    fn json_out(&self, wall_s: f64) -> JsonOut<'_> {
        JsonOut {
            seed: self.seed,
            flows: &self.flows,
            recoveries: &self.recoveries,
            sim: JsonSim {
                events: self.events,
                wall_s,
                sim_time_s: self.sim_time_s,
                time_limit_hit: self.time_limit_hit,
            },
            background: &self.background,
        }
    }
}

/// Runs a scenario to completion.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<RunOutput, ScenarioError> {
    sim::Sim::new(scenario, opts).run()
}

/// Runs a scenario, streaming the trace and captures named in `sinks` to their writers
/// as the run goes (memory stays flat however long the run); outputs not in `sinks`
/// follow `opts`. A write error ends up in [`RunOutput::outputs`].
pub fn run_to(
    scenario: &Scenario,
    opts: &RunOptions,
    sinks: Sinks,
) -> Result<RunOutput, ScenarioError> {
    sim::Sim::new(scenario, opts).with_sinks(sinks).run()
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    #[test]
    fn the_schema_is_the_serialised_record() {
        let f = FlowResult::not_started(3, "rfc");
        let v = serde_json::to_value(&f).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(|k| k.as_str()).collect();
        let names: Vec<&str> = FlowResult::FIELDS.iter().map(|f| f.0).collect();
        let mut sorted = names.clone();
        sorted.sort();
        let mut keys_sorted = keys.clone();
        keys_sorted.sort();
        assert_eq!(sorted, keys_sorted);
        let mut ints = Vec::new();
        f.for_each_int(|k, v| ints.push((k, v)));
        assert_eq!(ints.len(), FlowResult::N_INTS);
        assert_eq!(ints[0], ("id", 3));
        assert_eq!(FlowResult::FIELDS[3], ("fct_ms", "float"));
        assert_eq!(FlowResult::N_INTS, FlowResult::FIELDS.len() - 2);
    }
}

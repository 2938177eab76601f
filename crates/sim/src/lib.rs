//! # lossrec-sim — a deterministic discrete-event simulator for the lossrec engine
//!
//! A [`Scenario`] (TOML, see [`scenario`] for the schema) describes a bottleneck path in each
//! direction, loss models, reordering, delay spikes, the sender and receiver configuration
//! and a workload; [`run`] plays it out in virtual time and returns per-flow results and
//! every fast-recovery episode ([`episodes`]), and on request a JSON-lines trace
//! ([`trace`]) and a pcap file.
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
pub mod link;
pub mod loss;
mod parse;
pub mod pcap;
pub mod queue;
pub mod reorder;
pub mod rng;
pub mod scenario;
mod sim;
mod span;
pub mod trace;
pub mod workload;

pub use episodes::Recovery;
pub use scenario::Scenario;

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

/// One flow's results (the `--json` contract's `flows[]` entries). For a request-response
/// workload there is one entry per response, with counters for that response alone; their
/// ids run connection by connection (`connection × requests + response`).
#[derive(Clone, Debug, PartialEq, Serialize)]
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
}

impl FlowResult {
    /// A flow that never started (the run ended first).
    pub fn not_started(id: u64, preset: &str) -> FlowResult {
        FlowResult {
            id,
            preset: preset.into(),
            bytes: 0,
            fct_ms: None,
            data_packets_sent: 0,
            retransmits: 0,
            fast_recoveries: 0,
            rtos: 0,
            spurious_rtos: 0,
            tlp_probes: 0,
            undos: 0,
            final_cwnd: 0,
            fast_retransmits: 0,
            lost_retransmits: 0,
            lost_fast_retransmits: 0,
            slow_start_retransmits: 0,
            rtos_in_open: 0,
            rtos_in_disorder: 0,
            rtos_in_recovery: 0,
            rtos_in_loss: 0,
            dsacks: 0,
            early_retransmits: 0,
            spurious_early_retransmits: 0,
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
    /// A pcap file's bytes (when requested).
    pub pcap: Option<Vec<u8>>,
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
        let out = JsonOut {
            seed: self.seed,
            flows: &self.flows,
            recoveries: &self.recoveries,
            sim: JsonSim {
                events: self.events,
                wall_s,
                sim_time_s: self.sim_time_s,
                time_limit_hit: self.time_limit_hit,
            },
        };
        serde_json::to_string(&out).expect("plain data serialises")
    }
}

/// Runs a scenario to completion.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<RunOutput, ScenarioError> {
    sim::Sim::new(scenario, opts).run()
}

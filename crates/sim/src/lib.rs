//! INTERFACE PLACEHOLDER (being written): the simulator's public API. Signatures are final.
#![allow(unused)]

use std::fmt;

/// A parsed, validated scenario file.
#[derive(Clone, Debug)]
pub struct Scenario {}

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

impl Scenario {
    /// Parses TOML text; `origin` names it in errors (a file path, or `<dict>`).
    pub fn from_toml_str(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
        todo!()
    }
    /// The seed given in the file (default 1).
    pub fn seed(&self) -> u64 {
        todo!()
    }
}

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

/// One flow's results (the `--json` contract's `flows[]` entries).
#[derive(Clone, Debug, PartialEq)]
pub struct FlowResult {
    pub id: u64,
    pub preset: String,
    /// Bytes delivered in order to the receiving application.
    pub bytes: u64,
    /// First SYN to arrival of the last data byte at the receiver; None for bulk.
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
    /// JSON lines, one per packet and engine event (when requested).
    pub trace: Option<String>,
    /// A pcap file's bytes (when requested).
    pub pcap: Option<Vec<u8>>,
}

impl RunOutput {
    /// The `--json` object; `wall_s` is measured by the caller (the simulator reads no clock).
    pub fn to_json(&self, wall_s: f64) -> String {
        todo!()
    }
}

/// Runs a scenario to completion.
pub fn run(scenario: &Scenario, opts: &RunOptions) -> Result<RunOutput, ScenarioError> {
    todo!()
}

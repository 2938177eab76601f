//! One wire run: build the topology, start the endpoints the options name, drive the loop
//! until the workload is done (or the time limit, or a cancel), collect the results, and
//! tear everything down (the topology's `Drop`).

use std::io;
use std::net::SocketAddrV4;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use lossrec_sim::sink::Sink;
use lossrec_sim::trace::Trace;
use lossrec_sim::workload::Workload;
use lossrec_sim::{FlowResult, Scenario, Sinks};
use lossrec_wire::PcapWriter;
use serde::Serialize;

use crate::apps::Apps;
use crate::clock::LatenessSummary;
use crate::driver::Driver;
use crate::engine_flows::EngineFlows;
use crate::linux::{self, ClientJob, Close, KernelFlow, Settings};
use crate::path::{Path, PathStats};
use crate::startup::Handshake;
use crate::topology::{Topology, ENGINE_SERVER, LINUX_SERVER, PORT};
use lossrec_tcp::accept::AcceptStats;

/// Who plays one end.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Engine,
    Linux,
}

impl Side {
    pub fn parse(s: &str) -> Option<Side> {
        match s {
            "engine" => Some(Side::Engine),
            "linux" => Some(Side::Linux),
            _ => None,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Side::Engine => "engine",
            Side::Linux => "linux",
        }
    }
}

/// What to run and collect.
#[derive(Clone, Debug)]
pub struct WireOptions {
    pub seed: Option<u64>,
    pub sender: Side,
    pub receiver: Side,
    pub trace: bool,
    pub pcap: bool,
    /// When the application closes (both senders alike).
    pub close: Close,
    /// Set from elsewhere (a signal handler, Python's Ctrl-C) to stop early and clean up.
    pub cancel: Arc<AtomicBool>,
}

impl Default for WireOptions {
    fn default() -> Self {
        WireOptions {
            seed: None,
            sender: Side::Engine,
            receiver: Side::Linux,
            trace: false,
            pcap: false,
            close: Close::default(),
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// What the kernel was told, and what it could not be told.
#[derive(Clone, Debug, Serialize)]
pub struct KernelSide {
    pub sender: Option<Settings>,
    pub receiver: Option<Settings>,
    /// Result fields the kernel does not expose (reported as 0).
    pub unavailable: Vec<&'static str>,
    /// Per connection of Linux's sender, its namespace's MIB counters over the connection
    /// (`nstat` deltas: `TCPLossProbes`, `TCPLostRetransmit`, …).
    pub mib: Vec<std::collections::BTreeMap<String, u64>>,
}

/// Everything one wire run produced.
#[derive(Clone, Debug, Serialize)]
pub struct WireOutput {
    pub seed: u64,
    pub sender: Side,
    pub receiver: Side,
    pub close: Close,
    pub flows: Vec<FlowResult>,
    pub path: PathStats,
    /// How late the loop woke for the deadlines it slept towards (timer precision).
    pub timer_lateness: LatenessSummary,
    /// How late every packet arrival and engine timer was handled (adds the loop's
    /// backlog when the emulator is saturated).
    pub delivery_lateness: LatenessSummary,
    pub kernel: KernelSide,
    /// What the engine endpoints' acceptance checks did (RFC 5961, [`lossrec_tcp::accept`]),
    /// summed over their connections, by Linux MIB name.
    pub acceptance: AcceptStats,
    /// The handshake's RTT as the sender measured it, as the emulator did, and the path's.
    #[serde(flatten)]
    pub handshake: Handshake,
    pub wall_s: f64,
    /// Bulk: in-order bytes at the receiver per second of the duration, Mb/s.
    pub goodput_mbps: Option<f64>,
    /// The engine sender's thread CPU time per packet it sent or received, ns.
    pub engine_ns_per_packet: Option<f64>,
    pub time_limit_hit: bool,
    pub unfinished_flows: u64,
    /// Trace lines written (kept or streamed), when a trace was taken.
    pub trace_lines: Option<u64>,
    /// The trace's lines when kept in memory (`None` when streamed).
    #[serde(skip)]
    pub trace: Option<String>,
    /// The capture's bytes when kept in memory (`None` when streamed).
    #[serde(skip)]
    pub pcap: Option<Vec<u8>>,
}

impl WireOutput {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("plain data serialises")
    }
}

fn bad(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// How often (emulator time) streamed outputs are pushed to their writers.
const OUTPUT_FLUSH_NS: u64 = 1_000_000_000;

/// Runs `sc` through the wire, keeping the trace and capture (if asked for) in memory.
pub fn run(sc: &Scenario, opts: &WireOptions) -> io::Result<WireOutput> {
    run_to(sc, opts, Sinks::default())
}

/// Runs `sc` through the wire, streaming the trace and the emulator's capture to the
/// writers in `sinks` as the run goes (as the simulator's `run_to` does): lines and
/// frames leave in batches of tens of KiB, so memory stays flat however long the run.
/// A writer given turns its output on whatever `opts` says; `sinks.pcap_receiver` is
/// not used (the emulator has one capture point).
pub fn run_to(sc: &Scenario, opts: &WireOptions, sinks: Sinks) -> io::Result<WireOutput> {
    if let Some(why) = crate::netns::unavailable() {
        return Err(io::Error::new(io::ErrorKind::PermissionDenied, why));
    }
    crate::netns::cleanup_dead()?;
    if !sc.background().is_empty() {
        return Err(bad("background: not supported on the wire".into()));
    }
    let seed = opts.seed.unwrap_or(sc.seed());
    let apps = Apps::new(sc, seed)?;
    let flows = apps.connections();
    let firsts: Vec<u64> = (0..flows).map(|c| apps.first_message(c)).collect();
    let bulk = match sc.workload() {
        Workload::Bulk { duration_ns, .. } => Some(Duration::from_nanos(*duration_ns)),
        _ => None,
    };
    let (app_tx, app_rx) = std::sync::mpsc::channel();
    let stop = Arc::new(AtomicBool::new(false));
    let mut topo = Topology::new(sc, opts.receiver == Side::Linux, stop.clone())?;
    let server = match opts.receiver {
        Side::Linux => SocketAddrV4::new(LINUX_SERVER, PORT),
        Side::Engine => SocketAddrV4::new(ENGINE_SERVER, PORT),
    };
    let limit = Duration::from_nanos(sc.max_time_ns().min(600_000_000_000));
    let start = crate::startup::StartGate::default();
    let client = (opts.sender == Side::Linux).then(|| {
        let job = ClientJob {
            server,
            flows,
            first: (0..flows).map(|c| apps.first_write(c)).collect(),
            later: apps.has_later_writes(),
            bulk,
            congestion: topo.sender_settings.congestion.clone(),
            deadline: limit,
            close: opts.close,
            start: start.clone(),
        };
        linux::spawn_client(&topo.ns_s, job, app_rx, stop.clone())
    });
    let path = Path::new(sc, seed, firsts);
    let kernel = KernelSide {
        sender: (opts.sender == Side::Linux).then(|| topo.sender_settings.clone()),
        receiver: (opts.receiver == Side::Linux).then(|| topo.receiver_settings.clone()),
        unavailable: if opts.sender == Side::Linux {
            crate::results::KERNEL_UNAVAILABLE.to_vec()
        } else {
            Vec::new()
        },
        mib: Vec::new(),
    };
    let per = apps.per_connection();
    let results_n = apps.results();
    let mut d = Driver::new(path, &mut topo, sc.receiver_config().clone(), apps);
    if opts.sender == Side::Linux {
        d.app_tx = Some(app_tx);
    }
    let pcap_sink = match sinks.pcap {
        Some(w) => Some(Sink::stream(w)),
        None => opts.pcap.then(|| Sink::Memory(Vec::new())),
    };
    if let Some(sink) = pcap_sink {
        d.pcap = Some(PcapWriter::new(sink).map_err(|e| io::Error::other(e.to_string()))?);
    }
    d.trace = match sinks.trace {
        Some(w) => Some(Trace::streaming(w)),
        None => opts.trace.then(Trace::default),
    };
    if opts.sender == Side::Engine {
        let mut e = EngineFlows::new(sc.sender_config().clone(), &d.apps, seed, server);
        e.close = opts.close;
        d.engine = Some(e);
    }
    let limit_ns = bulk.map_or(limit, |b| b.min(limit)).as_nanos() as u64;
    let mut time_limit_hit = false;
    // The loop's wake-ups must not wait behind other processes: a late SYN-ACK sets a
    // late min_rtt in Linux ([`crate::startup`]).
    let realtime = crate::startup::realtime();
    let mut flushed_at = 0;
    loop {
        d.turn(5_000_000)?;
        start.open();
        if d.clock.now() >= flushed_at + OUTPUT_FLUSH_NS {
            flushed_at = d.clock.now();
            d.flush_outputs()?;
        }
        if opts.cancel.load(Ordering::Relaxed) {
            stop.store(true, Ordering::Relaxed);
            return Err(io::Error::new(io::ErrorKind::Interrupted, "interrupted"));
        }
        let client_done = client.as_ref().is_none_or(|c| c.is_finished());
        if d.engine_done() && client_done && bulk.is_none() {
            break;
        }
        let over = d.clock.now() >= limit_ns;
        if over && bulk.is_some() && opts.sender == Side::Engine {
            break;
        }
        if over && bulk.is_some() && client_done {
            break;
        }
        if over && bulk.is_none() {
            time_limit_hit = true;
            break;
        }
    }
    stop.store(true, Ordering::Relaxed);
    let wall_s = d.clock.now() as f64 / 1e9;
    let kflows: Vec<KernelFlow> = match client {
        Some(h) => h
            .join()
            .map_err(|_| io::Error::other("client thread panicked"))??,
        None => Vec::new(),
    };
    let preset = sc.sender_config().preset;
    let handshake = Handshake::new(
        sc,
        kflows.first().and_then(|k| k.handshake_rtt_us),
        d.handshake_ns,
        realtime.on(),
    );
    collect(
        d,
        opts,
        seed,
        (kernel, handshake),
        kflows,
        (results_n, per),
        bulk,
        wall_s,
        time_limit_hit,
        preset,
    )
}

#[allow(clippy::too_many_arguments)]
fn collect(
    mut d: Driver<'_>,
    opts: &WireOptions,
    seed: u64,
    (mut kernel, handshake): (KernelSide, Handshake),
    kflows: Vec<KernelFlow>,
    (flows, per): (u64, u64),
    bulk: Option<Duration>,
    wall_s: f64,
    time_limit_hit: bool,
    preset: &'static str,
) -> io::Result<WireOutput> {
    if let Some(e) = d.pcap_error.take() {
        return Err(io::Error::other(format!("pcap: {e}")));
    }
    let mut engine_ns = None;
    let mut results: Vec<FlowResult> = Vec::new();
    let mut acceptance = AcceptStats::default();
    for r in &d.receivers {
        acceptance.add(r.accept_stats());
    }
    if let Some(mut e) = d.engine.take() {
        if let Some(local) = e.current.as_ref().map(|(s, _)| s.local()) {
            e.end_message(d.path.conns.iter().rev().find(|k| k.client == local));
        }
        if let Some((s, _)) = e.current.as_ref() {
            acceptance.add(s.accept_stats());
        }
        acceptance.add(&e.accept);
        engine_ns = (e.packets > 0).then(|| e.cpu_ns as f64 / e.packets as f64);
        results = e.results;
    }
    kernel.mib = kflows.iter().map(|k| k.mib.clone()).collect();
    if opts.sender == Side::Linux {
        // The path numbers connections in SYN order, as the client opened them.
        results = kflows
            .iter()
            .enumerate()
            .flat_map(|(i, k)| {
                crate::results::kernel_messages(i as u64, per, k, d.path.conns.get(i))
            })
            .collect();
    }
    let done = results.iter().filter(|r| r.fct_ms.is_some()).count() as u64;
    while (results.len() as u64) < flows {
        let preset = if opts.sender == Side::Linux {
            "kernel"
        } else {
            preset
        };
        results.push(FlowResult::not_started(results.len() as u64, preset));
    }
    let goodput_mbps = bulk.map(|b| {
        let bytes = d.path.conns.first().map_or(0, |c| c.delivered);
        bytes as f64 * 8.0 / b.as_secs_f64() / 1e6
    });
    Ok(WireOutput {
        seed,
        sender: opts.sender,
        receiver: opts.receiver,
        close: opts.close,
        flows: results,
        path: d.path.stats.clone(),
        timer_lateness: d.wakeups.summary(),
        delivery_lateness: d.lateness.summary(),
        kernel,
        acceptance,
        handshake,
        wall_s,
        goodput_mbps,
        engine_ns_per_packet: engine_ns,
        time_limit_hit,
        unfinished_flows: if bulk.is_some() {
            0
        } else {
            flows.saturating_sub(done)
        },
        trace_lines: d.trace.as_ref().map(|t| t.lines),
        trace: d.trace.take().map(Trace::finish).transpose()?.flatten(),
        pcap: match d.pcap.take() {
            Some(p) => p.into_inner().finish()?,
            None => None,
        },
    })
}

//! The Linux endpoints: a server that reads everything (the receiver) and a client that
//! writes the workload (Linux's own sender), each on its own thread inside its namespace,
//! and the scenario's settings translated into what Linux knows.
//!
//! Sender settings, in the client's namespace: `tcp_early_retrans` (3 = TLP, 0 = none),
//! `tcp_recovery` (RACK on/off), `tcp_frto`, `tcp_sack`, `tcp_timestamps`,
//! `tcp_rto_max_ms`, congestion control with `TCP_CONGESTION`, and per route `rto_min`
//! and `initcwnd`. An axis whose value differs from the `linux` preset and has no kernel
//! knob is reported in `not_applied`. Receiver settings, in the server's namespace:
//! `tcp_sack`, `tcp_dsack`, `tcp_timestamps`, and per route `quickack` when the scenario
//! ACKs every segment. Linux's receive window (autotuned) cannot be set to the model's.

use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lossrec::config::{LossDetection, Probe, SpuriousDetection};
use lossrec::{Config, ReceiverConfig};

use crate::kernel::{mib, mib_delta, set_congestion, tcp_info, TcpInfo};
use crate::netns::{self, Netns};

/// Settings to apply in the sender's namespace, and what could not be applied.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Settings {
    pub sysctls: Vec<(String, String)>,
    /// `ip route` attributes for routes towards the peer.
    pub route: Vec<String>,
    pub congestion: Option<String>,
    /// `axis=value` pairs Linux has no knob for.
    pub not_applied: Vec<String>,
}

/// Translates a sender config into Linux settings.
pub fn sender_settings(cfg: &Config) -> Settings {
    let mut s = Settings::default();
    let sys = |s: &mut Settings, k: &str, v: String| s.sysctls.push((k.into(), v));
    sys(&mut s, "net.ipv4.tcp_sack", u8::from(cfg.sack).to_string());
    sys(
        &mut s,
        "net.ipv4.tcp_timestamps",
        u8::from(cfg.timestamps).to_string(),
    );
    let tlp = !matches!(cfg.probe, Probe::None);
    sys(
        &mut s,
        "net.ipv4.tcp_early_retrans",
        if tlp { "3" } else { "0" }.into(),
    );
    let rack = matches!(
        cfg.loss_detection,
        LossDetection::Rack | LossDetection::RackLinux
    );
    sys(&mut s, "net.ipv4.tcp_recovery", u8::from(rack).to_string());
    let frto = matches!(
        cfg.spurious_detection,
        SpuriousDetection::Frto | SpuriousDetection::Linux
    );
    sys(
        &mut s,
        "net.ipv4.tcp_frto",
        if frto { "2" } else { "0" }.into(),
    );
    s.route
        .push(format!("rto_min {}ms", cfg.min_rto.as_millis().max(1)));
    s.route
        .push(format!("initcwnd {}", cfg.initial_cwnd.max(1)));
    s.congestion = Some(
        match cfg.cc {
            lossrec::config::CongestionControl::Cubic
            | lossrec::config::CongestionControl::CubicLinux => "cubic",
            _ => "reno",
        }
        .into(),
    );
    let max_rto_ms = cfg.max_rto.as_millis();
    if (1000..=120_000).contains(&max_rto_ms) {
        sys(&mut s, "net.ipv4.tcp_rto_max_ms", max_rto_ms.to_string());
    }
    let applied = [
        "sack",
        "timestamps",
        "probe",
        "loss_detection",
        "spurious_detection",
        "min_rto_ms",
        "initial_cwnd",
        "cc",
        "max_rto_ms",
        "mss",
        "handshake",
    ];
    let linux: BTreeMap<_, _> = Config::linux().axes().into_iter().collect();
    for (axis, value) in cfg.axes() {
        if applied.contains(&axis) || linux.get(axis) == Some(&value) {
            continue;
        }
        s.not_applied.push(format!("{axis}={value}"));
    }
    s
}

/// Receiver settings for the server's namespace.
pub fn receiver_settings(cfg: &ReceiverConfig) -> Settings {
    let mut s = Settings::default();
    s.sysctls
        .push(("net.ipv4.tcp_sack".into(), u8::from(cfg.sack).to_string()));
    s.sysctls
        .push(("net.ipv4.tcp_dsack".into(), u8::from(cfg.dsack).to_string()));
    let ts = u8::from(cfg.timestamps).to_string();
    s.sysctls.push(("net.ipv4.tcp_timestamps".into(), ts));
    match cfg.delayed_ack {
        None => s.route.push("quickack 1".into()),
        Some(d) => s.not_applied.push(format!(
            "delayed_ack_ms={} (Linux's delayed-ACK timer adapts from 40 ms)",
            d.as_millis()
        )),
    }
    s.not_applied.push(format!(
        "window_bytes={} (Linux autotunes its window)",
        cfg.window
    ));
    s
}

/// Applies `s` in `ns`: sysctls from a thread inside it, routes to `peers` via `dev`.
pub fn apply(ns: &Netns, dev: &str, peers: &[&str], s: &Settings) -> io::Result<()> {
    let name = ns.name().to_string();
    let sysctls = s.sysctls.clone();
    std::thread::spawn(move || -> io::Result<()> {
        netns::enter(&name)?;
        for (k, v) in &sysctls {
            match netns::write_sysctl(k, v) {
                Ok(()) => {}
                // An older kernel without the knob: tolerated for optional ones.
                Err(e) if k.ends_with("tcp_rto_max_ms") => drop(e),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    })
    .join()
    .map_err(|_| io::Error::other("sysctl thread panicked"))??;
    for p in peers {
        let mut args = vec!["route", "replace", p, "dev", dev];
        let attrs: Vec<&str> = s.route.iter().flat_map(|r| r.split(' ')).collect();
        args.extend(attrs);
        ns.ip(&args)?;
    }
    Ok(())
}

/// The server: accepts connections in `ns` on `addr` and reads each to EOF, until `stop`.
pub fn spawn_server(
    ns: &Netns,
    addr: SocketAddrV4,
    stop: Arc<AtomicBool>,
) -> io::Result<JoinHandle<()>> {
    let name = ns.name().to_string();
    let listener = std::thread::spawn(move || -> io::Result<TcpListener> {
        netns::enter(&name)?;
        let l = TcpListener::bind(addr)?;
        l.set_nonblocking(true)?;
        Ok(l)
    })
    .join()
    .map_err(|_| io::Error::other("server thread panicked"))??;
    Ok(std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            match listener.accept() {
                Ok((conn, _)) => {
                    let stop = stop.clone();
                    std::thread::spawn(move || drain(conn, &stop));
                }
                Err(_) => std::thread::sleep(Duration::from_millis(1)),
            }
        }
    }))
}

fn drain(mut conn: TcpStream, stop: &AtomicBool) {
    let _ = conn.set_nonblocking(false);
    let _ = conn.set_read_timeout(Some(Duration::from_millis(50)));
    let mut buf = vec![0u8; 1 << 18];
    while !stop.load(Ordering::Relaxed) {
        match conn.read(&mut buf) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(_) => break,
        }
    }
}

/// What one Linux-sent flow reported.
#[derive(Clone, Debug, Default)]
pub struct KernelFlow {
    pub info: TcpInfo,
    pub mib: BTreeMap<String, u64>,
    /// The client gave up (time limit or cancel) before the flow ended.
    pub unfinished: bool,
    /// Where each later message (response) began: `TCP_INFO` and the MIB counters (since
    /// the connection started) just before it was written.
    pub marks: Vec<(TcpInfo, BTreeMap<String, u64>)>,
    /// The kernel's first RTT sample, the handshake's (`tcpi_rtt` as `connect` returned,
    /// µs): see [`crate::startup`].
    pub handshake_rtt_us: Option<u32>,
}

/// The client's workload: `flows` connections one after another, each writing
/// `first[c]` bytes at once (and, with `later`, what the emulator's applications then
/// tell it, [`crate::apps`]), or one connection writing for `bulk` wall time.
#[derive(Clone, Debug)]
pub struct ClientJob {
    pub server: SocketAddrV4,
    pub flows: u64,
    pub first: Vec<u64>,
    pub later: bool,
    pub bulk: Option<Duration>,
    pub congestion: Option<String>,
    pub deadline: Duration,
    pub close: Close,
    /// Opened by the emulator once it polls the devices ([`crate::startup`]).
    pub start: crate::startup::StartGate,
}

/// When the application closes (sends its FIN).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Close {
    /// Once every byte is acknowledged (a persistent connection's response, then a close
    /// later): nothing follows the data, so a lost tail is a pure tail — as in the
    /// simulator, whose FIN rides on the last segment.
    #[default]
    AfterAck,
    /// As soon as the write returned (`write` then `shutdown`): the FIN goes on the last
    /// segment if it is still queued, else on its own right after the data.
    AfterWrite,
}

impl Close {
    pub fn parse(s: &str) -> Option<Close> {
        match s {
            "after-ack" => Some(Close::AfterAck),
            "after-write" => Some(Close::AfterWrite),
            _ => None,
        }
    }
}

/// Runs the client in `ns` on a thread; results per flow.
pub fn spawn_client(
    ns: &Netns,
    job: ClientJob,
    writes: Receiver<crate::apps::Write>,
    stop: Arc<AtomicBool>,
) -> JoinHandle<io::Result<Vec<KernelFlow>>> {
    let name = ns.name().to_string();
    std::thread::spawn(move || {
        netns::enter(&name)?;
        // The application writes as soon as it may: its wake-ups (connect returning, the
        // next message) must not wait behind other processes any more than the
        // emulator's ([`crate::startup::realtime`]).
        let _realtime = crate::startup::realtime();
        let start = Instant::now();
        let mut out = Vec::new();
        if !job.start.wait(&stop, job.deadline) {
            return Ok(out);
        }
        for c in 0..job.flows {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            out.push(one_flow(&job, c, &writes, start, &stop)?);
        }
        Ok(out)
    })
}

/// Writes `bytes` (or, for bulk, until its time is up); returns whether it gave up.
fn write_out(
    s: &mut TcpStream,
    job: &ClientJob,
    bytes: u64,
    start: Instant,
    stop: &AtomicBool,
) -> io::Result<bool> {
    // A message is handed over in one write, as the engine gets it (`write(bytes)`):
    // with a send buffer that holds it all, the kernel cuts whole segments and nothing
    // waits for buffer space; bulk writes 64 KiB at a time.
    let chunk = vec![
        0u8;
        if job.bulk.is_some() {
            1 << 16
        } else {
            bytes.clamp(1, MAX_FLOW_WRITE) as usize
        }
    ];
    let mut left = bytes;
    let t0 = Instant::now();
    loop {
        let over = start.elapsed() > job.deadline || stop.load(Ordering::Relaxed);
        let bulk_done = job.bulk.is_some_and(|d| t0.elapsed() >= d);
        if over || bulk_done || (job.bulk.is_none() && left == 0) {
            return Ok(over);
        }
        let n = chunk.len().min(left.min(usize::MAX as u64) as usize);
        match s.write(&chunk[..n]) {
            Ok(w) => left -= w as u64,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                ) => {}
            Err(e) => return Err(e),
        }
    }
}

fn one_flow(
    job: &ClientJob,
    c: u64,
    writes: &Receiver<crate::apps::Write>,
    start: Instant,
    stop: &AtomicBool,
) -> io::Result<KernelFlow> {
    let before = mib();
    let mut s = socket_to(job)?;
    let handshake_rtt_us = tcp_info(&s).ok().map(|i| i.rtt);
    s.set_write_timeout(Some(Duration::from_millis(50)))?;
    let first = job.first.get(c as usize).copied().unwrap_or(0);
    let mut unfinished = write_out(&mut s, job, first, start, stop)?;
    let mut marks = Vec::new();
    // Later writes come from the emulator's applications (responses, timed writes).
    while job.later && !unfinished {
        match writes.recv_timeout(Duration::from_millis(20)) {
            Ok(w) => {
                if w.new_message {
                    marks.push((tcp_info(&s)?, mib_delta(&before, &mib())));
                }
                unfinished = write_out(&mut s, job, w.bytes, start, stop)?;
                if w.last {
                    break;
                }
            }
            Err(RecvTimeoutError::Timeout) => {
                unfinished = start.elapsed() > job.deadline || stop.load(Ordering::Relaxed);
            }
            Err(RecvTimeoutError::Disconnected) => unfinished = true,
        }
    }
    if job.close == Close::AfterWrite {
        let _ = s.shutdown(std::net::Shutdown::Write);
    }
    // Finished when every byte (and the FIN) is acknowledged: the simulator's rule.
    let mut info = tcp_info(&s)?;
    while !unfinished && (info.unacked > 0 || info.notsent_bytes > 0) {
        if start.elapsed() > job.deadline || stop.load(Ordering::Relaxed) {
            unfinished = true;
            break;
        }
        std::thread::sleep(Duration::from_micros(200));
        info = tcp_info(&s)?;
    }
    if job.close == Close::AfterAck {
        let _ = s.shutdown(std::net::Shutdown::Write);
    }
    let after = mib();
    Ok(KernelFlow {
        info,
        mib: mib_delta(&before, &after),
        unfinished,
        marks,
        handshake_rtt_us,
    })
}

/// Flows up to this size are written in one call.
const MAX_FLOW_WRITE: u64 = 64 << 20;

fn set_int(s: &TcpStream, level: i32, name: i32, v: i32) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: setsockopt with an int value and its size.
    let r = unsafe {
        libc::setsockopt(
            s.as_raw_fd(),
            level,
            name,
            (&v as *const i32).cast(),
            std::mem::size_of::<i32>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn socket_to(job: &ClientJob) -> io::Result<TcpStream> {
    // std connects in one call; TCP_CONGESTION must be set before the SYN, so build the
    // socket by hand.
    // SAFETY: plain socket(2); the fd is owned by the TcpStream below.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd is a fresh, owned socket.
    let s: TcpStream = unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) };
    if let Some(cc) = &job.congestion {
        set_congestion(&s, cc)?;
    }
    // No Nagle (the engine has none: a short last segment goes when the window allows);
    // for flows, a send buffer for the whole flow (bulk keeps the kernel's autotuning).
    set_int(&s, libc::IPPROTO_TCP, libc::TCP_NODELAY, 1)?;
    if job.bulk.is_none() {
        // Later writes (responses) are not known yet: room for 2 MB of them.
        let most = job
            .first
            .iter()
            .copied()
            .max()
            .unwrap_or(0)
            .min(MAX_FLOW_WRITE);
        let floor = if job.later { 4 << 20 } else { 1 << 16 };
        let buf = (2 * most).clamp(floor, i32::MAX as u64) as i32;
        set_int(&s, libc::SOL_SOCKET, libc::SO_SNDBUF, buf)?;
    }
    let sa = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: job.server.port().to_be(),
        sin_addr: libc::in_addr {
            s_addr: u32::from_ne_bytes(job.server.ip().octets()),
        },
        sin_zero: [0; 8],
    };
    // SAFETY: connect with a valid sockaddr_in and its size.
    let r = unsafe {
        libc::connect(
            fd,
            (&sa as *const libc::sockaddr_in).cast(),
            std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(io::Error::other(format!(
            "connect to {}: {}",
            job.server,
            io::Error::last_os_error()
        )));
    }
    Ok(s)
}

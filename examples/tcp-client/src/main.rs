//! Embedding lossrec: a user-space TCP client whose loss recovery is the engine's
//! [`Sender`], speaking real segments through [`lossrec_tcp::Endpoint`], sending a file
//! to a Linux TCP server through a TUN device in a network namespace it creates.
//!
//! ```text
//! sudo lossrec-tcp-client FILE [--preset linux|rfc|rack-tlp|…] [--set axis=value]…
//!      [--loss PERCENT] [--seed N] [--drop-every N] [--delay MS] [--out PATH]
//!      [--timeout SECONDS]
//! ```
//!
//! It uses only what an embedder should: `Sender`, `Config`, `Transmit`, `Why`, `Stats`
//! from `lossrec`, `Endpoint` from `lossrec-tcp`, and `lossrec-wire` to decode the
//! kernel's packets. The loop is the engine's driver contract (`lossrec` crate doc): one
//! input — a packet from the kernel or the timer at its deadline — then drain
//! `poll_transmit`, then the next input. Loss is injected on our data segments before
//! they reach the kernel, so recovery happens.

mod net;

use std::collections::{BTreeMap, VecDeque};
use std::fs::File;
use std::io::Write as _;
use std::net::SocketAddrV4;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver as Rx, RecvTimeoutError};
use std::time::Duration as StdDuration;

use lossrec::{Config, Duration, Instant, ProbeKind, Sender, Transmit, Why};
use lossrec_tcp::{Endpoint, EndpointConfig};
use lossrec_wire::decode_ipv4;

const USAGE: &str = "usage: lossrec-tcp-client FILE [--preset NAME] [--set AXIS=VALUE]... \
[--loss PERCENT] [--seed N] [--drop-every N] [--delay MS] [--out PATH] [--timeout SECONDS]";

/// The longest the loop sleeps before looking at Ctrl-C again.
const MAX_WAIT: StdDuration = StdDuration::from_millis(100);

/// The command line.
struct Args {
    file: String,
    config: Config,
    loss: f64,
    seed: u64,
    drop_every: u64,
    /// Held back this long after the kernel sends them (its ACKs), in user space: the path's RTT.
    delay_ms: u32,
    /// Where to write what the server received (a new file).
    out: Option<String>,
    timeout: StdDuration,
}

fn parse_args() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let (mut file, mut preset, mut sets) = (None, "linux".to_string(), Vec::new());
    let (mut loss, mut seed, mut drop_every, mut timeout) = (0.0, 1, 0, 60.0);
    let (mut delay, mut out) = (0.0, None);
    while let Some(a) = it.next() {
        let mut val = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        let num = |s: String| s.parse::<f64>().map_err(|e| format!("{s}: {e}"));
        match a.as_str() {
            "--preset" => preset = val("--preset")?,
            "--set" => sets.push(val("--set")?),
            "--loss" => loss = num(val("--loss")?)?,
            "--seed" => seed = num(val("--seed")?)? as u64,
            "--drop-every" => drop_every = num(val("--drop-every")?)? as u64,
            "--timeout" => timeout = num(val("--timeout")?)?,
            "--delay" => delay = num(val("--delay")?)?,
            "--out" => out = Some(val("--out")?),
            "-h" | "--help" => return Err(USAGE.into()),
            f if !f.starts_with("--") && file.is_none() => file = Some(f.to_string()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    let mut config = Config::preset(&preset).map_err(|e| e.to_string())?;
    for s in sets {
        let (k, v) = s
            .split_once('=')
            .ok_or(format!("--set {s}: want AXIS=VALUE"))?;
        config.set(k, v).map_err(|e| e.to_string())?;
    }
    let bad = !(0.0..100.0).contains(&loss)
        || !(0.0..=3600.0).contains(&timeout)
        || !(0.0..=10_000.0).contains(&delay);
    if bad {
        return Err(
            "--loss must be in [0, 100), --timeout in [0, 3600], --delay in [0, 10000]".into(),
        );
    }
    if let Some(o) = out.as_ref().filter(|o| std::path::Path::new(o).exists()) {
        return Err(format!(
            "--out {o}: exists (the example writes only a new file)"
        ));
    }
    Ok(Args {
        file: file.ok_or(USAGE)?,
        config,
        loss: loss / 100.0,
        seed,
        drop_every,
        delay_ms: delay as u32,
        out,
        timeout: StdDuration::from_secs_f64(timeout),
    })
}

/// What happened, for the summary.
#[derive(Default)]
struct Tally {
    /// Transmissions by reason.
    by_why: BTreeMap<String, u64>,
    /// Transmissions that resent data.
    retransmissions: u64,
    /// Data segments we dropped on purpose.
    injected: u64,
    /// Packets from the kernel that were not ours or not TCP/IPv4 (dropped, counted).
    ignored: u64,
}

/// The client: the endpoint, the file, the loss injector, the clock.
struct Client {
    ep: Endpoint,
    data: Vec<u8>,
    start: std::time::Instant,
    rng: fastrand::Rng,
    loss: f64,
    drop_every: u64,
    data_sent: u64,
    tally: Tally,
}

impl Client {
    /// The engine's clock: time since start (the engine never reads a clock itself).
    fn now(&self) -> Instant {
        Instant::from_nanos(self.start.elapsed().as_nanos() as u64)
    }

    /// The engine's sender (a client endpoint always has one).
    fn sender(&mut self) -> &mut Sender {
        self.ep
            .sender
            .as_mut()
            .expect("a client endpoint has a sender")
    }

    /// Step 2 of the driver contract: everything the engine may send now, as packets.
    fn drain(&mut self, now: Instant, out: &mut Vec<Vec<u8>>) -> Result<(), String> {
        while let Some(tx) = self.sender().poll_transmit(now) {
            *self
                .tally
                .by_why
                .entry(format!("{:?}", tx.why))
                .or_default() += 1;
            self.tally.retransmissions += u64::from(is_retransmission(tx.why));
            let pkt = self.encode(now, &tx)?;
            if !tx.range.is_empty() && self.lose() {
                self.tally.injected += 1;
                continue;
            }
            out.push(pkt);
        }
        self.ep.take_replies(out);
        Ok(())
    }

    /// The transmission as an IPv4 packet carrying the file's bytes (the engine counts
    /// bytes; the adapter takes them from us). Fails only if the engine broke its contract
    /// (a range past the bytes written): the transfer stops with the reason.
    fn encode(&mut self, now: Instant, tx: &Transmit) -> Result<Vec<u8>, String> {
        let mut pkt = Vec::with_capacity(1600);
        self.ep
            .encode_transmit_bytes(now, tx, &self.data, &mut pkt)
            .map_err(|e| format!("own segment: {e}"))?;
        Ok(pkt)
    }

    /// The injected loss: every Nth data segment, or each with probability `loss`.
    fn lose(&mut self) -> bool {
        self.data_sent += 1;
        let nth = self.drop_every > 0 && self.data_sent.is_multiple_of(self.drop_every);
        nth || (self.loss > 0.0 && self.rng.f64() < self.loss)
    }

    /// Every input due by `now`, earliest first — the timer at its deadline, a packet at
    /// its arrival — each followed by a drain. Returns whether the server's FIN came.
    fn due(
        &mut self,
        now: Instant,
        q: &mut VecDeque<(Instant, Vec<u8>)>,
        out: &mut Vec<Vec<u8>>,
    ) -> Result<bool, String> {
        let mut fin = false;
        loop {
            let timer = self.sender().poll_timeout().filter(|&d| d <= now);
            let pkt = q.front().map(|p| p.0).filter(|&a| a <= now);
            match (timer, pkt) {
                (Some(d), a) if a.is_none_or(|a| d <= a) => {
                    self.sender().on_timeout(d);
                    self.drain(d, out)?;
                }
                (_, Some(a)) => {
                    let (_, p) = q.pop_front().expect("a packet is due");
                    fin |= self.input(a, &p, out);
                    self.drain(a, out)?;
                }
                _ => return Ok(fin),
            }
        }
    }

    /// Step 1 with a packet from the kernel: ours goes to the endpoint; the server's FIN
    /// is acknowledged (our endpoint only sends). Returns whether the FIN came.
    fn input(&mut self, now: Instant, pkt: &[u8], out: &mut Vec<Vec<u8>>) -> bool {
        let (local, remote) = (self.ep.local(), self.ep.remote());
        let seg = match decode_ipv4(pkt) {
            Ok(s) if s.dst == local && s.src == remote => s,
            // IPv6 router solicitations, stray segments: not ours.
            _ => {
                self.tally.ignored += 1;
                return false;
            }
        };
        let got = self.ep.input(now, &seg);
        if got.fin {
            let mut b = Vec::new();
            self.ep.ack_now(now, &mut b);
            out.push(b);
        }
        got.fin
    }
}

/// Sets up the namespace, sends the file, checks what the server got, prints the summary.
fn run(args: Args) -> Result<(), String> {
    let data = std::fs::read(&args.file).map_err(|e| format!("{}: {e}", args.file))?;
    net::catch_signals();
    let lab = net::Lab::create(1500).map_err(|e| format!("setting up the namespace: {e}"))?;
    let packets = net::reader(&lab.tun).map_err(|e| e.to_string())?;
    let start = std::time::Instant::now();
    let t0 = Instant::from_nanos(0);
    let sender = Sender::new(args.config.clone(), t0).map_err(|e| e.to_string())?;
    let local = SocketAddrV4::new(net::CLIENT, 40_000 + (std::process::id() % 20_000) as u16);
    let remote = SocketAddrV4::new(net::SERVER, net::PORT);
    let isn = fastrand::Rng::with_seed(args.seed).u32(..);
    let ep = Endpoint::client(sender, EndpointConfig::default(), local, remote, isn);
    let mut c = Client {
        ep,
        data,
        start,
        rng: fastrand::Rng::with_seed(args.seed),
        loss: args.loss,
        drop_every: args.drop_every,
        data_sent: 0,
        tally: Tally::default(),
    };
    let len = c.data.len() as u64;
    c.sender().write(t0, len);
    c.sender().close(t0);
    transfer(&mut c, &lab.tun, &packets, &args)?;
    let elapsed = start.elapsed();
    let got = lab
        .server
        .recv_timeout(StdDuration::from_secs(5))
        .map_err(|_| "the server did not finish reading".to_string())?
        .map_err(|e| format!("server: {e}"))?;
    if let Some(path) = &args.out {
        // A new file only: the example overwrites nothing it did not write.
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path);
        f.and_then(|mut f| f.write_all(&got))
            .map_err(|e| format!("--out {path}: {e}"))?;
    }
    summary(&args, &c, elapsed, &got);
    if got != c.data {
        return Err("the server received different bytes".into());
    }
    Ok(())
}

/// The main loop: packets from the kernel (delayed by `--delay`) and the engine's timer,
/// taken in the order they fall due, each followed by a drain (the driver contract), until
/// our FIN is acknowledged and the server's FIN is in.
fn transfer(
    c: &mut Client,
    mut tun: &File,
    packets: &Rx<Vec<u8>>,
    args: &Args,
) -> Result<(), String> {
    let delay = Duration::from_millis(u64::from(args.delay_ms));
    let mut pending: VecDeque<(Instant, Vec<u8>)> = VecDeque::new();
    let (mut out, mut fin_in) = (Vec::new(), false);
    c.drain(c.now(), &mut out)?;
    while !(c.sender().is_finished() && fin_in) {
        for p in out.drain(..) {
            // The kernel refusing a packet (device going down) is a loss, as on a wire.
            let _ = tun.write(&p);
        }
        if net::CANCEL.load(Ordering::SeqCst) {
            return Err("interrupted".into());
        }
        if c.ep.is_reset() {
            return Err("the server reset the connection".into());
        }
        if c.start.elapsed() > args.timeout {
            return Err(format!("not done after {:?}", args.timeout));
        }
        let next = [c.sender().poll_timeout(), pending.front().map(|p| p.0)];
        let now = c.now();
        // Wake when the next input falls due, and at least every 100 ms to see Ctrl-C.
        let wait = next.into_iter().flatten().min().map_or(MAX_WAIT, |d| {
            StdDuration::from_nanos(d.as_nanos().saturating_sub(now.as_nanos()))
        });
        match packets.recv_timeout(wait.min(MAX_WAIT)) {
            Ok(p) => pending.push_back((c.now() + delay, p)),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => return Err("the TUN device closed".into()),
        }
        while let Ok(p) = packets.try_recv() {
            pending.push_back((c.now() + delay, p));
        }
        fin_in |= c.due(c.now(), &mut pending, &mut out)?;
    }
    for p in out.drain(..) {
        let _ = tun.write(&p);
    }
    Ok(())
}

fn summary(args: &Args, c: &Client, elapsed: StdDuration, got: &[u8]) {
    let s = c.ep.sender.as_ref().expect("client").stats();
    let secs = elapsed.as_secs_f64();
    println!("preset            {}", args.config.preset);
    println!(
        "sent              {} bytes in {:.3} s ({:.2} Mbit/s)",
        c.data.len(),
        secs,
        c.data.len() as f64 * 8.0 / secs / 1e6
    );
    println!(
        "server received   {} bytes, {}",
        got.len(),
        if got == c.data {
            "identical"
        } else {
            "DIFFERENT"
        }
    );
    println!("loss injected     {} data segments", c.tally.injected);
    println!(
        "retransmissions   {} (engine RetransSegs {})",
        c.tally.retransmissions, s.retrans_segs
    );
    for (why, n) in &c.tally.by_why {
        println!("  {why:<16}{n}");
    }
    println!(
        "timeouts {}  fast recoveries {}  loss probes {}  undos {}  ignored packets {}",
        s.timeouts,
        s.sack_recovery + s.reno_recovery,
        s.loss_probes,
        s.undos,
        c.tally.ignored
    );
    let _ = std::io::stdout().flush();
}

/// The reasons that resend data already sent (the rest send new data or control).
fn is_retransmission(why: Why) -> bool {
    matches!(
        why,
        Why::FastRetransmit
            | Why::RackRetransmit
            | Why::EarlyRetransmit
            | Why::RtoRetransmit
            | Why::Probe(ProbeKind::Retransmit)
    )
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lossrec-tcp-client: {e}");
            ExitCode::FAILURE
        }
    }
}

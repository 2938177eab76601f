//! The wire's start-up: the handshake's RTT as the sender measured it, against the
//! emulated path's.
//!
//! Why it matters: Linux takes min_rtt from every RTT sample, the SYN's included
//! (`tcp_ack_update_rtt` → `tcp_update_rtt_min`), and RACK ignores a retransmission's
//! sample below min_rtt (`tcp_rack_advance`: "the ACK is for the original"). The SYN and
//! SYN-ACK are small, so on an undisturbed path the handshake's RTT is the path's lowest
//! and a probe's RTT (a full segment) is safely above it. If the SYN waits somewhere
//! before the emulator takes it (a device or thread not yet running), its RTT is
//! inflated, min_rtt is set by a data segment instead, and a probe's RTT can fall a few
//! µs below it — which turns a tail RACK would repair into an RTO, at random.
//!
//! Where the time went (tail of 2 at 40 ms, 100 Mb/s, `lossrec wire --sender linux`, 20
//! runs each, on a 2-core machine at load 15–20): the emulator's own view of the
//! handshake was late as often as the kernel's — the SYN held past its deadline, or the
//! SYN-ACK read late from the receiver's device — by 0.5 to 17 ms, while the SYN waited
//! in the sender's device only tens of µs. The loop sleeps in `ppoll` between deadlines,
//! and on a busy machine its wake-up waited behind other processes. Two changes:
//!
//! * the loop runs `SCHED_FIFO` ([`realtime`]): its wake-ups preempt ordinary processes
//!   (it sleeps between deadlines and spins only the last [`crate::clock::SPIN_NS`], so
//!   it leaves the CPU to the kernel threads that carry its packets — busy-polling for
//!   the whole handshake was tried and made it worse, 3 to 6 ms late: it starved them);
//! * Linux's client connects only once the loop runs ([`StartGate`]): its clock started
//!   and both devices read once, so the first SYN never waits for an emulator that is
//!   still being set up.
//!
//! The report ([`Handshake`]) puts three numbers side by side: the sender's own
//! measurement (the kernel's first RTT sample, `TCP_INFO` `tcpi_rtt` right after
//! `connect` returned; for the engine, which the emulator clocks itself, the emulator's),
//! the emulator's (the SYN entering the path to the SYN-ACK handed back), and the path's
//! (propagation both ways plus the two 60-byte packets' serialisation).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use lossrec_sim::Scenario;
use serde::Serialize;

/// Puts the calling thread (the emulator's loop) in `SCHED_FIFO` at the lowest real-time
/// priority, so that a wake-up for a packet or a deadline does not wait behind ordinary
/// processes on a busy machine; says whether it could (root can; the kernel's RT
/// throttling, `sched_rt_runtime_us`, still leaves ordinary tasks 5 % of each second).
/// The loop sleeps in `ppoll` between deadlines and spins only [`crate::clock::SPIN_NS`]
/// before each, so it takes little CPU from the kernel threads that carry its packets.
///
/// The returned guard puts the thread back to `SCHED_OTHER` when dropped (the thread may
/// be a caller's: a test's, or Python's).
pub fn realtime() -> Realtime {
    let p = libc::sched_param { sched_priority: 1 };
    // SAFETY: sched_setscheduler on the calling thread (0) with a valid sched_param.
    Realtime(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &p) == 0 })
}

/// The emulator thread's real-time scheduling; [`Realtime::on`] says whether it took.
#[derive(Debug)]
pub struct Realtime(bool);

impl Realtime {
    /// Whether the thread runs `SCHED_FIFO`.
    pub fn on(&self) -> bool {
        self.0
    }
}

impl Drop for Realtime {
    fn drop(&mut self) {
        if self.0 {
            let p = libc::sched_param { sched_priority: 0 };
            // SAFETY: as in `realtime`.
            unsafe { libc::sched_setscheduler(0, libc::SCHED_OTHER, &p) };
        }
    }
}

/// Opened by the emulator's loop once it runs (its clock started, both devices read
/// once, polling without sleeping); Linux's client connects only after it is open, so
/// its SYN never waits in a device for an emulator that is not yet looking.
#[derive(Clone, Debug, Default)]
pub struct StartGate(Arc<AtomicBool>);

impl StartGate {
    /// Lets the client connect.
    pub fn open(&self) {
        self.0.store(true, Ordering::Release);
    }

    /// Waits until the gate is open; `false` when `stop` was set or `limit` passed first.
    pub fn wait(&self, stop: &AtomicBool, limit: Duration) -> bool {
        let t0 = Instant::now();
        while !self.0.load(Ordering::Acquire) {
            if stop.load(Ordering::Relaxed) || t0.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        true
    }
}

/// IP length of a SYN or SYN-ACK with MSS, SACK-permitted, timestamps and window scale
/// (20 + 20 + 20 bytes of options, as Linux sends them).
const SYN_BYTES: u64 = 60;

/// The handshake's RTT three ways, ms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Handshake {
    /// The sender's own first RTT sample (the kernel's `tcpi_rtt` after `connect`; for
    /// the engine, the emulator's measurement below). `None` when no handshake completed.
    pub handshake_rtt_ms: Option<f64>,
    /// From the SYN entering the emulator to the SYN-ACK leaving it towards the sender.
    pub handshake_emulator_rtt_ms: Option<f64>,
    /// What the path alone takes for a SYN and its SYN-ACK: both one-way delays and the
    /// serialisation of two 60-byte packets at the link rates.
    pub path_rtt_ms: f64,
    /// The emulator's loop ran `SCHED_FIFO` ([`realtime`]).
    pub emulator_realtime: bool,
}

/// The path's RTT for a handshake of `sc`, ns.
pub fn path_rtt_ns(sc: &Scenario) -> u64 {
    let ser = |rate_bps: u64| (SYN_BYTES * 8).saturating_mul(1_000_000_000) / rate_bps.max(1);
    let (f, r) = (sc.forward(), sc.reverse());
    f.delay_ns + r.delay_ns + ser(f.rate_bps) + ser(r.rate_bps)
}

impl Handshake {
    /// The report from the kernel's first sample (µs, when the sender is Linux) and the
    /// emulator's measurement (ns).
    pub fn new(
        sc: &Scenario,
        kernel_us: Option<u32>,
        emulator_ns: Option<u64>,
        realtime: bool,
    ) -> Handshake {
        let emulator = emulator_ns.map(|n| n as f64 / 1e6);
        Handshake {
            handshake_rtt_ms: kernel_us.map(|u| f64::from(u) / 1e3).or(emulator),
            handshake_emulator_rtt_ms: emulator,
            path_rtt_ms: path_rtt_ns(sc) as f64 / 1e6,
            emulator_realtime: realtime,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_waits_for_open_or_stop() {
        let g = StartGate::default();
        let stop = AtomicBool::new(true);
        assert!(!g.wait(&stop, Duration::from_secs(60)));
        g.open();
        assert!(g.wait(&AtomicBool::new(false), Duration::ZERO));
    }

    #[test]
    fn path_rtt_is_both_delays_and_two_small_packets() {
        let sc = Scenario::from_toml_str("[path]\nrtt_ms = 40\nrate_mbps = 100\n", "<t>").unwrap();
        // 40 ms plus 2 × 480 bits at 100 Mb/s = 2 × 4.8 µs.
        assert_eq!(path_rtt_ns(&sc), 40_000_000 + 9_600);
        let h = Handshake::new(&sc, Some(40_123), Some(40_010_000), true);
        assert_eq!(h.handshake_rtt_ms, Some(40.123));
        assert_eq!(h.handshake_emulator_rtt_ms, Some(40.01));
        let e = Handshake::new(&sc, None, Some(40_010_000), false);
        assert_eq!(e.handshake_rtt_ms, Some(40.01));
    }
}

//! The emulator's clock: `std::time::Instant` (CLOCK_MONOTONIC), as nanoseconds since the
//! run started — the only real clock in lossrec — and the record of how late timers fire.
//!
//! The loop sleeps in `ppoll(2)` (an hrtimer; the thread's timer slack is set to 1 ns so
//! the kernel does not round wake-ups up by its default 50 µs) until [`SPIN_NS`] before the
//! next deadline, then polls without sleeping, so deadlines are met to a few microseconds.

use std::time::Instant;

/// Below this distance to the next deadline the loop stops sleeping.
pub const SPIN_NS: u64 = 60_000;

/// Monotonic nanoseconds since creation.
#[derive(Clone, Copy, Debug)]
pub struct Clock(Instant);

impl Clock {
    pub fn start() -> Clock {
        // SAFETY: prctl(PR_SET_TIMERSLACK) only changes this thread's timer slack.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1, 0, 0, 0) };
        Clock(Instant::now())
    }
    pub fn now(&self) -> u64 {
        self.0.elapsed().as_nanos() as u64
    }
}

/// Timer lateness samples (ns after the deadline that the packet or timer was handled).
#[derive(Clone, Debug, Default)]
pub struct Lateness(Vec<u64>);

/// Percentiles of timer lateness, microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct LatenessSummary {
    pub samples: u64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

impl Lateness {
    pub fn record(&mut self, deadline: u64, now: u64) {
        self.0.push(now.saturating_sub(deadline));
    }
    pub fn summary(&self) -> LatenessSummary {
        let mut v = self.0.clone();
        v.sort_unstable();
        let pct = |p: f64| {
            if v.is_empty() {
                0.0
            } else {
                v[((v.len() - 1) as f64 * p).round() as usize] as f64 / 1e3
            }
        };
        LatenessSummary {
            samples: v.len() as u64,
            p50_us: pct(0.5),
            p99_us: pct(0.99),
            max_us: pct(1.0),
        }
    }
}

/// Waits until one of `fds` is readable or `timeout_ns` passes (`ppoll`, nanosecond
/// timeout). Interrupted waits return early; the loop just goes round again.
pub fn wait(fds: &[i32], timeout_ns: u64) {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (timeout_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: p is a valid array of pollfd of the given length; ts a valid timespec.
    unsafe {
        libc::ppoll(
            p.as_mut_ptr(),
            p.len() as libc::nfds_t,
            &ts,
            std::ptr::null(),
        )
    };
}

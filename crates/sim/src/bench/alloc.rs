//! Heap accounting for the memory benchmarks: a global-allocator wrapper that counts the
//! bytes live and their peak while a measurement runs.
//!
//! A binary opts in by declaring it as its global allocator (the benchmarks and the Python
//! extension do, around mimalloc):
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: lossrec_sim::bench::alloc::Counting<std::alloc::System> =
//!     lossrec_sim::bench::alloc::Counting(std::alloc::System);
//! ```
//!
//! Outside [`measure`] it adds one relaxed load of a flag per allocation. The counters
//! are process-wide: run one measurement at a time, on a quiet process (allocations by
//! other threads count too).

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering::Relaxed};

static ON: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);

/// Wraps an allocator and counts what passes through it during [`measure`].
pub struct Counting<A>(pub A);

fn grow(n: usize) {
    let live = LIVE.fetch_add(n as i64, Relaxed) + n as i64;
    PEAK.fetch_max(live, Relaxed);
}

fn shrink(n: usize) {
    LIVE.fetch_sub(n as i64, Relaxed);
}

// SAFETY: every call is forwarded unchanged to the wrapped allocator; the wrapper only
// updates counters.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = self.0.alloc(l);
        if ON.load(Relaxed) && !p.is_null() {
            grow(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = self.0.alloc_zeroed(l);
        if ON.load(Relaxed) && !p.is_null() {
            grow(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        self.0.dealloc(p, l);
        if ON.load(Relaxed) {
            shrink(l.size());
        }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = self.0.realloc(p, l, new);
        if ON.load(Relaxed) && !q.is_null() {
            grow(new);
            shrink(l.size());
        }
        q
    }
}

/// What [`measure`] saw, in bytes relative to its start.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Heap {
    /// Most bytes live at once.
    pub peak: i64,
    /// Bytes live when the measured function returned (including what it returned).
    pub end: i64,
}

/// Runs `f` with the counters on. `None` for the heap figures when this process does not
/// use [`Counting`] as its global allocator.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Option<Heap>) {
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    ON.store(true, Relaxed);
    // A probe allocation: counted only if this process's allocator is `Counting`.
    let probe = std::hint::black_box(Box::new([0u8; 64]));
    let installed = LIVE.load(Relaxed) > 0;
    drop(probe);
    LIVE.store(0, Relaxed);
    PEAK.store(0, Relaxed);
    let out = f();
    ON.store(false, Relaxed);
    let heap = Heap {
        peak: PEAK.load(Relaxed),
        end: LIVE.load(Relaxed),
    };
    (out, installed.then_some(heap))
}

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
//! The counters are the measuring thread's own: [`measure`] counts what the thread that
//! calls it allocates and frees while `f` runs, and nothing any other thread does (a test
//! harness's threads, a concurrent test's run). A process-wide count let those land in
//! the window: `cargo test -p lossrec-sim --test memory` failed about one run in ten on a
//! busy machine (issue 26). So `f` must not hand its work to other threads; the simulator
//! runs on the caller's thread. Memory the thread frees that was allocated before the
//! measurement (or by another thread) counts as freed, as it did before.
//!
//! Outside [`measure`] it adds one load of a thread-local flag per allocation.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::Cell;

/// This thread's counters. `const`-initialised cells without destructors: reading them
/// never allocates (the allocator must not recurse into itself) and works even while the
/// thread is being torn down.
struct Counters {
    on: Cell<bool>,
    live: Cell<i64>,
    peak: Cell<i64>,
}

thread_local! {
    static COUNTERS: Counters = const {
        Counters { on: Cell::new(false), live: Cell::new(0), peak: Cell::new(0) }
    };
}

/// Adds `delta` bytes to this thread's live count if it is measuring.
fn count(delta: i64) {
    // `try_with`: never panic inside the allocator, even on a thread being torn down.
    let _ = COUNTERS.try_with(|c| {
        if c.on.get() {
            let live = c.live.get() + delta;
            c.live.set(live);
            c.peak.set(c.peak.get().max(live));
        }
    });
}

fn grow(n: usize) {
    count(n as i64);
}

fn shrink(n: usize) {
    count(-(n as i64));
}

fn set(on: bool) {
    COUNTERS.with(|c| {
        c.on.set(on);
        c.live.set(0);
        c.peak.set(0);
    });
}

fn read() -> (i64, i64) {
    COUNTERS.with(|c| (c.live.get(), c.peak.get()))
}

/// Wraps an allocator and counts what passes through it during [`measure`].
pub struct Counting<A>(pub A);

// SAFETY: every call is forwarded unchanged to the wrapped allocator; the wrapper only
// updates counters.
unsafe impl<A: GlobalAlloc> GlobalAlloc for Counting<A> {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = self.0.alloc(l);
        if !p.is_null() {
            grow(l.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        let p = self.0.alloc_zeroed(l);
        if !p.is_null() {
            grow(l.size());
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        self.0.dealloc(p, l);
        shrink(l.size());
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        let q = self.0.realloc(p, l, new);
        if !q.is_null() {
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

/// Runs `f` on this thread with this thread's counters on (see the module doc: other
/// threads' allocations are not counted). `None` for the heap figures when this process
/// does not use [`Counting`] as its global allocator.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Option<Heap>) {
    set(true);
    // A probe allocation: counted only if this process's allocator is `Counting`.
    let probe = std::hint::black_box(Box::new([0u8; 64]));
    let installed = read().0 > 0;
    drop(probe);
    set(true);
    let out = f();
    let (end, peak) = read();
    set(false);
    (out, installed.then_some(Heap { peak, end }))
}

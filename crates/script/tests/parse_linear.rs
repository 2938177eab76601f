//! Issue 26 item 6: the parser's work is linear in the script's length. Not timed: the bytes
//! it allocates are counted (per thread, so other tests cannot disturb the count) and must
//! grow in proportion to the script. The parser once copied the whole script per event
//! (a look-ahead cloned a `Vec<char>` of it), so a script four times longer allocated
//! sixteen times as much.
//!
//! An error quotes a short prefix of a long token, never the token whole.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: delegates to the system allocator; the counter is a thread-local `Cell` with a
// const initialiser, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + layout.size() as u64));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATED.try_with(|a| a.set(a.get() + new_size as u64));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Every kind of line the parser reads: syscalls, packets with options, time ranges,
/// comments, `%{ }%` blocks, shell commands, an option line.
const BLOCK: &str = "\
+0 write(4, ..., 1000) = 1000
+0 > P. 1:1001(1000) ack 1
+0...0.1 < . 1:1(0) ack 1001 win 257 <nop,nop,sack 1:1001>
// a comment
/* a block comment */ +0 %{ x = tcpi_snd_cwnd; assert x == x }%
+0 `true`
*  < icmp unreachable
";

fn allocated_parsing(blocks: usize) -> u64 {
    let text = format!("--tolerance_usecs=1000\n{}", BLOCK.repeat(blocks));
    let before = ALLOCATED.with(Cell::get);
    let script = lossrec_script::parse(&text).expect("the script parses");
    let after = ALLOCATED.with(Cell::get);
    assert_eq!(script.events.len(), 6 * blocks);
    after - before
}

#[test]
fn the_parsers_allocations_grow_linearly_with_the_script() {
    let small = allocated_parsing(500);
    let large = allocated_parsing(2000);
    let ratio = large as f64 / small as f64;
    // Linear is 4 (a little more where a growing Vec doubles past a power of two);
    // quadratic is 16.
    assert!(
        ratio < 5.0,
        "4x the script allocated {ratio:.1}x as much ({small} → {large} bytes)"
    );
}

#[test]
fn an_error_quotes_a_short_prefix_of_a_long_token() {
    let long = "a".repeat(1_000_000);
    for text in [
        format!("0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n+0 {long}(3) = 0 x{long}\n"),
        format!("{long}\n"),
        format!("0 < . 1:1(0) ack 1 win 257 <{long}>\n"),
    ] {
        let errors = lossrec_script::parse(&text).unwrap_err();
        for e in &errors {
            assert!(
                e.message.len() < 400,
                "an error message of {} bytes: {}…",
                e.message.len(),
                &e.message[..200]
            );
        }
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains(&format!("{}…` (", "a".repeat(79)))
                    && e.message.contains("00 characters)")
                    || e.message.contains("01 characters)")),
            "{errors:?}"
        );
    }
}

#[test]
fn a_runtime_failure_quotes_a_short_prefix_of_a_long_value() {
    let long = "a".repeat(1_000_000);
    let text = format!("// lossrec: set=cc={long}\n0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3\n");
    let r = lossrec_script::run_script(&text, "t.pkt", &Default::default());
    assert!(!r.passed);
    for f in &r.failures {
        assert!(f.message.len() < 400, "a {} byte message", f.message.len());
    }
    assert!(
        r.failures.iter().any(|f| f.message.contains("characters)")),
        "{:?}",
        r.failures
            .iter()
            .map(|f| &f.message[..f.message.len().min(200)])
            .collect::<Vec<_>>()
    );
}

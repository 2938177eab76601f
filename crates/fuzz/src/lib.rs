//! # lossrec-fuzz — the bodies of the cargo-fuzz targets
//!
//! Each target is a plain function of the input bytes that panics when an invariant
//! breaks. `fuzz/` (nightly, libFuzzer; `scripts/fuzz.sh`) calls them from
//! `fuzz_target!`, and `tests/corpus.rs` feeds every file of the seed corpora in
//! `fuzz/seeds/<target>/` through the same functions on stable, as regression tests.
//! Inputs are decoded with the `arbitrary` crate where they are operation sequences
//! (op-sequence fuzzing, as s2n-quic does).

pub mod messages;
pub mod receiver_segments;
pub mod scenario;
pub mod script;
pub mod sender_check;
pub mod sender_ops;
pub mod wire;

/// One fuzz target: its name (the file in `fuzz/fuzz_targets/` and the seed directory)
/// and its body.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]),
}

/// Every target.
pub const TARGETS: &[Target] = &[
    Target {
        name: "sender_ops",
        run: sender_ops::run,
    },
    Target {
        name: "receiver_segments",
        run: receiver_segments::run,
    },
    Target {
        name: "wire_decode",
        run: wire::run,
    },
    Target {
        name: "scenario_parse",
        run: scenario::run,
    },
    Target {
        name: "script_parse",
        run: script::run,
    },
];

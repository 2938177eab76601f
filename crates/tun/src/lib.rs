//! # lossrec-tun — the real wire
//!
//! The only crate in lossrec that reads a real clock or touches a device. It runs the
//! engine's [`lossrec::Sender`] as a user-space TCP endpoint against an ordinary Linux
//! socket, and Linux's own TCP sender against the same socket (or against the engine's
//! [`lossrec::Receiver`]), through a user-space path emulator that applies the simulator's
//! link, loss, reordering and delay-spike models ([`path`]) in real time ([`clock`]).
//!
//! Two network namespaces, each with a TUN device, are created per run and named after the
//! process id ([`netns`], [`topology`]); they are removed on exit, on cancel, on a panic,
//! and after a crash by [`netns::cleanup_dead`] (`lossrec wire --cleanup`, and the start of
//! every run). Needs root, `/dev/net/tun` and iproute2 ([`netns::unavailable`] says why
//! not). No netem: the emulator is ours.
//!
//! ```no_run
//! use lossrec_sim::Scenario;
//! use lossrec_tun::{run, Side, WireOptions};
//! let sc = Scenario::from_toml_str("[path]\nrtt_ms = 40\n[path.loss]\nmodel = \"tail\"", "<doc>").unwrap();
//! let out = run(&sc, &WireOptions { sender: Side::Linux, ..WireOptions::default() }).unwrap();
//! println!("{}", out.to_json());
//! ```

pub mod apps;
pub mod clock;
pub mod device;
pub mod driver;
pub mod engine_flows;
pub mod engine_receiver;
pub mod engine_sender;
pub mod kernel;
pub mod linux;
pub mod netns;
pub mod path;
pub mod results;
mod run;
pub mod startup;
pub mod topology;

pub use linux::Close;
pub use run::{run, run_to, KernelSide, Side, WireOptions, WireOutput};

//! One test per divergence class found in the engine's own captures (`lossrec run --pcap`
//! of `experiments/examples/*.toml` under every preset, explained under the preset that
//! made them: `cargo run --release -p lossrec-capture --example matrix`). Each scenario is
//! the smallest example file that showed the class; under its preset every decision must
//! match.

use lossrec_capture::{explain_path, AppMode, Options, Verdict};
mod common;
use common::simulated_capture;

/// experiments/examples/gilbert-elliott.toml with the preset left open.
const GILBERT: &str = "seed = 3\n[path]\nrtt_ms = 80\nrate_mbps = 10\n[path.loss]\n\
model = \"gilbert-elliott\"\np_good_bad = 0.004\np_bad_good = 0.2\nloss_good = 0.0\n\
loss_bad = 0.5\n[sender]\npreset = \"PRESET\"\n[workload]\nkind = \"flows\"\nflows = 20\n\
segments = 100\narrival = \"concurrent\"\n";

/// Matched and total decisions of `scenario`'s capture under `preset`, with the first
/// divergent rows for the failure message.
fn matched(scenario: &str, preset: &str, app: AppMode) -> (u64, u64, Vec<String>) {
    let f = simulated_capture(&scenario.replace("PRESET", preset));
    let opts = Options {
        preset: preset.into(),
        flow: None,
        app,
    };
    let mut bad = Vec::new();
    let r = explain_path(f.path(), &opts, |i, row| {
        if row.verdict != Verdict::Matched && bad.len() < 8 {
            bad.push(format!("conn {i}: {row:?}"));
        }
    })
    .unwrap();
    let m = r.conns.iter().map(|c| c.summary.matched()).sum();
    let d = r.conns.iter().map(|c| c.summary.decisions()).sum();
    (m, d, bad)
}

fn assert_all(scenario: &str, preset: &str, app: AppMode) {
    let (m, d, bad) = matched(scenario, preset, app);
    assert!(
        m == d && d > 0,
        "{preset}: {m} of {d} matched; first divergences:\n{}",
        bad.join("\n")
    );
}

/// Class 1 (`--app seen`): a timer that fires between two ACKs runs with the data the
/// application had written by its deadline. The tail loss probe sends new data when
/// there is some (RFC 8985 §7.3; Linux `tcp_send_loss_probe` sends `tcp_send_head`
/// first), so writing the lookahead only after the timer made the engine retransmit
/// where the captured sender sent new data (gilbert-elliott under rack-tlp: 2311/2633).
#[test]
fn a_timer_sees_what_was_written_by_its_deadline() {
    assert_all(GILBERT, "rack-tlp", AppMode::AsSeen);
}

/// Class 2: the engine's receiver advertised windows that were not whole units of its
/// window scale while a hole held the right edge (Linux rounds the kept window up:
/// `tcp_select_window`'s `ALIGN(cur_win, 1 << rcv_wscale)`); the capture carries the
/// window cut down to the unit, so the shadow engine found new data outside the window
/// that the simulated sender had room for (gilbert-elliott under prr: 2376/2378).
#[test]
fn windows_cross_the_capture_intact() {
    for preset in ["prr", "linux-rh", "fack"] {
        assert_all(GILBERT, preset, AppMode::Bulk);
    }
}

/// Class 3 (`--app seen`): an ACK runs with the data the application had written by its
/// arrival. F-RTO decides inside its ACK handling whether new data can go out (RFC 5682
/// §2.1 step 2b; Linux `tcp_process_loss` checks `tcp_send_head`); the lookahead was
/// written only after the ACK, so the engine retransmitted where the captured sender sent
/// new data (gilbert-elliott under linux-3.17: 2310/2473).
#[test]
fn an_ack_sees_what_was_written_by_its_arrival() {
    for preset in ["linux-3.17", "linux-3.17-tlp", "linux"] {
        assert_all(GILBERT, preset, AppMode::AsSeen);
    }
}

/// experiments/examples/bulk.toml (the preset's own controller), 4 s instead of 20.
const BULK: &str = "seed = 1\n[path]\nrtt_ms = 40\nrate_mbps = 50\nqueue_bytes = 250000\n\
[path.loss]\nmodel = \"bernoulli\"\np = 0.005\n[sender]\npreset = \"PRESET\"\n\
[workload]\nkind = \"bulk\"\nflows = 2\nduration_s = 4\n";

/// Class 4: a millisecond TSval tick is shared by several transmissions, and the engine
/// took its RTT sample from whichever of them the map kept; the receiver echoes the
/// TSval of one segment, the one that starts at the ACK before (RFC 7323 §4.3: TS.Recent
/// is taken from a segment at or below Last.ACK.sent; the engine's receiver
/// `update_ts_recent`, Linux `tcp_replace_ts_recent`), so that segment's own engine
/// TSval is the echo. Off by up to a tick, SRTT steered CUBIC's cwnd a few bytes away
/// and a segment went one ACK late (bulk under linux-classic: 21,138/21,202).
#[test]
fn the_echo_is_the_segment_at_the_last_ack() {
    assert_all(BULK, "linux-classic", AppMode::Bulk);
}

/// Every preset, on the bursty-loss scenario, under the workload's own app model (the
/// simulator's flows write everything at the start): every decision matches, except
/// `linux-hardened`, whose optimistic-ACK defence skips segments at random from a secret
/// seed no capture shows.
#[test]
fn every_preset_but_the_hardened_one_matches_its_own_capture() {
    for p in lossrec::PRESETS
        .iter()
        .filter(|p| p.name != "linux-hardened")
    {
        assert_all(GILBERT, p.name, AppMode::Bulk);
    }
}

//! The simulator's other workloads on the wire, with both senders against the kernel's
//! receiver (and Linux's sender against the engine's receiver): request-response
//! (responses written when the request arrives: the response's last byte at the receiver,
//! think time, one reverse-path delay; one result per response) and timed writes (an
//! application that pauses, one result per connection). Each response and each
//! connection must complete as the simulator says it does, and the engine and the kernel
//! must repair the same losses. Needs root and /dev/net/tun; without them each test says
//! so and returns.

use lossrec_sim::{FlowResult, Scenario};
use lossrec_tun::{netns, run, Side, WireOptions};

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> Option<std::sync::MutexGuard<'static, ()>> {
    if let Some(why) = netns::unavailable() {
        eprintln!("SKIPPED (wire tests): {why}");
        return None;
    }
    Some(SERIAL.lock().unwrap_or_else(|e| e.into_inner()))
}

const MSS: u64 = 1448;

/// Emulator deliveries and timer wake-ups on a response's critical path (the request, the
/// flight's last segment and its ACK, the probe, the repair and its ACK; with room), as
/// python/tests/test_wire.py counts them.
const CRITICAL_PATH: f64 = 10.0;

/// The run's flows and what the machine's load may add to a live FCT, as this run measured
/// it: the emulator's worst delivery and timer lateness, once per step of the critical
/// path. A quiet machine measures tens of microseconds, a busy one milliseconds; a fixed
/// tolerance alone failed under load (397 vs 302 ms).
fn wire(sc: &Scenario, sender: Side, receiver: Side) -> (Vec<FlowResult>, f64) {
    let opts = WireOptions {
        sender,
        receiver,
        ..WireOptions::default()
    };
    let out = run(sc, &opts).unwrap();
    eprintln!("{sender:?}→{receiver:?}: {:?}", out.flows);
    assert_eq!(out.unfinished_flows, 0, "{out:?}");
    let late_ms =
        CRITICAL_PATH * (out.delivery_lateness.max_us + out.timer_lateness.max_us) / 1000.0;
    (out.flows, late_ms)
}

/// `a` within `tol` of `b`, plus the run's measured lateness `late_ms`.
fn close(a: f64, b: f64, tol: f64, late_ms: f64) -> bool {
    (a - b).abs() <= tol * b + late_ms
}

/// Three responses of 10 segments on one connection, each losing its last segment once
/// (the tail model applies to each response, as in the simulator), 20 ms of think time.
#[test]
fn request_response_each_response_repaired_and_timed() {
    let Some(_g) = serial() else { return };
    let sc = Scenario::from_toml_str(
        r#"
[path]
rtt_ms = 40
rate_mbps = 100
[path.loss]
model = "tail"
count = 1
[sender]
preset = "linux"
[workload]
kind = "request-response"
requests = 3
response_segments = 10
think_ms = 20
"#,
        "<rr>",
    )
    .unwrap();
    let sim = lossrec_sim::run(&sc, &Default::default()).unwrap().flows;
    assert_eq!(sim.len(), 3);
    for (s, r) in [
        (Side::Engine, Side::Linux),
        (Side::Linux, Side::Linux),
        (Side::Linux, Side::Engine),
    ] {
        let (flows, late_ms) = wire(&sc, s, r);
        assert_eq!(flows.len(), 3, "{s:?}→{r:?}");
        for (i, (f, m)) in flows.iter().zip(&sim).enumerate() {
            assert_eq!(f.id, i as u64);
            assert_eq!(f.bytes, 10 * MSS, "{s:?}→{r:?} response {i}: {f:?}");
            // Each response: its own last segment lost once, repaired by the probe.
            assert_eq!(
                (f.retransmits, f.tlp_probes, f.rtos, f.data_packets_sent),
                (1, 1, 0, 11),
                "{s:?}→{r:?} response {i}: {f:?}"
            );
            let fct = f.fct_ms.expect("completed");
            let want = m.fct_ms.unwrap();
            // The schedule is the simulator's: later responses are timed from the
            // request's arrival (no handshake in them).
            assert!(
                close(fct, want, 0.1, late_ms),
                "{s:?}→{r:?} response {i}: {fct} ms vs simulator {want} ms"
            );
        }
        assert!(
            flows[1].fct_ms < flows[0].fct_ms,
            "no handshake in the second"
        );
    }
}

/// An application that writes 5 segments, pauses 300 ms, then writes 5 more: one
/// result for the connection, complete once the second write has arrived.
#[test]
fn timed_writes_pause_and_resume() {
    let Some(_g) = serial() else { return };
    let sc = Scenario::from_toml_str(
        &format!(
            "[path]\nrtt_ms = 40\nrate_mbps = 100\n[sender]\npreset = \"linux\"\n\
             [workload]\nkind = \"writes\"\nwrites = [[0, {}], [300, {}]]\n",
            5 * MSS,
            5 * MSS
        ),
        "<writes>",
    )
    .unwrap();
    let want = lossrec_sim::run(&sc, &Default::default()).unwrap().flows[0]
        .fct_ms
        .unwrap();
    for (s, r) in [(Side::Engine, Side::Linux), (Side::Linux, Side::Linux)] {
        let (flows, late_ms) = wire(&sc, s, r);
        assert_eq!(flows.len(), 1);
        let f = &flows[0];
        assert_eq!(
            (f.bytes, f.data_packets_sent, f.retransmits),
            (10 * MSS, 10, 0),
            "{f:?}"
        );
        let fct = f.fct_ms.unwrap();
        // Handshake, the 300 ms pause, the second write's trip: the simulator's time.
        assert!(
            fct > 300.0 && close(fct, want, 0.05, late_ms),
            "{s:?}: {fct} vs {want}"
        );
    }
}

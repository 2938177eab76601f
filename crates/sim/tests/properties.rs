//! Property: under any loss, ACK loss and reordering below 100 %, every byte of every flow is
//! delivered, nothing panics, and the run is reproducible.

mod common;
use common::*;
use lossrec_sim::{run, RunOptions};
use proptest::prelude::*;

#[derive(Debug, Clone)]
struct Case {
    rtt_ms: u32,
    rate_mbps: u32,
    queue: u32,
    loss: String,
    ack_loss: String,
    reorder: Option<(f64, u32)>,
    spikes: Option<(u32, u32, u32)>,
    request_response: bool,
    delayed_ack_ms: u32,
    sack: bool,
    timestamps: bool,
    handshake: bool,
    preset: &'static str,
    flows: u32,
    segments: u32,
    arrival: &'static str,
    seed: u64,
}

fn loss_model(max_p: f64) -> impl Strategy<Value = String> {
    prop_oneof![
        Just("model = \"none\"".to_string()),
        (0.0..max_p).prop_map(|p| format!("model = \"bernoulli\"\np = {p}")),
        (0.0..0.2f64, 0.2..1.0f64, 0.0..0.6f64).prop_map(|(gb, bg, lb)| format!(
            "model = \"gilbert-elliott\"\np_good_bad = {gb}\np_bad_good = {bg}\nloss_bad = {lb}"
        )),
        prop::collection::vec(0u64..60, 0..6)
            .prop_map(|v| format!("model = \"drop-list\"\npackets = {v:?}")),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1u32..200, 1u32..100, 3u32..200),
        (loss_model(0.3), loss_model(0.3)),
        (
            prop::option::of((0.0..0.3f64, 0u32..30)),
            prop::option::of((0u32..2000, 1u32..500, 1u32..5000)),
            prop::bool::weighted(0.2),
        ),
        (
            prop::sample::select(vec![0u32, 40, 200]),
            any::<bool>(),
            any::<bool>(),
            any::<bool>(),
        ),
        prop::sample::select(vec!["rfc", "linux-classic"]),
        (
            1u32..4,
            1u32..80,
            prop::sample::select(vec!["sequential", "concurrent"]),
        ),
        any::<u64>(),
    )
        .prop_map(
            |(
                (rtt_ms, rate_mbps, queue),
                (loss, ack_loss),
                (reorder, spikes, request_response),
                (delayed_ack_ms, sack, timestamps, handshake),
                preset,
                (flows, segments, arrival),
                seed,
            )| Case {
                rtt_ms,
                rate_mbps,
                queue,
                loss,
                ack_loss,
                reorder,
                spikes,
                request_response,
                delayed_ack_ms,
                sack,
                timestamps,
                handshake,
                preset,
                flows,
                segments,
                arrival,
                seed: seed >> 1,
            },
        )
}

fn toml(c: &Case) -> String {
    let mut s = format!(
        "seed = {}\nmax_time_s = 100000\n[path]\nrtt_ms = {}\nrate_mbps = {}\nqueue_packets = {}\n[path.loss]\n{}\n[path.ack_loss]\n{}\n",
        c.seed, c.rtt_ms, c.rate_mbps, c.queue, c.loss, c.ack_loss
    );
    if let Some((fraction, delay)) = c.reorder {
        s += &format!(
            "[path.reorder]\nfraction = {fraction}\ndelay_ms = 0\ndelay_max_ms = {delay}\n"
        );
    }
    if let Some((start, extra, gap)) = c.spikes {
        s += &format!(
            "[path.delay_spikes]\nstart_ms = {start}\nextra_ms = {extra}\nperiod_ms = {}\n",
            extra + gap
        );
    }
    let workload = if c.request_response {
        format!(
            "kind = \"request-response\"\nrequests = {}\nresponse_segments = {}\nthink_ms = 10\n",
            c.flows, c.segments
        )
    } else {
        format!(
            "flows = {}\nsegments = {}\narrival = \"{}\"\n",
            c.flows, c.segments, c.arrival
        )
    };
    s += &format!(
        "[receiver]\ndelayed_ack_ms = {}\nsack = {}\ntimestamps = {}\n[sender]\npreset = \"{}\"\nsack = {}\ntimestamps = {}\nhandshake = {}\n[workload]\n{workload}",
        c.delayed_ack_ms, c.sack, c.timestamps, c.preset, c.sack, c.timestamps, c.handshake
    );
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_byte_is_delivered(c in case()) {
        let text = toml(&c);
        let sc = scenario(&text);
        let opts = RunOptions { trace: true, ..RunOptions::default() };
        let out = run(&sc, &opts).unwrap();
        prop_assert_eq!(out.unfinished_flows, 0, "{}\n{}", text, out.to_json(0.0));
        prop_assert!(!out.time_limit_hit);
        prop_assert_eq!(out.flows.len() as u32, c.flows);
        for f in &out.flows {
            prop_assert_eq!(f.bytes, u64::from(c.segments) * 1448, "{}", text);
            prop_assert!(f.fct_ms.is_some_and(|t| t > 0.0));
            prop_assert!(f.data_packets_sent >= u64::from(c.segments));
            prop_assert_eq!(f.data_packets_sent, u64::from(c.segments) + f.retransmits);
        }
        // The trace is well formed: every line is JSON, with time never going backwards
        // among packet events.
        let l = lines(&out);
        let mut last = 0;
        for line in l.iter().filter(|l| l["kind"] != "event") {
            let t = line["t_us"].as_u64().unwrap();
            prop_assert!(t >= last);
            last = t;
        }
        // Reproducible.
        let again = run(&sc, &opts).unwrap();
        prop_assert_eq!(out.trace, again.trace);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Garbage and near-miss scenario text gives an error (with a position when the text is
    /// not empty of content) or a scenario, never a panic.
    #[test]
    fn parser_never_panics(
        key in prop::sample::select(vec![
            "seed", "max_time_s", "path.rtt_ms", "path.rate_mbps", "path.queue_bytes",
            "path.loss.p", "path.loss.model", "path.loss.count", "path.loss.packets",
            "path.reorder.delay_ms", "path.delay_spikes.extra_ms", "receiver.delayed_ack_ms",
            "sender.preset", "sender.mss", "sender.cc", "workload.kind", "workload.flows",
            "workload.bytes", "workload.duration_s", "bogus.key",
        ]),
        value in prop_oneof![
            any::<i64>().prop_map(|v| v.to_string()),
            any::<f64>().prop_map(|v| format!("{v:?}")),
            "[a-z\\-]{0,12}".prop_map(|v| format!("\"{v}\"")),
            Just("[1, 2, 3]".to_string()),
            Just("true".to_string()),
            Just("{ a = 1 }".to_string()),
        ],
        junk in "[ -~\\n]{0,40}",
    ) {
        let (table, k) = key.rsplit_once('.').map_or(("", key), |(t, k)| (t, k));
        let text = if table.is_empty() {
            format!("{k} = {value}\n")
        } else {
            format!("[{table}]\n{k} = {value}\n")
        };
        if let Err(e) = lossrec_sim::Scenario::from_toml_str(&text, "p.toml") {
            prop_assert!(e.line.is_some(), "{}: {}", text, e);
        }
        let _ = lossrec_sim::Scenario::from_toml_str(&junk, "junk.toml");
        let _ = lossrec_sim::Scenario::from_toml_str(&format!("{text}{junk}"), "both.toml");
    }
}

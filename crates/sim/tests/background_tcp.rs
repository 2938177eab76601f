//! `[[background]] kind = "tcp"`: responsive background made of short TCP connections —
//! parsing, their response to a narrower bottleneck, their separation from the measured
//! flows, determinism.

mod common;
use common::*;
use lossrec_sim::background::{BurstDist, SourceKind};
use lossrec_sim::Scenario;

fn err(text: &str) -> String {
    let e = Scenario::from_toml_str(text, "<t>").unwrap_err();
    format!("{} {}", e.field.unwrap_or_default(), e.message)
}

/// One idle measured connection that writes 1 kB at 20 s: the run lasts about 20 s
/// whatever the background does.
fn idle(rate_mbps: f64, bg: &str) -> String {
    format!(
        "[path]\nrtt_ms = 40\nrate_mbps = {rate_mbps}\nqueue_packets = 40\n\
         [workload]\nkind = \"writes\"\nwrites = [[20000, 1000]]\n{bg}"
    )
}

const TCP: &str = "[[background]]\nkind = \"tcp\"\nrate_per_s = 7.5\nmean_bytes = 50000\n\
                   size_dist = \"pareto\"\nshape = 1.5\nmax_open = 30\n";

#[test]
fn parses_a_tcp_source_with_load_or_rate() {
    let sc = scenario(&idle(
        10.0,
        "[[background]]\nkind = \"tcp\"\nload = 0.4\nmean_bytes = 50000\n",
    ));
    match sc.background()[0].kind {
        SourceKind::Tcp {
            rate_per_s,
            dist,
            preset,
            max_open,
            ..
        } => {
            // 40 % of 10 Mb/s in 50 kB connections: 10 per second.
            assert!((rate_per_s - 10.0).abs() < 1e-9, "{rate_per_s}");
            assert_eq!(dist, BurstDist::Pareto { shape: 1.2 });
            assert_eq!((preset, max_open), ("linux", 1000));
        }
        k => panic!("{k:?}"),
    }
    let sc = scenario(&idle(10.0, TCP));
    assert!(matches!(
        sc.background()[0].kind,
        SourceKind::Tcp { rate_per_s, max_open: 30, .. } if rate_per_s == 7.5
    ));
}

#[test]
fn schema_errors_name_the_bad_field() {
    let bg = |extra: &str| idle(10.0, &format!("[[background]]\nkind = \"tcp\"\n{extra}"));
    let cases = [
        ("load = 0.3\n", "background[0] ", "mean_bytes"),
        (
            "mean_bytes = 9000\n",
            "background[0] ",
            "`load` or `rate_per_s`",
        ),
        (
            "mean_bytes = 9000\nload = 0.3\nrate_per_s = 2\n",
            "background[0].load",
            "not both",
        ),
        ("mean_bytes = 9000\nload = -1\n", "background[0].load", ""),
        (
            "mean_bytes = 9000\nload = 0.3\nrate_mbps = 1\n",
            "background[0].rate_mbps",
            "pace",
        ),
        (
            "mean_bytes = 9000\nload = 0.3\npacket_bytes = 1000\n",
            "background[0].packet_bytes",
            "",
        ),
        (
            "mean_bytes = 9000\nload = 0.3\npreset = \"nope\"\n",
            "background[0].preset",
            "nope",
        ),
        (
            "mean_bytes = 9000\nload = 0.3\nmax_open = 0\n",
            "background[0].max_open",
            "",
        ),
        (
            "mean_bytes = 9000\nload = 0.3\nsize_dist = \"zipf\"\n",
            "background[0].size_dist",
            "zipf",
        ),
        (
            "mean_bytes = 9000\nload = 0.3\nshape = 0.5\n",
            "background[0].shape",
            "(1, 100]",
        ),
    ];
    for (extra, field, msg) in cases {
        let e = err(&bg(extra));
        assert!(e.starts_with(field) && e.contains(msg), "{extra:?}: {e}");
    }
    // The tcp-only keys on another kind.
    let e = err(&idle(10.0, "[[background]]\nrate_mbps = 1\nload = 0.3\n"));
    assert!(e.starts_with("background[0].load"), "{e}");
    let e = err(&idle(
        10.0,
        "[[background]]\nrate_mbps = 1\npreset = \"linux\"\n",
    ));
    assert!(e.starts_with("background[0].preset"), "{e}");
}

/// Offered bytes per second of simulated time, and the share the queue dropped.
fn rate_and_drops(out: &lossrec_sim::RunOutput) -> (f64, f64) {
    let st = out.background[0];
    (
        st.bytes as f64 * 8.0 / out.sim_time_s,
        st.dropped as f64 / st.packets.max(1) as f64,
    )
}

#[test]
fn tcp_background_slows_down_when_the_bottleneck_shrinks() {
    // The same arrivals of connections (2.4 Mb/s offered, heavy-tailed sizes around
    // 300 kB) on a 10 Mb/s and on a 1 Mb/s bottleneck.
    let long = "[[background]]\nkind = \"tcp\"\nrate_per_s = 1\nmean_bytes = 300000\n\
                size_dist = \"pareto\"\nshape = 1.5\nmax_open = 30\n";
    let wide = plain(&idle(10.0, long));
    let narrow = plain(&idle(1.0, long));
    let (r_wide, _) = rate_and_drops(&wide);
    let (r_narrow, d_narrow) = rate_and_drops(&narrow);
    assert!(wide.background[0].finished > 10, "{:?}", wide.background[0]);
    assert!(r_wide > 1.5e6, "{r_wide}");
    // TCP's aggregate sending rate falls to about the capacity (retransmissions
    // included) ...
    assert!(
        r_narrow < 1.3e6 && r_narrow < 0.75 * r_wide,
        "{r_narrow} vs {r_wide}"
    );
    // ... because its senders cut their windows on loss: the queue drops a small share of
    // what they send, where line-rate bursts with the same arrivals and sizes keep
    // sending at their own rate and lose much more.
    let bursts = long
        .replace("kind = \"tcp\"", "kind = \"bursts\"\nrate_mbps = 100")
        .replace("max_open = 30\n", "");
    let (r_bursts, d_bursts) = rate_and_drops(&plain(&idle(1.0, &bursts)));
    assert!(r_bursts > 1.5e6, "non-responsive: {r_bursts}");
    assert!(
        d_narrow < 0.25 * d_bursts,
        "tcp drops {d_narrow}, bursts {d_bursts}"
    );
    let st = narrow.background[0];
    assert!(st.retransmits > 0 && st.delivered_bytes > 0, "{st:?}");
}

#[test]
fn background_connections_are_not_measured_flows() {
    let text = "[path]\nrtt_ms = 40\nrate_mbps = 4\nqueue_packets = 30\n\
                [workload]\nflows = 3\nsegments = 300\n"
        .to_string()
        + &TCP.replace("rate_per_s = 7.5", "rate_per_s = 2");
    let out = traced(&text);
    assert_eq!(out.flows.len(), 3);
    assert!(
        out.background[0].connections > 10,
        "{:?}",
        out.background[0]
    );
    assert!(out.recoveries.iter().all(|r| r.flow < 3));
    // The trace and the episodes show the measured connections only.
    for l in lines(&out) {
        if let Some(f) = l.get("flow").and_then(|f| f.as_u64()) {
            assert!(f < 3, "{l}");
        }
    }
    assert_all_delivered(&out, 300 * 1448);
    // The background slows the measured flows down.
    let alone = plain(&text.replace("kind = \"tcp\"", "kind = \"tcp\"\nstart_ms = 1e9"));
    assert_eq!(alone.background[0].connections, 0);
    let fct = |o: &lossrec_sim::RunOutput| o.flows.iter().map(|f| f.fct_ms.unwrap()).sum::<f64>();
    assert!(fct(&out) > fct(&alone));
}

#[test]
fn tcp_background_is_deterministic_per_seed() {
    let a = plain(&idle(3.0, TCP));
    let b = plain(&idle(3.0, TCP));
    assert_eq!(a.background, b.background);
    assert_eq!(a.to_json(0.0), b.to_json(0.0));
    let c = plain(&format!("seed = 5\n{}", idle(3.0, TCP)));
    assert_ne!(a.background, c.background);
}

#[test]
fn max_open_turns_arrivals_away() {
    let text = idle(1.0, &TCP.replace("max_open = 30", "max_open = 5"));
    let st = plain(&text).background[0];
    assert!(
        st.rejected > 0 && st.connections - st.finished <= 5,
        "{st:?}"
    );
}

#[test]
fn the_json_reports_background_sources_apart() {
    let out = plain(&idle(3.0, TCP));
    let v: serde_json::Value = serde_json::from_str(&out.to_json(0.0)).unwrap();
    assert_eq!(v["flows"].as_array().unwrap().len(), 1);
    let bg = &v["background"][0];
    assert_eq!(bg["connections"], out.background[0].connections);
    assert!(bg["delivered_bytes"].as_u64().unwrap() > 0);
    // No source, no key: the output of scenarios without background is unchanged.
    let none = plain("[workload]\nsegments = 3\n");
    assert!(!none.to_json(0.0).contains("background"));
}

//! End-to-end runs: FCT arithmetic, workloads, determinism, the JSON contract, examples.

mod common;
use common::*;
use lossrec_sim::{run, RunOptions, Scenario};

#[test]
fn fct_of_a_clean_flow_is_handshake_plus_data_time() {
    // SYN out and SYN-ACK back: 100 ms + 2 · 41.6 µs (52-byte packets at 10 Mb/s). Then the
    // handshake ACK (41.6 µs) and ten 1500-byte segments (1.2 ms each) serialise back to back
    // and the last one propagates for 50 ms.
    let out = plain("[path]\nrtt_ms = 100\nrate_mbps = 10\n[workload]\nsegments = 10\n");
    assert_all_delivered(&out, 14480);
    let want = 100.0 + 3.0 * 0.0416 + 12.0 + 50.0;
    let fct = out.flows[0].fct_ms.unwrap();
    assert!((fct - want).abs() < 0.01, "fct {fct} want {want}");
    let f = &out.flows[0];
    assert_eq!(
        (
            f.data_packets_sent,
            f.retransmits,
            f.rtos,
            f.fast_recoveries
        ),
        (10, 0, 0, 0)
    );
}

#[test]
fn without_handshake_fct_starts_at_the_first_data() {
    let out = plain("[path]\nrtt_ms = 100\nrate_mbps = 10\n[sender]\nhandshake = false\n[workload]\nsegments = 10\n");
    let fct = out.flows[0].fct_ms.unwrap();
    assert!((fct - 62.0).abs() < 0.01, "{fct}");
}

#[test]
fn tail_loss_costs_an_rto() {
    let out =
        plain("[path]\nrtt_ms = 100\n[path.loss]\nmodel = \"tail\"\n[workload]\nsegments = 10\n");
    let f = &out.flows[0];
    assert_eq!((f.rtos, f.retransmits), (1, 1));
    assert!(f.fct_ms.unwrap() > 1000.0);
}

#[test]
fn same_seed_same_bytes() {
    let text = "[path]\nrtt_ms = 30\nrate_mbps = 20\n[path.loss]\nmodel = \"bernoulli\"\np = 0.03\n[path.ack_loss]\nmodel = \"gilbert-elliott\"\np_good_bad = 0.05\np_bad_good = 0.5\n[path.reorder]\nfraction = 0.02\ndelay_ms = 1\ndelay_max_ms = 8\n[workload]\nflows = 6\nsegments = 40\narrival = \"concurrent\"\n";
    let sc = scenario(text);
    let opts = RunOptions {
        trace: true,
        pcap: true,
        ..RunOptions::default()
    };
    let a = run(&sc, &opts).unwrap();
    let b = run(&sc, &opts).unwrap();
    assert_eq!(a.trace, b.trace);
    assert_eq!(a.pcap, b.pcap);
    assert_eq!(a.to_json(0.5), b.to_json(0.5));
    // A different seed changes the losses.
    let c = run(
        &sc,
        &RunOptions {
            seed: Some(2),
            ..opts
        },
    )
    .unwrap();
    assert_ne!(a.trace, c.trace);
    assert_eq!(c.seed, 2);
}

#[test]
fn tracing_does_not_change_results() {
    let text =
        "[path.loss]\nmodel = \"bernoulli\"\np = 0.05\n[workload]\nflows = 4\nsegments = 30\n";
    let a = traced(text);
    let b = plain(text);
    assert_eq!(a.to_json(0.0), b.to_json(0.0));
    assert!(b.trace.is_none() && b.pcap.is_none());
}

#[test]
fn json_has_exactly_the_contract_keys() {
    let out = plain("[workload]\nflows = 2\nsegments = 3\n");
    let v: serde_json::Value = serde_json::from_str(&out.to_json(1.25)).unwrap();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    let mut top = keys(&v);
    top.sort();
    assert_eq!(top, ["flows", "recoveries", "seed", "sim"]);
    let mut fk = keys(&v["flows"][0]);
    fk.sort();
    let mut want = vec![
        "id",
        "preset",
        "bytes",
        "fct_ms",
        "data_packets_sent",
        "retransmits",
        "fast_recoveries",
        "rtos",
        "spurious_rtos",
        "tlp_probes",
        "undos",
        "final_cwnd",
        "fast_retransmits",
        "lost_retransmits",
        "lost_fast_retransmits",
        "slow_start_retransmits",
        "rtos_in_open",
        "rtos_in_disorder",
        "rtos_in_recovery",
        "rtos_in_loss",
        "dsacks",
        "early_retransmits",
        "spurious_early_retransmits",
        "tail_drops",
    ];
    want.sort();
    assert_eq!(fk, want);
    assert_eq!(v["sim"]["wall_s"], 1.25);
    assert_eq!(v["sim"]["events"], out.events);
    assert_eq!(v["sim"]["time_limit_hit"], false);
    assert_eq!(v["recoveries"], serde_json::json!([]));
    assert_eq!(v["flows"][1]["id"], 1);
    assert_eq!(v["flows"][0]["preset"], "rfc");
    // Key order as documented.
    let s = out.to_json(0.0);
    assert!(
        s.starts_with("{\"seed\":1,\"flows\":[{\"id\":0,\"preset\":\"rfc\",\"bytes\":"),
        "{s}"
    );
}

#[test]
fn sequential_flows_start_one_after_another() {
    let out = traced("[workload]\nflows = 3\nsegments = 2\n");
    assert_all_delivered(&out, 2896);
    let l = lines(&out);
    let syns: Vec<u64> = kind(&l, "send")
        .iter()
        .filter(|s| s["why"] == "syn")
        .map(|s| s["t_us"].as_u64().unwrap())
        .collect();
    assert_eq!(syns.len(), 3);
    assert!(syns[0] < syns[1] && syns[1] < syns[2]);
    // Each starts when the previous sender saw its last ACK.
    let last_ack_flow0 = kind(&l, "ack")
        .iter()
        .filter(|a| a["flow"] == 0)
        .map(|a| a["t_us"].as_u64().unwrap())
        .max();
    assert_eq!(Some(syns[1]), last_ack_flow0);
}

#[test]
fn concurrent_flows_share_the_bottleneck() {
    let one = plain("[path]\nrate_mbps = 2\n[workload]\nflows = 1\nsegments = 100\n");
    let four = plain(
        "[path]\nrate_mbps = 2\n[workload]\nflows = 4\nsegments = 100\narrival = \"concurrent\"\n",
    );
    assert_all_delivered(&four, 100 * 1448);
    let slowest = four
        .flows
        .iter()
        .map(|f| f.fct_ms.unwrap())
        .fold(0.0, f64::max);
    assert!(slowest > 3.0 * one.flows[0].fct_ms.unwrap(), "{slowest}");
}

#[test]
fn poisson_arrivals_spread_flows_out() {
    let out =
        traced("[workload]\nflows = 20\nsegments = 2\narrival = \"poisson\"\nrate_per_s = 5\n");
    assert_all_delivered(&out, 2896);
    let l = lines(&out);
    let last_syn = kind(&l, "send")
        .iter()
        .filter(|s| s["why"] == "syn")
        .map(|s| s["t_us"].as_u64().unwrap())
        .max()
        .unwrap();
    // 19 gaps of mean 200 ms.
    assert!((1_500_000..8_000_000).contains(&last_syn), "{last_syn}");
}

#[test]
fn request_response_reports_each_response() {
    let out = plain("[path]\nrtt_ms = 100\n[workload]\nkind = \"request-response\"\nrequests = 3\nresponse_segments = 2\nthink_ms = 500\n");
    assert_eq!(out.flows.len(), 3);
    assert_eq!(out.unfinished_flows, 0);
    for (i, f) in out.flows.iter().enumerate() {
        assert_eq!(f.id, i as u64);
        assert_eq!(f.bytes, 2896);
        assert_eq!(f.data_packets_sent, 2, "counters are per response");
    }
    // The first response includes the handshake; a later one is written when its request
    // arrives and takes one one-way delay (50 ms) plus serialisation.
    assert!(out.flows[0].fct_ms.unwrap() > 150.0);
    let later = out.flows[1].fct_ms.unwrap();
    assert!((50.0..60.0).contains(&later), "{later}");
    // Simulated time covers two think times and two request trips after the first response.
    assert!(out.sim_time_s > 0.15 + 2.0 * 0.6, "{}", out.sim_time_s);
}

#[test]
fn bulk_runs_for_its_duration() {
    let out = plain("[path]\nrtt_ms = 20\nrate_mbps = 10\n[workload]\nkind = \"bulk\"\nflows = 2\nduration_s = 5\n");
    assert_eq!(out.flows.len(), 2);
    assert!((out.sim_time_s - 5.0).abs() < 1e-9, "{}", out.sim_time_s);
    let total: u64 = out.flows.iter().map(|f| f.bytes).sum();
    // 10 Mb/s for 5 s is 6.25 MB of wire bytes; goodput somewhat less.
    assert!((4_000_000..6_250_000).contains(&total), "{total}");
    assert!(out.flows.iter().all(|f| f.fct_ms.is_none()));
    assert!(!out.time_limit_hit);
}

#[test]
fn time_limit_ends_a_run_that_cannot_finish() {
    // Every data packet is lost: the flow never completes.
    let out = plain("max_time_s = 30\n[path.loss]\nmodel = \"bernoulli\"\np = 1.0\n[workload]\nflows = 2\nsegments = 3\n");
    assert!(out.time_limit_hit);
    assert_eq!(out.unfinished_flows, 2);
    assert_eq!(out.flows[0].fct_ms, None);
    assert_eq!(out.flows[0].bytes, 0);
    assert!(out.flows[0].rtos >= 3);
    // The second sequential flow never started.
    assert_eq!(out.flows[1].data_packets_sent, 0);
    assert!(out.to_json(0.0).contains("\"fct_ms\":null"));
}

#[test]
fn delay_spikes_hold_packets_until_the_stall_ends() {
    let text = "[path]\nrtt_ms = 20\n[path.delay_spikes]\nstart_ms = 0\nextra_ms = 500\n[sender]\nhandshake = false\n[workload]\nsegments = 1\n";
    let out = traced(text);
    let l = lines(&out);
    let recv = kind(&l, "recv")[0]["t_us"].as_u64().unwrap();
    assert_eq!(recv, 500_000);
    let fct = out.flows[0].fct_ms.unwrap();
    assert!((fct - 500.0).abs() < 0.01, "{fct}");
}

#[test]
fn variable_delay_spikes_draw_the_stall_from_the_run_seed() {
    // One spike of 300-900 ms at t = 0: the single segment arrives when it ends.
    let text = "[path]\nrtt_ms = 20\n[path.delay_spikes]\nstart_ms = 0\nextra_ms = 300\nextra_max_ms = 900\n[sender]\nhandshake = false\n[workload]\nsegments = 1\n";
    let sc = scenario(text);
    let recv_at = |seed: u64| {
        let opts = RunOptions {
            trace: true,
            seed: Some(seed),
            ..RunOptions::default()
        };
        let out = run(&sc, &opts).unwrap();
        let l = lines(&out);
        kind(&l, "recv")[0]["t_us"].as_u64().unwrap()
    };
    let stalls: Vec<u64> = (1..=8).map(recv_at).collect();
    assert!(
        stalls.iter().all(|t| (300_000..=900_000).contains(t)),
        "{stalls:?}"
    );
    // The same seed gives the same stall; the seeds do not all give one length.
    assert_eq!(recv_at(3), stalls[2]);
    assert!(stalls.iter().any(|&t| t != stalls[0]), "{stalls:?}");
    // It is spike 0's length as the spec draws it for that seed.
    let want = sc.spikes().unwrap().with_seed(5).extra_of(0) / 1000;
    assert_eq!(stalls[4], want);
}

#[test]
fn reordered_packets_arrive_late() {
    let text = "[path]\nrtt_ms = 20\nrate_mbps = 100\n[path.reorder]\npackets = [2]\ndelay_ms = 5\n[sender]\nhandshake = false\n[workload]\nsegments = 6\n";
    let out = traced(text);
    assert_all_delivered(&out, 6 * 1448);
    let l = lines(&out);
    let order: Vec<u64> = kind(&l, "recv").iter().map(|r| seq(r).0 / 1448).collect();
    assert_eq!(order, vec![0, 1, 3, 4, 5, 2]);
}

#[test]
fn every_example_runs() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/examples");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let sc = Scenario::from_path(&path).unwrap_or_else(|e| panic!("{e}"));
        let out = run(&sc, &RunOptions::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(!out.time_limit_hit, "{}", path.display());
        assert!(
            out.flows.iter().all(|f| f.bytes > 0),
            "{}: {}",
            path.display(),
            out.to_json(0.0)
        );
        names.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    names.sort();
    for want in [
        "bernoulli.toml",
        "bulk.toml",
        "delay-spikes.toml",
        "drop-list.toml",
        "gilbert-elliott.toml",
        "reorder.toml",
        "request-response.toml",
        "tail-loss.toml",
    ] {
        assert!(names.iter().any(|n| n == want), "missing {want}");
    }
}

/// `tail_drops` counts first transmissions among a message's last four segments that the
/// path dropped (seed 002's "objects with a loss in the last segments"): 2 for a 10-segment
/// flow losing its last two, 0 for one losing segment 2, and per response in a
/// request-response workload.
#[test]
fn tail_drops_count_losses_in_the_last_four_segments() {
    let flow = |loss: &str| {
        let text = format!(
            "[path]\nrtt_ms = 50\n[path.loss]\n{loss}\n[sender]\npreset = \"linux\"\n\
             [workload]\nsegments = 10\n"
        );
        plain(&text).flows[0].tail_drops
    };
    assert_eq!(flow("model = \"tail\"\ncount = 2"), 2);
    assert_eq!(flow("model = \"drop-list\"\npackets = [2]"), 0);
    assert_eq!(flow("model = \"drop-list\"\npackets = [6]"), 1);
}

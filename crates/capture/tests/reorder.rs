//! Reordering the capture proves, and packets with two readings (issue 24 item 2), as
//! Linux infers reordering from SACK (`tcp_check_sack_reordering`, `tcp_sacktag_one`'s
//! "new sack for not retransmitted frame, which was in hole") and from cumulative ACKs
//! of never-retransmitted data below the highest SACK (`tcp_clean_rtx_queue`).

use lossrec_capture::conn::{AckRecord, Transmission};
use lossrec_capture::reorder::Reorder;

mod common;
use common::simulated_capture;

const MSS: u64 = 1000;

fn data(i: u64, packet: u64) -> Transmission {
    Transmission {
        ts_ns: packet * 1000,
        start: i * MSS,
        end: (i + 1) * MSS,
        fin: false,
        psh: false,
        tsval: None,
        part: 0,
        packet,
    }
}

fn ack(cum: u64, sack: &[(u64, u64)], packet: u64) -> AckRecord {
    let mut blocks = [(0, 0); 4];
    blocks[..sack.len()].copy_from_slice(sack);
    AckRecord {
        ts_ns: packet * 1000,
        cumulative: cum,
        sack: blocks,
        nsack: sack.len() as u8,
        ts: None,
        window: 1 << 20,
        ece: false,
        fin: false,
        packet,
    }
}

#[test]
fn a_hole_filled_without_retransmission_proves_reordering_of_its_depth() {
    let mut r = Reorder::new(MSS);
    for i in 0..6 {
        r.on_data(&data(i, i));
    }
    // Segment 1 is late: 2, 3 and 4 are SACKed above it; then it arrives by itself.
    r.on_ack(&ack(MSS, &[], 10));
    r.on_ack(&ack(MSS, &[(2 * MSS, 3 * MSS)], 11));
    r.on_ack(&ack(MSS, &[(2 * MSS, 5 * MSS)], 12));
    r.on_ack(&ack(5 * MSS, &[], 13));
    let e = r.evidence();
    // FACK was 5000 when 1000 was delivered: 4 segments of displacement.
    assert_eq!((e.degree, e.events), (4, 1), "{e:?}");
}

#[test]
fn a_hole_repaired_by_a_retransmission_proves_nothing() {
    let mut r = Reorder::new(MSS);
    for i in 0..6 {
        r.on_data(&data(i, i));
    }
    r.on_ack(&ack(MSS, &[(2 * MSS, 5 * MSS)], 10));
    r.on_data(&data(1, 11)); // the fast retransmission
    r.on_ack(&ack(5 * MSS, &[], 12));
    let e = r.evidence();
    assert_eq!((e.degree, e.events, e.dsacks), (0, 0, 0), "{e:?}");
    assert!(e.ambiguous.is_empty());
}

#[test]
fn a_dsack_of_a_retransmission_gives_both_readings() {
    let mut r = Reorder::new(MSS);
    for i in 0..6 {
        r.on_data(&data(i, i));
    }
    r.on_ack(&ack(MSS, &[(2 * MSS, 5 * MSS)], 10));
    r.on_data(&data(1, 11)); // retransmitted, but the original was only late
    r.on_ack(&ack(5 * MSS, &[], 12)); // the original fills the hole
    r.on_ack(&ack(5 * MSS, &[(MSS, 2 * MSS)], 13)); // DSACK: the copy arrived too
    let e = r.evidence();
    assert_eq!(e.dsacks, 1, "{e:?}");
    assert_eq!(e.ambiguous.len(), 1);
    let a = &e.ambiguous[0];
    assert_eq!((a.packet, a.start, a.end), (11, MSS, 2 * MSS));
    assert_eq!(a.readings.len(), 2, "{a:?}");
}

#[test]
fn the_engines_reordering_scenario_proves_reordering_and_a_clean_path_none() {
    use lossrec_capture::{explain_path, AppMode, Options};
    let reorder = "seed = 11\n[path]\nrtt_ms = 20\nrate_mbps = 50\n[path.reorder]\n\
                   packets = [5, 6]\nfraction = 0.01\ndelay_ms = 5\ndelay_max_ms = 15\n\
                   [sender]\npreset = \"linux\"\n[workload]\nkind = \"flows\"\nflows = 5\n\
                   segments = 200\n";
    let clean = "seed = 1\n[path]\nrtt_ms = 20\nrate_mbps = 50\n[sender]\npreset = \"linux\"\n\
                 [workload]\nkind = \"flows\"\nflows = 2\nsegments = 100\n";
    let mut degrees = Vec::new();
    for text in [reorder, clean] {
        let f = simulated_capture(text);
        let opts = Options {
            preset: "linux".into(),
            flow: None,
            app: AppMode::AsSeen,
        };
        let r = explain_path(f.path(), &opts, |_, _| {}).unwrap();
        degrees.push(r.conns.iter().map(|c| c.reordering.degree).max().unwrap());
    }
    assert!(degrees[0] >= 2, "{degrees:?}");
    assert_eq!(degrees[1], 0, "{degrees:?}");
}

//! Writes a synthetic connection with a loss, a fast retransmit, SACK and a
//! DSACK to a pcap and has tshark check it: no malformed packets, no bad
//! checksums, no warnings, the retransmission recognised and the SACK blocks
//! decoded. Needs /usr/bin/tshark (CI installs it); fails if it is missing.

use std::io::BufWriter;
use std::net::SocketAddrV4;
use std::path::Path;
use std::process::Command;

use lossrec_wire::seq::wrap;
use lossrec_wire::*;

const TSHARK: &str = "/usr/bin/tshark";
/// Client ISN 4096 below 2^32: the data crosses the sequence wrap.
const C_ISN: u32 = 0xFFFF_F000;
const S_ISN: u32 = 12_345;
const MSS: u64 = 1448;

fn client() -> SocketAddrV4 {
    SocketAddrV4::new([10, 0, 0, 1].into(), 40_000)
}
fn server() -> SocketAddrV4 {
    SocketAddrV4::new([10, 0, 0, 2].into(), 5_001)
}

fn ts(val: u32, ecr: u32) -> Option<Timestamps> {
    Some(Timestamps { val, ecr })
}

fn syn_opts(ts_val: u32, ts_ecr: u32) -> TcpOptions {
    TcpOptions {
        mss: Some(MSS as u16),
        window_scale: Some(7),
        sack_permitted: true,
        timestamps: ts(ts_val, ts_ecr),
        ..Default::default()
    }
}

/// Client → server data at stream offset `off` (acks the server's SYN).
fn data(off: u64, len: u64, ts_val: u32, ts_ecr: u32) -> TcpSegment<'static> {
    TcpSegment {
        ack: Some(wrap(S_ISN, 0)),
        flags: TcpFlags::PSH,
        window: 502,
        payload: Payload::Zeros(len as usize),
        options: TcpOptions {
            timestamps: ts(ts_val, ts_ecr),
            ..Default::default()
        },
        ..TcpSegment::new(client(), server(), wrap(C_ISN, off))
    }
}

/// Server → client ACK of client offset `ack_off`, SACK blocks as offsets.
fn ack(ack_off: u64, sack: &[(u64, u64)], ts_val: u32, ts_ecr: u32) -> TcpSegment<'static> {
    let blocks: Vec<SackBlock> = sack
        .iter()
        .map(|&(l, r)| SackBlock::new(wrap(C_ISN, l), wrap(C_ISN, r)))
        .collect();
    TcpSegment {
        ack: Some(wrap(C_ISN, ack_off)),
        window: 1000,
        options: TcpOptions {
            timestamps: ts(ts_val, ts_ecr),
            sack: SackList::from_slice(&blocks),
            ..Default::default()
        },
        ..TcpSegment::new(server(), client(), wrap(S_ISN, 0))
    }
}

/// The connection, as (time in µs, segment). Frame numbers (1-based) noted.
fn connection() -> Vec<(u64, TcpSegment<'static>)> {
    let mut v = Vec::new();
    // 1: SYN.
    v.push((
        0,
        TcpSegment {
            flags: TcpFlags::SYN,
            window: 64_240,
            options: syn_opts(1000, 0),
            ..TcpSegment::new(client(), server(), C_ISN)
        },
    ));
    // 2: SYN-ACK.
    v.push((
        10_000,
        TcpSegment {
            flags: TcpFlags::SYN,
            ack: Some(wrap(C_ISN, 0)),
            window: 65_160,
            options: syn_opts(5000, 1000),
            ..TcpSegment::new(server(), client(), S_ISN)
        },
    ));
    // 3: ACK.
    let mut a = data(0, 0, 1010, 5000);
    a.flags = TcpFlags::empty();
    v.push((20_000, a));
    // 4..=9: six full segments; the third (frame 6, offset 2896) is lost.
    for i in 0..6 {
        v.push((20_100 + 10 * i, data(i * MSS, MSS, 1010, 5000)));
    }
    // 10, 11: ACKs for segments 0 and 1.
    v.push((30_100, ack(MSS, &[], 5010, 1010)));
    v.push((30_110, ack(2 * MSS, &[], 5010, 1010)));
    // 12..=14: three duplicate ACKs with growing SACK blocks (RFC 2018).
    for k in 4..=6 {
        v.push((30_120 + k, ack(2 * MSS, &[(3 * MSS, k * MSS)], 5010, 1010)));
    }
    // 15: fast retransmit of the lost segment (same sequence number again).
    v.push((30_200, data(2 * MSS, MSS, 1020, 5010)));
    // 16: cumulative ACK covers everything.
    v.push((40_200, ack(6 * MSS, &[], 5020, 1020)));
    // 17: a spurious retransmission of the last segment ...
    v.push((40_300, data(5 * MSS, MSS, 1030, 5020)));
    // 18: ... reported by a DSACK (RFC 2883: first block below the ACK).
    v.push((50_300, ack(6 * MSS, &[(5 * MSS, 6 * MSS)], 5030, 1030)));
    // 19..=21: FIN exchange.
    let mut fin = data(6 * MSS, 0, 1031, 5030);
    fin.flags = TcpFlags::FIN;
    v.push((50_400, fin));
    let mut sfin = ack(6 * MSS + 1, &[], 5040, 1031);
    sfin.flags = TcpFlags::FIN;
    v.push((60_400, sfin));
    let mut last = data(6 * MSS + 1, 0, 1041, 5040);
    last.flags = TcpFlags::empty();
    last.ack = Some(wrap(S_ISN, 1));
    v.push((70_400, last));
    // IP IDs count up per direction as Linux does.
    let (mut c_id, mut s_id) = (100u16, 200u16);
    for (_, s) in &mut v {
        let id = if s.src == client() {
            &mut c_id
        } else {
            &mut s_id
        };
        s.ip_id = *id;
        *id += 1;
    }
    v
}

fn write_pcap(path: &Path) {
    let file = std::fs::File::create(path).unwrap();
    let mut w = PcapWriter::new(BufWriter::new(file)).unwrap();
    for (t_us, seg) in connection() {
        w.write_segment(1_700_000_000_000_000_000 + t_us * 1000, &seg)
            .unwrap();
    }
    w.flush().unwrap();
}

fn tshark(args: &[&str]) -> String {
    assert!(
        Path::new(TSHARK).exists(),
        "{TSHARK} not found: install tshark (e.g. `apt-get install -y tshark`); \
         CI installs it and this test does not skip without it"
    );
    let out = Command::new(TSHARK)
        .args(args)
        .output()
        .expect("running tshark");
    assert!(
        out.status.success(),
        "tshark {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// One tshark output line per frame, fields by name.
struct Frames {
    names: Vec<&'static str>,
    rows: Vec<Vec<String>>,
}

impl Frames {
    fn get(&self, frame: usize, field: &str) -> &str {
        let col = self.names.iter().position(|n| *n == field).unwrap();
        &self.rows[frame - 1][col]
    }
}

const PREFS: [&str; 8] = [
    "-o",
    "tcp.check_checksum:TRUE",
    "-o",
    "ip.check_checksum:TRUE",
    "-o",
    "tcp.analyze_sequence_numbers:TRUE",
    "-o",
    "tcp.relative_sequence_numbers:TRUE",
];

fn tshark_fields(file: &str, names: Vec<&'static str>) -> Frames {
    let mut args = vec!["-r", file, "-n"];
    args.extend(PREFS);
    args.extend(["-T", "fields", "-E", "separator=|", "-E", "aggregator=~"]);
    for f in &names {
        args.extend(["-e", f]);
    }
    let out = tshark(&args);
    let rows = out
        .lines()
        .map(|l| l.split('|').map(str::to_owned).collect::<Vec<_>>())
        .collect::<Vec<_>>();
    for r in &rows {
        assert_eq!(r.len(), names.len(), "unexpected tshark line {r:?}");
    }
    Frames { names, rows }
}

/// Expert infos tshark may attach to this connection (chats and notes of
/// the handshake, the loss episode and the close).
const EXPECTED_EXPERT: [&str; 10] = [
    "Connection establish request (SYN)",
    "Connection establish acknowledge (SYN+ACK)",
    "Duplicate ACK (#",
    "This frame is a (suspected) fast retransmission",
    "This frame is a (suspected) retransmission",
    "This frame is a (suspected) spurious retransmission",
    "D-SACK Sequence",
    "Connection finish (FIN)",
    "This frame initiates the connection closing",
    "This frame undergoes the connection closing",
];

/// tshark's expert severities (epan/proto.h PI_WARN, PI_ERROR).
const PI_WARN: u32 = 0x0060_0000;

#[test]
fn tshark_accepts_capture_and_sees_retransmission_and_sack() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("conn.pcap");
    write_pcap(&path);
    let file = path.to_str().unwrap();
    let f = tshark_fields(
        file,
        vec![
            "frame.number",
            "ip.checksum.status",
            "tcp.checksum.status",
            "tcp.seq",
            "tcp.ack",
            "tcp.len",
            "tcp.analysis.retransmission",
            "tcp.analysis.fast_retransmission",
            "tcp.analysis.spurious_retransmission",
            "tcp.options.sack_le",
            "tcp.options.sack_re",
            "tcp.options.sack.dsack_le",
            "tcp.options.sack.dsack_re",
            "tcp.options.mss_val",
            "tcp.options.wscale.shift",
            "tcp.options.sack_perm",
            "tcp.options.timestamp.tsval",
            "tcp.options.timestamp.tsecr",
            "_ws.malformed",
            "_ws.expert.severity",
            "_ws.expert.message",
        ],
    );
    let report = f
        .rows
        .iter()
        .map(|r| r.join("|"))
        .collect::<Vec<_>>()
        .join("\n");
    // Frames whose retransmission flags tshark must set, and no others.
    for n in 1..=f.rows.len() {
        let rtx = f.get(n, "tcp.analysis.retransmission") == "1";
        assert_eq!(rtx, n == 15 || n == 17, "frame {n}\n{report}");
    }
    assert_eq!(f.rows.len(), connection().len(), "{report}");

    for n in 1..=f.rows.len() {
        // Checksum status 1 = good (2 would be "unverified", 0 bad).
        assert_eq!(f.get(n, "ip.checksum.status"), "1", "frame {n}\n{report}");
        assert_eq!(f.get(n, "tcp.checksum.status"), "1", "frame {n}\n{report}");
        assert_eq!(
            f.get(n, "_ws.malformed"),
            "",
            "frame {n} malformed\n{report}"
        );
        assert!(
            !f.get(n, "tcp.options.timestamp.tsval").is_empty(),
            "frame {n} TS"
        );
        // Only the expert infos this connection should cause; of them only
        // the DSACK we put in frame 18 is a warning.
        let sev = f.get(n, "_ws.expert.severity");
        let msgs = f.get(n, "_ws.expert.message");
        for (s, m) in sev
            .split('~')
            .zip(msgs.split('~'))
            .filter(|(s, _)| !s.is_empty())
        {
            assert!(
                EXPECTED_EXPERT.iter().any(|e| m.starts_with(e)),
                "frame {n}: unexpected expert info {m:?}\n{report}"
            );
            let s: u32 = s.parse().unwrap();
            if s >= PI_WARN {
                assert!(
                    n == 18 && m == "D-SACK Sequence",
                    "frame {n}: {m}\n{report}"
                );
            }
        }
    }

    // SYN options decoded as sent.
    assert_eq!(f.get(1, "tcp.options.mss_val"), "1448");
    assert_eq!(f.get(1, "tcp.options.wscale.shift"), "7");
    assert_ne!(f.get(1, "tcp.options.sack_perm"), "");
    assert_eq!(f.get(2, "tcp.options.timestamp.tsecr"), "1000");

    // tshark's relative sequence numbers count the SYN as 0, so stream
    // offset x is relative x + 1: our mapping agrees with tshark's.
    assert_eq!(f.get(6, "tcp.seq"), "2897");
    assert_eq!(f.get(6, "tcp.analysis.retransmission"), "");

    // The lost segment sent again with the same sequence number.
    assert_eq!(f.get(15, "tcp.seq"), "2897");
    assert_eq!(f.get(15, "tcp.analysis.retransmission"), "1", "{report}");
    assert_eq!(
        f.get(15, "tcp.analysis.fast_retransmission"),
        "1",
        "{report}"
    );
    assert_eq!(
        f.get(17, "tcp.analysis.spurious_retransmission"),
        "1",
        "{report}"
    );

    // SACK blocks on the duplicate ACKs.
    for (n, re) in [(12, "5793"), (13, "7241"), (14, "8689")] {
        assert_eq!(f.get(n, "tcp.ack"), "2897");
        assert_eq!(f.get(n, "tcp.options.sack_le"), "4345", "{report}");
        assert_eq!(f.get(n, "tcp.options.sack_re"), re, "{report}");
    }
    // The DSACK block.
    assert_eq!(f.get(18, "tcp.options.sack.dsack_le"), "7241", "{report}");
    assert_eq!(f.get(18, "tcp.options.sack.dsack_re"), "8689", "{report}");

    // The expert summary has no errors and nothing malformed.
    let expert = tshark(&[&["-r", file, "-n", "-q", "-z", "expert"][..], &PREFS[..]].concat());
    assert!(!expert.contains("Errors ("), "{expert}");
    assert!(!expert.contains("Malformed"), "{expert}");
    assert!(expert.contains("fast retransmission"), "{expert}");
}

//! explain streams (issue 24, Speed): a capture of 10 M packets is explained in bounded
//! memory. The capture is generated on the fly by a `Read` (no file, no packet kept), so
//! the test needs neither disk nor the memory it guards against; the heap is counted
//! with the simulator's counting allocator (bytes, not time: no dependence on load).
//!
//! The 10 M-packet run is `#[ignore]`d in debug builds' default run and run by
//! scripts/test.sh optimised (`--profile test-opt -- --ignored`); the 200 k-packet run
//! holds the same bound in every build.

use std::io::Read;

use lossrec_capture::{explain_sources, AppMode, FrameSource, Options};
use lossrec_sim::bench::alloc::{measure, Counting};

#[global_allocator]
static ALLOC: Counting<std::alloc::System> = Counting(std::alloc::System);

/// Peak heap allowed for explaining one connection of any length: the engine, the
/// TSval map (65,536 entries), the window and its carried pieces, the summary.
const PEAK_BYTES: i64 = 16 << 20;

const MSS: u32 = 1448;
const RTT_US: u64 = 10_000;
/// Segments in flight: each ACK releases one new segment.
const WINDOW: u64 = 10;
const ISN: u32 = 0xffff_0000;

/// A classic pcap (µs) of one connection, frame by frame: SYN, SYN-ACK, then WINDOW
/// segments and, per ACK, the next segment. Data frames are cut to their headers
/// (snaplen), as `tcpdump -s 128` captures; sequence numbers wrap every ~3 M segments.
struct Generator {
    frames: u64,
    next: u64,
    buf: Vec<u8>,
    pos: usize,
}

impl Generator {
    fn new(frames: u64) -> Generator {
        let mut hdr = Vec::new();
        hdr.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        hdr.extend_from_slice(&2u16.to_le_bytes());
        hdr.extend_from_slice(&4u16.to_le_bytes());
        hdr.extend_from_slice(&[0; 8]);
        hdr.extend_from_slice(&65_535u32.to_le_bytes());
        hdr.extend_from_slice(&1u32.to_le_bytes());
        Generator {
            frames,
            next: 0,
            buf: hdr,
            pos: 0,
        }
    }

    /// Segment `j`'s send time, µs: WINDOW segments per round trip, 100 µs apart.
    fn sent_us(j: u64) -> u64 {
        RTT_US + (j / WINDOW) * RTT_US + (j % WINDOW) * 100
    }

    /// Appends frame `k`.
    fn frame(&mut self, k: u64) {
        const SYN: u8 = 0x02;
        const ACK: u8 = 0x10;
        let (fwd, flags, seq, ack, t_us, tsv, tse, payload) = match k {
            0 => (true, SYN, ISN, 0, 0, 1, 0, 0),
            1 => (false, SYN | ACK, 7, ISN.wrapping_add(1), RTT_US, 1, 1, 0),
            _ if k < 2 + WINDOW => {
                let j = k - 2;
                let t = Self::sent_us(j);
                (true, ACK, seg_seq(j), 8, t, ms(t), 1, MSS)
            }
            _ => {
                // After the first window: ACK of segment i, then segment i + WINDOW.
                let i = (k - 2 - WINDOW) / 2;
                let t = Self::sent_us(i + WINDOW);
                if (k - 2 - WINDOW).is_multiple_of(2) {
                    let e = ms(Self::sent_us(i));
                    (false, ACK, 8, seg_seq(i + 1), t, ms(t), e, 0)
                } else {
                    (true, ACK, seg_seq(i + WINDOW), 8, t, ms(t), 1, MSS)
                }
            }
        };
        let syn = flags & SYN != 0;
        let opt_len: usize = if syn { 20 } else { 12 };
        let tcp_len = 20 + opt_len;
        let ip_total = 20 + tcp_len + payload as usize;
        let captured = 14 + 20 + tcp_len;
        self.buf
            .extend_from_slice(&((t_us / 1_000_000) as u32).to_le_bytes());
        self.buf
            .extend_from_slice(&((t_us % 1_000_000) as u32).to_le_bytes());
        self.buf.extend_from_slice(&(captured as u32).to_le_bytes());
        self.buf
            .extend_from_slice(&((14 + ip_total) as u32).to_le_bytes());
        let (smac, dmac) = if fwd { (1u8, 2u8) } else { (2, 1) };
        self.buf
            .extend_from_slice(&[0, 0, 0, 0, 0, dmac, 0, 0, 0, 0, 0, smac, 0x08, 0x00]);
        let (src, dst) = if fwd {
            ([10, 0, 0, 1], [10, 0, 0, 2])
        } else {
            ([10, 0, 0, 2], [10, 0, 0, 1])
        };
        self.buf.extend_from_slice(&[0x45, 0]);
        self.buf.extend_from_slice(&(ip_total as u16).to_be_bytes());
        self.buf.extend_from_slice(&[0, 0, 0x40, 0, 64, 6, 0, 0]);
        self.buf.extend_from_slice(&src);
        self.buf.extend_from_slice(&dst);
        let (sp, dp) = if fwd {
            (40_000u16, 80u16)
        } else {
            (80, 40_000)
        };
        self.buf.extend_from_slice(&sp.to_be_bytes());
        self.buf.extend_from_slice(&dp.to_be_bytes());
        self.buf.extend_from_slice(&seq.to_be_bytes());
        self.buf.extend_from_slice(&ack.to_be_bytes());
        self.buf.push(((tcp_len / 4) as u8) << 4);
        self.buf.push(flags);
        self.buf.extend_from_slice(&65_535u16.to_be_bytes());
        self.buf.extend_from_slice(&[0, 0, 0, 0]);
        if syn {
            // MSS 1460, SACK permitted, timestamps, NOP, window scale 0.
            self.buf.extend_from_slice(&[2, 4, 0x05, 0xb4, 4, 2, 8, 10]);
            self.buf.extend_from_slice(&tsv.to_be_bytes());
            self.buf.extend_from_slice(&tse.to_be_bytes());
            self.buf.extend_from_slice(&[1, 3, 3, 0]);
        } else {
            self.buf.extend_from_slice(&[1, 1, 8, 10]);
            self.buf.extend_from_slice(&tsv.to_be_bytes());
            self.buf.extend_from_slice(&tse.to_be_bytes());
        }
    }
}

fn seg_seq(j: u64) -> u32 {
    ISN.wrapping_add(1)
        .wrapping_add((j * u64::from(MSS)) as u32)
}

fn ms(t_us: u64) -> u32 {
    (t_us / 1000) as u32 + 1
}

impl Read for Generator {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        if self.pos == self.buf.len() {
            self.buf.clear();
            self.pos = 0;
            while self.next < self.frames && self.buf.len() < 16 << 10 {
                self.frame(self.next);
                self.next += 1;
            }
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Explains `frames` generated packets; returns (frames read, rows of captured data
/// packets, peak heap).
fn explain(frames: u64) -> (u64, u64, i64) {
    let opts = Options {
        preset: "linux".into(),
        flow: None,
        app: AppMode::AsSeen,
    };
    let mut captured = 0;
    let (r, heap) = measure(|| {
        let gen = || FrameSource::new(Generator::new(frames));
        explain_sources(gen, &opts, |_, row| {
            captured += u64::from(row.packet != u64::MAX);
        })
        .expect("the generated capture explains")
    });
    let heap = heap.expect("the counting allocator is installed");
    assert_eq!(r.conns.len(), 1, "{:?}", r.index);
    (r.index.frames, captured, heap.peak)
}

#[test]
fn generator_is_a_capture_explain_reads() {
    let (frames, captured, _) = explain(1_000);
    assert_eq!(frames, 1_000);
    // Every data segment gets its row: the first window and one per ACK.
    assert_eq!(captured, WINDOW + (1_000 - 2 - WINDOW) / 2);
}

#[test]
fn two_hundred_thousand_packets_in_bounded_memory() {
    let (frames, _, peak) = explain(200_000);
    eprintln!("200 k packets: peak heap {peak} bytes");
    assert_eq!(frames, 200_000);
    assert!(peak < PEAK_BYTES, "peak heap {peak} bytes");
}

#[test]
#[ignore = "10 M packets: run optimised by scripts/test.sh (--profile test-opt -- --ignored)"]
fn ten_million_packets_in_bounded_memory() {
    let (frames, captured, peak) = explain(10_000_000);
    eprintln!("10 M packets: peak heap {peak} bytes");
    assert_eq!(frames, 10_000_000);
    assert_eq!(captured, WINDOW + (10_000_000 - 2 - WINDOW) / 2);
    assert!(peak < PEAK_BYTES, "peak heap {peak} bytes");
}

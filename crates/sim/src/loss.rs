//! Loss models, applied where a packet enters a link (like netem: a dropped packet never
//! occupies the queue). The data direction sees only data packets (non-empty payload); SYNs,
//! the handshake ACK and pure FINs are never dropped. The ACK direction sees every ACK except
//! the SYN-ACK.
//!
//! - `none`
//! - `bernoulli`: each packet is lost with probability `p`, independently.
//! - `gilbert-elliott`: a two-state Markov chain (Gilbert 1960, Elliott 1963). Before each
//!   packet the chain moves good→bad with `p_good_bad` or bad→good with `p_bad_good`; the packet
//!   is then lost with `loss_good` or `loss_bad` (defaults 0 and 1) of the state it is in. The
//!   chain starts good.
//! - `drop-list`: exact drops. `packets` lists 0-based indices among each flow's packets in
//!   this direction (data: every data transmission, retransmissions included; ACKs: every ACK
//!   but the SYN-ACK). `drops` lists rules by sequence: a `segment` N (stream bytes
//!   `[N·MSS, (N+1)·MSS)`) or a `seq = [start, end)` range, and which `transmission` of a
//!   packet overlapping it to drop (1 = the first, 2 = the first retransmission, …),
//!   optionally only in `flow`.
//! - `tail`: drops the first transmission of the last `count` segments of every flow (of every
//!   response, for request-response), which a sender can only repair by probing or a timeout.

use crate::rng::Stream;
use lossrec::Range;

/// Which packets a `drops` rule targets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DropTarget {
    /// The N-th MSS-sized segment of the stream (0-based).
    Segment(u64),
    /// Stream offsets `[start, end)`.
    Seq(u64, u64),
}

/// One drop-by-sequence rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SeqDrop {
    /// Only in this flow; every flow when `None`.
    pub flow: Option<u64>,
    pub target: DropTarget,
    /// Which transmission to drop: 1 = first.
    pub transmission: u32,
}

/// A loss model's parameters.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum LossSpec {
    #[default]
    None,
    Bernoulli {
        p: f64,
    },
    GilbertElliott {
        p_good_bad: f64,
        p_bad_good: f64,
        loss_good: f64,
        loss_bad: f64,
    },
    DropList {
        /// Sorted, deduplicated.
        packets: Vec<u64>,
        drops: Vec<SeqDrop>,
    },
    Tail {
        count: u64,
    },
}

impl LossSpec {
    pub fn name(&self) -> &'static str {
        match self {
            LossSpec::None => "none",
            LossSpec::Bernoulli { .. } => "bernoulli",
            LossSpec::GilbertElliott { .. } => "gilbert-elliott",
            LossSpec::DropList { .. } => "drop-list",
            LossSpec::Tail { .. } => "tail",
        }
    }
}

/// What a loss model sees of one packet.
#[derive(Copy, Clone, Debug)]
pub struct PacketInfo {
    pub flow: u64,
    /// 0-based index among this flow's packets in this direction.
    pub index: u64,
    /// Payload as stream offsets (empty for ACKs).
    pub range: Range,
    /// The sender said this data was sent before.
    pub retransmission: bool,
    /// The message (flow or response) this packet belongs to, as stream offsets.
    pub message: Range,
    pub mss: u64,
}

/// Per-flow transmission counts for `drops` rules: `(rule, packet start) → transmissions`.
#[derive(Clone, Debug, Default)]
pub struct TxCounts(Vec<(u32, u64, u32)>);

impl TxCounts {
    /// Forgets every count, keeping the capacity (a recycled flow, `Flow::renew`).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    fn bump(&mut self, rule: u32, start: u64) -> u32 {
        if let Some(e) = self.0.iter_mut().find(|e| e.0 == rule && e.1 == start) {
            e.2 += 1;
            return e.2;
        }
        self.0.push((rule, start, 1));
        1
    }
}

/// A loss model with its random stream and state.
#[derive(Clone, Debug)]
pub struct LossModel {
    spec: LossSpec,
    rng: Stream,
    bad: bool,
    /// Packets this model dropped.
    pub drops: u64,
}

impl LossModel {
    pub fn new(spec: LossSpec, rng: Stream) -> LossModel {
        LossModel {
            spec,
            rng,
            bad: false,
            drops: 0,
        }
    }

    pub fn is_none(&self) -> bool {
        matches!(self.spec, LossSpec::None)
    }

    /// Decides whether this packet is lost. `counts` is the packet's flow's rule state.
    pub fn drop(&mut self, pkt: &PacketInfo, counts: &mut TxCounts) -> bool {
        let lost = match &self.spec {
            LossSpec::None => false,
            LossSpec::Bernoulli { p } => self.rng.chance(*p),
            LossSpec::GilbertElliott {
                p_good_bad,
                p_bad_good,
                loss_good,
                loss_bad,
            } => {
                let flip = if self.bad { *p_bad_good } else { *p_good_bad };
                if self.rng.chance(flip) {
                    self.bad = !self.bad;
                }
                self.rng
                    .chance(if self.bad { *loss_bad } else { *loss_good })
            }
            LossSpec::DropList { packets, drops } => {
                let mut lost = packets.binary_search(&pkt.index).is_ok();
                for (i, d) in drops.iter().enumerate() {
                    if d.flow.is_some_and(|f| f != pkt.flow) {
                        continue;
                    }
                    let target = match d.target {
                        DropTarget::Segment(n) => Range::new(
                            n.saturating_mul(pkt.mss),
                            n.saturating_add(1).saturating_mul(pkt.mss),
                        ),
                        DropTarget::Seq(s, e) => Range::new(s, e),
                    };
                    if target.overlaps(&pkt.range)
                        && counts.bump(i as u32, pkt.range.start) == d.transmission
                    {
                        lost = true;
                    }
                }
                lost
            }
            LossSpec::Tail { count } => !pkt.retransmission && in_tail(pkt, *count),
        };
        if lost {
            self.drops += 1;
        }
        lost
    }
}

/// The packet carries a byte of the last `count` MSS-sized segments of its message.
fn in_tail(pkt: &PacketInfo, count: u64) -> bool {
    let m = pkt.message;
    if m.is_empty() || !m.overlaps(&pkt.range) || pkt.mss == 0 {
        return false;
    }
    let segments = m.len().div_ceil(pkt.mss);
    let first_tail = m.start + segments.saturating_sub(count) * pkt.mss;
    pkt.range.end > first_tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pkt(index: u64, start: u64, end: u64, rtx: bool) -> PacketInfo {
        PacketInfo {
            flow: 0,
            index,
            range: Range::new(start, end),
            retransmission: rtx,
            message: Range::new(0, 10_000),
            mss: 1000,
        }
    }
    fn model(spec: LossSpec) -> LossModel {
        LossModel::new(spec, Stream::new(1, 1))
    }

    #[test]
    fn tail_drops_first_transmissions_of_the_last_segments() {
        let mut m = model(LossSpec::Tail { count: 2 });
        let mut c = TxCounts::default();
        let lost: Vec<u64> = (0..10)
            .filter(|&i| m.drop(&pkt(i, i * 1000, i * 1000 + 1000, false), &mut c))
            .collect();
        assert_eq!(lost, vec![8, 9]);
        assert!(!m.drop(&pkt(10, 9000, 10_000, true), &mut c));
        // A short last segment: 9500 bytes are 10 segments, the last two start at 8000.
        let mut p = pkt(0, 8000, 9000, false);
        p.message = Range::new(0, 9500);
        assert!(m.drop(&p, &mut c));
        p.range = Range::new(7000, 8000);
        assert!(!m.drop(&p, &mut c));
    }

    #[test]
    fn tail_count_above_segments_drops_all() {
        let mut m = model(LossSpec::Tail { count: 50 });
        let mut c = TxCounts::default();
        assert!(m.drop(&pkt(0, 0, 1000, false), &mut c));
    }

    #[test]
    fn drop_list_by_index_and_by_transmission() {
        let spec = LossSpec::DropList {
            packets: vec![1, 3],
            drops: vec![SeqDrop {
                flow: None,
                target: DropTarget::Segment(5),
                transmission: 2,
            }],
        };
        let mut m = model(spec);
        let mut c = TxCounts::default();
        let lost: Vec<bool> = (0..5)
            .map(|i| m.drop(&pkt(i, 0, 1000, false), &mut c))
            .collect();
        assert_eq!(lost, vec![false, true, false, true, false]);
        assert!(!m.drop(&pkt(10, 5000, 6000, false), &mut c));
        assert!(m.drop(&pkt(11, 5000, 6000, true), &mut c));
        assert!(!m.drop(&pkt(12, 5000, 6000, true), &mut c));
        assert_eq!(m.drops, 3);
    }

    #[test]
    fn drop_rule_for_another_flow_is_ignored() {
        let spec = LossSpec::DropList {
            packets: vec![],
            drops: vec![SeqDrop {
                flow: Some(1),
                target: DropTarget::Seq(0, 1),
                transmission: 1,
            }],
        };
        let mut m = model(spec);
        let mut c = TxCounts::default();
        assert!(!m.drop(&pkt(0, 0, 1000, false), &mut c));
        let mut p = pkt(0, 0, 1000, false);
        p.flow = 1;
        assert!(m.drop(&p, &mut TxCounts::default()));
    }

    #[test]
    fn bernoulli_rate() {
        let mut m = model(LossSpec::Bernoulli { p: 0.05 });
        let mut c = TxCounts::default();
        let n = (0..100_000)
            .filter(|&i| m.drop(&pkt(i, 0, 1, false), &mut c))
            .count();
        assert!((4_500..5_500).contains(&n), "{n}");
    }

    #[test]
    fn gilbert_elliott_stationary_loss_and_bursts() {
        // π_bad = p_gb / (p_gb + p_bg) = 0.01 / 0.11; loss in bad = 1 → ≈ 9.1 %, mean burst 10.
        let spec = LossSpec::GilbertElliott {
            p_good_bad: 0.01,
            p_bad_good: 0.1,
            loss_good: 0.0,
            loss_bad: 1.0,
        };
        let mut m = model(spec);
        let mut c = TxCounts::default();
        let lost: Vec<bool> = (0..200_000)
            .map(|i| m.drop(&pkt(i, 0, 1, false), &mut c))
            .collect();
        let rate = lost.iter().filter(|&&l| l).count() as f64 / lost.len() as f64;
        assert!((rate - 0.0909).abs() < 0.01, "{rate}");
        let bursts = lost.windows(2).filter(|w| !w[0] && w[1]).count();
        let mean_burst = lost.iter().filter(|&&l| l).count() as f64 / bursts as f64;
        assert!((8.0..12.0).contains(&mean_burst), "{mean_burst}");
    }
}

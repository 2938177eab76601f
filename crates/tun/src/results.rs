//! Per-flow results in the simulator's shape ([`FlowResult`]): for the engine from its
//! `Stats`, for the kernel from `TCP_INFO` and the namespace's MIB counters; both take
//! bytes, completion time and lost retransmissions from the emulator, which saw every
//! packet either sender put on the path.

use lossrec::Sender;
use lossrec_sim::episodes::Counters;
use lossrec_sim::FlowResult;

use crate::linux::KernelFlow;
use crate::path::Conn;

/// Result fields the kernel does not expose per connection (reported as 0).
pub const KERNEL_UNAVAILABLE: &[&str] = &[
    "rtos_in_open",
    "rtos_in_disorder",
    "rtos_in_recovery",
    "rtos_in_loss",
    "early_retransmits",
    "spurious_early_retransmits",
];

fn from_path(id: u64, preset: &str, conn: Option<&Conn>) -> FlowResult {
    let mut r = FlowResult::not_started(id, preset);
    if let Some(c) = conn {
        r.bytes = c.delivered.min(c.message.end);
        r.fct_ms = c.fct_ms();
        r.lost_retransmits = c.lost_retransmits;
    }
    r
}

/// The engine sender's flow.
pub fn engine(id: u64, s: &Sender, conn: Option<&Conn>, c: &Counters) -> FlowResult {
    let st = s.stats();
    let mut r = from_path(id, s.config().preset, conn);
    r.data_packets_sent = st.data_segs_out;
    r.retransmits = st.retrans_segs;
    r.fast_recoveries = st.sack_recovery + st.reno_recovery;
    r.rtos = st.timeouts;
    r.spurious_rtos = st.spurious_rtos;
    r.tlp_probes = st.loss_probes;
    r.undos = st.undos;
    r.final_cwnd = s.cwnd() / s.mss().max(1);
    r.fast_retransmits = st.fast_retrans;
    r.lost_fast_retransmits = c.lost_fast_retransmits;
    r.slow_start_retransmits = st.slow_start_retrans;
    r.rtos_in_open = c.open;
    r.rtos_in_disorder = c.disorder;
    r.rtos_in_recovery = c.recovery;
    r.rtos_in_loss = c.loss;
    r.dsacks = st.dsack_recv;
    r.early_retransmits = st.early_retrans;
    r.spurious_early_retransmits = st.early_retrans_spurious;
    r
}

/// Linux's flow.
pub fn kernel(id: u64, k: &KernelFlow, conn: Option<&Conn>) -> FlowResult {
    let m = |name: &str| k.mib.get(name).copied().unwrap_or(0);
    let mut r = from_path(id, "kernel", conn);
    r.data_packets_sent = u64::from(k.info.data_segs_out);
    r.retransmits = u64::from(k.info.total_retrans);
    r.fast_recoveries = m("TCPSackRecovery") + m("TCPRenoRecovery");
    r.rtos = m("TCPTimeouts");
    r.spurious_rtos = m("TCPSpuriousRTOs");
    r.tlp_probes = m("TCPLossProbes");
    r.undos = m("TCPFullUndo") + m("TCPPartialUndo") + m("TCPDSACKUndo") + m("TCPLossUndo");
    r.final_cwnd = u64::from(k.info.snd_cwnd);
    r.fast_retransmits = m("TCPFastRetrans");
    r.slow_start_retransmits = m("TCPSlowStartRetrans");
    r.dsacks = m("TCPDSACKRecv") + m("TCPDSACKOfoRecv");
    r
}

//! Per-flow results in the simulator's shape ([`FlowResult`]): for the engine from its
//! `Stats`, for the kernel from `TCP_INFO` and the namespace's MIB counters; both take
//! bytes, completion time and lost retransmissions from the emulator, which saw every
//! packet either sender put on the path.

use lossrec::Sender;
use lossrec_sim::episodes::Counters;
use lossrec_sim::FlowResult;

use crate::linux::KernelFlow;
use crate::path::{Conn, Message};

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
        r.bytes = c.message_bytes();
        r.fct_ms = c.fct_ms();
        r.lost_retransmits = c.lost_retransmits;
        r.tail_drops = c.tail_drops;
    }
    r
}

/// One message's result (a response of a request-response connection) from its
/// connection's results when the message ended (`end`) and began (`start`, none for the
/// first): counters are the difference; bytes, completion time and lost retransmissions
/// are the path's for the message.
pub fn message(end: &FlowResult, start: Option<&FlowResult>, id: u64, m: &Message) -> FlowResult {
    let mut r = start.map_or_else(|| end.clone(), |s| end.since(s));
    r.id = id;
    r.bytes = m.bytes;
    r.fct_ms = m.fct_ms;
    r.lost_retransmits = m.lost_retransmits;
    r.tail_drops = m.tail_drops;
    r.final_cwnd = end.final_cwnd;
    r
}

/// Linux's results for every message of connection `c` (`per` results a connection, the
/// marks the client took before each later message).
pub fn kernel_messages(c: u64, per: u64, k: &KernelFlow, conn: Option<&Conn>) -> Vec<FlowResult> {
    let at = |i: usize| -> FlowResult {
        let (info, mib) = match k.marks.get(i) {
            Some((info, mib)) => (*info, mib.clone()),
            None => (k.info, k.mib.clone()),
        };
        let snap = KernelFlow {
            info,
            mib,
            ..KernelFlow::default()
        };
        kernel(0, &snap, conn)
    };
    let msgs: Vec<Message> = conn.map_or_else(Vec::new, |c| {
        c.done.iter().copied().chain([c.current()]).collect()
    });
    (0..msgs.len().min(per as usize))
        .map(|i| {
            let start = (i > 0).then(|| at(i - 1));
            message(&at(i), start.as_ref(), c * per + i as u64, &msgs[i])
        })
        .collect()
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

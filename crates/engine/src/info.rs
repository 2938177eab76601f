//! `TcpInfo`: the sender's state in the units Linux's `struct tcp_info` reports (packets and
//! microseconds), so packetdrill-style assertions on `tcpi_*` read naturally.

use crate::sender::Sender;

/// A snapshot of `tcp_info` fields. Packet counts are bytes rounded up to whole MSS.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TcpInfo {
    /// Linux `tcp_ca_state` as a number (0 Open … 4 Loss).
    pub tcpi_ca_state: u64,
    /// Consecutive RTO expirations for the same data (`icsk_retransmits`).
    pub tcpi_retransmits: u64,
    /// RTO, µs.
    pub tcpi_rto: u64,
    /// The sender's MSS, bytes.
    pub tcpi_snd_mss: u64,
    /// Packets outstanding (`packets_out`).
    pub tcpi_unacked: u64,
    /// Segments SACKed (`sacked_out`).
    pub tcpi_sacked: u64,
    /// Segments marked lost (`lost_out`).
    pub tcpi_lost: u64,
    /// Retransmitted packets still outstanding (`retrans_out`).
    pub tcpi_retrans: u64,
    /// SRTT, µs.
    pub tcpi_rtt: u64,
    /// RTTVAR, µs.
    pub tcpi_rttvar: u64,
    /// ssthresh, segments.
    pub tcpi_snd_ssthresh: u64,
    /// cwnd, segments.
    pub tcpi_snd_cwnd: u64,
    /// Retransmissions over the connection's life.
    pub tcpi_total_retrans: u64,
    /// Bytes acknowledged (`bytes_acked`).
    pub tcpi_bytes_acked: u64,
    /// The duplicate threshold in use, segments (`tp->reordering`).
    pub tcpi_reordering: u64,
    /// Reordering events seen (`tp->reord_seen`: `TCPSACKReorder` + `TCPTSReorder` +
    /// `TCPRenoReorder`, and FACK's in the kernels that had it).
    pub tcpi_reord_seen: u64,
}

/// `ssthresh` before the first reduction, as Linux reports it (`TCP_INFINITE_SSTHRESH`).
pub const INFINITE_SSTHRESH: u64 = 0x7fff_ffff;

impl TcpInfo {
    /// Every field by its packetdrill name.
    pub fn fields(&self) -> [(&'static str, u64); 16] {
        [
            ("tcpi_ca_state", self.tcpi_ca_state),
            ("tcpi_retransmits", self.tcpi_retransmits),
            ("tcpi_rto", self.tcpi_rto),
            ("tcpi_snd_mss", self.tcpi_snd_mss),
            ("tcpi_unacked", self.tcpi_unacked),
            ("tcpi_sacked", self.tcpi_sacked),
            ("tcpi_lost", self.tcpi_lost),
            ("tcpi_retrans", self.tcpi_retrans),
            ("tcpi_rtt", self.tcpi_rtt),
            ("tcpi_rttvar", self.tcpi_rttvar),
            ("tcpi_snd_ssthresh", self.tcpi_snd_ssthresh),
            ("tcpi_snd_cwnd", self.tcpi_snd_cwnd),
            ("tcpi_total_retrans", self.tcpi_total_retrans),
            ("tcpi_bytes_acked", self.tcpi_bytes_acked),
            ("tcpi_reordering", self.tcpi_reordering),
            ("tcpi_reord_seen", self.tcpi_reord_seen),
        ]
    }
    /// A field by its packetdrill name.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.fields()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

impl Sender {
    /// The state as Linux's `TCP_INFO` would report it.
    pub fn info(&self) -> TcpInfo {
        let mss = self.mss().max(1);
        let pk = |b: u64| b.div_ceil(mss);
        let sb = self.scoreboard();
        let us = |d: core::time::Duration| d.as_micros() as u64;
        TcpInfo {
            tcpi_ca_state: self.state() as u64,
            tcpi_retransmits: u64::from(self.rto_retransmits()),
            tcpi_rto: us(self.rtt().rto()),
            tcpi_snd_mss: mss,
            tcpi_unacked: sb.len() as u64,
            tcpi_sacked: pk(sb.sacked_bytes()),
            tcpi_lost: pk(sb.lost_bytes()),
            tcpi_retrans: pk(sb.retrans_bytes()),
            tcpi_rtt: self.rtt().srtt().map_or(0, us),
            tcpi_rttvar: us(self.rtt().rttvar()),
            tcpi_snd_ssthresh: if self.ssthresh() == u64::MAX {
                INFINITE_SSTHRESH
            } else {
                pk(self.ssthresh())
            },
            tcpi_snd_cwnd: self.cwnd() / mss,
            tcpi_total_retrans: self.stats().retrans_segs,
            tcpi_bytes_acked: self.snd_una(),
            tcpi_reordering: u64::from(self.reordering()),
            tcpi_reord_seen: {
                let st = self.stats();
                st.sack_reorder + st.fack_reorder + st.ts_reorder + st.reno_reorder
            },
        }
    }
}

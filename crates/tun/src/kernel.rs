//! What the kernel says about a connection: `TCP_INFO` (`include/uapi/linux/tcp.h`
//! `struct tcp_info`, read with getsockopt) and the namespace's MIB counters
//! (`/proc/net/netstat` TcpExt, the same names as the engine's `Stats`). Each run has
//! namespaces of its own and runs its flows one at a time, so the difference of the
//! counters around a flow is that flow's.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::AsRawFd;

/// `struct tcp_info` as of Linux 6.7 (fields appended over time; the kernel copies
/// min(its size, ours), so an older kernel leaves the tail zero).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TcpInfo {
    pub state: u8,
    pub ca_state: u8,
    pub retransmits: u8,
    pub probes: u8,
    pub backoff: u8,
    pub options: u8,
    pub wscale: u8,
    pub app_limited: u8,
    pub rto: u32,
    pub ato: u32,
    pub snd_mss: u32,
    pub rcv_mss: u32,
    pub unacked: u32,
    pub sacked: u32,
    pub lost: u32,
    pub retrans: u32,
    pub fackets: u32,
    pub last_data_sent: u32,
    pub last_ack_sent: u32,
    pub last_data_recv: u32,
    pub last_ack_recv: u32,
    pub pmtu: u32,
    pub rcv_ssthresh: u32,
    pub rtt: u32,
    pub rttvar: u32,
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub advmss: u32,
    pub reordering: u32,
    pub rcv_rtt: u32,
    pub rcv_space: u32,
    pub total_retrans: u32,
    pub pacing_rate: u64,
    pub max_pacing_rate: u64,
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub segs_in: u32,
    pub notsent_bytes: u32,
    pub min_rtt: u32,
    pub data_segs_in: u32,
    pub data_segs_out: u32,
    pub delivery_rate: u64,
    pub busy_time: u64,
    pub rwnd_limited: u64,
    pub sndbuf_limited: u64,
    pub delivered: u32,
    pub delivered_ce: u32,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    pub dsack_dups: u32,
    pub reord_seen: u32,
    pub rcv_ooopack: u32,
    pub snd_wnd: u32,
    pub rcv_wnd: u32,
    pub rehash: u32,
    pub total_rto: u16,
    pub total_rto_recoveries: u16,
    pub total_rto_time: u32,
}

/// `getsockopt(TCP_INFO)` on a socket.
pub fn tcp_info(sock: &impl AsRawFd) -> io::Result<TcpInfo> {
    let mut info = TcpInfo::default();
    let mut len = std::mem::size_of::<TcpInfo>() as libc::socklen_t;
    // SAFETY: the kernel writes at most `len` bytes into `info`, a plain-data struct.
    let r = unsafe {
        libc::getsockopt(
            sock.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut TcpInfo).cast(),
            &mut len,
        )
    };
    if r != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(info)
}

/// `setsockopt(TCP_CONGESTION, name)`.
pub fn set_congestion(sock: &impl AsRawFd, name: &str) -> io::Result<()> {
    // SAFETY: passes a byte buffer and its length.
    let r = unsafe {
        libc::setsockopt(
            sock.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    if r != 0 {
        return Err(io::Error::other(format!(
            "TCP_CONGESTION {name}: {}",
            io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// The calling thread's namespace MIB: `TcpExt` of `netstat` and `Tcp` of `snmp`.
pub fn mib() -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for (file, want) in [("netstat", "TcpExt:"), ("snmp", "Tcp:")] {
        // thread-self: /proc/self/net would show the main thread's namespace.
        let Ok(text) = std::fs::read_to_string(format!("/proc/thread-self/net/{file}")) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        for pair in lines.chunks(2) {
            let [names, values] = pair else { continue };
            if !names.starts_with(want) {
                continue;
            }
            for (n, v) in names
                .split_whitespace()
                .zip(values.split_whitespace())
                .skip(1)
            {
                if let Ok(v) = v.parse::<i64>() {
                    out.insert(n.to_string(), v.max(0) as u64);
                }
            }
        }
    }
    out
}

/// `after − before` for every counter.
pub fn mib_delta(
    before: &BTreeMap<String, u64>,
    after: &BTreeMap<String, u64>,
) -> BTreeMap<String, u64> {
    after
        .iter()
        .map(|(k, v)| (k.clone(), v.saturating_sub(*before.get(k).unwrap_or(&0))))
        .collect()
}

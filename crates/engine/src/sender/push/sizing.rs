//! How big Linux makes socket buffers and TSO packets (net/ipv4/tcp.c
//! `tcp_xmit_size_goal`; net/ipv4/tcp_output.c `tcp_update_pacing_rate`,
//! `tcp_tso_autosize`), for [`super`]'s PSH placement.

use crate::time::Duration;

/// Linux `GSO_LEGACY_MAX_SIZE` less `MAX_TCP_HEADER` and one (`tcp_xmit_size_goal`).
const GSO_MAX_SIZE: u64 = 65_536 - 1 - 320;
/// Linux `tcp_pacing_ss_ratio` and `tcp_pacing_ca_ratio` defaults (percent).
const PACING_SS_RATIO: u64 = 200;
const PACING_CA_RATIO: u64 = 120;
/// Linux `sk_pacing_shift` default: TSO packets of about 1 ms at the pacing rate.
const PACING_SHIFT: u32 = 10;
/// Linux `tcp_tso_rtt_log` default.
const TSO_RTT_LOG: u32 = 9;

/// Linux `tcp_xmit_size_goal`: the largest multiple of the MSS within the GSO limit and
/// half the peer's largest window (`tcp_bound_to_half_wnd`), at least one MSS.
pub(in crate::sender) fn size_goal(mss: u64, max_window: u64) -> u64 {
    let cutoff = if max_window > 536 {
        max_window / 2
    } else {
        max_window
    };
    let goal = if cutoff > 0 {
        GSO_MAX_SIZE.min(cutoff)
    } else {
        GSO_MAX_SIZE
    };
    (goal / mss * mss).max(mss)
}

/// Linux `tcp_update_pacing_rate` then `tcp_tso_autosize`: the segments one TSO packet
/// may hold.
pub(in crate::sender) fn tso_segs(p: &PacingInputs) -> u64 {
    let rate = pacing_rate(p);
    let mut bytes = rate >> PACING_SHIFT;
    if let Some(min_rtt) = p.min_rtt {
        let r = (min_rtt.as_micros() >> TSO_RTT_LOG) as u64;
        if r < 32 {
            bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
        }
    }
    (bytes.min(GSO_MAX_SIZE) / p.mss).max(p.min_tso_segs)
}

/// Linux `tcp_update_pacing_rate`, bytes per second (`u64::MAX` before an RTT sample).
pub(in crate::sender) fn pacing_rate(p: &PacingInputs) -> u64 {
    match p.srtt {
        // mss · max(cwnd, packets_out) / srtt, times 200 % in the first half of slow start
        // and 120 % after.
        Some(srtt) if !srtt.is_zero() => {
            let ratio = if p.cwnd_segs < p.ssthresh_segs / 2 {
                PACING_SS_RATIO
            } else {
                PACING_CA_RATIO
            };
            let per_sec = u128::from(p.mss * p.cwnd_segs.max(p.packets_out) * ratio / 100);
            (per_sec * 1_000_000_000 / srtt.as_nanos().max(1)) as u64
        }
        _ => u64::MAX,
    }
}

/// What the pacing rate is computed from.
pub(in crate::sender) struct PacingInputs {
    pub mss: u64,
    pub cwnd_segs: u64,
    pub ssthresh_segs: u64,
    pub packets_out: u64,
    pub srtt: Option<Duration>,
    pub min_rtt: Option<Duration>,
    /// Linux `tcp_min_tso_segs`.
    pub min_tso_segs: u64,
}

//! How big Linux makes socket buffers and TSO packets (net/ipv4/tcp.c
//! `tcp_xmit_size_goal`; net/ipv4/tcp_output.c `tcp_tso_autosize`, from the pacing rate
//! `crate::pacing` computes), for [`super`]'s PSH placement; and the sender's
//! inputs to them (`tso_max_segs`: the pacing rate and min RTT as they stand).

use crate::sender::Sender;
use crate::time::Duration;

/// Linux `GSO_LEGACY_MAX_SIZE` less `MAX_TCP_HEADER` and one (`tcp_xmit_size_goal`).
const GSO_MAX_SIZE: u64 = 65_536 - 1 - 320;
/// Linux `sk_pacing_shift` default: TSO packets of about 1 ms at the pacing rate.
use crate::pacing::PACING_SHIFT;
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

/// Linux `tcp_tso_autosize`: the segments one TSO packet may hold.
pub(in crate::sender) fn tso_segs(p: &PacingInputs) -> u64 {
    let mut bytes = p.rate >> PACING_SHIFT;
    if let Some(min_rtt) = p.min_rtt {
        let r = (min_rtt.as_micros() >> TSO_RTT_LOG) as u64;
        if r < 32 {
            bytes = bytes.saturating_add(GSO_MAX_SIZE >> r);
        }
    }
    (bytes.min(GSO_MAX_SIZE) / p.mss).max(p.min_tso_segs)
}

/// What TSO sizing reads.
pub(in crate::sender) struct PacingInputs {
    pub mss: u64,
    /// `sk_pacing_rate`, bytes per second (`crate::pacing`).
    pub rate: u64,
    pub min_rtt: Option<Duration>,
    /// Linux `tcp_min_tso_segs`.
    pub min_tso_segs: u64,
}

impl Sender {
    /// Linux `tcp_tso_segs` for the current pacing rate and RTT.
    pub(in crate::sender) fn tso_max_segs(&self) -> u64 {
        tso_segs(&self.pacing_inputs())
    }

    /// `tcp_tso_segs` now: the segments a full packet holds (for `sender::pacing`).
    pub(in crate::sender) fn tso_segs_now(&self) -> u64 {
        self.tso_max_segs()
    }

    fn pacing_inputs(&self) -> PacingInputs {
        PacingInputs {
            mss: self.mss.max(1),
            rate: self.sk_pacing_rate(),
            min_rtt: self.core.rtt.min_rtt(),
            min_tso_segs: u64::from(self.alg.shell.min_tso_segs),
        }
    }
}

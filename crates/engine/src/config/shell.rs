//! The settings the connection shell (`Sender`) reads while it runs, copied once from
//! [`Config`] at construction (and again on negotiation) so that no decision reads the
//! raw config: the initial window, the RTO bounds, ECN, TSO sizing, the pacing ratios and
//! what the SYN offers.

use core::time::Duration;

use super::{Config, Ecn};

/// What the shell reads of the config, resolved once.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ShellSettings {
    /// Initial window in segments (RFC 5681 §3.1 IW; `initial_cwnd`), also the floor of
    /// Linux's restart window and RFC 5682's and RFC 4015's responses.
    pub initial_cwnd: u32,
    /// RFC 6298 §2.4's lower bound (`min_rto`; Linux `tcp_rto_min`).
    pub min_rto: Duration,
    /// RFC 6298 §2.5's upper bound (`max_rto`; Linux `TCP_RTO_MAX`).
    pub max_rto: Duration,
    /// ECN as configured (RFC 3168 negotiation).
    pub ecn: Ecn,
    /// Linux `tcp_min_tso_segs` (`tcp_tso_autosize`).
    pub min_tso_segs: u32,
    /// Linux `tcp_pacing_ss_ratio`, percent.
    pub pacing_ss_ratio: u32,
    /// Linux `tcp_pacing_ca_ratio`, percent.
    pub pacing_ca_ratio: u32,
    /// The MSS configured (payload of a segment with timestamps).
    pub mss: u16,
    /// SACK-permitted is offered (RFC 2018).
    pub offer_sack: bool,
    /// Timestamps are offered (RFC 7323).
    pub offer_timestamps: bool,
}

impl ShellSettings {
    /// The shell's settings from `c`.
    pub fn of(c: &Config) -> ShellSettings {
        ShellSettings {
            initial_cwnd: c.initial_cwnd,
            min_rto: c.min_rto,
            max_rto: c.max_rto,
            ecn: c.ecn,
            min_tso_segs: c.min_tso_segs,
            pacing_ss_ratio: c.pacing_ss_ratio,
            pacing_ca_ratio: c.pacing_ca_ratio,
            mss: c.mss,
            offer_sack: c.sack,
            offer_timestamps: c.timestamps,
        }
    }
}

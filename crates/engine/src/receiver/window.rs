//! The receive window a receiver advertises (RFC 9293 §3.8.6: RCV.WND; RFC 7323 §2.3:
//! scaled windows).
//!
//! - [`WindowModel::Fixed`]: `ReceiverConfig::window` on every ACK (an application that
//!   reads at once from an unlimited buffer).
//! - [`WindowModel::Linux`] (the default): Linux's receiver as measured through the real
//!   wire (`crates/tun`) and as `tcp_input.c`/`tcp_output.c` compute it:
//!   - the initial window (`tcp_select_initial_window`): 64 KiB of space rounded down to
//!     whole segments, at most 65 535 (65 160 bytes at MSS 1448);
//!   - `rcv_ssthresh` starts there and grows by two segments for each in-order segment of
//!     at least 128 bytes (`tcp_grow_window`: `incr = 2 · advmss`), never above the
//!     window clamp;
//!   - the clamp is what the socket buffer holds (`tcp_win_from_space(sk_rcvbuf)`):
//!     initially [`LINUX_INITIAL_CLAMP`] (tcp_rmem[1] = 128 KiB at the len/truesize ratio
//!     of 1500-byte frames), raised by receive-buffer autotuning (`tcp_rcv_space_adjust`,
//!     DRS): once per receiver RTT, if the application read more than in the RTT before,
//!     the window is set to twice that plus 16 segments, up to `ReceiverConfig::window`;
//!   - the window offered is min(`rcv_ssthresh`, free space), where the free space is the
//!     clamp less the bytes held out of order (the application reads in-order data at
//!     once), rounded up to the window scale's unit (`__tcp_select_window`);
//!   - the right edge never moves left (`tcp_select_window`: "never shrink the offered
//!     window"), so while a segment is missing the edge stays where it was: RCV.NXT does
//!     not move and `rcv_ssthresh` does not grow on out-of-order data; the window kept is
//!     rounded up to the scale's unit (`ALIGN(cur_win, 1 << rcv_wscale)`), so every
//!     window advertised is what the 16-bit field carries.
//!
//!   The receiver RTT comes from the timestamps the sender echoes (`tcp_rcv_rtt_measure_ts`)
//!   or, without timestamps, from the time to receive one window (`tcp_rcv_rtt_measure`).
//!
//!   Not modelled: memory pressure, the post-repair dip while the application has not yet
//!   read a large in-order jump, and the truesize ratio's adaptation.

use crate::time::Instant;

/// How the receive window is chosen.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum WindowModel {
    /// `ReceiverConfig::window` on every ACK.
    Fixed,
    /// Linux's initial window, growth, autotuning and right-edge rule (see the module doc).
    #[default]
    Linux,
}

impl WindowModel {
    /// The scenario name: `fixed` or `linux`.
    pub fn name(self) -> &'static str {
        match self {
            WindowModel::Fixed => "fixed",
            WindowModel::Linux => "linux",
        }
    }
    /// From the scenario name.
    pub fn parse(s: &str) -> Option<WindowModel> {
        match s {
            "fixed" => Some(WindowModel::Fixed),
            "linux" => Some(WindowModel::Linux),
            _ => None,
        }
    }
}

/// Linux's window clamp before autotuning: `tcp_win_from_space(tcp_rmem[1] = 131072)` at
/// the len/truesize ratio of full-sized 1500-byte frames (measured: 80 896 bytes).
pub const LINUX_INITIAL_CLAMP: u64 = 80_896;
/// Space the initial window is cut from (`tcp_full_space` of the initial buffer).
const LINUX_INITIAL_SPACE: u64 = 65_536;
/// Largest unscaled window field.
const MAX_UNSCALED: u64 = 65_535;

/// Receive-window state of one connection.
#[derive(Clone, Debug)]
pub(crate) struct Window {
    model: WindowModel,
    /// `cfg.window`: the fixed window, or the largest the Linux model grows to.
    max: u64,
    mss: u64,
    /// Unit of the advertised window (1 << shift).
    unit: u64,
    rcv_ssthresh: u64,
    clamp: u64,
    /// The right edge last advertised (RCV.NXT + RCV.WND).
    edge: u64,
    /// DRS (`rcvq_space`): bytes read in the last measurement, where and when it began.
    space: u64,
    space_seq: u64,
    space_time: Option<Instant>,
    /// Receiver RTT estimate in µs (0: none yet), and the window-based measurement.
    rtt_us: u64,
    rtt_mark: Option<(u64, Instant)>,
}

impl Window {
    /// The window at the SYN: `max` is `cfg.window`, `shift` the agreed window scale.
    /// Without a SYN (`shift` = `None` and `syn` false) nothing caps the window.
    pub fn new(model: WindowModel, max: u64, mss: u64, shift: Option<u8>, syn: bool) -> Window {
        let max = match (syn, shift) {
            (false, _) => max.max(mss),
            (true, Some(s)) => (max.min(MAX_UNSCALED << s) >> s << s).max(1 << s),
            (true, None) => max.min(MAX_UNSCALED),
        };
        let initial = match model {
            WindowModel::Fixed => max,
            WindowModel::Linux => (LINUX_INITIAL_SPACE / mss * mss).min(MAX_UNSCALED).min(max),
        };
        Window {
            model,
            max,
            mss,
            unit: 1 << shift.unwrap_or(if syn { 0 } else { 7 }),
            rcv_ssthresh: initial,
            clamp: LINUX_INITIAL_CLAMP.max(initial).min(max),
            edge: initial,
            space: 10 * mss,
            space_seq: 0,
            space_time: None,
            rtt_us: 0,
            rtt_mark: None,
        }
    }

    /// The window offered on the SYN-ACK (never scaled, RFC 7323 §2.2).
    pub fn initial(&self) -> u64 {
        match self.model {
            WindowModel::Fixed => self.max.min(MAX_UNSCALED),
            WindowModel::Linux => self.rcv_ssthresh.min(MAX_UNSCALED),
        }
    }

    /// The highest offset the peer may send (acceptance test, RFC 9293 §3.10.7.4).
    pub fn right_edge(&self, rcv_nxt: u64) -> u64 {
        match self.model {
            WindowModel::Fixed => rcv_nxt.saturating_add(self.max),
            WindowModel::Linux => self.edge.max(rcv_nxt),
        }
    }

    /// A timestamp echo of ours on new data: `tcp_rcv_rtt_measure_ts` (smoothed 7/8).
    pub fn on_ts_echo(&mut self, now: Instant, ecr_us: u64) {
        let now_us = now.as_micros();
        if ecr_us == 0 || ecr_us > now_us {
            return;
        }
        self.sample(now_us - ecr_us);
    }

    fn sample(&mut self, m: u64) {
        let m = m.max(1);
        self.rtt_us = if self.rtt_us == 0 {
            m
        } else {
            (self.rtt_us * 7 + m) / 8
        };
    }

    /// RCV.NXT moved from `from` to `to` on a segment of `len` bytes at `now`.
    pub fn on_in_order(&mut self, now: Instant, from: u64, to: u64, len: u64, timestamps: bool) {
        if self.model == WindowModel::Fixed || to <= from {
            return;
        }
        // tcp_grow_window: in-order data of at least 128 bytes, while below the clamp.
        if len >= 128 && self.rcv_ssthresh < self.clamp {
            self.rcv_ssthresh = (self.rcv_ssthresh + 2 * self.mss).min(self.clamp);
        }
        if !timestamps {
            // tcp_rcv_rtt_measure: the time it takes to receive one window.
            match self.rtt_mark {
                Some((seq, t)) if to >= seq => {
                    self.sample(now.saturating_duration_since(t).as_micros() as u64);
                    self.rtt_mark = Some((to + self.edge.saturating_sub(to).max(self.mss), now));
                }
                None => {
                    self.rtt_mark = Some((to + self.edge.saturating_sub(to).max(self.mss), now))
                }
                _ => {}
            }
        }
        self.space_adjust(now, to);
    }

    /// `tcp_rcv_space_adjust`: once per receiver RTT, grow the buffer to twice what the
    /// application read in the last RTT (plus 16 segments) when that grew.
    fn space_adjust(&mut self, now: Instant, copied_seq: u64) {
        let Some(t0) = self.space_time else {
            self.space_time = Some(now);
            self.space_seq = 0;
            return;
        };
        if self.rtt_us == 0 || (now.saturating_duration_since(t0).as_micros() as u64) < self.rtt_us
        {
            return;
        }
        let copied = copied_seq.saturating_sub(self.space_seq);
        if copied > self.space {
            self.space = copied;
            let win = 2 * copied + 16 * self.mss;
            self.clamp = self.clamp.max(win).min(self.max);
        }
        self.space_seq = copied_seq;
        self.space_time = Some(now);
    }

    /// The window for an ACK at `rcv_nxt` with `ooo` bytes held out of order.
    pub fn advertise(&mut self, rcv_nxt: u64, ooo: u64) -> u64 {
        if self.model == WindowModel::Fixed {
            return self.max;
        }
        let free = self.clamp.saturating_sub(ooo);
        let win = self.rcv_ssthresh.min(free).div_ceil(self.unit) * self.unit;
        // tcp_select_window: never shrink the offered window, and offer the current one
        // rounded up to the scale's unit (`ALIGN(cur_win, 1 << rcv_wscale)`), the value
        // the 16-bit field carries; the edge moves to match (rcv_wup = rcv_nxt).
        let cur = self.edge.saturating_sub(rcv_nxt);
        let adv = if win < cur {
            cur.div_ceil(self.unit) * self.unit
        } else {
            win
        };
        self.edge = rcv_nxt + adv;
        adv
    }
}

/// The window scale this receiver offers when the peer offers one (RFC 7323 §2.2): 7, as
/// Linux derives it from its default `tcp_rmem[2]` (`tcp_select_initial_window`), for
/// windows up to the default; for a larger configured window, the smallest shift that
/// fits it into 16 bits (at most 14), as Linux would with a buffer that large.
pub(super) fn initial_scale(window: u64) -> u8 {
    if window <= super::ReceiverConfig::default().window {
        return 7;
    }
    let mut space = window;
    let mut scale = 0;
    while space > u64::from(u16::MAX) && scale < 14 {
        space >>= 1;
        scale += 1;
    }
    scale
}

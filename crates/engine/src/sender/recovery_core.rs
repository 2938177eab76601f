//! The loss-recovery core (DESIGN.md "A recovery core inside a connection shell"): the
//! state that loss recovery owns, apart from the connection shell (`Sender`) that keeps
//! the handshake, application data, FIN, PSH/TSO sizing, persist, the pacing queue, ECN,
//! transmit failure and the optimistic-ACK defence.
//!
//! What lives here is what RFC 6675 §4-5, RFC 8985, RFC 5827, RFC 6298, RFC 5682 and
//! RFC 3522 keep per connection, and what Linux keeps for them in `tcp_sock` and
//! `inet_connection_sock` (`sacked_out`/`lost_out`/`retrans_out` in the scoreboard,
//! `icsk_ca_state` with its episode data in `Ca`, `tp->rack`, `tlp_high_seq`,
//! `undo_marker`/`undo_retrans` in `Evidence`, `srtt_us`/`icsk_rto` in `Rtt`,
//! `icsk_retransmits`, the one `icsk_timeout`). The shell sequences it: the `impl Sender`
//! files in this module read and write these fields through `self.core`, so a reader can
//! see at each line whether a decision touches the connection or the recovery.

use super::state::Ca;
use super::{dupacks, evidence, reordering};
use crate::config::{resolved, Algorithms, Config};
use crate::detect::rack::{self as rack_det, Rack};
use crate::probe::{tlp, tlp_draft};
use crate::reduce::Reducer;
use crate::rtt::Rtt;
use crate::scoreboard::Scoreboard;
use crate::time::Duration;
use crate::timer::Timer;

/// The loss-recovery state of one connection (15 fields; see the module doc for what the
/// shell keeps instead).
#[derive(Clone, Debug)]
pub(super) struct RecoveryCore {
    /// Consecutive timeouts without SND.UNA advancing (Linux `icsk_retransmits`).
    pub(super) rto_retransmits: u32,
    /// Sent segments and their marks (RFC 6675 §3).
    pub(super) sb: Scoreboard,
    /// The RTT estimator and the RTO it sets (RFC 6298).
    pub(super) rtt: Rtt,
    /// The recovery state with its episode's data.
    pub(super) ca: Ca,
    /// Duplicate-ACK counts and the non-SACK emulation of `sacked_out` (`dupacks`).
    pub(super) dup: dupacks::DupAcks,
    /// The rate-reduction algorithm with its per-episode state.
    pub(super) reducer: Reducer,
    /// The reordering seen and the threshold it set (`reordering`).
    pub(super) reorder: reordering::Reorder,
    /// RACK's state (RFC 8985 §5.3).
    pub(super) rack: Rack,
    /// RACK.segment advanced on the ACK being processed (Linux `rack.advanced`).
    pub(super) rack_advanced: bool,
    /// The reorder-timer wait RACK's last detection asked for.
    pub(super) rack_wait: Option<Duration>,
    /// The TLP draft's episode (TLPRtxOut, TLPHighRxt, consecutive PTOs).
    pub(super) tlp_draft: tlp_draft::Episode,
    /// RFC 8985 / Linux TLP episode (TLP.end_seq, TLP.is_retrans).
    pub(super) tlp: tlp::Episode,
    /// The undo value, F-RTO and the other evidence of spurious retransmission
    /// (`evidence`).
    pub(super) evidence: evidence::Evidence,
    /// The most cwnd may be after the ACK being processed: set by a response that fixed
    /// cwnd on it (RFC 4015) or an F-RTO cap (RFC 5682 steps 2a/3a), applied after that
    /// ACK's growth, then cleared.
    pub(super) cwnd_ceiling: Option<u64>,
    /// The one deadline (DESIGN.md "One deadline"): RACK's reorder timer, the probe
    /// timeout, delayed early retransmit, the RTO, and the shell's persist timer share it.
    pub(super) timer: Timer,
}

impl RecoveryCore {
    /// The core of a new connection: nothing sent, state Open, the RTO at its initial
    /// value (RFC 6298 §2.1), the detectors as `alg` resolved them from `config`.
    pub(super) fn new(config: &Config, alg: &Algorithms) -> RecoveryCore {
        RecoveryCore {
            rto_retransmits: 0,
            sb: Scoreboard::new(),
            rtt: Rtt::new(
                config.rtt_estimator,
                config.initial_rto,
                config.min_rto,
                config.max_rto,
            ),
            ca: Ca::Open,
            dup: dupacks::DupAcks::default(),
            reducer: Reducer::new(config.reduction),
            reorder: reordering::Reorder::new(config.dupthresh),
            rack: match alg.loss_detection {
                resolved::Detection::Rack {
                    variant,
                    reo_wnd,
                    dupthresh_shortcut,
                } => Rack::with_options(
                    variant,
                    reo_wnd == resolved::ReoWnd::Static,
                    !dupthresh_shortcut,
                ),
                _ => Rack::new(rack_det::Variant::Rfc8985),
            },
            rack_advanced: false,
            rack_wait: None,
            tlp_draft: tlp_draft::Episode::default(),
            tlp: tlp::Episode::new(matches!(alg.probe, resolved::Probing::TlpLinux { .. })),
            evidence: evidence::Evidence::default(),
            cwnd_ceiling: None,
            timer: Timer::new(alg.rules.timer_wheel),
        }
    }
}

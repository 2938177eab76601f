//! The configuration axes: one enum per algorithm choice, each value with its kebab-case
//! name (scenario files, `--set axis=value`, `lossrec presets`), declared once by `axis!`.

use core::fmt;
use core::str::FromStr;

use super::setting::Setting;
use super::ConfigError;

/// Declares an axis enum with its kebab-case names.
macro_rules! axis {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name { $($(#[$vm])* $var),+ }
        impl $name {
            /// Every value's name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($s),+];
            /// The value's kebab-case name, as scenario files and `--set` spell it.
            pub fn name(self) -> &'static str { match self { $($name::$var => $s),+ } }
        }
        impl FromStr for $name {
            type Err = ConfigError;
            fn from_str(s: &str) -> Result<Self, ConfigError> {
                match s { $($s => Ok($name::$var),)+
                    _ => Err(ConfigError::BadValue { axis: stringify!($name).into(), value: s.into(),
                        valid: Self::NAMES.join(", ") }) }
            }
        }
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { f.write_str(self.name()) }
        }
        impl Setting for $name {
            fn parse(key: &str, v: &str, _: Option<(u64, u64)>) -> Result<Self, ConfigError> {
                v.parse().map_err(|_| ConfigError::BadValue { axis: key.into(), value: v.into(),
                    valid: Self::NAMES.join(", ") })
            }
            fn show(&self) -> String { self.name().to_string() }
        }
    };
}

axis!(
    /// How losses are detected before a timeout.
    LossDetection {
        /// RFC 6675 duplicate-ACK threshold (IsLost: DupThresh SACKed segments or more than
        /// (DupThresh − 1)·SMSS SACKed bytes above; recovery also on IsLost(HighACK + 1)),
        /// NewReno partial ACKs without SACK.
        DupThresh = "dupthresh",
        /// RFC 3517's rules: IsLost needs DupThresh·SMSS SACKed bytes (not more than
        /// (DupThresh − 1)·SMSS), and only DupThresh duplicate ACKs start recovery.
        DupThresh3517 = "dupthresh-3517",
        /// FACK threshold recovery (TLP draft §2.2, FACK paper §3.1): recovery when
        /// SND.FACK − SND.UNA > DupThresh·SMSS; un-SACKed data more than DupThresh·SMSS
        /// below SND.FACK is lost (Linux before 4.15 with `tcp_fack`).
        Fack = "fack",
        /// RFC 8985 §6 RACK: a segment is lost once a segment sent after it was delivered
        /// and RACK.rtt + reo_wnd has passed since it was sent; reo_wnd adapts to DSACKs;
        /// lost retransmissions are detected; an RTO marks only the head and what has timed
        /// out (§6.3). Needs SACK: without it the sender falls back to `dupthresh` (NewReno).
        Rack = "rack",
        /// Linux's RACK (`tcp_recovery` bit 0x1, digest §8.4): reo_wnd is 0 without
        /// observed reordering once `tp->reordering` segments are SACKed or in recovery;
        /// DSACK growth only after reordering was seen, not for a TLP's DSACK, once per
        /// round; the reorder timer has 2 ms (2 jiffies) of slack and is capped at the RTO;
        /// the RTO marks only segments older than RACK.rtt (no reo_wnd); cwnd after an RTO
        /// is the in-flight count plus one segment.
        RackLinux = "rack-linux",
    }
);

axis!(
    /// Tail loss probing.
    Probe {
        /// No tail loss probe: a tail loss waits for the RTO.
        None = "none",
        /// draft-dukkipati-tcpm-tcp-loss-probe-01 §2-3 (seed 000): PTO = max(2·SRTT, 10 ms),
        /// or max(2·SRTT, 1.5·SRTT + WCDelAckT) with one segment out, never after the RTO;
        /// only in Open state when cwnd- or application-limited; `tlp_max_probes`
        /// consecutive probes; TLPRtxOut/TLPHighRxt loss detection with a cwnd reduction
        /// when the probe masked a loss.
        TlpDraft = "tlp-draft",
        /// RFC 8985 §7: one probe per episode (TLP.end_seq), an RTT sample needed since
        /// the last probe, PTO = 2·SRTT (+ TLP.max_ack_delay with one segment out), then
        /// always the RTO; §7.4 decides from the probe's ACK whether it masked a loss.
        Tlp = "tlp",
        /// Linux's TLP (`tcp_early_retrans` 3 or 4; digest §9.3): PTO = 2·SRTT + rto_min
        /// (`min_rto`) with one packet out, else + 2 ms (2 jiffies); allowed in Open and CWR; no
        /// RTT-sample rule; a retransmitted probe is not counted in flight.
        TlpLinux = "tlp-linux",
    }
);

axis!(
    /// Early Retransmit (RFC 5827). Its mitigations are separate axes: `er_delayed`,
    /// `er_disable_on_reordering`, `er_rate_cap_percent`.
    EarlyRetransmit {
        /// No early retransmit.
        Off = "off",
        /// RFC 5827 §3.2 segment-based: with fewer than 4 segments outstanding and no new
        /// segment sendable, retransmit after oseg − 1 duplicate ACKs (with SACK: once
        /// oseg − 1 segments are SACKed, the §3 SACK variant).
        Rfc5827 = "rfc5827",
        /// RFC 5827 §3.1 byte-based: ownd < 4·SMSS; ER_thresh = ⌈ownd/SMSS⌉ − 1 duplicate
        /// ACKs (with SACK: once ownd − SMSS bytes are SACKed).
        Rfc5827Bytes = "rfc5827-bytes",
        /// `rfc5827` plus the enhancement of the TLP draft §4.2: three segments
        /// outstanding with the last one SACKed also triggers an (always delayed) early
        /// retransmit.
        ErTlp = "er-tlp",
    }
);

axis!(
    /// When fast recovery ends.
    RecoveryExit {
        /// At the recovery point: an ACK covering everything outstanding at entry (RFC
        /// 6675 §5, RFC 6582 §3.2 step 6 — NewReno and SACK recovery).
        RecoveryPoint = "recovery-point",
        /// On the first ACK of new data, partial or not (RFC 5681 §3.2 step 6, Reno; ns-2's
        /// Reno with SACK-chosen retransmissions, seed 004's Reno-SACK): a second loss in
        /// the window needs a second fast retransmit.
        FirstNewAck = "first-new-ack",
    }
);

axis!(
    /// How the sending rate is cut in fast recovery.
    Reduction {
        /// RFC 6675 §5 (as RFC 3517): cwnd = ssthresh, send while cwnd − pipe ≥ SMSS;
        /// without SACK, NewReno's window inflation (RFC 6582 §3.2).
        Rfc6675 = "rfc6675",
        /// Linux before 3.2 (digest §12): cwnd falls one segment every second ACK, never
        /// above pipe + 1 segment ("cwnd moderation"); cwnd = min(cwnd, ssthresh) at exit.
        RateHalving = "rate-halving",
        /// RFC 6937 §3 PRR with the conservative reduction bound.
        Prr6937Crb = "prr-6937-crb",
        /// RFC 6937 §3 PRR with the slow-start reduction bound (the RFC's default).
        Prr6937Ssrb = "prr-6937-ssrb",
        /// RFC 9937 §6 PRR: SafeACK picks the bound, RecoverFS per §6.1, forced fast
        /// retransmit, cwnd = ssthresh at exit.
        Prr = "prr",
        /// Linux's PRR (`tcp_cwnd_reduction`, digest §11.3): RecoverFS = cwnd at entry;
        /// SafeACK = SND.UNA advanced and nothing newly marked lost.
        PrrLinux = "prr-linux",
    }
);

axis!(
    /// The RTT estimator and RTO formula.
    RttEstimator {
        /// RFC 6298: RTO = SRTT + max(G, 4·RTTVAR), floored at min_rto.
        Rfc6298 = "rfc6298",
        /// Linux: RTO = SRTT + max(4·mdev, rto_min) family (digest §2.2).
        Linux = "linux",
    }
);

axis!(
    /// How the retransmission timer is re-armed on an ACK of new data.
    RtoTimer {
        /// RFC 6298 §5.3: restart to fire one RTO from now.
        Rfc6298 = "rfc6298",
        /// RFC 7765 §4 RTO Restart (seed 002): while fewer than `rrthresh` segments are
        /// outstanding or queued, fire one RTO after the earliest outstanding segment was
        /// sent (RTO − T_earliest from now; a full RTO if that is not positive). Also used
        /// when the RTO replaces a PTO or reorder timer and after a probe (RFC 8985 §9.2).
        Restart = "restart",
    }
);

axis!(
    /// How a spurious timeout (or fast retransmit) is detected (`rto` module). A detector
    /// that needs an option the connection did not negotiate — `eifel` without
    /// timestamps, `dsack` without SACK — works as `none` and counts
    /// `TCPSpuriousDetectionUnavailable`.
    SpuriousDetection {
        /// Every timeout and fast retransmit is taken as genuine.
        None = "none",
        /// RFC 5682 F-RTO: basic (§2.1) without SACK, SACK-enhanced (§3.1) with it. After
        /// a timeout, two new segments probe whether the originals were delivered; timeouts
        /// only.
        Frto = "frto",
        /// RFC 3522 Eifel detection: the first acceptable ACK after the first
        /// retransmission of an episode (timeout or fast retransmit) echoes a timestamp
        /// older than that retransmission. Needs timestamps.
        Eifel = "eifel",
        /// Every retransmission of the episode reported by a DSACK (RFC 2883, RFC 3708),
        /// counted as Linux's `undo_retrans`. Needs SACK.
        Dsack = "dsack",
        /// Linux's undo machinery (digest §13.3, §15): DSACK counting (`undo_retrans`),
        /// timestamps (`tcp_packet_delayed`), F-RTO as `tcp_process_loss` runs it
        /// (`tcp_frto` = 2) and the undo points of `tcp_fastretrans_alert`.
        Linux = "linux",
        /// `linux` with `tcp_frto` = 0: DSACK and timestamp undo only.
        LinuxNoFrto = "linux-no-frto",
    }
);

axis!(
    /// What the sender does once a timeout (or a fast retransmit) is known to be
    /// spurious. Every value resumes with new data instead of resending what was
    /// delivered (RFC 4015 step 8); they differ in cwnd and ssthresh (seed 004).
    SpuriousResponse {
        /// Keep the reduction (seed 004 "None").
        None = "none",
        /// Restore cwnd and ssthresh as they were before the reduction (seed 004 "Full";
        /// Linux `tcp_undo_cwnd_reduction`: cwnd = the congestion control's undo_cwnd,
        /// max(cwnd, prior_cwnd); ssthresh = max(ssthresh, prior_ssthresh)).
        FullUndo = "full-undo",
        /// RFC 4015 §3.1 for timeouts: cwnd = FlightSize + min(bytes_acked, IW), ssthresh
        /// = pipe_prev, and the RTO adapted from SRTT_prev/RTTVAR_prev on the first sample
        /// of new data; spurious fast retransmits are left as they are (step 7).
        Rfc4015 = "rfc4015",
        /// Seed 004 "Partial": keep the multiplicative decrease (cwnd = the reduced
        /// ssthresh) but not the restart from one segment; the sender waits until the
        /// flight falls below cwnd.
        Partial = "partial",
        /// Seed 004 "New partial": ssthresh = cwnd before the timeout, cwnd = ssthresh —
        /// the ACK clock continues, in congestion avoidance.
        NewPartial = "new-partial",
    }
);

axis!(
    /// How the retransmission timer adapts after a spurious timeout (seed 004 slide 10);
    /// every adaptation is reset by a genuine timeout.
    RtoAdaptation {
        /// Nothing beyond the estimator (seed 004 "Std").
        Std = "std",
        /// Re-initialise SRTT and RTTVAR from the next sample (RFC 6298 §2.2) ("Reseed").
        Reseed = "reseed",
        /// Keep the exponential back-off: new samples do not clear it ("Back-off").
        Backoff = "backoff",
        /// Raise the minimum RTO by 1 s per spurious timeout ("Min++").
        MinPlus = "min-plus",
    }
);

axis!(
    /// Congestion control.
    CongestionControl {
        /// RFC 5681 with appropriate byte counting (RFC 3465, L = 2);
        /// ssthresh = max(FlightSize/2, 2·SMSS) (RFC 5681 eq. 4).
        Reno = "reno",
        /// RFC 9438.
        Cubic = "cubic",
        /// CUBIC as Linux computes it (`tcp_cubic.c`: integer packets and jiffies, `cnt`
        /// recomputed at most every 31 ms, at most 5 % per RTT before the first loss,
        /// `tcp_cong_avoid_ai`; ssthresh = cwnd·717/1024 packets). Slow start as the
        /// flavour says.
        CubicLinux = "cubic-linux",
        /// Reno's growth with Linux's `tcp_reno_ssthresh`: ssthresh = max(cwnd/2, 2·SMSS),
        /// from cwnd rather than FlightSize (limited transmit does not raise it).
        RenoLinux = "reno-linux",
        /// BBR v1 as Linux 4.9 shipped it (`tcp_bbr.c`): cwnd and a pacing rate from the
        /// path's max delivery rate and min RTT, in place of the reducer's cwnd in
        /// recovery (`tcp_cong_control`'s `cong_control` hook); the sender paces.
        Bbr = "bbr",
    }
);

axis!(
    /// Whose rules decide what no RFC axis names: behaviour only Linux has hangs off this
    /// one axis, never off an unrelated one (DESIGN.md "Axes carry their options").
    Flavour {
        /// As the RFCs write it.
        Rfc = "rfc",
        /// As the Linux kernel does it: SACK tags whole segments (`tcp_match_skb_to_sack`);
        /// slow start grows by the segments newly delivered with no per-ACK cap while cwnd
        /// limited (`tcp_slow_start`, `tcp_is_cwnd_limited`); an RTO during fast recovery
        /// keeps the recovery's ssthresh (`tcp_enter_loss`); FACK-era presets detect lost
        /// retransmissions (`tcp_mark_lost_retrans`, 2.6.25–4.3); the TLP probe is not
        /// counted for undo (`tcp_send_loss_probe`); undo points and RACK persistence as
        /// `tcp_fastretrans_alert`; cwnd after an RTO is what is in flight + 1 with RACK
        /// (`tcp_enter_loss`); and the named rules of `resolved::FlavourRules` (the ACK
        /// that ends recovery runs loss detection, NewReno holds recovery at `high_seq`,
        /// the short timer on SACK reneging, Linux's counters).
        Linux = "linux",
    }
);

axis!(
    /// CUBIC's hybrid slow start (Linux `tcp_cubic` module parameters `hystart` and
    /// `hystart_detect`; the kernel's default is both detectors). Linux flavour only.
    HyStart {
        /// Slow start ends only on loss.
        Off = "off",
        /// ACK-train detection only (`HYSTART_ACK_TRAIN`).
        AckTrain = "ack-train",
        /// Delay detection only (`HYSTART_DELAY`).
        Delay = "delay",
        /// Both (`hystart_detect=3`).
        On = "on",
    }
);

axis!(
    /// Explicit Congestion Notification (RFC 3168), as Linux's `net.ipv4.tcp_ecn`.
    Ecn {
        /// Neither asked for nor accepted (`tcp_ecn=0`).
        Off = "off",
        /// Accepted when the peer's SYN asks for it, never asked for (`tcp_ecn=2`, Linux's
        /// default).
        Accept = "accept",
        /// Asked for on our SYN and accepted (`tcp_ecn=1`). Without a handshake the
        /// connection runs as if both ends agreed.
        On = "on",
    }
);

axis!(
    /// Who paces data segments (Linux `sk_pacing_status`; [`crate::pacing`]). Packetdrill's
    /// tun device has no pacing qdisc, so the `linux` preset leaves it off; a script's
    /// `tc qdisc … fq` turns `fq` on. BBR paces whatever this says (`internal` unless `fq`).
    Pacing {
        /// Every segment leaves when the window allows (`SK_PACING_NONE`).
        Off = "off",
        /// The `fq` qdisc holds each packet until its departure time; TCP Small Queues
        /// lets TCP run about two packets ahead of it (`SK_PACING_FQ`).
        Fq = "fq",
        /// TCP's own pacing timer: nothing is sent before its departure time
        /// (`SK_PACING_NEEDED`, `tcp_pacing_check`).
        Internal = "internal",
    }
);

axis!(
    /// When a HyStart round starts (Linux flavour; `hystart_update`): the first ACK past the
    /// last round's SND.NXT, whatever cwnd is (Linux 6.13+, "tcp_cubic: fix incorrect HyStart
    /// round start detection"), or only once cwnd reaches `hystart_low_window` (16), as
    /// Linux 5.16–6.12 did (commit 4e1fddc98d25 moved the round reset into
    /// `hystart_update`, which ran only from that cwnd on). google/packetdrill's
    /// `cubic-bulk-166k*` scripts expect the latter.
    HyStartRounds {
        /// Linux 6.13 and later.
        Always = "always",
        /// Linux 5.16 to 6.12.
        LowWindow = "low-window",
    }
);

axis!(
    /// A defence against optimistic ACKs (Savage, Cardwell, Wetherall, Anderson, "TCP
    /// congestion control with a misbehaving receiver", CCR 1999, §4.3; Sherwood,
    /// Bhattacharjee, Braud, CCS 2005, §5): a receiver that acknowledges data before it
    /// arrives makes the sender grow as if the path were shorter and lossless. Linux has
    /// none. See `detect::optack`.
    OptAckDefence {
        /// No defence (as Linux).
        Off = "off",
        /// Every `optack_skip_interval` segments on average (at most one per round trip;
        /// positions drawn from the seed the caller supplies, `Sender::set_seed`), one new
        /// segment is held back while the next one goes first, and follows it at once. An
        /// honest receiver reports the one-segment hole before the held segment fills it;
        /// a peer whose ACK covers the held segment without having reported the hole,
        /// three checks in a row (or covers it before it was sent at all), is
        /// acknowledging data it did not receive: the sender stops (`OptAckDetected`).
        /// Needs a receiver that acknowledges out-of-order data at once (RFC 5681 §4.2).
        SkipSegment = "skip-segment",
    }
);

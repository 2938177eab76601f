//! `Event`: every decision the engine takes, for traces, plots and snapshot tests.

use crate::time::Instant;

/// One decision, stamped with the time of the input that caused it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// When: the time of the input that caused it.
    pub at: Instant,
    /// What was decided.
    pub kind: EventKind,
}

/// Declares [`EventKind`] and derives [`EventKind::for_each_field`] from the same field
/// list, so a field added to a variant reaches traces, scripts and vectors without a
/// second, hand-written list that could drop it.
macro_rules! event_kinds {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $(
                $(#[$vmeta:meta])*
                $variant:ident { $( $(#[$fmeta:meta])* $field:ident : $ty:ty ),* $(,)? }
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $(
                $(#[$vmeta])*
                $variant { $(
                    $(#[$fmeta])*
                    #[doc = concat!("`", stringify!($field), "`: see the variant. Stream offsets and sizes ",
                        "are bytes, `_us` fields microseconds, `backoff` a count.")]
                    $field: $ty
                ),* }
            ),*
        }

        impl $name {
            /// Calls `f` with each field's name and value, in declaration order (every
            /// field of the variant: the list is the enum's own).
            pub fn for_each_field(&self, mut f: impl FnMut(&'static str, FieldValue)) {
                match *self {
                    $(
                        $name::$variant { $( $field ),* } => {
                            $( f(stringify!($field), FieldValue::from($field)); )*
                        }
                    )*
                }
            }
        }
    };
}

/// One event field's value: a number, a flag, or the name of a signal or detector.
/// `Display` gives numbers as digits, flags as `0`/`1` and names bare (`by=rack`);
/// [`FieldValue::write_json`] quotes names.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FieldValue {
    /// A number: a stream offset, bytes, a count or microseconds.
    Num(u64),
    /// A flag.
    Flag(bool),
    /// The name of a signal or detector.
    Name(&'static str),
}

impl FieldValue {
    /// Appends the value as JSON (flags as `0`/`1`, names as strings).
    pub fn write_json(self, out: &mut impl core::fmt::Write) -> core::fmt::Result {
        match self {
            FieldValue::Name(n) => write!(out, "\"{n}\""),
            v => write!(out, "{v}"),
        }
    }
}

impl core::fmt::Display for FieldValue {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            FieldValue::Num(v) => write!(f, "{v}"),
            FieldValue::Flag(b) => write!(f, "{}", u8::from(b)),
            FieldValue::Name(n) => f.write_str(n),
        }
    }
}

impl From<u64> for FieldValue {
    fn from(v: u64) -> Self {
        FieldValue::Num(v)
    }
}
impl From<u32> for FieldValue {
    fn from(v: u32) -> Self {
        FieldValue::Num(v.into())
    }
}
impl From<bool> for FieldValue {
    fn from(v: bool) -> Self {
        FieldValue::Flag(v)
    }
}
impl From<SpuriousSignal> for FieldValue {
    fn from(v: SpuriousSignal) -> Self {
        FieldValue::Name(v.name())
    }
}
impl From<ReorderSignal> for FieldValue {
    fn from(v: ReorderSignal) -> Self {
        FieldValue::Name(v.name())
    }
}
impl From<LossDetector> for FieldValue {
    fn from(v: LossDetector) -> Self {
        FieldValue::Name(v.name())
    }
}

event_kinds! {
/// What was decided. Fields are stream offsets, bytes, or counts. New kinds are added as
/// the engine learns new decisions, so a `match` outside this crate needs a `_` arm.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum EventKind {
    /// The handshake completed; the negotiated options.
    Established {
        mss: u64,
        sack: bool,
        timestamps: bool,
    },
    /// Fast recovery started (RFC 6675 §5 / RFC 6582): the recovery point and the new window.
    EnterRecovery {
        recovery_point: u64,
        cwnd: u64,
        ssthresh: u64,
        pipe: u64,
    },
    /// Fast recovery ended by an ACK at or beyond the recovery point.
    ExitRecovery { snd_una: u64, cwnd: u64 },
    /// An ECN-Echo started a cwnd reduction (RFC 3168 §6.1.2, Linux `tcp_enter_cwr`)
    /// lasting until SND.UNA passes `high_seq`.
    EnterCwr {
        high_seq: u64,
        cwnd: u64,
        ssthresh: u64,
    },
    /// The CWR episode ended (Linux `tcp_end_cwnd_reduction`: cwnd = ssthresh).
    ExitCwr { snd_una: u64, cwnd: u64 },
    /// The retransmission timer expired (RFC 6298 §5.4-5.6).
    Rto {
        snd_una: u64,
        backoff: u32,
        rto_us: u64,
        cwnd: u64,
        ssthresh: u64,
    },
    /// Loss recovery after a timeout finished (SND.UNA passed the recovery point).
    ExitLoss { snd_una: u64, cwnd: u64 },
    /// The SYN timed out and was sent again.
    SynTimeout { backoff: u32 },
    /// A segment was marked lost by the named detector.
    MarkLost {
        start: u64,
        end: u64,
        by: LossDetector,
    },
    /// A DSACK arrived; `dubious` when it failed Linux's sanity checks and was ignored.
    Dsack { start: u64, end: u64, dubious: bool },
    /// A NewReno partial ACK (RFC 6582 §3.2 step 5).
    PartialAck { snd_una: u64, cwnd: u64 },
    /// A congestion reduction was undone (the spurious-retransmission response): the
    /// restored cwnd and ssthresh.
    Undo { cwnd: u64, ssthresh: u64 },
    /// A timeout (`timeout`) or fast retransmit was found spurious by `by`; `late` when
    /// the retransmission had already arrived (RFC 4015 LATE_SPUR_TO, e.g. by DSACK).
    Spurious {
        timeout: bool,
        late: bool,
        by: SpuriousSignal,
    },
    /// F-RTO (RFC 5682) or Eifel decided that a timeout was genuine: the segments were
    /// lost and conventional RTO recovery goes on.
    GenuineRto { by: SpuriousSignal },
    /// An early retransmit (RFC 5827) waits `delay_us` on the deadline (App. A.3).
    EarlyRetransmitDelayed { delay_us: u64 },
    /// An early retransmit starts fast recovery; `enhanced` for the TLP draft §4.2 case.
    EarlyRetransmit { snd_una: u64, enhanced: bool },
    /// Reordering was detected; `degree` is the reordering degree now used as DupThresh
    /// (Linux `tp->reordering`), in segments.
    Reordering { degree: u64, by: ReorderSignal },
    /// The probe timeout fired and a tail loss probe goes out (TLP draft §2.1 (3),
    /// RFC 8985 §7.3): a retransmission of `[start, end)` or new data from `start`.
    LossProbe {
        start: u64,
        end: u64,
        retransmit: bool,
    },
    /// A probe's ACKs showed it repaired a loss (TLP draft §3.2, RFC 8985 §7.4.2): cwnd
    /// was reduced to the new ssthresh.
    TlpRecovery { cwnd: u64, ssthresh: u64 },
    /// RACK's reorder timer fired (RFC 8985 §6.2 step 5); `lost` bytes were newly marked.
    ReoTimeout { lost: u64 },
    /// A retransmission of `[start, end)` was itself lost (RFC 8985 §6.2 step 5).
    LostRetransmit { start: u64, end: u64 },
    /// HyStart ended slow start (Linux `hystart_update`): ssthresh = cwnd; the ACK's RTT
    /// sample in microseconds.
    SlowStartExit { cwnd: u64, rtt_us: u64 },
    /// The optimistic-ACK defence (`detect::optack`) found the peer acknowledging data it
    /// did not receive (`[start, end)` is the held segment of the deciding check); the
    /// sender stops.
    OptAckDetected { start: u64, end: u64 },
    /// An ACK was dropped unprocessed: it acknowledged `cumulative`, beyond SND.NXT
    /// `snd_nxt` (RFC 9293 §3.10.7.4: "If the ACK acks something not yet sent ... drop the
    /// segment"; Linux `tcp_ack` returns -SKB_DROP_REASON_TCP_ACK_UNSENT_DATA). Counted as
    /// `TCPAckBeyondSndNxt` too; the event lets a caller see it without polling counters.
    AckRejected { cumulative: u64, snd_nxt: u64 },
}
}

/// What showed that a retransmission was not needed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SpuriousSignal {
    /// F-RTO (RFC 5682; Linux `FLAG_ORIG_SACK_ACKED`): new segments after the timeout
    /// were answered by ACKs of never-retransmitted data.
    Frto,
    /// A timestamp echo older than the first retransmission (RFC 3522; Linux
    /// `tcp_packet_delayed`).
    Timestamp,
    /// Every retransmission was DSACKed (RFC 3708; Linux `undo_retrans`).
    Dsack,
}

impl SpuriousSignal {
    /// The trace name, e.g. `frto`.
    pub fn name(self) -> &'static str {
        match self {
            SpuriousSignal::Frto => "frto",
            SpuriousSignal::Timestamp => "timestamp",
            SpuriousSignal::Dsack => "dsack",
        }
    }
}

/// What showed that the network reordered segments.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ReorderSignal {
    /// A never-retransmitted segment below SND.FACK was (S)ACKed (digest §8.4).
    Sack,
    /// A DSACK reported a retransmission as duplicate (RFC 2883 §5, RFC 3708).
    Dsack,
    /// A timestamp echo older than a retransmission acknowledged it (RFC 3522 §2).
    Timestamp,
    /// Without SACK, more duplicate ACKs than segments outstanding beyond the hole (Linux
    /// `tcp_check_reno_reordering`).
    DupAcks,
}

impl ReorderSignal {
    /// The trace name, e.g. `dupacks`.
    pub fn name(self) -> &'static str {
        match self {
            ReorderSignal::Sack => "sack",
            ReorderSignal::Dsack => "dsack",
            ReorderSignal::Timestamp => "timestamp",
            ReorderSignal::DupAcks => "dupacks",
        }
    }
}

/// Which rule marked a segment lost.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LossDetector {
    /// DupThresh duplicate ACKs or SACKed segments above the hole (RFC 6675 §5).
    DupThresh,
    /// Forward acknowledgment: more than DupThresh segments SACKed above (Mathis & Mahdavi 1996).
    Fack,
    /// The retransmission timeout (RFC 6298 §5.4): everything outstanding.
    Rto,
    /// RACK (RFC 8985 §6), on an ACK or the reorder timer.
    Rack,
}

impl LossDetector {
    /// The trace name, e.g. `rack`.
    pub fn name(self) -> &'static str {
        match self {
            LossDetector::DupThresh => "dupthresh",
            LossDetector::Fack => "fack",
            LossDetector::Rto => "rto",
            LossDetector::Rack => "rack",
        }
    }
}

impl EventKind {
    /// The trace name, e.g. `enter_recovery`.
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Established { .. } => "established",
            EventKind::EnterRecovery { .. } => "enter_recovery",
            EventKind::ExitRecovery { .. } => "exit_recovery",
            EventKind::EnterCwr { .. } => "enter_cwr",
            EventKind::ExitCwr { .. } => "exit_cwr",
            EventKind::Rto { .. } => "rto",
            EventKind::ExitLoss { .. } => "exit_loss",
            EventKind::SynTimeout { .. } => "syn_timeout",
            EventKind::MarkLost { .. } => "mark_lost",
            EventKind::Dsack { .. } => "dsack",
            EventKind::PartialAck { .. } => "partial_ack",
            EventKind::Undo { .. } => "undo",
            EventKind::Spurious { timeout: true, .. } => "spurious_rto",
            EventKind::Spurious { timeout: false, .. } => "spurious_recovery",
            EventKind::GenuineRto { .. } => "genuine_rto",
            EventKind::EarlyRetransmitDelayed { .. } => "early_retransmit_delayed",
            EventKind::EarlyRetransmit { .. } => "early_retransmit",
            EventKind::Reordering { .. } => "reordering",
            EventKind::LossProbe { .. } => "loss_probe",
            EventKind::TlpRecovery { .. } => "tlp_recovery",
            EventKind::ReoTimeout { .. } => "reo_timeout",
            EventKind::LostRetransmit { .. } => "lost_retransmit",
            EventKind::SlowStartExit { .. } => "slow_start_exit",
            EventKind::OptAckDetected { .. } => "optack_detected",
            EventKind::AckRejected { .. } => "ack_rejected",
        }
    }
}

//! The receiver's set-up and timestamps: the peer's SYN (options agreed as RFC 2018 §2,
//! RFC 3168 §6.1.1, RFC 7323 §2-3 and Linux `tcp_openreq_init` do; our SYN-ACK), and
//! TS.Recent (RFC 7323 §4.3) with the echo every ACK carries.

use super::{window, Handshake, Queued, Receiver, Window};
use crate::packet::{Ack, EcnMarks, SackBlocks, Segment, SynOptions, Timestamps};

impl Receiver {
    /// A SYN: agree the options once and answer with a SYN-ACK, again for a duplicate SYN
    /// (our SYN-ACK was lost). After the handshake a SYN only gets an ordinary ACK
    /// (RFC 5961 §4 challenge ACK), changes nothing, and the segment is discarded: returns
    /// whether the rest of the segment is to be processed.
    pub(super) fn on_syn(&mut self, opts: SynOptions, ts: Option<Timestamps>) -> bool {
        match self.handshake {
            Handshake::Established => {
                self.queue_ack(None);
                return false;
            }
            Handshake::Listen => {
                self.sack_ok = self.cfg.sack && opts.sack_permitted;
                // RFC 3168 §6.1.1 (Linux `tcp_ecn_create_request`).
                self.ecn.ok = self.cfg.ecn && opts.ecn;
                self.ts_ok = self.cfg.timestamps && opts.timestamps;
                let wscale = opts
                    .window_scale
                    .map(|_| window::initial_scale(self.cfg.window));
                let mss = u64::from(self.cfg.mss);
                self.win = Window::new(self.cfg.window_model, self.cfg.window, mss, wscale, true);
                self.syn_ack = Some(SynOptions {
                    mss: self.cfg.mss,
                    sack_permitted: self.sack_ok,
                    timestamps: self.ts_ok,
                    window_scale: wscale,
                    ecn: self.ecn.ok,
                });
                self.handshake = Handshake::SynReceived;
            }
            Handshake::SynReceived => {}
        }
        // RFC 7323 §4.3: TS.Recent starts from the SYN; a repeated SYN's value is echoed
        // so the sender can time the SYN that got through.
        if let (true, Some(t)) = (self.ts_ok, ts) {
            self.ts_recent = Some(t.val);
        }
        let ack = Ack {
            cumulative: 0,
            sack: SackBlocks::new(),
            ts: self.ts_echo(),
            window: self.win.initial(),
            syn: self.syn_ack,
            // An ECN-setup SYN-ACK carries ECE alone (Linux `tcp_ecn_make_synack`).
            ecn: EcnMarks {
                ece: self.ecn.ok,
                ..EcnMarks::default()
            },
        };
        self.push(Queued { ack, dsack: false });
        true
    }

    /// RFC 7323 §4.3 rule 2: TS.Recent ← SEG.TSval if SEG.TSval ≥ TS.Recent and
    /// SEG.SEQ ≤ Last.ACK.sent. So a delayed ACK echoes the earliest unacknowledged
    /// segment, and an out-of-order segment's ACK echoes the last one that advanced the
    /// window. The first timestamp seen initialises TS.Recent when there was no SYN.
    /// A duplicate that ends below Last.ACK.sent is outside the window and rejected first
    /// (RFC 7323 §5.3 R2 before R3; Linux `tcp_sequence`: `before(end_seq, rcv_wup)`
    /// drops it before `tcp_replace_ts_recent`); one ending exactly there is taken. A FIN
    /// counts in the end (RFC 9293 §3.4 SEG.LEN; Linux `tcp_v4_fill_cb`'s `end_seq`).
    pub(super) fn update_ts_recent(&mut self, seg: &Segment) {
        let (true, Some(t)) = (self.ts_ok, seg.ts) else {
            return;
        };
        let end = seg.range.end + u64::from(seg.fin);
        if !seg.range.is_empty() && end < self.last_ack_sent {
            return;
        }
        match self.ts_recent {
            None => self.ts_recent = Some(t.val),
            Some(recent) if t.val >= recent && seg.range.start <= self.last_ack_sent => {
                self.ts_recent = Some(t.val)
            }
            Some(_) => {}
        }
    }

    pub(super) fn ts_echo(&self) -> Option<Timestamps> {
        self.ts_ok.then(|| Timestamps {
            val: 0,
            ecr: self.ts_recent.unwrap_or(0),
        })
    }
}

//! ECN on the receiver (RFC 3168 §6.1.1, §6.1.3; Linux `tcp_ecn_create_request`,
//! `tcp_ecn_check_ce`, `tcp_ecn_accept_cwr`): agree to an ECN-setup SYN, and after a data
//! segment marked CE set ECE on every ACK until a segment with CWR arrives.
//!
//! Linux details kept: the CE segment and the next one are ACKed at once
//! (`tcp_enter_quickack_mode(sk, 2)`, "sender can have a very low cwnd"), as is a data
//! segment carrying CWR (`ICSK_ACK_NOW`); once ECT was seen, a Not-ECT data segment is
//! probably a retransmission and is ACKed quickly too. A CWR is taken before the same
//! segment's CE (`tcp_data_queue` runs `tcp_ecn_accept_cwr` first), so a segment with
//! both leaves ECE on.

use crate::packet::{EcnMarks, IpEcn};

/// Quick ACKs a CE mark asks for (Linux `tcp_enter_quickack_mode(sk, 2)`).
const CE_QUICKACKS: u32 = 2;

/// The receiver's ECN state (Linux `tp->ecn_flags` for the receiving direction).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct EcnEcho {
    /// ECN in use (`TCP_ECN_OK`).
    pub ok: bool,
    /// ECE on our ACKs until CWR arrives (`TCP_ECN_DEMAND_CWR`).
    pub demand_cwr: bool,
    /// An ECT or CE segment arrived (`TCP_ECN_SEEN`).
    seen: bool,
}

/// What one data segment asks of the ACK policy.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Urgency {
    /// ACK this segment at once.
    pub now: bool,
    /// Quick ACKs to allow from here (0: no change).
    pub quick: u32,
    /// The segment carried CE.
    pub ce: bool,
}

impl EcnEcho {
    /// A data segment arrived with `m` (data only: Linux looks at ECN in
    /// `tcp_event_data_recv` / `tcp_data_queue_ofo`).
    pub fn on_data(&mut self, m: EcnMarks) -> Urgency {
        let mut u = Urgency::default();
        if !self.ok {
            return u;
        }
        if m.cwr {
            self.demand_cwr = false;
            u.now = true;
        }
        match m.ip {
            IpEcn::NotEct if self.seen => u.quick = CE_QUICKACKS,
            IpEcn::NotEct => {}
            IpEcn::Ce => {
                if !self.demand_cwr {
                    self.demand_cwr = true;
                    u.quick = CE_QUICKACKS;
                }
                self.seen = true;
                u.ce = true;
            }
            IpEcn::Ect0 | IpEcn::Ect1 => self.seen = true,
        }
        u
    }

    /// ECE on the ACK being built.
    pub fn ece(&self) -> bool {
        self.ok && self.demand_cwr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks(ip: IpEcn, cwr: bool) -> EcnMarks {
        EcnMarks {
            ip,
            ece: false,
            cwr,
        }
    }

    /// RFC 3168 §6.1.3: ECE from the CE segment until CWR; one CE asks for quick ACKs
    /// once, further CEs before CWR do not.
    #[test]
    fn ece_until_cwr() {
        let mut e = EcnEcho {
            ok: true,
            ..EcnEcho::default()
        };
        assert_eq!(e.on_data(marks(IpEcn::Ect0, false)).quick, 0);
        assert!(!e.ece());
        assert_eq!(e.on_data(marks(IpEcn::Ce, false)).quick, CE_QUICKACKS);
        assert!(e.ece());
        assert_eq!(e.on_data(marks(IpEcn::Ce, false)).quick, 0);
        assert!(e.on_data(marks(IpEcn::Ect0, false)).quick == 0 && e.ece());
        let u = e.on_data(marks(IpEcn::Ect0, true));
        assert!(u.now && !e.ece());
        // CWR and CE together: CWR first, then the new CE.
        e.on_data(marks(IpEcn::Ce, true));
        assert!(e.ece());
    }

    /// Without ECN agreed, marks mean nothing.
    #[test]
    fn off_ignores_marks() {
        let mut e = EcnEcho::default();
        assert_eq!(e.on_data(marks(IpEcn::Ce, true)), Urgency::default());
        assert!(!e.ece());
    }
}

//! The ECN marks a segment carries (RFC 3168 §5, §6.1): the IP codepoint and the TCP
//! header's ECE and CWR flags.

/// The ECN field of the IP header (RFC 3168 §5): the codepoint a segment carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum IpEcn {
    /// Not-ECT (00): the sender is not ECN-capable for this packet.
    #[default]
    NotEct,
    /// ECT(1) (01).
    Ect1,
    /// ECT(0) (10): what an RFC 3168 sender puts on its data.
    Ect0,
    /// CE (11): a router marked congestion.
    Ce,
}

impl IpEcn {
    /// The two bits as they sit in the TOS / traffic-class byte.
    pub const fn bits(self) -> u8 {
        match self {
            IpEcn::NotEct => 0b00,
            IpEcn::Ect1 => 0b01,
            IpEcn::Ect0 => 0b10,
            IpEcn::Ce => 0b11,
        }
    }
    /// From the low two bits of the TOS / traffic-class byte.
    pub const fn from_bits(bits: u8) -> IpEcn {
        match bits & 0b11 {
            0b00 => IpEcn::NotEct,
            0b01 => IpEcn::Ect1,
            0b10 => IpEcn::Ect0,
            _ => IpEcn::Ce,
        }
    }
}

/// What one segment carries for ECN (RFC 3168 §5, §6.1): the IP codepoint and the TCP
/// header's ECE and CWR flags. The default is a segment without any.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct EcnMarks {
    /// The IP header's ECN codepoint.
    pub ip: IpEcn,
    /// ECN-Echo: the receiver saw CE and waits for CWR (RFC 3168 §6.1.3).
    pub ece: bool,
    /// Congestion Window Reduced: the sender reacted (RFC 3168 §6.1.2).
    pub cwr: bool,
}

impl EcnMarks {
    /// RFC 3168 §6.1.1: a SYN with ECE and CWR set asks for ECN.
    pub const fn is_setup_syn(&self) -> bool {
        self.ece && self.cwr
    }
    /// RFC 3168 §6.1.1: a SYN-ACK with ECE set and CWR clear agrees to it (Linux
    /// `tcp_ecn_rcv_synack`: CWR on the SYN-ACK refuses).
    pub const fn is_setup_syn_ack(&self) -> bool {
        self.ece && !self.cwr
    }
}

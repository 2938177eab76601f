//! pcap capture of both directions (placeholder until `lossrec_wire` is merged: records
//! nothing and yields an empty capture file with only the global header).

use lossrec::{Ack, Transmit};

/// Collects packets into a pcap file.
pub struct Capture {
    out: Vec<u8>,
}

impl Capture {
    pub fn new(_seed: u64) -> Capture {
        let mut out = Vec::with_capacity(24);
        out.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes());
        out.extend_from_slice(&2u16.to_le_bytes());
        out.extend_from_slice(&4u16.to_le_bytes());
        out.extend_from_slice(&0i32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&65535u32.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes());
        Capture { out }
    }
    pub fn data(&mut self, _t_ns: u64, _flow: u32, _tx: &Transmit) {}
    pub fn ack(&mut self, _t_ns: u64, _flow: u32, _ack: &Ack) {}
    pub fn finish(self) -> Vec<u8> {
        self.out
    }
}

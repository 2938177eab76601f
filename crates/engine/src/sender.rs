//! INTERFACE PLACEHOLDER (being written): the sender's public API.
use crate::config::{Config, ConfigError};
use crate::event::Event;
use crate::packet::{Ack, Transmit};
use crate::rtt::Rtt;
use crate::stats::Stats;
use crate::time::Instant;

/// Linux's congestion states (`tcp_ca_state`), which name the recovery state machine.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum RecoveryState {
    Open = 0,
    Disorder = 1,
    Cwr = 2,
    Recovery = 3,
    Loss = 4,
}

pub struct Sender {
    _c: Config,
}

#[allow(unused)]
impl Sender {
    pub fn new(config: Config, now: Instant) -> Result<Sender, ConfigError> { todo!() }
    pub fn write(&mut self, now: Instant, bytes: u64) { todo!() }
    pub fn close(&mut self, now: Instant) { todo!() }
    pub fn on_ack(&mut self, now: Instant, ack: &Ack) { todo!() }
    pub fn on_timeout(&mut self, now: Instant) { todo!() }
    pub fn poll_transmit(&mut self, now: Instant) -> Option<Transmit> { todo!() }
    pub fn poll_timeout(&self) -> Option<Instant> { todo!() }
    pub fn poll_event(&mut self) -> Option<Event> { todo!() }
    pub fn stats(&self) -> &Stats { todo!() }
    pub fn config(&self) -> &Config { todo!() }
    pub fn cwnd(&self) -> u64 { todo!() }
    pub fn ssthresh(&self) -> u64 { todo!() }
    pub fn pipe(&self) -> u64 { todo!() }
    pub fn flight_size(&self) -> u64 { todo!() }
    pub fn state(&self) -> RecoveryState { todo!() }
    pub fn snd_una(&self) -> u64 { todo!() }
    pub fn snd_nxt(&self) -> u64 { todo!() }
    /// Negotiated MSS (bytes).
    pub fn mss(&self) -> u64 { todo!() }
    pub fn rtt(&self) -> &Rtt { todo!() }
    pub fn is_established(&self) -> bool { todo!() }
    /// `close` was called and every byte is acknowledged.
    pub fn is_finished(&self) -> bool { todo!() }
}

//! The optimistic-ACK defence in the closed loop (`optack_defence = skip-segment`,
//! `lossrec::detect::optack`): for every preset, SACK on and off and every phase, the
//! optimistic attacker and the honest receiver each against the sender with the defence
//! off and on, and the honest connection's completion time of a fixed transfer off and on
//! (what the defence costs those who do not cheat).

use lossrec::{Config, Duration};

use super::{completion, run, Attack, Measured, Phase, MSS};

/// Bytes of the transfer whose completion time measures the honest cost.
pub const TRANSFER: u64 = 500 * MSS;

/// One row: a preset, SACK on or off, a phase; honest and attacked runs, defence off/on.
#[derive(Copy, Clone, Debug)]
pub struct DefenceRow {
    pub preset: &'static str,
    pub sack: bool,
    pub phase: Phase,
    pub honest_off: Measured,
    pub honest_on: Measured,
    /// `None` when not asked for: where the attack works it makes the sender send
    /// hundreds of times the data, which is slow to simulate.
    pub attacked_off: Option<Measured>,
    pub attacked_on: Measured,
    /// Completion time of [`TRANSFER`] bytes to an honest receiver (no attack), off/on.
    pub completion_off: Option<Duration>,
    pub completion_on: Option<Duration>,
}

fn ratio(a: &Measured, b: &Measured) -> f64 {
    a.sent as f64 / b.sent.max(1) as f64
}

impl DefenceRow {
    /// The attacker's data with the defence off, over the honest run's (also off).
    pub fn gain_off(&self) -> Option<f64> {
        Some(ratio(self.attacked_off.as_ref()?, &self.honest_off))
    }
    /// The attacker's data with the defence on, over the honest run's with it on.
    pub fn gain_on(&self) -> f64 {
        ratio(&self.attacked_on, &self.honest_on)
    }
    /// Honest data sent with the defence on over off (1.0: it costs nothing).
    pub fn honest_throughput(&self) -> f64 {
        ratio(&self.honest_on, &self.honest_off)
    }
    /// Honest completion time with the defence on over off, if both completed.
    pub fn honest_completion(&self) -> Option<f64> {
        Some(self.completion_on?.as_secs_f64() / self.completion_off?.as_secs_f64())
    }
}

/// `cfg` with the defence on (mean interval `interval` segments).
pub fn with_defence(cfg: &Config, interval: u32) -> Config {
    let mut c = cfg.clone();
    c.set("optack_defence", "skip-segment")
        .expect("optack_defence is a setting");
    c.set("optack_skip_interval", &interval.to_string())
        .expect("optack_skip_interval is a setting");
    c
}

/// Every preset × SACK on/off × phase, the defence at its default interval; the attack
/// without the defence too if `undefended`.
pub fn defence_table(undefended: bool) -> Vec<DefenceRow> {
    let mut rows = Vec::new();
    for p in lossrec::PRESETS {
        let off = p.config();
        let on = with_defence(&off, off.optack_skip_interval);
        for sack in [true, false] {
            for phase in Phase::ALL {
                rows.push(DefenceRow {
                    preset: p.name,
                    sack,
                    phase,
                    honest_off: run(&off, sack, phase, Attack::Honest),
                    honest_on: run(&on, sack, phase, Attack::Honest),
                    attacked_off: undefended.then(|| run(&off, sack, phase, Attack::OptimisticAck)),
                    attacked_on: run(&on, sack, phase, Attack::OptimisticAck),
                    completion_off: completion(&off, sack, phase, TRANSFER),
                    completion_on: completion(&on, sack, phase, TRANSFER),
                });
            }
        }
    }
    rows
}

//! The optimistic-ACK defence in the closed loop (`optack_defence = skip-segment`,
//! `lossrec::detect::optack`): for every preset, SACK on and off and every phase, each
//! optimistic attacker ([`Attack::OPTIMISTIC`]: the oracle, paced at one, two and three
//! segments per ACK, hiding) and the honest receiver against the sender with the defence
//! off and on, and the honest connection's completion time of a fixed transfer off and on
//! (what the defence costs those who do not cheat).

use lossrec::{Config, Duration};

use super::{completion, completion_seeded, run, Attack, Measured, Phase, MSS, SEED};

/// Bytes of the transfer whose completion time measures the honest cost.
pub const TRANSFER: u64 = 500 * MSS;

/// Skip positions (sender seeds) the honest completion time is measured over: one
/// transfer's completion moves in whole round trips (7 % of this one at the bottleneck),
/// so where the held segments fall decides a single run; the mean over positions is the
/// cost an honest connection should expect.
pub const COMPLETION_SEEDS: u64 = 4;

/// One attacker's runs in a row: defence off and on.
#[derive(Copy, Clone, Debug)]
pub struct Attacked {
    pub attack: Attack,
    /// `None` when not asked for: where the attack works it makes the sender send
    /// hundreds of times the data, which is slow to simulate.
    pub off: Option<Measured>,
    pub on: Measured,
}

/// One row: a preset, SACK on or off, a phase; honest and attacked runs, defence off/on.
#[derive(Copy, Clone, Debug)]
pub struct DefenceRow {
    pub preset: &'static str,
    pub sack: bool,
    pub phase: Phase,
    pub honest_off: Measured,
    pub honest_on: Measured,
    /// Each attacker of [`Attack::OPTIMISTIC`], in that order.
    pub attacked: [Attacked; Attack::OPTIMISTIC.len()],
    /// Completion time of [`TRANSFER`] bytes to an honest receiver (no attack), off/on
    /// (on: the mean over [`COMPLETION_SEEDS`] skip positions, `None` if any did not
    /// complete), and the slowest of those positions.
    pub completion_off: Option<Duration>,
    pub completion_on: Option<Duration>,
    pub completion_on_worst: Option<Duration>,
}

fn ratio(a: &Measured, b: &Measured) -> f64 {
    a.sent as f64 / b.sent.max(1) as f64
}

impl DefenceRow {
    /// Attacker `i`'s data with the defence off, over the honest run's (also off).
    pub fn gain_off(&self, i: usize) -> Option<f64> {
        Some(ratio(self.attacked[i].off.as_ref()?, &self.honest_off))
    }
    /// Attacker `i`'s data with the defence on, over the honest run's with it on.
    pub fn gain_on(&self, i: usize) -> f64 {
        ratio(&self.attacked[i].on, &self.honest_on)
    }
    /// The defence holds against attacker `i`: the sender stopped it, or it got at most
    /// 1.1× the honest data.
    pub fn holds(&self, i: usize) -> bool {
        self.attacked[i].on.stopped || self.gain_on(i) <= 1.1
    }
    /// Honest data sent with the defence on over off (1.0: it costs nothing).
    pub fn honest_throughput(&self) -> f64 {
        ratio(&self.honest_on, &self.honest_off)
    }
    /// Honest completion time with the defence on over off, if both completed (on: the
    /// mean over skip positions).
    pub fn honest_completion(&self) -> Option<f64> {
        Some(self.completion_on?.as_secs_f64() / self.completion_off?.as_secs_f64())
    }
    /// The same for the slowest skip position.
    pub fn honest_completion_worst(&self) -> Option<f64> {
        Some(self.completion_on_worst?.as_secs_f64() / self.completion_off?.as_secs_f64())
    }
}

/// `cfg` with every defence beyond the stacks but the optimistic-ACK check.
pub fn without_optack(cfg: &Config) -> Config {
    Config {
        dsack_proof: true,
        dupack_budget: true,
        ack_division_guard: true,
        optack_defence: lossrec::config::OptAckDefence::Off,
        hardened: false,
        ..cfg.clone()
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

/// Every preset × SACK on/off × phase, `hardened` (the defence at its default interval)
/// and without the optimistic-ACK check ([`without_optack`]); the attacks without it too
/// if `undefended` (the presets on all cores).
pub fn defence_table(undefended: bool) -> Vec<DefenceRow> {
    use rayon::prelude::*;
    let per_preset: Vec<Vec<DefenceRow>> = super::presets()
        .par_iter()
        .map(|p| preset_rows(p, undefended))
        .collect();
    per_preset.concat()
}

fn preset_rows(p: &lossrec::config::Preset, undefended: bool) -> Vec<DefenceRow> {
    // On: `hardened`. Off: the same without the optimistic-ACK check, so that the honest
    // cost is the check's alone. (Without `dupack_budget` the oracle's repeated ACKs at
    // SND.NXT are DupACK spoofing too, which keeps a sender without SACK out of Open, where
    // it holds segments; the attack table shows the stacks without any defence.)
    let on = p.config().hardened();
    let off = without_optack(&p.config());
    let mut rows = Vec::new();
    for sack in [true, false] {
        for phase in Phase::ALL {
            let on_times: Option<Vec<Duration>> = (0..COMPLETION_SEEDS)
                .map(|k| completion_seeded(&on, sack, phase, TRANSFER, SEED + k))
                .collect();
            let on_times = on_times.as_ref();
            let attacked = Attack::OPTIMISTIC.map(|attack| Attacked {
                attack,
                off: undefended.then(|| run(&off, sack, phase, attack)),
                on: run(&on, sack, phase, attack),
            });
            rows.push(DefenceRow {
                preset: p.name,
                sack,
                phase,
                honest_off: run(&off, sack, phase, Attack::Honest),
                honest_on: run(&on, sack, phase, Attack::Honest),
                attacked,
                completion_off: completion(&off, sack, phase, TRANSFER),
                completion_on: on_times.map(|t| t.iter().sum::<Duration>() / t.len() as u32),
                completion_on_worst: on_times.and_then(|t| t.iter().max().copied()),
            });
        }
    }
    rows
}

//! The attack table: every preset × SACK on/off × phase × attack, each row summed over
//! [`PATHS`] (one path alone is a chaotic trajectory, see there), for the presets as their
//! stacks are (what Linux itself lets an attacker do) or `hardened` (every defence beyond
//! the stacks on, issue 23 item 3).

use super::{run_on, Attack, Measured, Phase, MSS, PATHS};

/// One row of the attack table: a preset, SACK on or off, a phase, an attack, and the
/// attacked runs beside the honest ones, summed over [`PATHS`].
#[derive(Copy, Clone, Debug)]
pub struct Row {
    pub preset: &'static str,
    /// Which defences beyond the stacks were on.
    pub defences: Defences,
    pub sack: bool,
    pub phase: Phase,
    pub attack: Attack,
    /// The sums over the paths.
    pub honest: Measured,
    pub attacked: Measured,
    /// Each path's (honest, attacked) runs, in the order of [`PATHS`].
    pub paths: [(Measured, Measured); PATHS.len()],
}

impl Row {
    /// Attacked over honest data sent.
    pub fn ratio(&self) -> f64 {
        ratio(&self.honest, &self.attacked)
    }
    /// Extra segments sent per RTT under attack (negative: the attack cost the attacker).
    pub fn extra_mss_per_rtt(&self) -> f64 {
        extra_mss_per_rtt(&self.honest, &self.attacked)
    }
    /// The bound: under 1 extra MSS per RTT and at most 1.1× the honest data.
    pub fn within_bounds(&self) -> bool {
        within_bounds(&self.honest, &self.attacked)
    }
    /// The largest attacked/honest ratio of one path.
    pub fn worst_path_ratio(&self) -> f64 {
        self.paths
            .iter()
            .map(|(h, a)| ratio(h, a))
            .fold(0.0, f64::max)
    }
    /// Attacked over honest cwnd, each averaged over the window's time (issue 26 item 4:
    /// a DupACK spoofer that sends less may still hold a larger window).
    pub fn cwnd_ratio(&self) -> f64 {
        cwnd_ratio(&self.honest, &self.attacked)
    }
    /// The largest [`Row::cwnd_ratio`] of one path.
    pub fn worst_path_cwnd_ratio(&self) -> f64 {
        self.paths
            .iter()
            .map(|(h, a)| cwnd_ratio(h, a))
            .fold(0.0, f64::max)
    }
    /// The bound on the base path alone (`PATHS[0]`, what [`super::run`] runs).
    pub fn base_within_bounds(&self) -> bool {
        let (h, a) = &self.paths[0];
        within_bounds(h, a)
    }
}

fn ratio(honest: &Measured, attacked: &Measured) -> f64 {
    attacked.sent as f64 / honest.sent.max(1) as f64
}

fn cwnd_ratio(honest: &Measured, attacked: &Measured) -> f64 {
    attacked.cwnd_mean as f64 / honest.cwnd_mean.max(1) as f64
}

fn extra_mss_per_rtt(honest: &Measured, attacked: &Measured) -> f64 {
    (attacked.sent as f64 - honest.sent as f64) / MSS as f64 / honest.rtts as f64
}

fn within_bounds(honest: &Measured, attacked: &Measured) -> bool {
    extra_mss_per_rtt(honest, attacked) < 1.0 && ratio(honest, attacked) <= 1.1
}

/// Which of the defences beyond the stacks a table runs with (issue 23 item 3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Defences {
    /// None: the preset as its stack is.
    Stack,
    /// Issue 13's (`dsack_proof`, `dupack_budget`, `ack_division_guard`), without the
    /// optimistic-ACK check, whose held segments cost an honest connection up to 2 % at
    /// the bottleneck without SACK and would show as a gain of every attacker it does not
    /// act on (`defence::without_optack`).
    AllButOptack,
    /// All of them (`hardened`).
    Hardened,
}

impl Defences {
    pub fn name(self) -> &'static str {
        match self {
            Defences::Stack => "stack",
            Defences::AllButOptack => "all-but-optack",
            Defences::Hardened => "hardened",
        }
    }
    fn apply(self, cfg: lossrec::Config) -> lossrec::Config {
        match self {
            Defences::Stack => cfg,
            Defences::AllButOptack => super::defence::without_optack(&cfg),
            Defences::Hardened => cfg.hardened(),
        }
    }
}

/// Every preset × SACK on/off × phase × the given attacks, with `defences` (the presets on
/// all cores).
pub fn table(attacks: &[Attack], defences: Defences) -> Vec<Row> {
    use rayon::prelude::*;
    let per_preset: Vec<Vec<Row>> = super::presets()
        .par_iter()
        .map(|p| preset_rows(p, attacks, defences))
        .collect();
    per_preset.concat()
}

fn preset_rows(p: &lossrec::config::Preset, attacks: &[Attack], defences: Defences) -> Vec<Row> {
    let cfg = defences.apply(p.config());
    let mut rows = Vec::new();
    for sack in [true, false] {
        for phase in Phase::ALL {
            let honest = PATHS.map(|path| run_on(&cfg, sack, phase, Attack::Honest, path));
            for &attack in attacks {
                let attacked = PATHS.map(|path| run_on(&cfg, sack, phase, attack, path));
                rows.push(Row {
                    preset: p.name,
                    defences,
                    sack,
                    phase,
                    attack,
                    honest: sum(&honest),
                    attacked: sum(&attacked),
                    paths: std::array::from_fn(|k| (honest[k], attacked[k])),
                });
            }
        }
    }
    rows
}

fn sum(runs: &[Measured]) -> Measured {
    runs.iter().fold(Measured::default(), |acc, &m| acc + m)
}

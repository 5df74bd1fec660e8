//! Queue order: FIFO, or Slurm's `priority/multifactor`.
//!
//! Multifactor priority is a weighted sum of factors in [0, 1] (slurm.conf
//! PriorityWeight*):
//!
//! ```text
//! priority = W_age · min(age / PriorityMaxAge, 1)
//!          + W_fairshare · 2^(−U/S)
//!          + W_jobsize · (GPUs / cluster GPUs)        (1 − that with PriorityFavorSmall)
//!          + W_partition · partition PriorityJobFactor / the largest one
//! ```
//!
//! **Fair-share is the classic algorithm**, F = 2^(−U/S), with S the account's
//! normalised shares (its `fairshare` over the sum of all accounts') and U its normalised
//! effective usage (its decayed GPU-seconds over everyone's). We chose classic over Fair
//! Tree because the model has one level of accounts under the root (no sub-accounts or
//! users), where Fair Tree's ranking of siblings reduces to ordering by the same U/S
//! ratio; classic keeps the factor a closed form whose tests have known answers, and it is
//! what `sshare` reports as FairShare for a flat tree. Usage decays with
//! PriorityDecayHalfLife: a GPU-second used Δ ago counts 2^(−Δ/half-life). It accrues
//! exactly (integrated between changes of the running set), not by sampling.
//!
//! As in Slurm, priorities are computed when a job is submitted and recomputed for every
//! queued job each PriorityCalcPeriod (the age factor grows and usage decays between
//! recomputations, but the order only changes when it runs). Ties go to the earlier
//! submission.

use crate::scenario::{Campus, Multifactor, Priority};
use crate::units::SimTime;

/// Priority bookkeeping of one replication.
#[derive(Clone, Debug)]
pub struct PriorityState {
    cfg: Option<Multifactor>,
    /// Decayed usage per account, GPU-seconds.
    usage: Vec<f64>,
    /// Normalised shares per account.
    shares: Vec<f64>,
    /// Usage is integrated up to this time.
    accrued_to: SimTime,
    total_gpus: f64,
    /// Next scheduled recomputation.
    next_calc: SimTime,
}

impl PriorityState {
    /// Zero usage at time 0.
    pub fn new(campus: &Campus) -> PriorityState {
        let total: f64 = campus.accounts.iter().map(|a| a.fairshare).sum();
        let cfg = match &campus.priority {
            Priority::Fifo => None,
            Priority::Multifactor(m) => Some(m.clone()),
        };
        let next_calc = cfg.as_ref().map_or(SimTime::MAX, |m| m.calc_period);
        PriorityState {
            cfg,
            usage: vec![0.0; campus.accounts.len()],
            shares: campus.accounts.iter().map(|a| a.fairshare / total).collect(),
            accrued_to: 0,
            total_gpus: f64::from(campus.gpus),
            next_calc,
        }
    }

    /// Whether priorities are multifactor (else FIFO: every job has priority 0 and the
    /// submission order decides).
    pub fn is_multifactor(&self) -> bool {
        self.cfg.is_some()
    }

    /// The next time priorities are recomputed.
    pub fn next_calc(&self) -> SimTime {
        self.next_calc
    }

    /// Whether a recomputation is due at `now`; if so, moves the next one on.
    pub fn take_due(&mut self, now: SimTime) -> bool {
        let Some(m) = &self.cfg else { return false };
        if now < self.next_calc {
            return false;
        }
        while self.next_calc <= now {
            self.next_calc += m.calc_period;
        }
        true
    }

    /// Integrates usage up to `now`, with `gpus[a]` GPUs held by account `a` since the
    /// last call (exact for piecewise-constant use: call it before the running set changes).
    pub fn accrue(&mut self, now: SimTime, gpus: impl Fn(usize) -> u32) {
        let Some(m) = &self.cfg else { return };
        if now <= self.accrued_to {
            return;
        }
        let dt = (now - self.accrued_to) as f64;
        let h = m.half_life as f64;
        let decay = (-dt / h * std::f64::consts::LN_2).exp();
        // ∫₀^dt g·2^(−(dt−s)/h) ds = g · h/ln2 · (1 − 2^(−dt/h))
        let gain = h / std::f64::consts::LN_2 * (1.0 - decay);
        for (a, u) in self.usage.iter_mut().enumerate() {
            *u = *u * decay + f64::from(gpus(a)) * gain;
        }
        self.accrued_to = now;
    }

    /// The classic fair-share factor 2^(−U/S) of an account.
    pub fn fairshare(&self, account: u16) -> f64 {
        let total: f64 = self.usage.iter().sum();
        let a = usize::from(account);
        let u = if total > 0.0 { self.usage[a] / total } else { 0.0 };
        let s = self.shares[a];
        if s > 0.0 { (-u / s).exp2() } else { 0.0 }
    }

    /// The priority of a job of `account` with `gpus` GPUs in a partition with factor
    /// `partition_factor`, eligible since `since`, at `now` (0 under FIFO).
    pub fn priority(&self, now: SimTime, since: SimTime, gpus: u32, account: u16, partition_factor: f64) -> f64 {
        if self.cfg.is_none() {
            return 0.0;
        }
        self.priority_with(now, since, gpus, self.fairshare(account), partition_factor)
    }

    /// Every account's fair-share factor (compute once, then [`PriorityState::priority_with`]
    /// for each queued job).
    pub fn fairshare_factors(&self) -> Vec<f64> {
        (0..self.usage.len()).map(|a| self.fairshare(a as u16)).collect()
    }

    /// The priority with the account's fair-share factor given.
    pub fn priority_with(&self, now: SimTime, since: SimTime, gpus: u32, fairshare: f64, partition_factor: f64) -> f64 {
        let Some(m) = &self.cfg else { return 0.0 };
        let age = (now.saturating_sub(since) as f64 / m.max_age as f64).min(1.0);
        let size = (f64::from(gpus) / self.total_gpus).min(1.0);
        let size = if m.favor_small { 1.0 - size } else { size };
        m.weight_age * age
            + m.weight_fairshare * fairshare
            + m.weight_job_size * size
            + m.weight_partition * partition_factor
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn campus() -> Campus {
        let text = "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 10\n\
            [campus]\nplacement = \"nodes\"\nnodes = 4\ngpus_per_node = 8\nvram_gb = 80\npriority = \"multifactor\"\n\
            [campus.multifactor]\nweight_age = 0\nweight_job_size = 0\nweight_partition = 0\nweight_fairshare = 1000\ndecay_half_life_days = 1\n\
            [[campus.accounts]]\nname = \"heavy\"\n[[campus.accounts]]\nname = \"light\"\n\
            [[workload.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n";
        Scenario::from_toml_str(text, "p.toml").unwrap().campus
    }

    #[test]
    fn fair_share_puts_a_light_account_first_and_the_order_flips_as_usage_decays() {
        let c = campus();
        let (heavy, light) = (0u16, 1u16);
        let mut p = PriorityState::new(&c);
        let total: f64 = c.accounts.iter().map(|a| a.fairshare).sum();
        // No usage yet: every account has factor 2^0 = 1.
        assert_eq!(p.fairshare(heavy), 1.0);
        // Day 0–1: heavy uses 32 GPUs, light 8: U = 0.8 and 0.2 of the usage; S = 1/2 each
        // (heavy and light hold one share each; the implicit "others" and "group" run no
        // jobs, so they hold none).
        let until = |p: &mut PriorityState, t: SimTime, g: [u32; 2]| p.accrue(t, |a| g.get(a).copied().unwrap_or(0));
        until(&mut p, 86_400, [32, 8]);
        let s = c.accounts[usize::from(heavy)].fairshare / total;
        assert_eq!(s, 0.5);
        assert!((p.fairshare(heavy) - (-0.8 / s).exp2()).abs() < 1e-12);
        assert!((p.fairshare(light) - (-0.2 / s).exp2()).abs() < 1e-12);
        assert!(p.priority(86_400, 0, 1, light, 0.0) > p.priority(86_400, 0, 1, heavy, 0.0));
        // Then light alone uses 8 GPUs for 3 days: heavy's usage decays to 1/8 (half-life
        // 1 day) and light overtakes it, so heavy's jobs come first again.
        until(&mut p, 4 * 86_400, [0, 8]);
        assert!(p.fairshare(heavy) > p.fairshare(light));
        assert!(p.priority(4 * 86_400, 0, 1, heavy, 0.0) > p.priority(4 * 86_400, 0, 1, light, 0.0));
    }

    #[test]
    fn usage_accrues_exactly_with_the_half_life() {
        let c = campus();
        let mut p = PriorityState::new(&c);
        // 1 GPU for one half-life: ∫₀^h 2^(−(h−s)/h) ds = h / (2 ln 2).
        p.accrue(86_400, |a| u32::from(a == 0));
        let expected = 86_400.0 / (2.0 * std::f64::consts::LN_2);
        assert!((p.usage[0] - expected).abs() < 1e-6, "{}", p.usage[0]);
        // Accruing in two steps gives the same.
        let mut q = PriorityState::new(&c);
        q.accrue(40_000, |a| u32::from(a == 0));
        q.accrue(86_400, |a| u32::from(a == 0));
        assert!((q.usage[0] - p.usage[0]).abs() < 1e-6);
    }
}

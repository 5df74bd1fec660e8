//! Queue order: FIFO, or Slurm's `priority/multifactor`.
//!
//! Multifactor priority is a weighted sum of factors in [0, 1] (slurm.conf
//! PriorityWeight*):
//!
//! ```text
//! priority = W_age · min(age / PriorityMaxAge, 1)
//!          + W_fairshare · F                          (classic or Fair Tree, below)
//!          + W_jobsize · (GPUs / cluster GPUs)        (1 − that with PriorityFavorSmall)
//!          + W_partition · partition PriorityJobFactor / the largest one
//! ```
//!
//! Both fair-share algorithms read the same two numbers per account: S, its normalised
//! shares (its `fairshare` over the sum of all accounts'), and U, its normalised effective
//! usage (its decayed GPU-seconds over everyone's). The model's association tree is flat:
//! every account sits under the root and holds one user, so the accounts are the only
//! siblings that share anything.
//!
//! - **Classic** (the default, Slurm's `PriorityFlags=NO_FAIR_TREE`): F = 2^(−U/S), a closed
//!   form of the account's own numbers (0 when S = 0). It is what `sshare` reports as
//!   FairShare for a flat tree.
//! - **Fair Tree** (`fairshare_algorithm = "fair-tree"`, Slurm's default since 19.05): each
//!   account's level fair-share LF = S/U (∞ when it has shares and no usage, 0 when it has
//!   no shares), the accounts ranked from the highest LF down, and F = rank / N with N the
//!   number of user associations (here the number of accounts). The top account has rank N;
//!   accounts with equal LF share a rank, and the next distinct LF takes the rank it would
//!   have had without the tie (N, N, N−2, …). With one user per account the user level adds
//!   nothing: a lone user's LF never competes with another's. So this covers Fair Tree's
//!   sibling ranking at one level, its tie rule for sibling accounts and its factor; the
//!   deeper levels (sub-accounts, several users per account, users beside accounts) have
//!   nothing to act on in the model.
//!
//! Usage decays with PriorityDecayHalfLife: a GPU-second used Δ ago counts 2^(−Δ/half-life).
//! It accrues exactly (integrated between changes of the running set), not by sampling.
//!
//! **Slurm's bookkeeping** (`Multifactor::slurm_usage`, the replay's `--slurm-usage`; off
//! in scenarios). Slurm 22.05's decay thread (`priority_multifactor.c`, `_decay_thread`)
//! runs every PriorityCalcPeriod from slurmctld's start. Each run multiplies all usage by
//! d^Δt, with d = 1 − 0.693 / half-life (per second) and Δt the time since the last run,
//! and credits each *running* job with its CPUs × δ × d^δ, δ its run time since the last
//! run (or its start). A job that ends between two runs is credited nothing for its time
//! after the last one (observed with `sshare`: a group's 55-s jobs, last credited at
//! 50 s, kept that usage; 20-s jobs between two runs left none; docs/VALIDATION.md). The
//! factors are set at each run and held until the next, also for jobs submitted in
//! between: Fair Tree's from the usage after the run's credits (`fair_tree_decay`);
//! classic's from the accounts' effective usage computed before them
//! (`_set_children_usage_efctv` comes first in the loop), so the classic factor lags one
//! period behind running jobs.
//!
//! As in Slurm, priorities are computed when a job is submitted and recomputed for every
//! queued job each PriorityCalcPeriod (the first one period after the start, or at the
//! phase a replay gives: `Multifactor::first_calc`) (the age factor grows and usage decays between
//! recomputations, but the order only changes when it runs). Ties go to the earlier
//! submission.

use crate::scenario::raw::FairshareAlgorithm;
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
    /// Slurm's bookkeeping: the last decay-thread run booked, and the factors it set.
    booked_to: Option<SimTime>,
    held: Vec<f64>,
}

impl PriorityState {
    /// Zero usage at time 0.
    pub fn new(campus: &Campus) -> PriorityState {
        let total: f64 = campus.accounts.iter().map(|a| a.fairshare).sum();
        let cfg = match &campus.priority {
            Priority::Fifo => None,
            Priority::Multifactor(m) => Some(m.clone()),
        };
        let next_calc = cfg.as_ref().map_or(SimTime::MAX, |m| m.first_calc);
        let slurm = cfg.as_ref().is_some_and(|m| m.slurm_usage);
        PriorityState {
            booked_to: slurm.then_some(0),
            held: vec![1.0; if slurm { campus.accounts.len() } else { 0 }],
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

    /// Whether usage is booked as Slurm's decay thread books it ([`PriorityState::book_as_slurm`]).
    pub fn books_as_slurm(&self) -> bool {
        self.booked_to.is_some()
    }

    /// Slurm's bookkeeping (module doc): books every decay-thread run up to `now`, at
    /// `first_calc` and every calc period after it, with `running` the `(account, GPUs,
    /// start)` of each running job (call it before the running set changes).
    pub fn book_as_slurm(&mut self, now: SimTime, running: impl Iterator<Item = (u16, u32, SimTime)> + Clone) {
        let (Some(m), Some(mut last)) = (self.cfg.clone(), self.booked_to) else { return };
        let d = 1.0 - 0.693 / m.half_life as f64;
        let mut run = if last == 0 && m.first_calc > 0 { m.first_calc } else { last + m.calc_period };
        while run <= now {
            let classic_before = self.classic_factors();
            let decay = d.powf((run - last) as f64);
            for u in &mut self.usage {
                *u *= decay;
            }
            for (a, gpus, start) in running.clone() {
                let delta = (run - start.max(last)) as f64;
                if start <= run {
                    self.usage[usize::from(a)] += f64::from(gpus) * delta * d.powf(delta);
                }
            }
            self.held = match m.fairshare_algorithm {
                FairshareAlgorithm::FairTree => fair_tree_factors(&self.shares, &self.usage),
                FairshareAlgorithm::Classic => classic_before,
            };
            last = run;
            run += m.calc_period;
        }
        self.booked_to = Some(last);
        self.accrued_to = now;
    }

    fn classic_factors(&self) -> Vec<f64> {
        (0..self.usage.len()).map(|a| self.classic_fairshare(a as u16)).collect()
    }

    /// The fair-share factor of an account, by the scenario's algorithm (1 under FIFO,
    /// where no one reads it).
    pub fn fairshare(&self, account: u16) -> f64 {
        if self.books_as_slurm() {
            return self.held[usize::from(account)];
        }
        match self.cfg.as_ref().map(|m| m.fairshare_algorithm) {
            Some(FairshareAlgorithm::FairTree) => fair_tree_factors(&self.shares, &self.usage)[usize::from(account)],
            _ => self.classic_fairshare(account),
        }
    }

    /// The classic fair-share factor 2^(−U/S) of an account.
    fn classic_fairshare(&self, account: u16) -> f64 {
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
        if self.books_as_slurm() {
            return self.held.clone();
        }
        match self.cfg.as_ref().map(|m| m.fairshare_algorithm) {
            Some(FairshareAlgorithm::FairTree) => fair_tree_factors(&self.shares, &self.usage),
            _ => (0..self.usage.len()).map(|a| self.classic_fairshare(a as u16)).collect(),
        }
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

/// Fair Tree's fair-share factor of each account of a flat tree (every account under the
/// root, one user each), from the accounts' normalised `shares` and raw decayed `usage`.
///
/// Level fair-share LF = S/U, with U the account's usage over the sum of its siblings'
/// (0 when no one has used anything): ∞ when S > 0 and U = 0, 0 when S = 0. Accounts are
/// ranked from the highest LF down; the first has rank N (the number of accounts), equal
/// LFs share the rank of the first of them, and the next LF takes its place in the order
/// (N, N, N−2, …). The factor is rank / N.
pub fn fair_tree_factors(shares: &[f64], usage: &[f64]) -> Vec<f64> {
    debug_assert_eq!(shares.len(), usage.len());
    let total: f64 = usage.iter().sum();
    let level: Vec<f64> = shares
        .iter()
        .zip(usage)
        .map(|(&s, &u)| {
            let u = if total > 0.0 { u / total } else { 0.0 };
            if s == 0.0 { 0.0 } else { s / u }
        })
        .collect();
    let mut order: Vec<usize> = (0..level.len()).collect();
    order.sort_by(|&a, &b| level[b].total_cmp(&level[a]));
    let n = level.len() as f64;
    let mut factors = vec![0.0; level.len()];
    let mut rank = n;
    for (place, &a) in order.iter().enumerate() {
        let tied = place > 0 && level[order[place - 1]] == level[a];
        if !tied {
            rank = n - place as f64;
        }
        factors[a] = rank / n;
    }
    factors
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    fn campus() -> Campus {
        campus_with("")
    }

    /// The test campus with `extra` lines added to `[campus.multifactor]`.
    fn campus_with(extra: &str) -> Campus {
        Scenario::from_toml_str(&scenario_text(extra), "p.toml").unwrap().campus
    }

    fn scenario_text(extra: &str) -> String {
        let text = "[simulation]\nstart_date = \"2026-01-01\"\nhorizon_days = 10\n\
            [campus]\nplacement = \"nodes\"\nnodes = 4\ngpus_per_node = 8\nvram_gb = 80\npriority = \"multifactor\"\n\
            [campus.multifactor]\nweight_age = 0\nweight_job_size = 0\nweight_partition = 0\nweight_fairshare = 1000\ndecay_half_life_days = 1\nEXTRA\n\
            [[campus.accounts]]\nname = \"heavy\"\n[[campus.accounts]]\nname = \"light\"\n\
            [[workload.classes]]\nname = \"x\"\njobs_per_week = 0\nruntime_hours = 1\n";
        text.replace("EXTRA", extra)
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

    /// Shares 4:2:2:1:1:0 and decayed usage 40:10:10:0:30:10 (of 100), worked by hand:
    ///
    /// ```text
    /// account     S     U     LF = S/U   place  rank  factor = rank/6
    /// d          0.1   0      ∞          1      6     6/6
    /// b          0.2   0.1    2          2      5     5/6   (tied with c)
    /// c          0.2   0.1    2          3      5     5/6
    /// a          0.4   0.4    1          4      3     3/6   (the rank after a tie skips)
    /// e          0.1   0.3    1/3        5      2     2/6
    /// f          0     0.1    0 (S = 0)  6      1     1/6
    /// ```
    #[test]
    fn fair_tree_ranks_accounts_by_shares_over_usage_with_ties_sharing_a_rank() {
        let raw = [4.0, 2.0, 2.0, 1.0, 1.0, 0.0];
        let total: f64 = raw.iter().sum();
        let shares: Vec<f64> = raw.iter().map(|s| s / total).collect();
        let usage = [40.0, 10.0, 10.0, 0.0, 30.0, 10.0];
        let f = fair_tree_factors(&shares, &usage);
        let expected = [3.0 / 6.0, 5.0 / 6.0, 5.0 / 6.0, 1.0, 2.0 / 6.0, 1.0 / 6.0];
        for (a, (got, want)) in f.iter().zip(expected).enumerate() {
            assert!((got - want).abs() < 1e-12, "account {a}: {got} (want {want}), all {f:?}");
        }
        // The usage scale does not matter, only the ratios (U is normalised).
        let scaled: Vec<f64> = usage.iter().map(|u| u * 3600.0).collect();
        assert_eq!(fair_tree_factors(&shares, &scaled), f);
    }

    #[test]
    fn fair_tree_with_no_usage_ties_every_account_with_shares_at_the_top() {
        // Shares 1:1:0, nothing used: LF = ∞, ∞, 0. The two with shares tie at rank 3; the
        // one without ranks 1 (not 2: two accounts are ahead of it).
        let f = fair_tree_factors(&[0.5, 0.5, 0.0], &[0.0, 0.0, 0.0]);
        assert_eq!(f, vec![1.0, 1.0, 1.0 / 3.0]);
    }

    #[test]
    fn fair_tree_from_the_scenario_ranks_the_light_account_first() {
        let c = campus_with("fairshare_algorithm = \"fair-tree\"");
        let Priority::Multifactor(m) = &c.priority else { panic!("multifactor") };
        assert_eq!(m.fairshare_algorithm, FairshareAlgorithm::FairTree);
        let (heavy, light) = (0u16, 1u16);
        let n = c.accounts.len() as f64;
        let mut p = PriorityState::new(&c);
        // Day 0–1: heavy uses 32 GPUs, light 8, the accounts without shares nothing. LF:
        // light 0.5/0.2 > heavy 0.5/0.8 > the rest (no shares: LF 0, tied).
        p.accrue(86_400, |a| [32, 8].get(a).copied().unwrap_or(0));
        assert_eq!(p.fairshare(light), 1.0);
        assert_eq!(p.fairshare(heavy), (n - 1.0) / n);
        for a in 2..c.accounts.len() {
            assert_eq!(p.fairshare(a as u16), (n - 2.0) / n, "account {a}");
        }
        assert_eq!(p.fairshare_factors(), (0..c.accounts.len()).map(|a| p.fairshare(a as u16)).collect::<Vec<_>>());
        // Light alone for 3 days: heavy's LF overtakes light's, and the ranks swap.
        p.accrue(4 * 86_400, |a| [0, 8].get(a).copied().unwrap_or(0));
        assert_eq!(p.fairshare(heavy), 1.0);
        assert_eq!(p.fairshare(light), (n - 1.0) / n);
    }

    /// Slurm's bookkeeping, by hand: half-life 600 s, a run every 60 s from 50 s. Heavy
    /// runs 8 GPUs over [0, 55) and light over [60, 80): at 50 s heavy is credited
    /// 8 × 50 × d^50 (d = 1 − 0.693/600) and its last 5 s never; light ends between two
    /// runs and is credited nothing. Fair Tree ranks on the credited usage at once; classic
    /// holds the factors of the usage before the run's credits, one period behind.
    #[test]
    fn slurm_bookkeeping_credits_running_jobs_at_each_run_only() {
        for (algorithm, light_first_at_50) in [("fair-tree", true), ("classic", false)] {
            let mut c = campus_with(&format!("fairshare_algorithm = \"{algorithm}\""));
            let Priority::Multifactor(m) = &mut c.priority else { panic!("multifactor") };
            m.half_life = 600;
            m.calc_period = 60;
            m.first_calc = 50;
            m.slurm_usage = true;
            let (heavy, light) = (0u16, 1u16);
            let mut p = PriorityState::new(&c);
            assert!(p.books_as_slurm());
            let d: f64 = 1.0 - 0.693 / 600.0;
            p.book_as_slurm(55, [(heavy, 8, 0)].into_iter());
            assert!((p.usage[0] - 8.0 * 50.0 * d.powi(50)).abs() < 1e-9, "{algorithm}: {:?}", p.usage);
            assert_eq!(p.fairshare(light) > p.fairshare(heavy), light_first_at_50, "{algorithm}");
            p.book_as_slurm(80, [(light, 8, 60)].into_iter());
            p.book_as_slurm(115, std::iter::empty());
            assert!((p.usage[0] - 8.0 * 50.0 * d.powi(50) * d.powi(60)).abs() < 1e-9, "{algorithm}: {:?}", p.usage);
            assert_eq!(p.usage[1], 0.0, "{algorithm}: a job between two runs is never credited");
            // By the run at 110 s classic has caught up: light (no usage) first.
            assert!(p.fairshare(light) > p.fairshare(heavy), "{algorithm}");
        }
    }

    #[test]
    fn the_algorithm_key_is_left_out_of_the_resolved_scenario_when_classic() {
        let classic = Scenario::from_toml_str(&scenario_text(""), "p.toml").unwrap();
        assert!(!classic.resolved_toml().contains("fairshare_algorithm"));
        let tree = Scenario::from_toml_str(&scenario_text("fairshare_algorithm = \"fair-tree\""), "p.toml").unwrap();
        let again = Scenario::from_toml_str(&tree.resolved_toml(), "p.toml").unwrap();
        assert_eq!(again.campus.priority, tree.campus.priority);
        assert_ne!(tree.campus.priority, classic.campus.priority);
    }
}

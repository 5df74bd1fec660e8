//! What campus a run simulated, in words: the campus model (Slurm's nodes, or the
//! idealised pool), the scheduler and priority, every account with its shares and expected
//! use, and whether patience and balking are on.
//!
//! Every run's table header, `run.toml` and report say this (issue 20: five shipped
//! scenarios ran the pool while saying they used the default's Slurm cluster, and the
//! assumptions that decide the answer — shares, patience — were nowhere on the page).
//! Plain data with its English and Chinese lines; no I/O.

use super::model::{Priority, Scenario};
use super::raw::{Placement, SchedulerKind};
use crate::units::SimTime;

/// One account as the run assumed it.
#[derive(Clone, Debug, PartialEq)]
pub struct AccountAssumption {
    /// Account name.
    pub name: String,
    /// Fair-share shares as given (or, when not listed, set to its expected use).
    pub shares: f64,
    /// Its shares over all accounts' shares, in [0, 1].
    pub share_of_shares: f64,
    /// Expected use over all accounts' expected use, in [0, 1] (0 when nothing runs).
    pub share_of_use: f64,
    /// Expected use as a share of the campus GPUs.
    pub expected_use: f64,
    /// Listed in the scenario (false: added by validation).
    pub listed: bool,
    /// Queued jobs give up after a patience draw.
    pub patience: bool,
    /// Jobs are not submitted when the queue looks too long.
    pub balking: bool,
}

/// The campus assumptions in force for a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Assumptions {
    /// `true`: the idealised pool of identical GPUs; `false`: Slurm's nodes.
    pub pool: bool,
    /// GPUs, nodes (0 for the pool), GPU model.
    pub gpus: u32,
    /// Nodes in all node groups (the pool: 0).
    pub nodes: u32,
    /// GPU model of the first node group.
    pub gpu_type: String,
    /// EASY backfill (else FCFS).
    pub backfill: bool,
    /// Backfill interval in seconds (node model with backfill only).
    pub bf_interval: Option<SimTime>,
    /// Multifactor priority weights (fair-share, age, job size); `None` for FIFO.
    pub multifactor: Option<(f64, f64, f64)>,
    /// Every account, listed or implicit (implicit ones without jobs left out).
    pub accounts: Vec<AccountAssumption>,
    /// The group's account name.
    pub group_account: String,
}

impl Assumptions {
    /// The assumptions of `scn`.
    pub fn of(scn: &Scenario) -> Assumptions {
        let c = &scn.campus;
        let pool = c.placement == Placement::Pool;
        let backfill = c.scheduler == SchedulerKind::EasyBackfill;
        let total_shares: f64 = c.accounts.iter().map(|a| a.fairshare).sum();
        let total_use: f64 = c.accounts.iter().map(|a| a.expected_use).sum();
        let frac = |x: f64, total: f64| if total > 0.0 { x / total } else { 0.0 };
        let group = usize::from(c.group_account);
        let accounts = c
            .accounts
            .iter()
            .enumerate()
            .filter(|(i, a)| a.listed || a.expected_use > 0.0 || *i == group)
            .map(|(_, a)| AccountAssumption {
                name: a.name.clone(),
                shares: a.fairshare,
                share_of_shares: frac(a.fairshare, total_shares),
                share_of_use: frac(a.expected_use, total_use),
                expected_use: a.expected_use,
                listed: a.listed,
                patience: a.patience.patience_h.is_some(),
                balking: a.patience.balk_gpu_hours.is_some() || a.patience.balk_wait.is_some(),
            })
            .collect();
        Assumptions {
            pool,
            gpus: c.gpus,
            nodes: if pool { 0 } else { c.node_groups.iter().map(|g| g.nodes).sum() },
            gpu_type: c.gpu_type.clone(),
            backfill,
            bf_interval: (!pool && backfill).then_some(c.backfill.interval),
            multifactor: match &c.priority {
                Priority::Fifo => None,
                Priority::Multifactor(m) => Some((m.weight_fairshare, m.weight_age, m.weight_job_size)),
            },
            accounts,
            group_account: c.accounts[group].name.clone(),
        }
    }

    /// The campus model in one phrase, e.g. "Slurm nodes: 48 nodes, 384 A100-80G GPUs,
    /// best-fit placement, EASY backfill every 30 s" or "pool (idealised): 384 identical
    /// GPUs, no placement".
    pub fn model_line(&self, zh: bool) -> String {
        let sched = match (self.backfill, self.bf_interval, zh) {
            (true, Some(s), false) => format!("EASY backfill every {s} s"),
            (true, Some(s), true) => format!("EASY 回填（每 {s} 秒）"),
            (true, None, false) => "EASY backfill".into(),
            (true, None, true) => "EASY 回填".into(),
            (false, _, false) => "FCFS".into(),
            (false, _, true) => "先来先服务".into(),
        };
        match (self.pool, zh) {
            (true, false) => {
                format!("campus model: pool (idealised): {} identical GPUs, no placement, {sched}", self.gpus)
            }
            (true, true) => format!("校园集群模型：资源池（理想化）：{} 块相同的 GPU，不分节点，{sched}", self.gpus),
            (false, false) => format!(
                "campus model: Slurm nodes: {} nodes, {} {} GPUs, best-fit placement (cons_tres), {sched}",
                self.nodes, self.gpus, self.gpu_type
            ),
            (false, true) => format!(
                "校园集群模型：Slurm 节点：{} 个节点、{} 块 {} GPU，最佳匹配放置（cons_tres），{sched}",
                self.nodes, self.gpus, self.gpu_type
            ),
        }
    }

    /// The priority rule in one phrase.
    pub fn priority_line(&self, zh: bool) -> String {
        match (self.multifactor, zh) {
            (None, false) => "priority: FIFO (submission order; shares unused)".into(),
            (None, true) => "优先级：先进先出（按提交顺序；不使用份额）".into(),
            (Some((f, a, s)), false) => {
                format!("priority: multifactor with fair-share (weights: fair-share {f}, age {a}, job size {s})")
            }
            (Some((f, a, s)), true) => {
                format!("优先级：多因素，含公平份额（权重：公平份额 {f}，等待时长 {a}，作业规模 {s}）")
            }
        }
    }

    /// Patience and balking in one phrase: which accounts have them.
    pub fn patience_line(&self, zh: bool) -> String {
        let with = |f: fn(&AccountAssumption) -> bool| -> Vec<&str> {
            self.accounts.iter().filter(|a| f(a)).map(|a| a.name.as_str()).collect()
        };
        let (p, b) = (with(|a| a.patience), with(|a| a.balking));
        let list = |v: &[&str], zh: bool| match (v.is_empty(), zh) {
            (true, false) => "off".to_string(),
            (true, true) => "关闭".to_string(),
            (false, _) => v.join(", "),
        };
        if zh {
            format!("会放弃排队的账户：{}；队列过长时不提交作业的账户：{}", list(&p, true), list(&b, true))
        } else {
            format!("patience (queued jobs give up): {}; balking (not submitted): {}", list(&p, false), list(&b, false))
        }
    }

    /// One line per account: shares, their share of all shares, and expected use.
    pub fn account_lines(&self, zh: bool) -> Vec<String> {
        self.accounts
            .iter()
            .map(|a| {
                let tag = match (a.listed, a.name == self.group_account, zh) {
                    (_, true, false) => " (the group)",
                    (_, true, true) => "（本课题组）",
                    (false, false, false) => " (not listed: shares set to its expected use)",
                    (false, false, true) => "（未列出：份额按预期用量设定）",
                    (true, false, _) => "",
                };
                if zh {
                    format!(
                        "{}{tag}：份额 {}（占 {:.1}%），预期用量占全部负载 {:.1}%（集群 GPU 的 {:.3}）",
                        a.name,
                        round(a.shares),
                        100.0 * a.share_of_shares,
                        100.0 * a.share_of_use,
                        a.expected_use
                    )
                } else {
                    format!(
                        "{}{tag}: shares {} ({:.1}% of all), expected use {:.1}% of the load ({:.3} of the campus GPUs)",
                        a.name,
                        round(a.shares),
                        100.0 * a.share_of_shares,
                        100.0 * a.share_of_use,
                        a.expected_use
                    )
                }
            })
            .collect()
    }

    /// Accounts whose share of the shares and share of the expected use differ by more than
    /// `factor` (either way), as (name, share of shares, share of use); only under
    /// multifactor priority, where shares matter.
    pub fn shares_far_from_use(&self, factor: f64) -> Vec<(String, f64, f64)> {
        if self.multifactor.is_none() {
            return Vec::new();
        }
        self.accounts
            .iter()
            .filter(|a| {
                let (s, u) = (a.share_of_shares, a.share_of_use);
                (s > 0.0 || u > 0.0) && (s > factor * u || u > factor * s)
            })
            .map(|a| (a.name.clone(), a.share_of_shares, a.share_of_use))
            .collect()
    }
}

/// Shares as written: whole numbers without decimals, others to 3 significant digits.
fn round(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{:.3}", v).trim_end_matches('0').to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_names_the_node_model_and_every_account() {
        let a = Assumptions::of(&Scenario::embedded_default());
        assert!(!a.pool);
        assert!(a.model_line(false).starts_with("campus model: Slurm nodes: 48 nodes, 384"), "{}", a.model_line(false));
        assert!(a.model_line(true).contains("Slurm 节点"));
        assert!(a.priority_line(false).contains("multifactor"));
        // Every listed account is there; the unused implicit "others" is not.
        let names: Vec<_> = a.accounts.iter().map(|x| x.name.as_str()).collect();
        assert!(names.contains(&"vision-labs") && names.contains(&"group"), "{names:?}");
        assert!(!names.contains(&"others"), "{names:?}");
        let total: f64 = a.accounts.iter().map(|x| x.share_of_use).sum();
        assert!((total - 1.0).abs() < 1e-9);
        // The default sets shares to expected use: nothing is 3x off.
        assert!(a.shares_far_from_use(3.0).is_empty(), "{:?}", a.shares_far_from_use(3.0));
    }

    #[test]
    fn a_pool_says_it_is_idealised() {
        let text = include_str!("../../tests/fixtures/tiny.toml");
        let s = Scenario::from_toml_str(text, "tiny.toml").unwrap();
        let a = Assumptions::of(&s);
        assert!(a.pool, "tests/fixtures/tiny.toml is a pool scenario");
        assert!(a.model_line(false).contains("pool (idealised): 64 identical GPUs"), "{}", a.model_line(false));
        assert!(a.model_line(true).contains("理想化"));
        assert!(a.priority_line(false).contains("FIFO"));
        assert!(a.shares_far_from_use(3.0).is_empty(), "shares do not matter under FIFO");
    }
}

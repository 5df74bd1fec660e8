//! The campus's Slurm accounts: those listed under `[[campus.accounts]]`, and the two that
//! validation adds when nothing lists them — `others` (background classes without an
//! account, a trace's jobs) and the group's own account.
//!
//! **No implicit shares.** An account that the scenario does not list gets fair-share
//! shares equal to its expected share of the load, on the scale of the listed accounts
//! (issue 20: an implicit `others` with one share beside listed accounts holding 100 cut
//! the default's campus waits 20× without a word). Its expected use is the annual mean of
//! its jobs' GPU demand, were they all to run on campus; an implicit account with no
//! jobs holds no shares. `run.toml` and the run header list every account with its
//! shares and expected use, and a warning says when the two differ by more than 3×.

use super::*;
use crate::scenario::capacity::Patience;
use crate::scenario::trace_source::TraceSource;

/// The accounts: those listed, then "others" and the group's account when they are not
/// listed (with provisional shares of 1, replaced by [`with_expected_use`]). The group's
/// GPU limit may come from `campus.group_gpu_limit` or from its account, not both.
/// `patience` checks an account's patience and balking (`capacity::patience`, passed in by
/// the parent so that the sections of validation do not import one another).
pub(super) fn accounts(
    raw: &RawScenario,
    patience: impl Fn(&str, &RawAccount) -> Result<Patience>,
) -> Result<(Vec<Account>, u16)> {
    let c = &raw.campus;
    unique("campus.accounts", c.accounts.iter().map(|a| a.name.as_str()))?;
    let mut out = Vec::new();
    for (i, a) in c.accounts.iter().enumerate() {
        let k = format!("campus.accounts[{i}]");
        let fairshare = positive(&format!("{k}.fairshare"), a.fairshare)?;
        for (name, v) in [("gpu_limit", a.gpu_limit), ("max_jobs", a.max_jobs), ("max_submit", a.max_submit)] {
            if v == Some(0) {
                return bad(
                    format!("{k}.{name}"),
                    "0 is not allowed: the account could never run a job (leave it out for no limit)",
                );
            }
        }
        out.push(Account {
            name: a.name.clone(),
            fairshare,
            gpu_limit: a.gpu_limit,
            max_jobs: a.max_jobs,
            max_submit: a.max_submit,
            patience: patience(&k, a)?,
            listed: true,
            expected_use: 0.0,
        });
    }
    let implicit = |name: String, gpu_limit: Option<u32>| Account {
        name,
        fairshare: 1.0,
        gpu_limit,
        max_jobs: None,
        max_submit: None,
        patience: Default::default(),
        listed: false,
        expected_use: 0.0,
    };
    if !out.iter().any(|a| a.name == OTHERS_ACCOUNT) {
        out.push(implicit(OTHERS_ACCOUNT.into(), None));
    }
    let group_name = raw.workload.account.clone().unwrap_or_else(|| GROUP_ACCOUNT.into());
    let group = match out.iter().position(|a| a.name == group_name) {
        Some(i) => {
            if c.group_gpu_limit.is_some() && out[i].gpu_limit.is_some() && c.group_gpu_limit != out[i].gpu_limit {
                return bad(
                    "campus.group_gpu_limit",
                    format!("the group's account '{group_name}' gives another gpu_limit; give the limit in one place"),
                );
            }
            out[i].gpu_limit = out[i].gpu_limit.or(c.group_gpu_limit);
            i
        }
        None => {
            out.push(implicit(group_name, c.group_gpu_limit));
            out.len() - 1
        }
    };
    if out.len() > usize::from(u16::MAX) {
        return bad("campus.accounts", "too many accounts");
    }
    Ok((out, group as u16))
}

/// Mean GPUs busy per second of the classes' jobs over `[a, b)`, were every job to run
/// on campus, per account.
fn use_by_account(uses: &mut [f64], classes: &[JobClass], cal: &Calendar, a: SimTime, b: SimTime, group: Option<u16>) {
    let list_mean = cal.mean_multiplier(a, b);
    for c in classes {
        let mean = c.calendar.as_ref().map_or(list_mean, |own| own.mean_multiplier(a, b));
        let gpus_busy = c.rate_per_sec * c.gpus.mean() * c.timing.mean_runtime_h() * HOUR as f64 * mean;
        if gpus_busy.is_finite() {
            uses[usize::from(group.unwrap_or(c.account))] += gpus_busy;
        }
    }
}

/// Mean GPUs busy per second of a trace's jobs (which go to `others`): their GPU-seconds
/// over the log's extent, times the trace's scale.
fn trace_use(t: &TraceSource) -> f64 {
    let work: f64 = t.jobs.iter().map(|j| f64::from(j.gpus) * j.runtime as f64).sum();
    if t.extent > 0 { t.scale * work / t.extent as f64 } else { 0.0 }
}

/// The job classes and calendars of a scenario, as [`with_expected_use`] needs them.
pub(super) struct Demand<'a> {
    /// Other groups' generated classes.
    pub background: &'a [JobClass],
    /// Their calendar.
    pub background_calendar: &'a Calendar,
    /// The group's classes.
    pub group: &'a [JobClass],
    /// Its calendar.
    pub group_calendar: &'a Calendar,
    /// A background trace, if any (its jobs go to `others`).
    pub trace: Option<&'a TraceSource>,
    /// The measured window.
    pub window: (SimTime, SimTime),
}

/// Fills every account's expected use (a share of the campus GPUs, the annual mean over
/// the measured window) and gives each account the scenario did not list shares equal to
/// its expected use, on the scale of the listed accounts: shares per unit of use are the
/// listed accounts' total shares over their total use, or 100 per unit of the whole load
/// when no listed account has jobs (shares in percent of the load).
pub(super) fn with_expected_use(campus: &mut Campus, d: &Demand) {
    let n = campus.accounts.len();
    let mut uses = vec![0.0; n];
    let (a, b) = d.window;
    use_by_account(&mut uses, d.background, d.background_calendar, a, b, None);
    use_by_account(&mut uses, d.group, d.group_calendar, a, b, Some(campus.group_account));
    if let Some(t) = d.trace
        && let Some(i) = campus.accounts.iter().position(|x| x.name == OTHERS_ACCOUNT)
    {
        uses[i] += trace_use(t);
    }
    let gpus = f64::from(campus.gpus.max(1));
    for (acc, u) in campus.accounts.iter_mut().zip(&uses) {
        acc.expected_use = u / gpus;
    }
    let (listed_shares, listed_use) = campus
        .accounts
        .iter()
        .filter(|x| x.listed && x.expected_use > 0.0)
        .fold((0.0, 0.0), |(s, u), x| (s + x.fairshare, u + x.expected_use));
    let total_use: f64 = campus.accounts.iter().map(|x| x.expected_use).sum();
    let per_use = if listed_use > 0.0 {
        listed_shares / listed_use
    } else if total_use > 0.0 {
        100.0 / total_use
    } else {
        1.0
    };
    for acc in campus.accounts.iter_mut().filter(|x| !x.listed) {
        acc.fairshare = acc.expected_use * per_use;
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{OTHERS_ACCOUNT, Scenario};

    const BASE: &str = r#"
[simulation]
start_date = "2026-09-01"
horizon_days = 30
[campus]
placement = "nodes"
nodes = 4
gpus_per_node = 8
vram_gb = 80
priority = "multifactor"
[[campus.accounts]]
name = "big"
fairshare = 60
[background]
offered_load = 0.8
[[background.classes]]
name = "a"
account = "big"
load_share = 0.6
gpus = 1
runtime_hours = 2
[[background.classes]]
name = "b"
load_share = 0.4
gpus = 1
runtime_hours = 2
[[workload.classes]]
name = "w"
jobs_per_week = 10
gpus = 1
runtime_hours = 1
"#;

    fn account<'a>(s: &'a Scenario, name: &str) -> &'a crate::scenario::model::Account {
        s.campus.accounts.iter().find(|a| a.name == name).unwrap()
    }

    #[test]
    fn unlisted_background_gets_shares_equal_to_its_share_of_the_load() {
        let s = Scenario::from_toml_str(BASE, "t.toml").unwrap();
        let (big, others) = (account(&s, "big"), account(&s, OTHERS_ACCOUNT));
        assert!(!others.listed && big.listed);
        // 60 shares for 0.48 of the load; "others" runs 0.32: 40 shares.
        assert!((big.expected_use - 0.48).abs() < 1e-9, "{}", big.expected_use);
        assert!((others.expected_use - 0.32).abs() < 1e-9, "{}", others.expected_use);
        assert!((others.fairshare - 40.0).abs() < 1e-6, "{}", others.fairshare);
        // The group is unlisted too: its 10 GPU-hours a week on 32 GPUs.
        let group = &s.campus.accounts[usize::from(s.campus.group_account)];
        let use_ = 10.0 / (7.0 * 24.0) / 32.0;
        assert!((group.expected_use - use_).abs() < 1e-9);
        assert!((group.fairshare - use_ * 60.0 / 0.48).abs() < 1e-6, "{}", group.fairshare);
    }

    #[test]
    fn a_listed_account_keeps_its_shares_and_an_unused_implicit_one_holds_none() {
        let text = BASE.replace("name = \"b\"\n", "name = \"b\"\naccount = \"big\"\n").replace(
            "[[campus.accounts]]\nname = \"big\"",
            "[[campus.accounts]]\nname = \"group\"\nfairshare = 7\n[[campus.accounts]]\nname = \"big\"",
        );
        let s = Scenario::from_toml_str(&text, "t.toml").unwrap();
        assert_eq!(account(&s, "big").fairshare, 60.0);
        assert_eq!(account(&s, "group").fairshare, 7.0);
        let others = account(&s, OTHERS_ACCOUNT);
        assert_eq!((others.expected_use, others.fairshare), (0.0, 0.0));
    }

    #[test]
    fn with_nothing_listed_shares_are_percent_of_the_load() {
        let text = BASE
            .replace("account = \"big\"\n", "")
            .replace("[[campus.accounts]]\nname = \"big\"\nfairshare = 60\n", "");
        let s = Scenario::from_toml_str(&text, "t.toml").unwrap();
        let total: f64 = s.campus.accounts.iter().map(|a| a.fairshare).sum();
        assert!((total - 100.0).abs() < 1e-6, "{total}");
    }
}

//! Which campus model a run uses (issue 42): the exact joint simulation, or the shared
//! background (`engine/shared.rs`) where the scenario is of a kind its check against the
//! exact model covered (docs/VALIDATION.md, "Shared background"). Elsewhere the run is
//! exact and its header says why: the shortcut is never used where nobody checked it.

use super::Scenario;
use super::raw::{CampusModel, Placement};

/// The largest expected use (share of the campus GPUs) of the group among the scenarios
/// the check covered (the shipped default's group, 1.3% of the load; docs/VALIDATION.md).
/// A larger group changes the other groups' campus more than the check has shown harmless.
pub const CHECKED_GROUP_USE: f64 = 0.02;

/// The model a run of `scn` uses, and why it is exact when shared was asked for.
pub fn effective(scn: &Scenario) -> (CampusModel, Option<String>) {
    match scn.campus_model {
        CampusModel::Exact => (CampusModel::Exact, None),
        CampusModel::Shared => match refusal(scn) {
            None => (CampusModel::Shared, None),
            Some(why) => (CampusModel::Exact, Some(why)),
        },
    }
}

/// Why the shared background may not stand in for the exact model on `scn` (`None`: it may).
pub fn refusal(scn: &Scenario) -> Option<String> {
    let c = &scn.campus;
    let group = &c.accounts[usize::from(c.group_account)];
    if c.placement == Placement::Pool {
        return Some("the pool model (the check ran on Slurm nodes)".into());
    }
    if c.capacity.any() {
        return Some("capacity loss, a scheduler cycle or a start delay (not covered by the check)".into());
    }
    if group.patience.balk_gpu_hours.is_some() || group.patience.balk_wait.is_some() {
        return Some("the group balks, which reads the other groups' queue (not replayed)".into());
    }
    if let Some(a) = c.accounts.iter().find(|a| a.max_submit.is_some()) {
        return Some(format!("account '{}' has MaxSubmit, which counts the other groups' waiting jobs", a.name));
    }
    if group.expected_use > CHECKED_GROUP_USE {
        return Some(format!(
            "the group's expected use {:.3} of the campus is above the {CHECKED_GROUP_USE} the check covered",
            group.expected_use
        ));
    }
    if scn.policies.len() < 2 {
        return Some("a single policy (nothing to share)".into());
    }
    None
}

/// The run header's line on the campus model, when `shared` was asked for (`None` for the
/// default exact model, whose headers are unchanged): what is in force and, if the run
/// fell back to exact, why.
pub fn header_line(scn: &Scenario) -> Option<String> {
    if scn.campus_model == CampusModel::Exact {
        return None;
    }
    let base = &scn.policies[scn.baseline].name;
    Some(match effective(scn) {
        (CampusModel::Shared, _) => format!(
            "other groups' campus: shared background: simulated once per replication in '{base}''s exact run, \
             the other policies replayed against it (approximate; docs/VALIDATION.md)"
        ),
        (_, why) => format!(
            "other groups' campus: exact for every policy: shared background not used: {}",
            why.unwrap_or_default()
        ),
    })
}

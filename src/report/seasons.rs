//! The report's sections that say what the figures are: the notes under the summary
//! (p95 of each year, what "deadline miss" covers), where the group's jobs ended (the five
//! buckets of `summary.csv`) and the waits by season (`seasons.csv`).

use super::{Block, pm};
use crate::i18n::{L, Lang, fill};
use crate::metrics::season::{ALL_SEASONS, OUTSIDE_SEASONS};
use crate::plot::folder::RunFolder;
use crate::scenario::class_metrics::ALL_CLASSES;

/// The notes under the summary table: the p95 is the mean of yearly p95s, the cloud
/// share by jobs and GPU-hours, and which classes the deadline misses cover.
pub(super) fn summary_notes(r: &RunFolder, lang: Lang) -> Vec<Block> {
    let mut b = vec![Block::Para(L::P95Note.get(lang).to_string())];
    match &r.deadline_classes {
        Some(c) if c.is_empty() => b.push(Block::Para(L::NoDeadlineNote.get(lang).to_string())),
        Some(c) => {
            let names: Vec<String> = c.iter().map(|c| r.names.classes.get(c, lang)).collect();
            let sep = if lang == Lang::Zh { "、" } else { ", " };
            b.push(Block::Para(fill(L::DeadlineNote.get(lang), &[&names.join(sep)])));
        }
        None => {}
    }
    b
}

/// The five buckets every submitted group job ends in, per policy (from `summary.csv`;
/// folders written before they existed get no section).
pub(super) fn outcome_blocks(r: &RunFolder, lang: Lang) -> Vec<Block> {
    const COLUMNS: [(&str, L); 6] = [
        ("jobs_submitted", L::Submitted),
        ("jobs_completed_campus", L::CompletedCampus),
        ("jobs_completed_cloud", L::CompletedCloud),
        ("jobs_reneged", L::Reneged),
        ("jobs_balked", L::Balked),
        ("jobs_unfinished", L::Unfinished),
    ];
    if r.policies.iter().all(|p| r.stat(p, "jobs_submitted").is_none()) {
        return Vec::new();
    }
    let mut head = vec![L::Policy.get(lang).to_string()];
    head.extend(COLUMNS.iter().map(|c| c.1.get(lang).to_string()));
    let rows = r
        .policies
        .iter()
        .map(|p| {
            let mut row = vec![r.names.policies.get(p, lang)];
            row.extend(COLUMNS.iter().map(|c| pm(r.stat(p, c.0), 1.0)));
            row
        })
        .collect();
    vec![
        Block::Heading(L::OutcomesHeading.get(lang).to_string()),
        Block::Para(L::OutcomesNote.get(lang).to_string()),
        Block::Table(head, rows),
    ]
}

/// A season row's display name: the scenario's label, or "outside seasons" / "whole
/// window" translated.
fn season_name(r: &RunFolder, season: &str, lang: Lang) -> String {
    match season {
        OUTSIDE_SEASONS => L::OutsideSeasons.get(lang).to_string(),
        ALL_SEASONS => L::AllSeasons.get(lang).to_string(),
        s => r.names.seasons.get(s, lang),
    }
}

/// Waits by season: one table per class row (every job first, then each class), a row
/// per season with its jobs and, per policy, the mean and p95 wait.
pub(super) fn season_blocks(r: &RunFolder, lang: Lang) -> Vec<Block> {
    let seasons = r.season_names();
    if seasons.is_empty() {
        return Vec::new();
    }
    let mut classes: Vec<String> = Vec::new();
    for (_, c, _) in &r.season_stats {
        if !classes.contains(c) {
            classes.push(c.clone());
        }
    }
    // Every job first: the question "how long in April" is first about all of them.
    classes.sort_by_key(|c| c != ALL_CLASSES);
    let mut b = vec![
        Block::Heading(L::SeasonHeading.get(lang).to_string()),
        Block::Para(fill(L::SeasonNote.get(lang), &[L::OutsideSeasons.get(lang), L::AllSeasons.get(lang)])),
    ];
    let Some(first) = r.policies.first() else { return Vec::new() };
    for class in &classes {
        let shown = super::class_name(r, class, lang);
        let mut head = vec![L::Season.get(lang).to_string(), L::Jobs.get(lang).to_string()];
        for p in &r.policies {
            let name = r.names.policies.get(p, lang);
            head.push(fill(L::MeanWaitOf.get(lang), &[&name]));
            head.push(fill(L::P95WaitOf.get(lang), &[&name]));
        }
        let mut rows = Vec::new();
        for season in &seasons {
            // Jobs submitted are the same under every policy (common random numbers).
            let jobs = r.season_stat(first, season, class, "jobs_submitted");
            if jobs.is_none_or(|j| j.mean == 0.0) {
                continue;
            }
            let mut row = vec![season_name(r, season, lang), jobs.map_or("–".into(), |j| format!("{:.0}", j.mean))];
            for p in &r.policies {
                row.push(pm(r.season_stat(p, season, class, "wait_mean_h"), 1.0));
                row.push(pm(r.season_stat(p, season, class, "wait_p95_h"), 1.0));
            }
            rows.push(row);
        }
        b.push(Block::Para(fill(L::SeasonClassTitle.get(lang), &[&shown])));
        b.push(Block::Table(head, rows));
    }
    b
}

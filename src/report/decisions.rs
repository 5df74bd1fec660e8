//! The decisions of a sweep with conditions as a table in the report's language: at each
//! scenario point the best decision, then each robust choice across them at every point,
//! each with its cost and the first target's metric (from `decisions.csv`). The Chinese report leads
//! with it; the full analysis (`recommendation.txt`, in English) follows it.

use super::Block;
use crate::i18n::{L, Lang};
use crate::plot::folder::SweepFolder;
use crate::plot::sweep_charts::{cost_text, decision_words, key_label, shown_name, shown_text};

/// The rows of `decisions.csv` this table shows, in order, with their label.
const KINDS: [(&str, L); 4] = [
    ("best", L::BestAtPoint),
    ("minimax-regret", L::RobustMinimax),
    ("worst-case", L::RobustWorstCase),
    ("weighted-cost", L::LeastWeightedCost),
];

/// The table (empty when the sweep has no decision analysis).
pub fn decision_blocks(s: &SweepFolder, lang: Lang) -> Vec<Block> {
    if s.decisions.is_empty() {
        return Vec::new();
    }
    let shown = s.decisions.iter().find_map(|d| d.shown.as_ref().map(|x| shown_name(s, &x.0, lang)));
    let mut head = vec![L::ScenarioPointCol.get(lang).to_string(), L::ChoiceCol.get(lang).into()];
    head.push(L::DecisionCol.get(lang).into());
    head.push(L::MetricTotalCost.get(lang).into());
    if let Some(name) = &shown {
        head.push(name.clone());
    }
    let mut rows = Vec::new();
    for (kind, label) in KINDS {
        for d in s.decisions.iter().filter(|d| d.kind == kind) {
            // Robust choices have a row at every scenario point too: their cost there.
            let point = if d.conditions.is_empty() {
                L::AllPoints.get(lang).to_string()
            } else {
                d.conditions
                    .iter()
                    .map(|(k, v)| format!("{} = {v}", key_label(s, k, lang)))
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            let decision =
                if d.policy.is_empty() { L::NoDecision.get(lang).to_string() } else { decision_words(s, d, lang) };
            let mut row = vec![point, label.get(lang).to_string(), decision, cost_text(d.cost)];
            if shown.is_some() {
                row.push(shown_text(&d.shown));
            }
            rows.push(row);
        }
    }
    vec![Block::Table(head, rows)]
}

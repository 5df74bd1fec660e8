//! The report's "Sensitivity band" section, from `sensitivity.csv` alone: whether the
//! recommendation flips across the band, the robust policy, and per input the value,
//! recommended policy and paired differences at low, central and high.

use super::Block;
use crate::i18n::{L, Lang, fill};
use crate::plot::folder::RunFolder;
use crate::plot::tornado::{diff, input_label};
use crate::sensitivity::band::{BandVerdict, NONE};
use crate::write::fmt_num;

/// The section's blocks (none when the folder has no band).
pub fn blocks(r: &RunFolder, lang: Lang) -> Vec<Block> {
    let rows = &r.sensitivity;
    let Some(first) = rows.first() else { return Vec::new() };
    let t = |l: L| l.get(lang).to_string();
    let policy = |id: &str| if id == NONE { t(L::SensNone) } else { r.names.policies.get(id, lang) };
    let outcome = BandVerdict::from_rows(rows);
    let mut b = vec![Block::Heading(t(L::SensHeading))];
    // The targets as the CSV keeps them (`wait_p95_h<=24;main-training:wait_p95_h<=48`),
    // in words in Chinese.
    let targets = if lang == Lang::Zh {
        let class = |c: &str| r.names.classes.get(c, lang);
        let words = |t: &str| crate::target::parse_target(t.trim()).map_or(t.to_string(), |t| t.in_words(lang, &class));
        first.targets.split(';').map(words).collect::<Vec<_>>().join("，")
    } else {
        first.targets.replace(';', ", ")
    };
    b.push(Block::Para(fill(
        L::SensIntro.get(lang),
        &[&policy(&first.baseline), &first.replications.to_string(), &targets],
    )));
    let rec = |x: &Option<String>| policy(x.as_deref().unwrap_or(NONE));
    let verdict = if outcome.inputs.is_empty() {
        t(L::SensNoInputs)
    } else if !outcome.flips() {
        fill(L::SensNoFlip.get(lang), &[&rec(&outcome.inputs[0].recommended[1])])
    } else {
        let label = |id: &str| input_label(rows, id, lang);
        let items: Vec<String> = outcome
            .inputs
            .iter()
            .filter(|i| i.flips())
            .map(|i| {
                fill(L::SensFlipItem.get(lang), &[&label(&i.id), &rec(&i.recommended[0]), &rec(&i.recommended[2])])
            })
            .collect();
        let sep = if lang == Lang::Zh { "；" } else { "; " };
        fill(L::SensFlip.get(lang), &[&rec(&outcome.inputs[0].recommended[1]), &items.join(sep)])
    };
    b.push(Block::Strong(verdict));
    let robust = outcome.robust();
    b.push(Block::Para(match robust.first() {
        Some(p) => fill(L::SensRobust.get(lang), &[&policy(p)]),
        None => t(L::SensNoRobust),
    }));
    let base = first.baseline.clone();
    let others: Vec<&String> = outcome.policies.iter().filter(|p| **p != base).collect();
    let mut head = vec![t(L::SensInput), t(L::SensLevel), t(L::Value), t(L::SensRecommended)];
    for p in &others {
        head.push(format!("{} {}", policy(p), t(L::SensDeltaCost)));
        head.push(format!("{} {}", policy(p), t(L::SensDeltaWaitP95)));
    }
    let signed = |v: f64, d: usize| {
        if !v.is_finite() {
            "–".to_string()
        } else if v > 0.0 {
            format!("+{}", fmt_num(v, d))
        } else {
            fmt_num(v, d)
        }
    };
    let mut table = Vec::new();
    for (k, input) in outcome.inputs.iter().enumerate() {
        for (j, (level, name)) in
            [("low", L::SensLow), ("central", L::SensCentral), ("high", L::SensHigh)].iter().enumerate()
        {
            let value = rows.iter().find(|x| x.input == input.id && x.level == *level).map_or(f64::NAN, |x| x.value);
            let mut row = vec![
                if j == 0 { input_label(rows, &input.id, lang) } else { String::new() },
                t(*name),
                if value.is_finite() { format!("{}", (value * 1e4).round() / 1e4) } else { "–".into() },
                rec(&outcome.inputs[k].recommended[j]),
            ];
            for p in &others {
                row.push(signed(diff(rows, &input.id, level, p, "total_cost_cny"), 0));
                row.push(signed(diff(rows, &input.id, level, p, "wait_p95_h"), 1));
            }
            table.push(row);
        }
    }
    b.push(Block::Table(head, table));
    b
}

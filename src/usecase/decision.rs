//! The decision `burstsim run` prints first (issue 46 item 6): in 10–20 lines, the
//! recommended policy for the stated targets, its yearly cost and the paired difference
//! against the baseline with its 95% CI, the main jobs' waits, how sure the verdict is,
//! and whether the sensitivity band changes it. The full tables follow only with
//! `--verbose`; the files and the report hold them in any case.
//!
//! "Recommended" is the rule of the band and of `burstsim sweep` (reused, not repeated:
//! [`crate::sweep::recommend`]), applied to all of the run's replications with the same
//! targets as the band ([`crate::sensitivity::targets`]). Every word comes from
//! [`crate::i18n`], so the text has an English and a Chinese form.

use crate::experiment::{Results, Stopping, Summaries};
use crate::i18n::{L, Lang, fill};
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::sensitivity::{self, Band, TargetSource};
use crate::stats::{Summary, summarize};
use crate::sweep::recommend::{PointResult, Recommendation, Rule, Verdict, recommend, target_summary};
use crate::target::{Cmp, Target};
use crate::write::fmt_num;

/// The most main classes listed (the rest are in the class table).
const MAX_MAIN_CLASSES: usize = 3;

/// What the decision is read from: one finished run.
pub struct DecisionInput<'a> {
    /// The scenario run.
    pub scenario: &'a Scenario,
    /// Every replication's values (for the paired difference between two policies
    /// when neither is the baseline).
    pub results: &'a Results,
    /// Means, intervals and paired differences against the baseline.
    pub summaries: &'a Summaries,
    /// The targets of `--target` (empty: the scenario's or the default, as the band).
    pub targets: &'a [Target],
    /// The sensitivity band, when computed.
    pub band: Option<&'a Band>,
    /// How the number of years was decided (fixed, or sequential stopping and why it ended).
    pub stopping: &'a Stopping,
}

/// A policy's name as the reader sees it: its label in `lang`, in Chinese quotation
/// marks in a Chinese sentence.
fn shown(scenario: &Scenario, policy: &str, lang: Lang) -> String {
    let name = scenario.names.policies.get(policy, lang);
    match lang {
        Lang::En => name,
        Lang::Zh => format!("“{name}”"),
    }
}

/// An amount of yuan with its sign: `+¥19,058`, `−¥1,200`.
fn signed_money(v: f64) -> String {
    let sign = if fmt_num(v, 0).starts_with('−') { "−" } else { "+" };
    format!("{sign}¥{}", fmt_num(v.abs(), 0))
}

/// Hours with their sign: `+0.25`, `−4.69` (never `−0.00`).
fn signed_hours(v: f64) -> String {
    let text = fmt_num(v, 2);
    if text.starts_with('−') { text } else { format!("+{text}") }
}

/// `1.54 ± 0.32` (the mean alone without a CI; `–` when undefined).
fn pm(s: &Summary) -> String {
    if s.n == 0 || !s.mean.is_finite() {
        return "–".into();
    }
    if s.half_width.is_finite() {
        format!("{} ± {}", fmt_num(s.mean, 2), fmt_num(s.half_width, 2))
    } else {
        fmt_num(s.mean, 2)
    }
}

/// Whether a policy's means (not their CIs) meet every target.
fn means_meet(s: &Summaries, policy: &str, targets: &[Target]) -> bool {
    targets.iter().all(|t| {
        let m = target_summary(s, policy, t).mean;
        m.is_finite() && if t.cmp == Cmp::AtMost { m <= t.value } else { m >= t.value }
    })
}

/// The group classes whose waits the decision shows: those with a deadline, and those a
/// policy treats as main runs, in the scenario's order.
fn main_classes(scenario: &Scenario) -> Vec<String> {
    scenario
        .group
        .iter()
        .enumerate()
        .filter(|(i, c)| {
            c.deadline_hours.is_some() || scenario.policies.iter().any(|p| p.main_class.get(*i) == Some(&true))
        })
        .map(|(_, c)| c.name.clone())
        .take(MAX_MAIN_CLASSES)
        .collect()
}

/// The paired difference `policy − other` of one metric over the same replications.
fn paired(input: &DecisionInput<'_>, policy: &str, other: &str, metric: Metric) -> Summary {
    let s = input.scenario;
    if s.policies[s.baseline].name == other
        && let Some(r) = input.summaries.paired(policy, metric)
    {
        return r.summary;
    }
    let (Some(a), Some(b)) = (s.policy_index(policy), s.policy_index(other)) else {
        return summarize(&[]);
    };
    summarize(&input.results.paired_column(a, b, metric))
}

/// `  cost +¥19,058 (95% CI +¥15,676 to +¥22,440), p95 wait −4.69 h (95% CI …)`.
fn paired_line(input: &DecisionInput<'_>, policy: &str, other: &str, lang: Lang) -> String {
    let cost = paired(input, policy, other, Metric::TotalCost);
    let wait = paired(input, policy, other, Metric::WaitP95);
    let bound = |v: f64, f: fn(f64) -> String| if v.is_finite() { f(v) } else { "–".into() };
    fill(
        L::DecPairedLine.get(lang),
        &[
            &bound(cost.mean, signed_money),
            &bound(cost.low(), signed_money),
            &bound(cost.high(), signed_money),
            &bound(wait.mean, signed_hours),
            &bound(wait.low(), signed_hours),
            &bound(wait.high(), signed_hours),
        ],
    )
}

/// A target as the decision states it ([`Target::in_words`], classes by their display names).
fn target_text(scenario: &Scenario, t: &Target, lang: Lang) -> String {
    t.in_words(lang, &|c| scenario.names.classes.get(c, lang))
}

/// The decision's text, each line ending in a newline.
pub fn render(input: &DecisionInput<'_>, lang: Lang) -> String {
    let scenario = input.scenario;
    let (targets, source) = sensitivity::targets(scenario, input.targets);
    let point = PointResult {
        point: 0,
        label: String::new(),
        summaries: input.summaries.clone(),
        risk: Vec::new(),
        costs: Vec::new(),
    };
    let rec = recommend(std::slice::from_ref(&point), &targets, Rule::MeanYear);
    let years = input.results.replications.len();
    let name = |p: &str| shown(scenario, p, lang);
    let sep = if lang == Lang::Zh { "，" } else { ", " };
    let targets_text = targets.iter().map(|t| target_text(scenario, t, lang)).collect::<Vec<_>>().join(sep);
    let source_text = match source {
        TargetSource::CommandLine => L::DecSourceCli,
        TargetSource::Scenario => L::DecSourceScenario,
        TargetSource::Default => L::DecSourceDefault,
    }
    .get(lang);
    let mut lines = vec![fill(L::DecHead.get(lang), &[&scenario.name, &years.to_string()])];
    let candidates = rec.candidates.to_string();
    // The policy the rest of the text is about: the recommended one, else the closest.
    let subject: Option<&Verdict> = rec.chosen.as_ref().or(rec.closest.as_ref());
    let (head, rule) = match &rec.chosen {
        Some(v) => (fill(L::DecRecommended.get(lang), &[&name(&v.policy)]), L::DecRule),
        None => {
            let closest = rec.closest.as_ref().map_or_else(|| "–".into(), |v| name(&v.policy));
            (fill(L::DecNoneMeets.get(lang), &[&closest]), L::DecNoneRule)
        }
    };
    lines.push(head);
    lines.push(fill(rule.get(lang), &[&targets_text, source_text, &candidates]));
    if let Some(v) = subject {
        lines.extend(cost_and_pair(input, &rec, v, lang));
        lines.extend(waits(input, &v.policy, lang));
    }
    lines.push(fill(L::DecSure.get(lang), &[&years.to_string(), &how_sure(input, &rec, &targets, lang)]));
    let cap = input.scenario.max_replications.to_string();
    match input.stopping {
        Stopping::TargetReached { settled: true, .. } => lines.push(fill(L::DecStopSettled.get(lang), &[&cap])),
        Stopping::TargetReached { settled: false, .. } => lines.push(fill(L::DecStopWidths.get(lang), &[&cap])),
        Stopping::MaximumReached { .. } => lines.push(fill(L::DecStopCap.get(lang), &[&cap])),
        Stopping::Fixed | Stopping::Interrupted { .. } => {}
    }
    lines.extend(band_lines(input, rec.chosen.as_ref().map(|v| v.policy.as_str()), lang));
    lines.push(L::DecMore.get(lang).to_string());
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The subject's cost, then its paired difference against the baseline (or, when it is
/// the baseline, the next policy's that meets the targets against it).
fn cost_and_pair(input: &DecisionInput<'_>, rec: &Recommendation, v: &Verdict, lang: Lang) -> Vec<String> {
    let scenario = input.scenario;
    let name = |p: &str| shown(scenario, p, lang);
    let hw = if v.cost.half_width.is_finite() { fmt_num(v.cost.half_width, 0) } else { "–".into() };
    let mut lines = vec![if scenario.is_one_year() {
        fill(L::DecCostYear.get(lang), &[&fmt_num(v.cost.mean, 0), &hw])
    } else {
        let days = crate::write::num(scenario.window() as f64 / crate::units::DAY as f64);
        fill(L::DecCostWindow.get(lang), &[&fmt_num(v.cost.mean, 0), &days, &hw])
    }];
    let base = &scenario.policies[scenario.baseline].name;
    if &v.policy != base {
        lines.push(fill(L::DecAgainst.get(lang), &[&name(base)]));
        lines.push(paired_line(input, &v.policy, base, lang));
    } else if let Some(next) = rec.met.iter().find(|m| &m.policy != base) {
        lines.push(fill(L::DecIsBaseline.get(lang), &[&name(&next.policy)]));
        lines.push(paired_line(input, &next.policy, base, lang));
    } else {
        lines.push(L::DecIsBaselineAlone.get(lang).to_string());
    }
    lines
}

/// The waits under `policy`: its main classes', then the whole group's.
fn waits(input: &DecisionInput<'_>, policy: &str, lang: Lang) -> Vec<String> {
    let (scenario, s) = (input.scenario, input.summaries);
    let mut lines = vec![fill(L::DecWaitsHead.get(lang), &[&shown(scenario, policy, lang)])];
    for class in main_classes(scenario) {
        let cell = |m: &str| s.class(policy, &class, m).map_or("–".into(), |r| pm(&r.summary));
        let shown_class = scenario.names.classes.get(&class, lang);
        lines.push(fill(L::DecClassWaits.get(lang), &[&shown_class, &cell("wait_mean_h"), &cell("wait_p95_h")]));
    }
    let cell = |m: Metric| s.get(policy, m).map_or("–".into(), |r| pm(&r.summary));
    lines.push(fill(L::DecGroupWaits.get(lang), &[&cell(Metric::WaitMean), &cell(Metric::WaitP95)]));
    lines
}

/// Whether the 95% CIs settle the verdict: the recommended policy is the cheapest, or
/// every cheaper one misses the targets even on its mean (more replications narrow a CI
/// but seldom move a mean across a target); else which policy more replications may
/// bring in.
fn how_sure(input: &DecisionInput<'_>, rec: &Recommendation, targets: &[Target], lang: Lang) -> String {
    let s = input.summaries;
    let name = |p: &str| shown(input.scenario, p, lang);
    match &rec.chosen {
        Some(v) => {
            let cheaper: Vec<&Verdict> = rec.ruled_out.iter().filter(|r| r.cost.mean < v.cost.mean).collect();
            if cheaper.is_empty() {
                L::DecSettledCheapest.get(lang).to_string()
            } else if let Some(c) = cheaper.iter().find(|c| means_meet(s, &c.policy, targets)) {
                fill(L::DecUnsettled.get(lang), &[&name(&c.policy)])
            } else {
                L::DecSettled.get(lang).to_string()
            }
        }
        None => match rec.ruled_out.iter().find(|c| means_meet(s, &c.policy, targets)) {
            Some(c) => fill(L::DecNoneClose.get(lang), &[&name(&c.policy)]),
            None => L::DecNoneFar.get(lang).to_string(),
        },
    }
}

/// One line, two when it flips: whether any input of the band, at its low or high value,
/// recommends another policy (which, and the robust choice); and when the band's own
/// central level (fewer replications) recommends another policy than the whole run, which.
fn band_lines(input: &DecisionInput<'_>, chosen: Option<&str>, lang: Lang) -> Vec<String> {
    let Some(band) = input.band else { return vec![L::DecBandOff.get(lang).to_string()] };
    let name = |p: &Option<String>| {
        p.as_deref().map_or_else(|| L::SensNone.get(lang).to_string(), |p| shown(input.scenario, p, lang))
    };
    let o = band.outcome();
    if o.inputs.is_empty() {
        return vec![L::SensNoInputs.get(lang).to_string()];
    }
    let (inputs, years) = (o.inputs.len().to_string(), band.replications.to_string());
    let central = o.inputs[0].recommended[1].clone();
    let mut flipped = None;
    let mut line = if o.flips() {
        let mut flips = Vec::new();
        for i in o.inputs.iter().filter(|i| i.flips()) {
            let label = if lang == Lang::Zh && !i.label_zh.is_empty() { &i.label_zh } else { &i.label };
            for (k, level) in [(0, L::SensLow), (2, L::SensHigh)] {
                if i.recommended[k] != i.recommended[1] {
                    flips.push(fill(L::DecFlipAt.get(lang), &[label, level.get(lang), &name(&i.recommended[k])]));
                }
            }
        }
        let robust = o.robust().first().cloned();
        let sep = if lang == Lang::Zh { "；" } else { ", " };
        flipped = Some(fill(L::DecBandFlips.get(lang), &[&flips.join(sep), &name(&robust)]));
        fill(L::DecBandFlip.get(lang), &[&inputs, &years])
    } else {
        fill(L::DecBandNoFlip.get(lang), &[&inputs, &years, &name(&central)])
    };
    if central.as_deref() != chosen {
        line.push_str(&fill(L::DecBandCentral.get(lang), &[&years, &name(&central)]));
    }
    std::iter::once(line).chain(flipped).collect()
}

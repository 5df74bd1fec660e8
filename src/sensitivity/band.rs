//! The band's results and what they say: whether the recommendation flips, which policy
//! is robust across the band, `sensitivity.csv` and the terminal section.

use super::{Input, TargetSource};
use crate::experiment::Summaries;
use crate::metric::Metric;
use crate::target::Target;
use crate::write::CsvBytes;
use crate::write::fmt_num;
use crate::write::num;

/// Low, central or high.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LevelKind {
    /// The low end of the input's range.
    Low,
    /// The scenario's own value.
    Central,
    /// The high end.
    High,
}

impl LevelKind {
    /// `low`, `central` or `high` (the CSV's `level` column).
    pub fn name(self) -> &'static str {
        match self {
            LevelKind::Low => "low",
            LevelKind::Central => "central",
            LevelKind::High => "high",
        }
    }
}

/// One level of one input.
#[derive(Clone, Debug)]
pub struct Level {
    /// Which.
    pub kind: LevelKind,
    /// The input's value (a factor for a scale input).
    pub value: f64,
    /// Summaries and paired differences of every policy.
    pub summaries: Summaries,
    /// The cheapest policy meeting the targets, if any.
    pub recommended: Option<String>,
    /// Every policy meeting the targets, cheapest first.
    pub meeting: Vec<String>,
}

/// One input at its three levels.
#[derive(Clone, Debug)]
pub struct InputBand {
    /// The input.
    pub input: Input,
    /// At its low value.
    pub low: Level,
    /// At the scenario's value (the same results for every input).
    pub central: Level,
    /// At its high value.
    pub high: Level,
}

impl InputBand {
    /// The three levels, low first.
    pub fn levels(&self) -> [&Level; 3] {
        [&self.low, &self.central, &self.high]
    }

    /// Whether the recommendation at low or high differs from the central one.
    pub fn flips(&self) -> bool {
        self.low.recommended != self.central.recommended || self.high.recommended != self.central.recommended
    }
}

/// The whole band.
#[derive(Clone, Debug)]
pub struct Band {
    /// Per input.
    pub inputs: Vec<InputBand>,
    /// The central level (the run's first `replications` replications).
    pub central: Level,
    /// The targets that define "recommended".
    pub targets: Vec<Target>,
    /// Where they came from.
    pub source: TargetSource,
    /// Replications per level.
    pub replications: usize,
    /// Policies in the scenario's order.
    pub policies: Vec<String>,
    /// The baseline of the paired differences.
    pub baseline: String,
}

/// The metrics of `sensitivity.csv`: cost and waits, then any other metric a target bounds.
pub const METRICS: [Metric; 3] = [Metric::TotalCost, Metric::WaitMean, Metric::WaitP95];

/// Shown as "none" where no policy meets the targets.
pub const NONE: &str = "none";

impl Band {
    /// Whether any input's low or high changes the recommended policy.
    pub fn flips(&self) -> bool {
        self.outcome().flips()
    }

    /// The metrics written: [`METRICS`], then the headline metrics of the targets.
    pub fn metrics(&self) -> Vec<Metric> {
        let mut m = METRICS.to_vec();
        for t in self.targets.iter().filter(|t| t.class.is_none()) {
            if !m.contains(&t.metric) {
                m.push(t.metric);
            }
        }
        m
    }

    /// What the band says, in the form `sensitivity.csv` also gives ([`BandVerdict::from_rows`]).
    pub fn outcome(&self) -> BandVerdict {
        let cost = |l: &Level, p: &str| l.summaries.get(p, Metric::TotalCost).map_or(f64::NAN, |r| r.summary.mean);
        BandVerdict {
            policies: self.policies.clone(),
            central_cost: self.policies.iter().map(|p| cost(&self.central, p)).collect(),
            inputs: self
                .inputs
                .iter()
                .map(|ib| InputOutcome {
                    id: ib.input.id.clone(),
                    label: ib.input.label.clone(),
                    label_zh: ib.input.label_zh.clone(),
                    recommended: ib.levels().map(|l| l.recommended.clone()),
                    meeting: ib.levels().map(|l| l.meeting.clone()),
                })
                .collect(),
        }
    }

    /// The targets as text, `;`-separated (the CSV's `targets` column).
    pub fn targets_text(&self) -> String {
        self.targets.iter().map(Target::spec).collect::<Vec<_>>().join(";")
    }
}

/// The columns of `sensitivity.csv` (a stable contract: add at the end, never rename).
pub const COLUMNS: [&str; 18] = [
    "input",
    "level",
    "value",
    "policy",
    "metric",
    "unit",
    "mean_diff",
    "ci95_low",
    "ci95_high",
    "replications",
    "recommended",
    "baseline",
    "mean",
    "meets_targets",
    "targets",
    "paths",
    "label",
    "label_zh",
];

/// `sensitivity.csv`: one row per input × level × policy × metric, tidy. `mean_diff` and
/// its CI are the paired difference policy − baseline over the level's replications
/// (0 for the baseline itself); `mean` is the policy's own mean; `recommended` is the
/// level's recommended policy (`none` when no policy meets the targets).
pub fn csv(band: &Band) -> Vec<u8> {
    let mut w = CsvBytes::new(COLUMNS);
    let targets = band.targets_text();
    for ib in &band.inputs {
        for level in ib.levels() {
            let rec = level.recommended.clone().unwrap_or_else(|| NONE.into());
            for policy in &band.policies {
                for m in band.metrics() {
                    let (d, mean) = (level.summaries.paired(policy, m), level.summaries.get(policy, m));
                    let (diff, lo, hi, n) = match d {
                        Some(d) if policy == &band.baseline => (0.0, 0.0, 0.0, d.summary.n),
                        Some(d) => (d.summary.mean, d.summary.low(), d.summary.high(), d.summary.n),
                        None => (f64::NAN, f64::NAN, f64::NAN, 0),
                    };
                    w.row([
                        ib.input.id.clone(),
                        level.kind.name().into(),
                        num(level.value),
                        policy.clone(),
                        m.name().into(),
                        m.unit().into(),
                        num(diff),
                        num(lo),
                        num(hi),
                        n.to_string(),
                        rec.clone(),
                        band.baseline.clone(),
                        num(mean.map_or(f64::NAN, |r| r.summary.mean)),
                        level.meeting.contains(policy).to_string(),
                        targets.clone(),
                        ib.input.paths(),
                        ib.input.label.clone(),
                        ib.input.label_zh.clone(),
                    ]);
                }
            }
        }
    }
    w.finish()
}

fn signed(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        "–".into()
    } else if v > 0.0 {
        format!("+{}", fmt_num(v, decimals))
    } else {
        fmt_num(v, decimals)
    }
}

fn value_text(v: f64, scale: bool) -> String {
    let t = format!("{}", (v * 1e4).round() / 1e4);
    if scale { format!("×{t}") } else { t }
}

/// The terminal section: per input, the value and the recommended policy at each level,
/// and each policy's paired cost and 95th-percentile wait difference; then whether the
/// recommendation flips and the robust choice.
pub fn render(band: &Band) -> String {
    let mut out = String::new();
    let rule = match band.source {
        TargetSource::CommandLine => "--target",
        TargetSource::Scenario => "[sensitivity] targets",
        TargetSource::Default => "the default target",
    };
    out.push_str(&format!(
        "\nSensitivity band: paired difference vs {} at the low, central and high value of each input\n\
         ({} replications per level, the same seeds at every level; recommended = cheapest policy whose 95% CI meets {} ({rule}),\n\
         Bonferroni over the policies)\n",
        band.baseline,
        band.replications,
        band.targets.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(", "),
    ));
    let others: Vec<&String> = band.policies.iter().filter(|p| **p != band.baseline).collect();
    let name_w = others.iter().map(|p| p.chars().count()).max().unwrap_or(0).max(12) + 2;
    let col = 22;
    for ib in &band.inputs {
        let scale = ib.input.is_scale();
        out.push_str(&format!("\n{} ({})\n", ib.input.label, ib.input.paths()));
        let cell = |f: &dyn Fn(&super::Level) -> String| -> String {
            ib.levels().iter().map(|l| format!("{:>col$}", f(l))).collect::<String>()
        };
        out.push_str(&format!("  {:<w$}{}\n", "", cell(&|l| l.kind.name().to_string()), w = name_w + 16));
        out.push_str(&format!("  {:<w$}{}\n", "value", cell(&|l| value_text(l.value, scale)), w = name_w + 16));
        out.push_str(&format!(
            "  {:<w$}{}\n",
            "recommended",
            cell(&|l| l.recommended.clone().unwrap_or_else(|| NONE.into())),
            w = name_w + 16
        ));
        for p in &others {
            for (m, what, d) in [(Metric::TotalCost, "Δ cost (CNY)", 0), (Metric::WaitP95, "Δ p95 wait (h)", 1)] {
                let text = |l: &super::Level| {
                    l.summaries.paired(p, m).map_or("–".into(), |r| {
                        let s = r.summary;
                        if s.half_width.is_finite() {
                            format!("{} ± {}", signed(s.mean, d), fmt_num(s.half_width, d))
                        } else {
                            signed(s.mean, d)
                        }
                    })
                };
                let first = if m == Metric::TotalCost { p.as_str() } else { "" };
                out.push_str(&format!("  {first:<name_w$}{what:<16}{}\n", cell(&text)));
            }
        }
    }
    out.push('\n');
    out.push_str(&verdict(band));
    out.push('\n');
    out
}

/// One or two sentences: whether the recommendation flips (and where), and which policy
/// is robust across the band.
pub fn verdict(band: &Band) -> String {
    let o = band.outcome();
    let r = |x: &Option<String>| x.clone().unwrap_or_else(|| NONE.into());
    let central = o.inputs.first().map_or_else(|| r(&band.central.recommended), |i| r(&i.recommended[1]));
    let flips: Vec<String> = o
        .inputs
        .iter()
        .filter(|i| i.flips())
        .map(|i| format!("{}: {} at low, {} at high", i.label, r(&i.recommended[0]), r(&i.recommended[2])))
        .collect();
    let first = if o.inputs.is_empty() {
        "No input to vary in this scenario.".to_string()
    } else if flips.is_empty() {
        format!("The recommendation does not flip: {central} at every level of every input.")
    } else {
        format!("The recommendation flips (central: {central}): {}.", flips.join("; "))
    };
    let robust = o.robust();
    let second = match robust.first() {
        Some(p) => {
            let rest = if robust.len() > 1 { format!(" (so do {})", robust[1..].join(", ")) } else { String::new() };
            format!(" Robust across the band: {p} meets the targets at every level{rest}.")
        }
        None => " No policy meets the targets at every level of the band.".to_string(),
    };
    first + &second
}

/// What the band says about the recommendation, from a [`Band`] or read back from
/// `sensitivity.csv` (so the charts and the report need nothing else).
#[derive(Clone, Debug, PartialEq)]
pub struct BandVerdict {
    /// Policies in the scenario's order.
    pub policies: Vec<String>,
    /// Mean total cost of each policy at the central level (NaN if unknown).
    pub central_cost: Vec<f64>,
    /// Per input.
    pub inputs: Vec<InputOutcome>,
}

/// One input's recommendations.
#[derive(Clone, Debug, PartialEq)]
pub struct InputOutcome {
    /// Id.
    pub id: String,
    /// English name.
    pub label: String,
    /// Chinese name.
    pub label_zh: String,
    /// Recommended policy at low, central, high (`None`: no policy meets the targets).
    pub recommended: [Option<String>; 3],
    /// Policies meeting the targets at low, central, high.
    pub meeting: [Vec<String>; 3],
}

impl InputOutcome {
    /// Whether low or high recommends another policy than the central value.
    pub fn flips(&self) -> bool {
        self.recommended[0] != self.recommended[1] || self.recommended[2] != self.recommended[1]
    }
}

impl BandVerdict {
    /// Whether any input flips the recommendation.
    pub fn flips(&self) -> bool {
        self.inputs.iter().any(InputOutcome::flips)
    }

    /// The policies that meet the targets at every level of every input, cheapest first
    /// by the central mean cost: the robust choices (none without inputs).
    pub fn robust(&self) -> Vec<String> {
        if self.inputs.is_empty() {
            return Vec::new();
        }
        let mut out: Vec<(f64, String)> = self
            .policies
            .iter()
            .zip(&self.central_cost)
            .filter(|(p, _)| self.inputs.iter().all(|i| i.meeting.iter().all(|m| m.contains(p))))
            .map(|(p, c)| (*c, p.clone()))
            .collect();
        out.sort_by(|a, b| a.0.total_cmp(&b.0));
        out.into_iter().map(|(_, p)| p).collect()
    }

    /// Rebuilds the outcome from the rows of `sensitivity.csv`.
    pub fn from_rows(rows: &[Row]) -> BandVerdict {
        let mut policies: Vec<String> = Vec::new();
        let mut central_cost = Vec::new();
        let mut inputs: Vec<InputOutcome> = Vec::new();
        for r in rows {
            if !policies.contains(&r.policy) {
                policies.push(r.policy.clone());
                central_cost.push(f64::NAN);
            }
            let k = policies.iter().position(|p| *p == r.policy).expect("just added");
            let level = match r.level.as_str() {
                "low" => 0,
                "central" => 1,
                _ => 2,
            };
            if level == 1 && r.metric == Metric::TotalCost.name() && central_cost[k].is_nan() {
                central_cost[k] = r.mean;
            }
            let i = match inputs.iter().position(|i| i.id == r.input) {
                Some(i) => i,
                None => {
                    inputs.push(InputOutcome {
                        id: r.input.clone(),
                        label: r.label.clone(),
                        label_zh: r.label_zh.clone(),
                        recommended: [None, None, None],
                        meeting: [Vec::new(), Vec::new(), Vec::new()],
                    });
                    inputs.len() - 1
                }
            };
            let io = &mut inputs[i];
            io.recommended[level] = (r.recommended != NONE).then(|| r.recommended.clone());
            if r.meets_targets && !io.meeting[level].contains(&r.policy) {
                io.meeting[level].push(r.policy.clone());
            }
        }
        BandVerdict { policies, central_cost, inputs }
    }
}

/// One row of `sensitivity.csv`, read back.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Input id.
    pub input: String,
    /// `low`, `central` or `high`.
    pub level: String,
    /// The input's value.
    pub value: f64,
    /// Policy.
    pub policy: String,
    /// Metric name.
    pub metric: String,
    /// Paired difference policy − baseline.
    pub mean_diff: f64,
    /// Its 95% CI.
    pub ci95_low: f64,
    /// Its 95% CI.
    pub ci95_high: f64,
    /// Replications of the level.
    pub replications: usize,
    /// The level's recommended policy (`none`).
    pub recommended: String,
    /// The baseline.
    pub baseline: String,
    /// The policy's own mean.
    pub mean: f64,
    /// Whether the policy meets the targets at this level.
    pub meets_targets: bool,
    /// The targets, `;`-separated.
    pub targets: String,
    /// English name of the input.
    pub label: String,
    /// Chinese name of the input.
    pub label_zh: String,
}

//! The end of a sweep, once every point is stored: `sweep.csv`, the recommendation or
//! the decisions, `recommendation.txt`, `risk.csv` and `decisions.csv`, and the text the
//! command line prints (header, table, recommendation). `burstsim sweep` and the Python
//! package (`python/`) both finish a sweep here, so their files are the same bytes.

use std::path::Path;

use super::recommend::{self, PointResult, Recommendation};
use super::store::{self, Store, StoreError};
use super::{Role, Sweep, decide, table};
use crate::output::csv::Encoding;
use crate::scenario::Scenario;
use crate::target::Target;
use crate::write::atomic_write;

/// Keeps the sweep's base scenario as `scenario.toml` in `out_dir` (the report shows its
/// parameters and seed; the swept keys, in `sweep.toml`, vary per point).
///
/// # Errors
/// The file cannot be written.
pub fn write_base(out_dir: &Path, base: &toml::Table) -> std::io::Result<()> {
    let text = format!(
        "# burstsim {}: the base scenario of this sweep; the swept keys (sweep.toml) vary per point\n\n{}",
        crate::VERSION,
        toml::to_string(base).unwrap_or_default()
    );
    atomic_write(&out_dir.join("scenario.toml"), text.as_bytes())
}

/// What a finished sweep assembled.
#[derive(Clone, Debug)]
pub struct Assembled {
    /// Every point's results, in point order.
    pub points: Vec<PointResult>,
    /// The scenario points and decisions of the grid.
    pub layout: decide::Layout,
    /// The header, the sweep table and (with targets) the recommendation or the decisions,
    /// as the terminal shows them.
    pub text: String,
    /// With targets: the recommendation under the rule in force (the risk rule with
    /// `risk`, else the mean-year rule).
    pub recommendation: Option<Recommendation>,
    /// With targets: the best decision per scenario point and the robust choices.
    pub analysis: Option<decide::Analysis>,
}

/// Writes the sweep's final files into `out_dir` from the points in `st` (all finished)
/// and returns what the terminal shows. `first` is the scenario of point 0 (its name,
/// policies and replications head the text). Without targets, an earlier sweep's
/// `recommendation.txt`, `risk.csv` and `decisions.csv` are removed: they would be stale.
///
/// # Errors
/// A point that cannot be read back, or a file that cannot be written.
pub fn assemble(
    out_dir: &Path,
    sw: &Sweep,
    st: &Store,
    first: &Scenario,
    targets: &[Target],
    risk: Option<f64>,
    encoding: Encoding,
) -> Result<Assembled, StoreError> {
    let total = sw.points.len();
    let mut summaries = Vec::new();
    let mut raw = Vec::new();
    for p in 0..total {
        let (s, r) = st.load(p)?;
        summaries.push(s);
        raw.push(r);
    }
    atomic_write(&out_dir.join("sweep.csv"), &encoding.encode(store::sweep_csv(sw, &raw)))?;
    // Per point and policy, the simulated years that missed the targets (None: the point
    // was written by an older burstsim without per-year values).
    let risks: Vec<Option<Vec<crate::experiment::risk::PolicyRisk>>> = if targets.is_empty() {
        vec![None; total]
    } else {
        (0..total).map(|p| st.load_risk(p, targets)).collect::<Result<_, _>>()?
    };
    let costs: Vec<Option<Vec<recommend::YearCosts>>> =
        (0..total).map(|p| st.load_costs(p)).collect::<Result<_, _>>()?;
    let points: Vec<PointResult> = summaries
        .into_iter()
        .enumerate()
        .map(|(i, s)| PointResult {
            point: i,
            label: sw.label(i),
            summaries: s,
            risk: risks[i].clone().unwrap_or_default(),
            costs: costs[i].clone().unwrap_or_default(),
        })
        .collect();
    let axes: Vec<decide::Axis> = sw
        .params
        .iter()
        .map(|p| decide::Axis { key: p.key.clone(), role: p.role, weights: p.weights.clone() })
        .collect();
    let layout = decide::layout(&axes, &sw.points, &points);

    let mut text = String::new();
    text.push_str(&format!(
        "{}: sweep of {} points × {} policies, {} replications per point; mean ± 95% CI half-width; \
         one row per decision{}\n\n",
        first.name,
        total,
        first.policies.len(),
        first.replications,
        if layout.condition_keys.is_empty() { String::new() } else { ", grouped by scenario point".to_string() }
    ));
    text.push_str(&table::sweep_table(&layout, &points, !targets.is_empty()));
    let conditions = sw.params.iter().any(|p| p.role == Role::Condition);
    if targets.is_empty() {
        st.record_analysis(sw, targets, risk, None)?;
        // An earlier sweep's recommendation in this folder would be stale now.
        for f in ["recommendation.txt", "risk.csv", "decisions.csv"] {
            let _ = std::fs::remove_file(out_dir.join(f));
        }
        if conditions && sw.params.iter().any(|p| p.role == Role::Decision) {
            text.push_str(
                "\nGive --target to get the best decision at each scenario point and a robust choice across them.\n",
            );
        }
        return Ok(Assembled { points, layout, text, recommendation: None, analysis: None });
    }
    let mean = recommend::recommend(&points, targets, recommend::Rule::MeanYear);
    let rule = match risk {
        None => recommend::Rule::MeanYear,
        Some(max_miss) => recommend::Rule::Risk { max_miss },
    };
    let analysis = decide::analyse(&axes, &sw.points, &points, targets, rule);
    // The bands of the charts are drawn at the confidence of each bound of the rule
    // on means (per scenario point with conditions, over every candidate without).
    let band = match (risk, conditions) {
        (Some(_), _) => None,
        (None, true) => analysis.per_scenario.iter().map(|r| r.confidence_each).reduce(f64::max),
        (None, false) => Some(mean.confidence_each),
    };
    st.record_analysis(sw, targets, risk, band)?;
    atomic_write(&out_dir.join("decisions.csv"), &encoding.encode(analysis.csv(&points)))?;
    // Prose is wrapped to the page width; the tables of the analysis are laid out whole.
    let wrap = |t: String| table::wrap(&t, table::WIDTH);
    let mut chosen = mean.clone();
    let (shown, full) = if conditions {
        // Conditions are not choices: no "cheapest point" over them, but the best
        // decision at each scenario point and a robust choice.
        let shown = analysis.render(&points);
        (shown.clone(), shown + &analysis.render_details(&points))
    } else {
        let equivalents = analysis.render_equivalents();
        let details = analysis.render_details(&points);
        match risk {
            None => (
                wrap(recommend::render(&mean, 12) + &equivalents),
                wrap(recommend::render(&mean, usize::MAX) + &equivalents) + &details,
            ),
            Some(max_miss) => {
                let by_risk = recommend::recommend(&points, targets, recommend::Rule::Risk { max_miss });
                // Only the risk rule's choice reads "choose policy …": charts mark that one.
                let compare = format!("\n{}", recommend::render_comparison(&mean));
                let out = (
                    wrap(recommend::render(&by_risk, 12) + &equivalents + &compare),
                    wrap(recommend::render(&by_risk, usize::MAX) + &equivalents + &compare) + &details,
                );
                chosen = by_risk;
                out
            }
        }
    };
    atomic_write(&out_dir.join("recommendation.txt"), full.as_bytes())?;
    if risks.iter().all(Option::is_some) {
        let all: Vec<_> = risks.iter().map(|r| r.clone().unwrap_or_default()).collect();
        atomic_write(
            &out_dir.join("risk.csv"),
            &encoding.encode(store::risk_csv(sw, targets, &all, &analysis.corrections(total))),
        )?;
    } else {
        let _ = std::fs::remove_file(out_dir.join("risk.csv"));
    }
    text.push('\n');
    text.push_str(&shown);
    Ok(Assembled { points, layout, text, recommendation: Some(chosen), analysis: Some(analysis) })
}

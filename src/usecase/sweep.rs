//! `sweep`: every point of a parameter grid (resuming finished points, in shards across
//! machines), then sweep.csv and, with targets, the recommendation, or with conditions
//! the best decision at each scenario point and a robust choice. `burstsim sweep` and
//! Python's `burstsim.sweep` both go through [`SweepRequest`].

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::cost_eta::CostEta;
use super::{Error, Front, Progress, SecondsLeft, Stage};
use crate::output::csv::Encoding;
use crate::scenario::{Scenario, ScenarioError};
use crate::sweep::assemble::{self, Assembled};
use crate::sweep::{self, Sweep, recommend, store};
use crate::target::Target;
use crate::write::lock::OutputLock;

/// Where a sweep's base scenario comes from.
pub enum SweepSource<'a> {
    /// A scenario file, read when the request is checked.
    Path(&'a Path),
    /// Scenario text and the file name its errors name.
    Text {
        /// The TOML text.
        text: &'a str,
        /// The name errors use (and relative paths start from).
        file: &'a str,
    },
}

/// The arguments of a sweep, as the front end received them.
#[derive(Clone, Debug, Default)]
pub struct SweepOptions {
    /// Swept keys (`KEY=V1,V2` or `KEY=START:STOP:STEP`); none: the scenario's `[sweep]`.
    pub params: Vec<String>,
    /// Swept keys that are decisions.
    pub decisions: Vec<String>,
    /// Swept keys that are conditions (the world, not a choice).
    pub conditions: Vec<String>,
    /// Weights of a condition's values (`KEY=W1,W2`).
    pub weights: Vec<String>,
    /// Targets (`wait_p95_h<=2`).
    pub targets: Vec<String>,
    /// Largest acceptable chance of a year that misses the targets (the risk rule).
    pub risk: Option<f64>,
    /// Replications per point instead of the scenario's.
    pub replications: Option<u32>,
    /// Master seed instead of the scenario's.
    pub seed: Option<u64>,
    /// `POLICY_A,POLICY_B`: where their mean costs cross along a one-parameter sweep.
    pub break_even: Option<String>,
    /// The folder (default: `output/<name>-sweep`, or `output/<name>` when the name ends in
    /// "sweep").
    pub out: Option<PathBuf>,
    /// This process's share of the points (`INDEX/COUNT`).
    pub shard: Option<String>,
    /// Keep the finished points of a folder that holds this same sweep.
    pub resume: bool,
    /// Replace another sweep's folder.
    pub force: bool,
    /// Worker threads (default: one per core); results do not depend on it.
    pub threads: Option<usize>,
    /// CSV files for Excel (UTF-8 with a byte-order mark, `;`-separated where needed).
    pub excel: bool,
    /// How the other groups' campus is simulated at every point, instead of the
    /// scenario's (`simulation.campus_model`).
    pub campus_model: Option<crate::scenario::raw::CampusModel>,
}

/// A checked sweep: the grid, its targets and its folder.
pub struct SweepRequest {
    sw: Sweep,
    first: Scenario,
    targets: Vec<Target>,
    risk: Option<f64>,
    pairs: Option<(String, String)>,
    out_dir: PathBuf,
    shard: Option<(u32, u32)>,
    resume: bool,
    force: bool,
    encoding: Encoding,
    pool: rayon::ThreadPool,
}

impl SweepRequest {
    /// Checks the arguments and builds the grid (every point's scenario is checked when
    /// it runs; the first one now).
    ///
    /// # Errors
    /// A bad argument ([`Error::Usage`]), scenario or parameter.
    pub fn new(source: SweepSource<'_>, o: &SweepOptions, front: Front) -> Result<SweepRequest, Error> {
        let targets = o
            .targets
            .iter()
            .map(|t| crate::target::parse_target(t).map_err(Error::Usage))
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(r) = o.risk {
            if !(r.is_finite() && r > 0.0 && r < 1.0) {
                return Err(Error::Usage(format!(
                    "{} is not allowed; give the largest acceptable chance of a year that misses, between 0 and 1, e.g. 0.1",
                    front.arg("risk", r)
                )));
            }
            if targets.is_empty() {
                return Err(Error::Usage(match front {
                    Front::Cli => "--risk needs at least one --target, e.g. --target 'wait_p95_h<=2' --risk 0.1".into(),
                    Front::Python => "risk needs at least one target, e.g. target='wait_p95_h<=2'".into(),
                }));
            }
        }
        let (text, file) = match source {
            SweepSource::Path(p) => (
                std::fs::read_to_string(p)
                    .map_err(|cause| ScenarioError::Read { path: p.display().to_string(), cause })?,
                p.display().to_string(),
            ),
            SweepSource::Text { text, file } => (text.to_string(), file.to_string()),
        };
        let mut sw = Sweep::new(&text, &file, &o.params)?;
        for key in &o.decisions {
            sw.set_role(key, crate::scenario::keys::Role::Decision)?;
        }
        for key in &o.conditions {
            sw.set_role(key, crate::scenario::keys::Role::Condition)?;
        }
        for spec in &o.weights {
            let (key, w) = sweep::parse_weights(spec)?;
            sw.set_weights(&key, w)?;
        }
        if let Some(n) = o.replications {
            if n == 0 {
                return Err(Error::Usage(format!("{} is not allowed", front.arg("replications", 0))));
            }
            front.check_replications("replications", n)?;
            crate::scenario::keys::set_path(&mut sw.base, "simulation.replications", &n.to_string())?;
        }
        if let Some(s) = o.seed {
            crate::scenario::keys::set_path(&mut sw.base, "simulation.seed", &s.to_string())?;
        }
        if let Some(m) = o.campus_model {
            crate::scenario::keys::set_path(&mut sw.base, "simulation.campus_model", m.key())?;
        }
        let first = sw.scenario(0)?;
        crate::target::check_classes(&targets, &first.class_names()).map_err(Error::Usage)?;
        let pairs = match &o.break_even {
            None => None,
            Some(spec) => Some(break_even_pair(&first, spec)?),
        };
        // output/threshold-sweep/, not output/threshold-sweep-sweep/; a scenario whose name
        // does not say "sweep" gets the suffix, so its sweep never meets its run's folder.
        let folder = if first.name.ends_with("sweep") { first.name.clone() } else { format!("{}-sweep", first.name) };
        let out_dir = o.out.clone().unwrap_or_else(|| Path::new("output").join(folder));
        let shard = o.shard.as_deref().map(crate::output::shard::parse_spec).transpose()?;
        let pool = super::pool(o.threads, front)?;
        Ok(SweepRequest {
            sw,
            first,
            targets,
            risk: o.risk,
            pairs,
            out_dir,
            shard,
            resume: o.resume,
            force: o.force,
            encoding: Encoding::excel(o.excel),
            pool,
        })
    }

    /// The sweep's folder.
    pub fn dir(&self) -> &Path {
        &self.out_dir
    }

    /// Takes the folder, runs every point this process owns that is not finished yet,
    /// and, once all are, writes sweep.csv and what the targets decide.
    ///
    /// # Errors
    /// The folder is another process's or another sweep's, a point does not validate or
    /// runs away, a file cannot be written, or points were changed by another process.
    pub fn run(&self, progress: &dyn Progress, stop: &(dyn Fn() -> bool + Sync)) -> Result<SweepEnd, Error> {
        let (sw, out_dir, shard) = (&self.sw, &self.out_dir, self.shard);
        // Shards of one sweep share the folder: none may remove the others' points.
        // A folder holding this same sweep keeps its finished points (shards of one sweep
        // share it); another sweep's folder is refused unless --force.
        let lock = match shard {
            None => OutputLock::exclusive(out_dir, "sweep")?,
            // The shards of one sweep write the folder together, each holding its own slot.
            Some((i, n)) => {
                OutputLock::shared(out_dir, "sweep shard", &store::sweep_hash(sw), &format!("shard-{i}-of-{n}"))?
            }
        };
        if let Some(n) = lock.notice() {
            progress.note(n);
        }
        let st = store::Store::open(out_dir, sw, self.resume || shard.is_some(), self.force)?;
        let total = sw.points.len();
        let done_before = (0..total).filter(|&p| st.is_done(p)).count();
        if done_before > 0 {
            progress.detail(&if self.resume || shard.is_some() {
                format!("resuming: {done_before} of {total} points already finished in {}", out_dir.display())
            } else {
                format!(
                    "'{}' holds this same sweep: reusing its {done_before} of {total} finished points (the same numbers; --force recomputes them)",
                    out_dir.display()
                )
            });
        }
        // Progress in policy-replications, the unit of work: a point that reuses a policy
        // simulated at an earlier point costs less, and counting points made the ETA wrong.
        let to_run = |p: usize| !(st.is_done(p) || shard.is_some_and(|(i, n)| p as u32 % n != i));
        let order = interleaved(total);
        // The time left prices each policy-replication from measured costs (cost_eta.rs).
        let mut planned = std::collections::HashSet::new();
        let (mut total_work, mut eta) = (0u64, CostEta::default());
        for &p in &order {
            if to_run(p) {
                let scn = sw.scenario(p)?;
                for k in (0..scn.policies.len()).filter(|&k| planned.insert(sweep::policy_key(&scn, k))) {
                    eta.plan(&scn.policies[k].name, &sw.points[p], u64::from(scn.replications));
                    total_work += u64::from(scn.replications);
                }
            }
        }
        let eta = std::sync::Arc::new(std::sync::Mutex::new(eta));
        let for_bar = std::sync::Arc::clone(&eta);
        let seconds_left: SecondsLeft = std::sync::Arc::new(move |now| for_bar.lock().ok()?.seconds_left(now));
        progress.start(Stage::Counted {
            total: total_work,
            what: "policy-replications",
            seconds_left: Some(seconds_left),
        });
        let started = Instant::now();
        let mut cache = std::collections::HashMap::new();
        for &p in &order {
            if !to_run(p) {
                continue;
            }
            let scn = sw.scenario(p)?;
            progress.label(&format!("policy-replications, point {}", sw.label(p)));
            let tick = |timed: &[(usize, std::time::Duration)]| {
                if let Ok(mut e) = eta.lock() {
                    let at = started.elapsed().as_secs_f64();
                    for &(k, d) in timed {
                        e.finished(&scn.policies[k].name, &sw.points[p], d.as_secs_f64(), at);
                    }
                }
                progress.advance(timed.len() as u64);
            };
            let Some(results) = self.pool.install(|| sweep::run_point_costed(&scn, &mut cache, &tick, stop))? else {
                progress.finish();
                let done = (0..total).filter(|&p| st.is_done(p)).count();
                return Ok(SweepEnd::Interrupted { done, total });
            };
            st.save(p, &sw.label(p), &scn, &results)?;
        }
        progress.finish();
        let done = (0..total).filter(|&p| st.is_done(p)).count();
        if done < total {
            let Some((index, count)) = shard else {
                // Every point ran in this process: a point that reads as unfinished now was
                // replaced by another process writing there without the lock (an older burstsim).
                let missing: Vec<String> = (0..total).filter(|&p| !st.is_done(p)).map(|p| format!("{p:04}")).collect();
                return Err(Error::Failed(format!(
                    "points {} in '{}' were changed by another process while this sweep ran; nothing was assembled. \
                     Run the sweep again into a folder that only it writes",
                    missing.join(", "),
                    out_dir.display()
                )));
            };
            return Ok(SweepEnd::ShardFinished { index, count, done, total });
        }
        let assembled = assemble::assemble(out_dir, sw, &st, &self.first, &self.targets, self.risk, self.encoding)?;
        let report = self.report(&assembled, progress);
        Ok(SweepEnd::Assembled(Box::new(SweepOutcome {
            dir: out_dir.clone(),
            assembled,
            report,
            base: sw.base.clone(),
            with_targets: !self.targets.is_empty(),
            total,
            done_before,
            started,
            _lock: lock,
        })))
    }

    /// The terminal's text: the assembled table and recommendation, then the break-even
    /// utilisation of the scenario's prices and, with `--break-even`, where two policies'
    /// mean costs cross.
    fn report(&self, assembled: &Assembled, progress: &dyn Progress) -> String {
        let (sw, points) = (&self.sw, &assembled.points);
        let mut report = assembled.text.clone();
        let lines = recommend::break_even_lines(&self.first);
        if !lines.is_empty() {
            report.push_str("\nMonthly vs hourly from the scenario's prices (break-even utilisation):\n");
            for l in lines {
                report.push_str(&format!("  {l}\n"));
            }
        }
        if let Some((x, y)) = &self.pairs {
            if sw.params.len() != 1 {
                progress.note("warning: --break-even needs a one-parameter sweep; skipped");
            } else {
                let values: Vec<f64> = sw.params[0].values.iter().map(|v| v.parse().unwrap_or(f64::NAN)).collect();
                match recommend::crossing(points, &values, x, y) {
                    Some(c) => {
                        report.push_str(&format!(
                            "\nBreak-even along {}: the mean costs of '{x}' and '{y}' cross at about {:.3}; below it '{}' is cheaper.\n",
                            sw.params[0].key, c.value, c.cheaper_below
                        ));
                        for (name, u) in [(x, c.monthly_utilization.0), (y, c.monthly_utilization.1)] {
                            if u.is_finite() {
                                report.push_str(&format!(
                                    "  There '{name}' keeps its monthly GPUs about {:.0}% busy.\n",
                                    u * 100.0
                                ));
                            }
                        }
                    }
                    None => report.push_str(&format!(
                        "\nBreak-even along {}: the mean costs of '{x}' and '{y}' do not cross in the swept range.\n",
                        sw.params[0].key
                    )),
                }
            }
        }
        report
    }
}

/// `--break-even POLICY_A,POLICY_B`, both policies of the scenario.
fn break_even_pair(first: &Scenario, spec: &str) -> Result<(String, String), Error> {
    let (x, y) =
        spec.split_once(',').ok_or_else(|| Error::Usage(format!("--break-even '{spec}' must be POLICY_A,POLICY_B")))?;
    for p in [x, y] {
        if first.policy_index(p.trim()).is_none() {
            let names: Vec<&str> = first.policies.iter().map(|p| p.name.as_str()).collect();
            return Err(Error::Usage(format!(
                "--break-even: no policy is named '{}'; the policies are: {}",
                p.trim(),
                names.join(", ")
            )));
        }
    }
    Ok((x.trim().to_string(), y.trim().to_string()))
}

/// How a sweep's run ended.
pub enum SweepEnd {
    /// A stop came before every point was done; the finished points are kept.
    Interrupted {
        /// Points finished (by this process or earlier).
        done: usize,
        /// Points of the grid.
        total: usize,
    },
    /// This shard's points are done, others' are not yet: nothing was assembled.
    ShardFinished {
        /// This shard's index.
        index: u32,
        /// Shards in all.
        count: u32,
        /// Points finished.
        done: usize,
        /// Points of the grid.
        total: usize,
    },
    /// Every point is done and the sweep's files are written.
    Assembled(Box<SweepOutcome>),
}

/// A finished sweep. It holds the folder's lock until dropped, so that the caller can
/// finish the folder (the base scenario, the charts) before another process writes there.
pub struct SweepOutcome {
    /// The sweep's folder.
    pub dir: PathBuf,
    /// Every point's results, the layout, the recommendation or decisions.
    pub assembled: Assembled,
    /// What the terminal shows: the assembled text and the break-even sections.
    pub report: String,
    base: toml::Table,
    with_targets: bool,
    total: usize,
    done_before: usize,
    started: Instant,
    _lock: OutputLock,
}

impl SweepOutcome {
    /// The line naming the files written (after the report).
    pub fn files(&self) -> String {
        format!(
            "\nFiles: {}/sweep.csv, points/*/{{summary,paired}}.csv{}\n",
            self.dir.display(),
            if self.with_targets { ", recommendation.txt, risk.csv, decisions.csv" } else { "" }
        )
    }

    /// Keeps the sweep's base scenario as `scenario.toml` (the report shows its
    /// parameters and seed); the charts come after it.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write_base(&self) -> std::io::Result<()> {
        assemble::write_base(&self.dir, &self.base)
    }

    /// The warning when the campus is unstable in some replications at some points.
    pub fn unstable(&self) -> Option<String> {
        let points = &self.assembled.points;
        let unstable: usize =
            points.iter().filter(|p| p.summaries.rows.iter().any(|r| r.unstable_replications > 0)).count();
        (unstable > 0).then(|| {
            format!(
                "warning: the campus is unstable in some replications at {unstable} of {} points (offered load ≥ 1 or a growing backlog); their averages depend on the horizon. Unstable:\n  {}",
                self.total,
                sweep::table::unstable(&self.assembled.layout, points).join("\n  ")
            )
        })
    }

    /// Points, how many were resumed, and the seconds since the points started.
    pub fn timing(&self) -> String {
        format!("{} points ({} resumed) in {:.1} s", self.total, self.done_before, self.started.elapsed().as_secs_f64())
    }
}

/// The order the points of a sweep run in: every point once, by a stride of about
/// n/φ (the golden ratio) coprime with n, so that the first points done already mix
/// every part of the grid. A grid runs its last axis fastest, and the cost of a
/// policy-replication differs between its blocks (2.5× between the two halves of the
/// exam-season sweep): run in grid order, the ETA at the average rate was off by more than
/// 30% at every sample (scripts/eta-check.py). Each point's numbers do not depend on the
/// order (policies reused between points are the same numbers either way), nor do the
/// files, which are stored by point index.
fn interleaved(n: usize) -> Vec<usize> {
    if n < 3 {
        return (0..n).collect();
    }
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let mut stride = ((n as f64) / 1.618_033_988_75).round() as usize;
    while gcd(stride, n) != 1 {
        stride += 1;
    }
    (0..n).map(|k| k * stride % n).collect()
}

#[cfg(test)]
mod tests {
    use super::interleaved;

    #[test]
    fn the_interleaved_order_runs_every_point_once_and_mixes_the_grid() {
        for n in 0..200 {
            let mut order = interleaved(n);
            // The first fifth of the points already reaches both halves of the grid.
            if n >= 10 {
                let first = &order[..n / 5];
                assert!(first.iter().any(|&p| p < n / 2) && first.iter().any(|&p| p >= n / 2), "n = {n}: {first:?}");
            }
            order.sort_unstable();
            assert_eq!(order, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }
}

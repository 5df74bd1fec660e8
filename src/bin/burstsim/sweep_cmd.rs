//! `burstsim sweep SCENARIO`: runs every point of a parameter grid (resuming finished
//! points, in shards across machines), writes sweep.csv, and judges the targets: the
//! recommendation, or with conditions the best decision at each scenario point and a robust
//! choice. The longest subcommand, so it has its own file like `plot` and `fit`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Result, bail};
use burstsim::output;
use burstsim::scenario::ScenarioError;

use crate::args::SweepArgs;
use crate::common::{
    EXIT_INTERRUPTED, SecondsLeft, UsageError, announced, interrupted, lock_out_dir, pool, progress_bar_with,
};
use crate::cost_eta::CostEta;

/// Runs `burstsim sweep`.
pub(crate) fn sweep(a: SweepArgs) -> Result<ExitCode> {
    use burstsim::sweep::{self, Sweep, recommend, store};
    let targets =
        a.targets.iter().map(|t| recommend::parse_target(t).map_err(UsageError)).collect::<Result<Vec<_>, _>>()?;
    if let Some(r) = a.risk {
        if !(r.is_finite() && r > 0.0 && r < 1.0) {
            bail!(UsageError(format!(
                "--risk {r} is not allowed; give the largest acceptable chance of a year that misses, between 0 and 1, e.g. 0.1"
            )));
        }
        if targets.is_empty() {
            bail!(UsageError("--risk needs at least one --target, e.g. --target 'wait_p95_h<=2' --risk 0.1".into()));
        }
    }
    let text = std::fs::read_to_string(&a.scenario)
        .map_err(|cause| ScenarioError::Read { path: a.scenario.display().to_string(), cause })?;
    let file = a.scenario.display().to_string();
    let mut sw = Sweep::new(&text, &file, &a.params)?;
    for key in &a.decisions {
        sw.set_role(key, sweep::Role::Decision)?;
    }
    for key in &a.conditions {
        sw.set_role(key, sweep::Role::Condition)?;
    }
    for spec in &a.weights {
        let (key, w) = sweep::parse_weights(spec)?;
        sw.set_weights(&key, w)?;
    }
    if let Some(n) = a.replications {
        if n == 0 {
            bail!(UsageError("--replications 0 is not allowed".into()));
        }
        sweep::set_path(&mut sw.base, "simulation.replications", &n.to_string())?;
    }
    if let Some(s) = a.seed {
        sweep::set_path(&mut sw.base, "simulation.seed", &s.to_string())?;
    }
    let first = sw.scenario(0)?;
    burstsim::target::check_classes(&targets, &first.class_names()).map_err(UsageError)?;
    let pairs = match &a.break_even {
        None => None,
        Some(spec) => {
            let (x, y) = spec
                .split_once(',')
                .ok_or_else(|| UsageError(format!("--break-even '{spec}' must be POLICY_A,POLICY_B")))?;
            for p in [x, y] {
                if first.policy_index(p.trim()).is_none() {
                    let names: Vec<&str> = first.policies.iter().map(|p| p.name.as_str()).collect();
                    bail!(UsageError(format!(
                        "--break-even: no policy is named '{}'; the policies are: {}",
                        p.trim(),
                        names.join(", ")
                    )));
                }
            }
            Some((x.trim().to_string(), y.trim().to_string()))
        }
    };
    // output/threshold-sweep/, not output/threshold-sweep-sweep/; a scenario whose name
    // does not say "sweep" gets the suffix, so its sweep never meets its run's folder.
    let folder = if first.name.ends_with("sweep") { first.name.clone() } else { format!("{}-sweep", first.name) };
    let out_dir = a.out.clone().unwrap_or_else(|| std::path::Path::new("output").join(folder));
    let shard = a.shard.as_deref().map(burstsim::output::shard::parse_spec).transpose()?;
    // Shards of one sweep share the folder: none may remove the others' points.
    // A folder holding this same sweep keeps its finished points (shards of one sweep
    // share it); another sweep's folder is refused unless --force.
    let _lock = match shard {
        None => lock_out_dir(&out_dir, "sweep")?,
        // The shards of one sweep write the folder together, each holding its own slot.
        Some((i, n)) => announced(burstsim::write::lock::OutputLock::shared(
            &out_dir,
            "sweep shard",
            &store::sweep_hash(&sw),
            &format!("shard-{i}-of-{n}"),
        )?),
    };
    let st = store::Store::open(&out_dir, &sw, a.resume || shard.is_some(), a.force)?;
    let pool = pool(a.threads)?;
    let total = sw.points.len();
    let done_before = (0..total).filter(|&p| st.is_done(p)).count();
    if done_before > 0 && !a.quiet {
        if a.resume || shard.is_some() {
            say!("burstsim: resuming: {done_before} of {total} points already finished in {}", out_dir.display());
        } else {
            say!(
                "burstsim: '{}' holds this same sweep: reusing its {done_before} of {total} finished points (the same numbers; --force recomputes them)",
                out_dir.display()
            );
        }
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
    let pb = progress_bar_with(total_work, a.quiet, "policy-replications", Some(seconds_left));
    let started = Instant::now();
    let mut cache = std::collections::HashMap::new();
    for &p in &order {
        if !to_run(p) {
            continue;
        }
        let scn = sw.scenario(p)?;
        pb.set_message(format!("policy-replications, point {}", sw.label(p)));
        let tick = |timed: &[(usize, std::time::Duration)]| {
            if let Ok(mut e) = eta.lock() {
                let at = pb.elapsed().as_secs_f64();
                for &(k, d) in timed {
                    e.finished(&scn.policies[k].name, &sw.points[p], d.as_secs_f64(), at);
                }
            }
            pb.inc(timed.len() as u64);
        };
        let Some(results) = pool.install(|| sweep::run_point_costed(&scn, &mut cache, &tick, &interrupted))? else {
            pb.finish_and_clear();
            let done = (0..total).filter(|&p| st.is_done(p)).count();
            say!(
                "burstsim: interrupted: {done} of {total} points are finished and kept in {}; continue with the same command plus --resume",
                out_dir.display()
            );
            return Ok(ExitCode::from(EXIT_INTERRUPTED));
        };
        st.save(p, &sw.label(p), &scn, &results)?;
    }
    pb.finish_and_clear();
    let done = (0..total).filter(|&p| st.is_done(p)).count();
    if done < total {
        let Some((i, n)) = shard else {
            // Every point ran in this process: a point that reads as unfinished now was
            // replaced by another process writing there without the lock (an older burstsim).
            let missing: Vec<String> = (0..total).filter(|&p| !st.is_done(p)).map(|p| format!("{p:04}")).collect();
            bail!(
                "points {} in '{}' were changed by another process while this sweep ran; nothing was assembled. \
                 Run the sweep again into a folder that only it writes",
                missing.join(", "),
                out_dir.display()
            );
        };
        say!(
            "burstsim: sweep shard {i}/{n} finished; {done} of {total} points are done in {}. When every shard has finished, \
             `burstsim sweep {} --resume --out {}` (same options) assembles sweep.csv",
            out_dir.display(),
            a.scenario.display(),
            out_dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let encoding = output::csv::Encoding::excel(a.excel);
    let sweep::assemble::Assembled { points, layout, text: mut report, .. } =
        sweep::assemble::assemble(&out_dir, &sw, &st, &first, &targets, a.risk, encoding)?;
    let lines = recommend::break_even_lines(&first);
    if !lines.is_empty() {
        report.push_str("\nMonthly vs hourly from the scenario's prices (break-even utilisation):\n");
        for l in lines {
            report.push_str(&format!("  {l}\n"));
        }
    }
    if let Some((x, y)) = pairs {
        if sw.params.len() != 1 {
            say!("burstsim: warning: --break-even needs a one-parameter sweep; skipped");
        } else {
            let values: Vec<f64> = sw.params[0].values.iter().map(|v| v.parse().unwrap_or(f64::NAN)).collect();
            match recommend::crossing(&points, &values, &x, &y) {
                Some(c) => {
                    report.push_str(&format!(
                        "\nBreak-even along {}: the mean costs of '{x}' and '{y}' cross at about {:.3}; below it '{}' is cheaper.\n",
                        sw.params[0].key, c.value, c.cheaper_below
                    ));
                    for (name, u) in [(&x, c.monthly_utilization.0), (&y, c.monthly_utilization.1)] {
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
    if !a.quiet {
        print!("{report}");
        println!(
            "\nFiles: {}/sweep.csv, points/*/{{summary,paired}}.csv{}",
            out_dir.display(),
            if targets.is_empty() { "" } else { ", recommendation.txt, risk.csv, decisions.csv" }
        );
    }
    crate::plot_cmd::after_sweep(&out_dir, &sw.base, a.no_charts, a.quiet);
    let unstable: usize =
        points.iter().filter(|p| p.summaries.rows.iter().any(|r| r.unstable_replications > 0)).count();
    if unstable > 0 {
        say!(
            "burstsim: warning: the campus is unstable in some replications at {unstable} of {total} points (offered load ≥ 1 or a growing backlog); their averages depend on the horizon. Unstable:\n  {}",
            sweep::table::unstable(&layout, &points).join("\n  ")
        );
    }
    say!("burstsim: {} points ({} resumed) in {:.1} s", total, done_before, started.elapsed().as_secs_f64());
    Ok(ExitCode::SUCCESS)
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

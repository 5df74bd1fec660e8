//! `burstsim calibrate SCENARIO`: fit the scenario's unmeasured campus inputs to what the
//! group observed, print the fitted values with intervals and each observation's
//! residual, and write the calibrated scenario and its CSVs.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use burstsim::evidence::calibrate::{self, CalibrateError, Calibration, spec::Who, write};
use burstsim::trace::{self, ReadOptions};
use burstsim::write::atomic_write;

use crate::args::CalibrateArgs;
use crate::common::UsageError;

/// Files a calibration writes (an output folder holding only these may be rewritten).
const OWN_FILES: [&str; 4] =
    ["calibration.csv", "calibration_residuals.csv", "calibration_points.csv", "calibrated.toml"];

/// Runs `burstsim calibrate`.
pub fn calibrate(a: CalibrateArgs) -> Result<ExitCode> {
    let file = a.scenario.display().to_string();
    let text = std::fs::read_to_string(&a.scenario).with_context(|| format!("could not read scenario '{file}'"))?;
    let extra = match &a.sacct {
        None => Vec::new(),
        Some(log) => {
            let who = match a.log_jobs.as_str() {
                "group" => Who::Group,
                "campus" => Who::Campus,
                other => {
                    return Err(UsageError(format!("--log-jobs '{other}': use group or campus")).into());
                }
            };
            let t = trace::read_file(log, &ReadOptions::default())?;
            calibrate::sacct::observations(&t, &log.display().to_string(), who, a.account.as_deref())
                .map_err(|e| UsageError(e.to_string()))?
        }
    };
    let (mut spec, scenario, doc) = calibrate::prepare(&text, &file, extra).map_err(bad_input)?;
    if let Some(n) = a.replications {
        if n < 2 {
            return Err(UsageError("--replications: at least 2 per point".into()).into());
        }
        spec.replications = n;
    }
    if let Some(b) = a.budget {
        spec.budget = b;
    }
    let mut doc = doc;
    if let Some(seed) = a.seed {
        burstsim::sweep::set_path(&mut doc, "simulation.seed", &seed.to_string())?;
    }
    let out = a.out.clone().unwrap_or_else(|| PathBuf::from("output").join(format!("{}-calibration", scenario.name)));
    check_out_dir(&out, a.force)?;
    let base = a.scenario.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = a.threads {
        if n == 0 {
            return Err(UsageError("--threads 0 is not allowed; give at least 1".into()).into());
        }
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("could not start the worker threads")?;
    let budget = spec.budget;
    let pb = if a.quiet {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::with_draw_target(Some(u64::from(budget)), indicatif::ProgressDrawTarget::stderr())
    };
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} calibrating: points [{bar:30}] {pos}/{len} (at most; {elapsed})",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    let started = Instant::now();
    let stop = crate::common::interrupted;
    let result = pool.install(|| {
        calibrate::run(spec, &scenario, &doc, &base, &file, &|done, _| pb.set_position(done as u64), &stop)
    });
    pb.finish_and_clear();
    let cal = result.map_err(bad_input)?;
    print_table(&cal);
    std::fs::create_dir_all(&out).with_context(|| format!("could not create '{}'", out.display()))?;
    let write_file = |name: &str, body: String| {
        atomic_write(&out.join(name), body.as_bytes())
            .with_context(|| format!("could not write '{}'", out.join(name).display()))
    };
    write_file("calibrated.toml", write::calibrated_toml(&text, &cal, &file))?;
    write_file("calibration.csv", write::fitted_csv(&cal))?;
    write_file("calibration_residuals.csv", write::residuals_csv(&cal))?;
    write_file("calibration_points.csv", write::points_csv(&cal))?;
    if !a.quiet {
        say!(
            "burstsim: {} points in {:.1} s; wrote {}/calibrated.toml and calibration*.csv",
            cal.points.len(),
            started.elapsed().as_secs_f64(),
            out.display()
        );
    }
    if cal.stopped {
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

/// Calibration errors as the binary's error kinds: bad input exits 2.
fn bad_input(e: CalibrateError) -> anyhow::Error {
    match e {
        CalibrateError::Scenario(e) => e.into(),
        CalibrateError::Sweep(e) => e.into(),
        CalibrateError::Interrupted => anyhow::anyhow!("{e}"),
        other => UsageError(other.to_string()).into(),
    }
}

/// Refuses an output folder that holds files a calibration did not write (unless --force).
fn check_out_dir(dir: &Path, force: bool) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let foreign: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !OWN_FILES.contains(&n.as_str()))
        .collect();
    if !foreign.is_empty() && !force {
        return Err(UsageError(format!(
            "'{}' holds files a calibration did not write ({}); choose another --out or give --force",
            dir.display(),
            foreign.join(", ")
        ))
        .into());
    }
    Ok(())
}

fn print_table(cal: &Calibration) {
    let pct = 100.0 * cal.spec.confidence;
    println!(
        "Calibration of policy {} ({} replications per point, {} points)",
        cal.policy,
        cal.spec.replications,
        cal.points.len()
    );
    println!();
    println!("{:<48} {:>10} {:>24}   range", "input", "fitted", format!("{pct:.0}% interval"));
    for f in &cal.fitted {
        let iv = format!(
            "{}{} to {}{}",
            if f.low_open { "≤" } else { "" },
            f.low,
            f.high,
            if f.high_open { "+" } else { "" }
        );
        println!("{:<48} {:>10} {:>24}   {} to {}", f.input.name, f.value, iv, f.input.low, f.input.high);
    }
    println!();
    println!("{:<48} {:>16} {:>26} {:>7}", "observation", "observed (h)", "simulated (h, 95% CI)", "z");
    for r in &cal.residuals {
        let o = &r.observation;
        let (sim, z) = match &r.simulated {
            Some(s) => (
                format!("{:.2} ({:.2} to {:.2})", s.summary.mean, s.summary.low(), s.summary.high()),
                format!("{:+.2}", s.z(o.value)),
            ),
            None => ("no job".into(), "-".into()),
        };
        println!(
            "{:<48} {:>16} {:>26} {:>7}{}",
            o.label,
            format!("{} ± {}", o.value, o.tolerance),
            sim,
            z,
            if r.met { "" } else { "  NOT MET" }
        );
    }
    println!();
    for line in write::notes(cal) {
        println!("{line}");
    }
    let unmet: Vec<_> = cal.residuals.iter().filter(|r| !r.met).collect();
    if unmet.is_empty() {
        println!("The calibrated scenario meets every observation within its tolerance and the simulation's spread.");
    } else {
        println!(
            "The calibration cannot meet {} of {} observations within the ranges:",
            unmet.len(),
            cal.residuals.len()
        );
        for r in unmet {
            let o = &r.observation;
            match &r.simulated {
                Some(s) => println!(
                    "  {}: simulated {:.2} h, observed {} h ± {} h: off by {:+.2} h ({:+.1} scales)",
                    o.label,
                    s.summary.mean,
                    o.value,
                    o.tolerance,
                    s.residual(o.value),
                    s.z(o.value)
                ),
                None => println!("  {}: no simulated job in it", o.label),
            }
        }
    }
    if cal.budget_cut_search {
        println!(
            "note: the search used its whole budget before its finest step; a larger --budget may find a better point"
        );
    }
    if cal.intervals_cut {
        println!(
            "warning: the budget ran out before every interval end was found to 1/16 of its range: \
             the intervals may be narrower than the observations allow; raise --budget"
        );
    }
    if cal.stopped {
        println!("note: interrupted; these results are from the points evaluated so far");
    }
}

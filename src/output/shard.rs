//! Scaling out with Slurm job arrays: `--shard i/n` runs replications i, i+n, i+2n, … and
//! writes a shard folder; `merge` combines the shards into exactly the files one machine
//! would have written.
//!
//! Byte-identical merging rests on three facts: per-replication values are written as
//! shortest round-trip decimals (so they parse back to the same bits) and re-sorted by
//! replication; daily sums are fixed-point integers ([`crate::experiment::DailySums`]) and wait
//! histograms are counts, both associative; and every statistic is then computed by the
//! same code as a single run, in replication order.
//!
//! ```text
//! SHARD/shard.toml        scenario hash, shard index and count, total replications, its replications
//! SHARD/scenario.toml     the resolved scenario
//! SHARD/replications.csv  per replication and policy, every metric (as in a run)
//! SHARD/daily_sums.csv    policy × day: fixed-point sums of the daily series
//! SHARD/wait_hist.csv     policy × bin: counts of measured waits
//! SHARD/class_wait_hist.csv  policy × class × bin: the same per group class
//! SHARD/class_replications.csv  policy × replication × class: every class metric
//! SHARD/season_replications.csv policy × replication × season × class: every season metric
//! ```

use std::path::Path;

use super::csv as out_csv;
use crate::experiment::{PolicyResults, Results, wait_bin_edges};
use crate::metric::Metric;
use crate::scenario::Scenario;
use crate::write::{CsvBytes, atomic_write};

/// A shard that cannot be read or merged.
#[derive(Debug, thiserror::Error)]
pub enum ShardError {
    /// I/O.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// `--shard` is not `i/n` with 0 ≤ i < n.
    #[error(
        "--shard '{0}' is not allowed; give INDEX/COUNT with 0 ≤ INDEX < COUNT, e.g. 0/4 (Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT with --array=0-3)"
    )]
    BadSpec(String),
    /// A file is damaged or from another version.
    #[error("{file}: {problem}")]
    Damaged {
        /// The file.
        file: String,
        /// What is wrong.
        problem: String,
    },
    /// The shards do not belong together or some are missing.
    #[error("{0}")]
    Mismatch(String),
    /// The scenario of a shard is invalid.
    #[error(transparent)]
    Scenario(#[from] crate::scenario::ScenarioError),
}

/// Parses `i/n`.
pub fn parse_spec(spec: &str) -> Result<(u32, u32), ShardError> {
    let bad = || ShardError::BadSpec(spec.to_string());
    let (i, n) = spec.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (i.trim().parse().map_err(|_| bad())?, n.trim().parse().map_err(|_| bad())?);
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// The replications of shard `i` of `n` out of `total`: i, i+n, i+2n, …
pub fn replications(total: u32, index: u32, count: u32) -> Vec<u64> {
    (u64::from(index)..u64::from(total)).step_by(count as usize).collect()
}

fn damaged(file: &Path, problem: impl Into<String>) -> ShardError {
    ShardError::Damaged { file: file.display().to_string(), problem: problem.into() }
}

/// Writes a shard folder.
///
/// # Errors
/// I/O errors.
pub fn write(dir: &Path, scenario: &Scenario, results: &Results, index: u32, count: u32) -> Result<(), ShardError> {
    std::fs::create_dir_all(dir)?;
    let reps: Vec<String> = results.replications.iter().map(u64::to_string).collect();
    let manifest = format!(
        "# burstsim {} shard\nhash = \"{:016x}\"\nindex = {index}\ncount = {count}\ntotal_replications = {}\nreplications = [{}]\n",
        crate::VERSION,
        scenario.hash(),
        scenario.replications,
        reps.join(", ")
    );
    atomic_write(&dir.join("scenario.toml"), scenario.resolved_toml().as_bytes())?;
    atomic_write(&dir.join("replications.csv"), &out_csv::replications_csv(scenario, results))?;
    atomic_write(&dir.join("class_replications.csv"), &out_csv::class_replications_csv(scenario, results))?;
    atomic_write(&dir.join("season_replications.csv"), &out_csv::season_replications_csv(scenario, results))?;
    let mut daily = String::from("policy,day,campus_queue_gpus,campus_busy_gpus,cloud_busy_gpus,cost_cny\n");
    let mut hist = String::from("policy,bin,jobs\n");
    let mut class_hist = CsvBytes::new(["policy", "class", "bin", "jobs"]);
    for (p, policy) in scenario.policies.iter().enumerate() {
        let d = &results.policies[p].daily_sum;
        for day in 0..d.campus_queue_gpus.len() {
            daily.push_str(&format!(
                "{},{day},{},{},{},{}\n",
                policy.name, d.campus_queue_gpus[day], d.campus_busy_gpus[day], d.cloud_busy_gpus[day], d.cost_cny[day]
            ));
        }
        for (bin, c) in results.policies[p].wait_hist.iter().enumerate() {
            hist.push_str(&format!("{},{bin},{c}\n", policy.name));
        }
        for (class, h) in scenario.group.iter().zip(&results.policies[p].class_wait_hist) {
            for (bin, c) in h.iter().enumerate().filter(|(_, c)| **c > 0) {
                class_hist.row([policy.name.clone(), class.name.clone(), bin.to_string(), c.to_string()]);
            }
        }
    }
    atomic_write(&dir.join("daily_sums.csv"), daily.as_bytes())?;
    atomic_write(&dir.join("wait_hist.csv"), hist.as_bytes())?;
    atomic_write(&dir.join("class_wait_hist.csv"), &class_hist.finish())?;
    // The manifest last: its presence marks a complete shard.
    atomic_write(&dir.join("shard.toml"), manifest.as_bytes())?;
    Ok(())
}

/// A shard read back.
#[derive(Debug)]
pub struct Shard {
    /// Its scenario.
    pub scenario: Scenario,
    /// Scenario hash recorded.
    pub hash: String,
    /// Index and count.
    pub index: u32,
    /// Shard count.
    pub count: u32,
    /// Its results.
    pub results: Results,
}

fn csv_rows(path: &Path) -> Result<(Vec<String>, Vec<csv::StringRecord>), ShardError> {
    let mut rdr = csv::Reader::from_path(path).map_err(|e| damaged(path, e.to_string()))?;
    let header = rdr.headers().map_err(|e| damaged(path, e.to_string()))?.iter().map(String::from).collect();
    let rows = rdr.records().collect::<Result<Vec<_>, _>>().map_err(|e| damaged(path, e.to_string()))?;
    Ok((header, rows))
}

/// Reads a shard folder.
///
/// # Errors
/// Missing or damaged files.
pub fn read(dir: &Path) -> Result<Shard, ShardError> {
    let manifest_path = dir.join("shard.toml");
    let text = std::fs::read_to_string(&manifest_path)
        .map_err(|e| damaged(&manifest_path, format!("{e} (an unfinished shard has no shard.toml: rerun it)")))?;
    let m: toml::Table = toml::from_str(&text).map_err(|e| damaged(&manifest_path, e.to_string()))?;
    let int =
        |k: &str| m.get(k).and_then(|v| v.as_integer()).ok_or_else(|| damaged(&manifest_path, format!("no '{k}'")));
    let (index, count) = (int("index")? as u32, int("count")? as u32);
    let hash = m.get("hash").and_then(|v| v.as_str()).ok_or_else(|| damaged(&manifest_path, "no hash"))?.to_string();
    let scenario = Scenario::load(&dir.join("scenario.toml"))?;
    if format!("{:016x}", scenario.hash()) != hash {
        return Err(damaged(&dir.join("scenario.toml"), "does not match the hash in shard.toml"));
    }
    let mut results = Results::new(&scenario);
    let policy_index = |name: &str, file: &Path| {
        scenario.policy_index(name).ok_or_else(|| damaged(file, format!("unknown policy '{name}'")))
    };

    let path = dir.join("replications.csv");
    let (header, rows) = csv_rows(&path)?;
    let columns: Vec<Option<usize>> = Metric::ALL.iter().map(|m| header.iter().position(|h| h == m.name())).collect();
    let unstable_col =
        header.iter().position(|h| h == "unstable").ok_or_else(|| damaged(&path, "no 'unstable' column"))?;
    for row in &rows {
        let p = policy_index(&row[0], &path)?;
        let rep: u64 = row[1].parse().map_err(|_| damaged(&path, format!("bad replication '{}'", &row[1])))?;
        if p == 0 {
            results.replications.push(rep);
        }
        let values = columns
            .iter()
            .map(|c| match c.map(|c| &row[c]) {
                None | Some("") => Ok(f64::NAN),
                Some(v) => v.parse::<f64>().map_err(|_| damaged(&path, format!("'{v}' is not a number"))),
            })
            .collect::<Result<Vec<f64>, _>>()?;
        results.policies[p].values.push(values);
        results.policies[p].unstable.push(&row[unstable_col] == "true");
    }
    let path = dir.join("class_replications.csv");
    let (header, rows) = csv_rows(&path)?;
    let names: Vec<String> = scenario.class_metrics.names().into_iter().map(|n| n.0).collect();
    if header.len() != 3 + names.len() || header[3..] != names[..] {
        return Err(damaged(&path, "its columns are not the scenario's class metrics (another burstsim version?)"));
    }
    let classes = scenario.class_names();
    for pr in results.policies.iter_mut() {
        pr.class_values = vec![vec![Vec::new(); classes.len()]; pr.values.len()];
    }
    for row in &rows {
        let p = policy_index(&row[0], &path)?;
        let rep: u64 = row[1].parse().map_err(|_| damaged(&path, format!("bad replication '{}'", &row[1])))?;
        let i =
            results.replications.iter().position(|&r| r == rep).ok_or_else(|| damaged(&path, "unknown replication"))?;
        let c = classes.iter().position(|c| c == &row[2]).ok_or_else(|| damaged(&path, "unknown class"))?;
        let values = (3..row.len())
            .map(|k| match &row[k] {
                "" => Ok(f64::NAN),
                v => v.parse::<f64>().map_err(|_| damaged(&path, format!("'{v}' is not a number"))),
            })
            .collect::<Result<Vec<f64>, _>>()?;
        results.policies[p].class_values[i][c] = values;
    }
    if results.policies.iter().any(|pr| pr.class_values.iter().flatten().any(Vec::is_empty)) {
        return Err(damaged(&path, "some policy, replication or class has no row"));
    }
    read_seasons(dir, &scenario, &mut results)?;
    let path = dir.join("daily_sums.csv");
    for row in csv_rows(&path)?.1 {
        let p = policy_index(&row[0], &path)?;
        let day: usize = row[1].parse().map_err(|_| damaged(&path, "bad day"))?;
        let int =
            |i: usize| row[i].parse::<i128>().map_err(|_| damaged(&path, format!("'{}' is not an integer", &row[i])));
        let d = &mut results.policies[p].daily_sum;
        if day >= d.campus_queue_gpus.len() {
            return Err(damaged(&path, format!("day {day} is beyond the horizon")));
        }
        (d.campus_queue_gpus[day], d.campus_busy_gpus[day], d.cloud_busy_gpus[day], d.cost_cny[day]) =
            (int(2)?, int(3)?, int(4)?, int(5)?);
    }
    let path = dir.join("wait_hist.csv");
    let bins = wait_bin_edges().len();
    for row in csv_rows(&path)?.1 {
        let p = policy_index(&row[0], &path)?;
        let bin: usize = row[1].parse().map_err(|_| damaged(&path, "bad bin"))?;
        if bin >= bins {
            return Err(damaged(&path, "bin out of range (another burstsim version?)"));
        }
        results.policies[p].wait_hist[bin] = row[2].parse().map_err(|_| damaged(&path, "bad count"))?;
    }
    let path = dir.join("class_wait_hist.csv");
    for row in csv_rows(&path)?.1 {
        let p = policy_index(&row[0], &path)?;
        let c = scenario.group.iter().position(|c| c.name == row[1]).ok_or_else(|| damaged(&path, "unknown class"))?;
        let bin: usize = row[2].parse().map_err(|_| damaged(&path, "bad bin"))?;
        if bin >= bins {
            return Err(damaged(&path, "bin out of range (another burstsim version?)"));
        }
        results.policies[p].class_wait_hist[c][bin] = row[3].parse().map_err(|_| damaged(&path, "bad count"))?;
    }
    Ok(Shard { scenario, hash, index, count, results })
}

/// Reads `season_replications.csv` into `results` (whose replications are known).
fn read_seasons(dir: &Path, scenario: &Scenario, results: &mut Results) -> Result<(), ShardError> {
    let path = dir.join("season_replications.csv");
    let (header, rows) = csv_rows(&path)?;
    let metrics = crate::metrics::season::SEASON_METRICS;
    if header.len() != 4 + metrics.len() || header[4..].iter().zip(&metrics).any(|(h, m)| h != m.0) {
        return Err(damaged(&path, "its columns are not the season metrics (another burstsim version?)"));
    }
    let classes = scenario.class_names();
    let seasons = crate::metrics::season::SeasonSet::of(scenario).names;
    for pr in results.policies.iter_mut() {
        pr.season_values = vec![vec![vec![Vec::new(); classes.len()]; seasons.len()]; pr.values.len()];
    }
    for row in &rows {
        let p =
            scenario.policy_index(&row[0]).ok_or_else(|| damaged(&path, format!("unknown policy '{}'", &row[0])))?;
        let rep: u64 = row[1].parse().map_err(|_| damaged(&path, format!("bad replication '{}'", &row[1])))?;
        let i =
            results.replications.iter().position(|&r| r == rep).ok_or_else(|| damaged(&path, "unknown replication"))?;
        let si = seasons.iter().position(|s| s == &row[2]).ok_or_else(|| damaged(&path, "unknown season"))?;
        let c = classes.iter().position(|c| c == &row[3]).ok_or_else(|| damaged(&path, "unknown class"))?;
        let values = (4..row.len())
            .map(|k| match &row[k] {
                "" => Ok(f64::NAN),
                v => v.parse::<f64>().map_err(|_| damaged(&path, format!("'{v}' is not a number"))),
            })
            .collect::<Result<Vec<f64>, _>>()?;
        results.policies[p].season_values[i][si][c] = values;
    }
    if results.policies.iter().any(|pr| pr.season_values.iter().flatten().flatten().any(Vec::is_empty)) {
        return Err(damaged(&path, "some policy, replication, season or class has no row"));
    }
    Ok(())
}

/// Merges shards into the results one machine would have produced.
///
/// # Errors
/// Shards of different scenarios or counts, duplicates, or missing shards.
pub fn merge(shards: Vec<Shard>) -> Result<(Scenario, Results), ShardError> {
    let first = shards.first().ok_or_else(|| ShardError::Mismatch("no shards given".into()))?;
    let (hash, count) = (first.hash.clone(), first.count);
    let mut seen = vec![false; count as usize];
    for s in &shards {
        if s.hash != hash {
            return Err(ShardError::Mismatch(format!(
                "shard {} of {} belongs to another scenario (hash {} vs {hash})",
                s.index, s.count, s.hash
            )));
        }
        if s.count != count {
            return Err(ShardError::Mismatch(format!(
                "shards were cut into {} and into {count} parts; merge shards of one split",
                s.count
            )));
        }
        if std::mem::replace(&mut seen[s.index as usize], true) {
            return Err(ShardError::Mismatch(format!("shard {}/{count} is given twice", s.index)));
        }
    }
    let missing: Vec<String> =
        seen.iter().enumerate().filter(|(_, s)| !**s).map(|(i, _)| format!("{i}/{count}")).collect();
    if !missing.is_empty() {
        return Err(ShardError::Mismatch(format!(
            "shards missing: {}; run them, then merge again",
            missing.join(", ")
        )));
    }
    let scenario = first.scenario.clone();
    let mut merged = Results::new(&scenario);
    let mut by_rep: Vec<(u64, usize, usize)> = Vec::new();
    for (si, s) in shards.iter().enumerate() {
        by_rep.extend(s.results.replications.iter().enumerate().map(|(k, &r)| (r, si, k)));
    }
    by_rep.sort_unstable();
    for (r, si, k) in by_rep {
        merged.replications.push(r);
        for (p, pr) in merged.policies.iter_mut().enumerate() {
            let src: &PolicyResults = &shards[si].results.policies[p];
            pr.values.push(src.values[k].clone());
            pr.unstable.push(src.unstable[k]);
            pr.class_values.push(src.class_values[k].clone());
            pr.season_values.push(src.season_values[k].clone());
        }
    }
    for s in &shards {
        for (pr, src) in merged.policies.iter_mut().zip(&s.results.policies) {
            pr.daily_sum.merge(&src.daily_sum);
            pr.wait_hist.iter_mut().zip(&src.wait_hist).for_each(|(a, b)| *a += b);
            for (acc, h) in pr.class_wait_hist.iter_mut().zip(&src.class_wait_hist) {
                acc.iter_mut().zip(h).for_each(|(a, b)| *a += b);
            }
        }
    }
    Ok((scenario, merged))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_cover_every_replication_once() {
        let mut all: Vec<u64> = (0..3).flat_map(|i| replications(10, i, 3)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!(parse_spec("1/4").unwrap(), (1, 4));
        assert!(parse_spec("4/4").is_err() && parse_spec("x").is_err() && parse_spec("0/0").is_err());
    }
}

//! Nothing overwritten silently: what an output folder already holds, and whether a new
//! `run`, `merge`, shard or `sweep` may write there.
//!
//! The rule (docs/OUTPUTS.md, "Nothing is overwritten silently"):
//! - an empty or new folder is always used;
//! - a folder holding results of the **same** work (the same resolved scenario, so the
//!   same seed and replication count; for a sweep, the same sweep hash) is used again:
//!   a run replaces them with the same numbers (or completes an interrupted run), a
//!   sweep reuses its finished points;
//! - a folder holding results of **other** work is refused, naming the folder, what it
//!   holds and the two ways out (`--out NEW_DIR`, or `--force` to replace them);
//! - a folder holding another *kind* of results (a sweep where a run would write, a run
//!   where a shard would write, …) is refused even with `--force`: the files would mix.
//!
//! The folder is recognised by the manifest each kind writes: `run.toml` (run, merge),
//! `sweep.toml` (sweep), `shard.toml` (a shard); a `summary.csv` without `run.toml` is
//! taken as a run of unknown origin.

use std::path::Path;

/// What an output folder holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Holds {
    /// Nothing burstsim wrote (missing, empty, or only other files).
    Nothing,
    /// A run or merge: its scenario name and hash, and the replications it recorded
    /// (`None` for a folder without a readable `run.toml`).
    Run {
        /// Scenario name.
        name: Option<String>,
        /// Scenario hash (16 hex digits).
        hash: Option<String>,
        /// The manifest's `seed: …; replications: …` text.
        detail: Option<String>,
    },
    /// A sweep, with its hash.
    Sweep {
        /// Sweep hash.
        hash: Option<String>,
    },
    /// A shard of `run --shard`.
    Shard {
        /// Scenario hash.
        hash: Option<String>,
        /// `i/n`.
        which: Option<String>,
    },
}

impl Holds {
    /// Looks at `dir` (a missing folder holds nothing).
    pub fn inspect(dir: &Path) -> Holds {
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        if let Some(t) = read("shard.toml") {
            let field = |k: &str| {
                t.lines().find_map(|l| l.strip_prefix(k).map(|r| r.trim_start_matches([' ', '=']).trim().to_string()))
            };
            let which = field("index").zip(field("count")).map(|(i, n)| format!("{i}/{n}"));
            return Holds::Shard { hash: field("hash").map(|h| h.trim_matches('"').to_string()), which };
        }
        if let Some(t) = read("sweep.toml") {
            let hash = t.lines().find_map(|l| l.strip_prefix("hash = \"").and_then(|r| r.strip_suffix('"')));
            return Holds::Sweep { hash: hash.map(String::from) };
        }
        if let Some(t) = read("run.toml") {
            // "# scenario: NAME (hash 0123456789abcdef)"
            let line = t.lines().find_map(|l| l.strip_prefix("# scenario: "));
            let (name, hash) = match line.and_then(|l| l.rsplit_once(" (hash ")) {
                Some((n, h)) => (Some(n.to_string()), Some(h.trim_end_matches(')').to_string())),
                None => (None, None),
            };
            let detail = t.lines().find_map(|l| l.strip_prefix("# seed: ")).map(|d| format!("seed {d}"));
            return Holds::Run { name, hash, detail };
        }
        if dir.join("summary.csv").exists() {
            return Holds::Run { name: None, hash: None, detail: None };
        }
        Holds::Nothing
    }

    /// "the results of run 'default' (seed 1; replications: 20)", for messages.
    pub fn describe(&self) -> String {
        match self {
            Holds::Nothing => "nothing".into(),
            Holds::Run { name: Some(n), detail, .. } => {
                format!("the results of a run of '{n}'{}", detail.as_ref().map_or(String::new(), |d| format!(" ({d})")))
            }
            Holds::Run { .. } => "the results of a run (summary.csv without run.toml)".into(),
            Holds::Sweep { .. } => "the results of a sweep (sweep.toml)".into(),
            Holds::Shard { which, .. } => {
                format!("shard {} of a sharded run (shard.toml)", which.as_deref().unwrap_or("?"))
            }
        }
    }
}

/// What writing into a folder will do, when it is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Claim {
    /// The folder holds nothing of ours.
    Fresh,
    /// It holds earlier results of the same work: they are replaced (or reused).
    Same,
    /// It holds other results, and `--force` was given: they are replaced.
    Forced,
}

/// Why an output folder cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum Occupied {
    /// Results of other work of the same kind; `--force` would replace them.
    #[error(
        "'{dir}' already holds {what}, which this {kind} would replace; write to a new folder with --out DIR, \
         or add --force to replace them"
    )]
    Other {
        /// The folder.
        dir: String,
        /// What it holds.
        what: String,
        /// "run", "merge", "shard", "sweep".
        kind: &'static str,
    },
    /// Results of another kind: never mixed, even with `--force`.
    #[error(
        "'{dir}' holds {what}, not a {kind}'s results; the files would mix, so even --force does not write there: \
         give another folder with --out DIR"
    )]
    OtherKind {
        /// The folder.
        dir: String,
        /// What it holds.
        what: String,
        /// What would write.
        kind: &'static str,
    },
}

fn other(dir: &Path, holds: &Holds, kind: &'static str, force: bool) -> Result<Claim, Occupied> {
    if force {
        Ok(Claim::Forced)
    } else {
        Err(Occupied::Other { dir: dir.display().to_string(), what: holds.describe(), kind })
    }
}

fn other_kind(dir: &Path, holds: &Holds, kind: &'static str) -> Occupied {
    Occupied::OtherKind { dir: dir.display().to_string(), what: holds.describe(), kind }
}

/// May a run (or a merge, `kind = "merge"`) of the scenario with hash `hash` write its
/// files into `dir`?
///
/// # Errors
/// [`Occupied`] when `dir` holds other results and `force` is false, or results of
/// another kind.
pub fn claim_run(dir: &Path, hash: u64, kind: &'static str, force: bool) -> Result<Claim, Occupied> {
    let holds = Holds::inspect(dir);
    match &holds {
        Holds::Nothing => Ok(Claim::Fresh),
        Holds::Run { hash: Some(h), .. } if *h == format!("{hash:016x}") => Ok(Claim::Same),
        Holds::Run { .. } => other(dir, &holds, kind, force),
        Holds::Sweep { .. } | Holds::Shard { .. } => Err(other_kind(dir, &holds, kind)),
    }
}

/// May shard `index`/`count` of the scenario with hash `hash` write into `dir`? The same
/// shard of the same scenario (a re-run array task) may.
///
/// # Errors
/// As [`claim_run`].
pub fn claim_shard(dir: &Path, hash: u64, index: u32, count: u32, force: bool) -> Result<Claim, Occupied> {
    let holds = Holds::inspect(dir);
    match &holds {
        Holds::Nothing => Ok(Claim::Fresh),
        Holds::Shard { hash: Some(h), which: Some(w) }
            if *h == format!("{hash:016x}") && *w == format!("{index}/{count}") =>
        {
            Ok(Claim::Same)
        }
        Holds::Shard { .. } => other(dir, &holds, "shard", force),
        Holds::Run { .. } | Holds::Sweep { .. } => Err(other_kind(dir, &holds, "shard")),
    }
}

/// May a sweep with hash `hash` write into `dir`? ([`crate::sweep::store::Store::open`]
/// decides what happens to the finished points.)
///
/// # Errors
/// As [`claim_run`].
pub fn claim_sweep(dir: &Path, hash: &str, force: bool) -> Result<Claim, Occupied> {
    let holds = Holds::inspect(dir);
    match &holds {
        Holds::Nothing => Ok(Claim::Fresh),
        Holds::Sweep { hash: Some(h) } if h == hash => Ok(Claim::Same),
        Holds::Sweep { .. } => other(dir, &holds, "sweep", force),
        Holds::Run { .. } | Holds::Shard { .. } => Err(other_kind(dir, &holds, "sweep")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, file: &str, text: &str) {
        std::fs::write(dir.join(file), text).unwrap();
    }

    #[test]
    fn a_missing_or_foreign_folder_is_fresh() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(claim_run(&d.path().join("new"), 1, "run", false).unwrap(), Claim::Fresh);
        write(d.path(), "notes.txt", "mine");
        assert_eq!(claim_run(d.path(), 1, "run", false).unwrap(), Claim::Fresh);
    }

    #[test]
    fn the_same_run_is_replaced_another_is_refused_unless_forced() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "run.toml",
            "# burstsim 0.1.0 run manifest\n# scenario: lab (hash 00000000000000ab)\n# seed: 1; replications: 20\n",
        );
        assert_eq!(claim_run(d.path(), 0xab, "run", false).unwrap(), Claim::Same);
        let e = claim_run(d.path(), 0xac, "run", false).unwrap_err().to_string();
        assert!(e.contains("a run of 'lab' (seed 1; replications: 20)") && e.contains("--force"), "{e}");
        assert!(e.contains(&d.path().display().to_string()) && e.contains("--out"), "{e}");
        assert_eq!(claim_run(d.path(), 0xac, "run", true).unwrap(), Claim::Forced);
        // A sweep never writes into a run's folder, even forced.
        let e = claim_sweep(d.path(), "x", true).unwrap_err().to_string();
        assert!(e.contains("not a sweep's results"), "{e}");
    }

    #[test]
    fn shards_and_sweeps_are_recognised_by_their_manifests() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "shard.toml", "# burstsim 0.1.0 shard\nhash = \"00000000000000ab\"\nindex = 1\ncount = 4\n");
        assert_eq!(claim_shard(d.path(), 0xab, 1, 4, false).unwrap(), Claim::Same);
        assert!(claim_shard(d.path(), 0xab, 2, 4, false).is_err(), "another shard's folder");
        assert!(claim_run(d.path(), 0xab, "merge", true).is_err());
        let s = tempfile::tempdir().unwrap();
        write(s.path(), "sweep.toml", "# burstsim sweep manifest\nhash = \"abc\"\npoints = 3\n");
        assert_eq!(claim_sweep(s.path(), "abc", false).unwrap(), Claim::Same);
        assert!(claim_sweep(s.path(), "abd", false).unwrap_err().to_string().contains("a sweep (sweep.toml)"));
        assert_eq!(claim_sweep(s.path(), "abd", true).unwrap(), Claim::Forced);
    }
}

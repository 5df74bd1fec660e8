//! The Chinese report and advise's Chinese answer carry no English words other than the
//! names the user wrote (issue 46 item 7, part).
//!
//! The default scenario runs for a few years (with its sensitivity band, at one year per
//! level) and `plot --lang zh` writes `report.zh.html`; `advise --lang zh` answers on the
//! snapshot fixture, with a job past its limit and one submitted after the snapshot so
//! that its warnings show. The visible text (HTML tags, `<style>`/`<script>` blocks and
//! attribute values stripped) is cut into ASCII tokens; a token with a run of two or more
//! Latin letters must be one of:
//! - a name the user wrote: the scenario's `name`s (policies, offers, classes, seasons,
//!   accounts), GPU types, Chinese labels and description, the scenario's name; for advise
//!   also the values given on its command line (the partition) and the snapshot's file;
//! - a key of the scenario (`simulation.seed`, `patience_hours`: a dotted path or a
//!   snake_case key the user edits), or a column of the folder's CSV files;
//! - a file or folder that exists (in the output folder or the repository: `summary.csv`,
//!   `docs/STATISTICS.md`);
//! - command-line syntax: an option (`--target`), or a subcommand right after `burstsim`
//!   that `burstsim --help` lists;
//! - one of [`TERMS`], the Latin words Chinese technical text writes as they are.
//!
//! Every other word is listed with its context.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Latin words Chinese technical writing keeps as they are, case-sensitive. Kept short:
/// units and file formats (GPU, CSV, GB), the product and the scheduler it models (burstsim,
/// Slurm and its commands, plugin and limit names, which Chinese HPC guides quote as Slurm
/// writes them), the two scheduler disciplines by their acronyms (FCFS, EASY backfill), the
/// time zone and Unix time, the statistical methods named after people (Bonferroni, Student's t: Chinese
/// textbooks write the names in Latin letters), and the public log the methods section
/// cites by its archive name (KTH-SP2).
const TERMS: &[&str] = &[
    // Units, formats and acronyms.
    "GPU",
    "CPU",
    "CSV",
    "PNG",
    "SVG",
    "HTML",
    "TOML",
    "JSON",
    "CI",
    "GB",
    "MB",
    "CNY",
    "UTC",
    "Unix",
    "SLA",
    "ID",
    // The product, the scheduler and its own names.
    "burstsim",
    "Slurm",
    "EASY",
    "FCFS",
    "squeue",
    "sinfo",
    "sacct",
    "cons_tres",
    "GrpTRES",
    // Methods named after people, and the cited public log.
    "Bonferroni",
    "Student",
    "KTH-SP2",
    "KTH",
];

/// Whether `s` has a run of two or more ASCII letters (a word, not `p95` or `24G`).
fn has_word(s: &str) -> bool {
    let mut run = 0;
    for c in s.chars() {
        run = if c.is_ascii_alphabetic() { run + 1 } else { 0 };
        if run >= 2 {
            return true;
        }
    }
    false
}

/// The visible text of an HTML page: `<style>`/`<script>` blocks and tags (with their
/// attribute values) removed, the common entities decoded; a tag ends a token.
fn visible_text(html: &str) -> String {
    let mut s = html.to_string();
    for tag in ["style", "script"] {
        while let Some(a) = s.find(&format!("<{tag}")) {
            let close = format!("</{tag}>");
            let b = s[a..].find(&close).map_or(s.len(), |b| a + b + close.len());
            s.replace_range(a..b, " ");
        }
    }
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&#39;", "'").replace("&amp;", "&")
}

/// ASCII tokens of a text: runs of printable non-space ASCII, cut at anything else (a
/// Chinese character, a space), with surrounding punctuation trimmed; each with its byte
/// offset.
fn tokens(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices().chain([(text.len(), ' ')]) {
        let part = c.is_ascii_graphic();
        match (start, part) {
            (None, true) => start = Some(i),
            (Some(a), false) => {
                let t = text[a..i].trim_matches(|c: char| "()[]{},;:'\"!?`|*".contains(c)).trim_end_matches('.');
                if !t.is_empty() {
                    out.push((a, t.to_string()));
                }
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// What may appear besides [`TERMS`]: names, keys, columns, subcommands, folders to look
/// for files in.
#[derive(Default)]
struct Allowed {
    words: BTreeSet<String>,
    subcommands: BTreeSet<String>,
    folders: Vec<PathBuf>,
}

impl Allowed {
    /// A name the user wrote, and each ASCII token inside it (`RTX 4090 24G`, `本组CVPR冲刺`).
    fn name(&mut self, s: &str) {
        self.words.insert(s.to_string());
        self.words.extend(tokens(s).into_iter().map(|(_, t)| t));
    }

    /// The names and keys of a scenario document: string values of `name`, `gpu_type`,
    /// `account`, `label_zh` and `description_zh` anywhere, and every key path.
    fn scenario(&mut self, doc: &toml::Table) {
        fn walk(a: &mut Allowed, path: &str, v: &toml::Value) {
            match v {
                toml::Value::Table(t) => {
                    for (k, v) in t {
                        let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                        a.words.insert(p.clone());
                        if k.contains('_') {
                            a.words.insert(k.clone());
                        }
                        if let (Some(s), true) = (
                            v.as_str(),
                            ["name", "gpu_type", "account", "label_zh", "description_zh"].contains(&k.as_str()),
                        ) {
                            a.name(s);
                        }
                        walk(a, &p, v);
                    }
                }
                toml::Value::Array(items) => items.iter().for_each(|x| walk(a, path, x)),
                _ => {}
            }
        }
        walk(self, "", &toml::Value::Table(doc.clone()));
    }

    /// The header columns of every CSV file of a folder.
    fn csv_columns(&mut self, dir: &Path) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "csv") {
                let text = std::fs::read_to_string(e.path()).unwrap();
                let head = text.trim_start_matches('\u{feff}').lines().next().unwrap_or("");
                self.words.extend(head.split(',').map(str::to_string));
            }
        }
    }

    /// `burstsim --help`'s subcommands.
    fn subcommands(&mut self) {
        let help = Command::new(env!("CARGO_BIN_EXE_burstsim")).arg("--help").output().unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        let commands = help.split("Commands:").nth(1).expect("a Commands section").split("\n\n").next().unwrap();
        self.subcommands.extend(commands.lines().filter_map(|l| l.split_whitespace().next()).map(str::to_string));
    }

    fn is_file(&self, t: &str) -> bool {
        let t = t.trim_end_matches('/');
        (t.contains('/') || t.contains('.'))
            && (Path::new(t).is_absolute() && Path::new(t).exists() || self.folders.iter().any(|f| f.join(t).exists()))
    }

    fn allows(&self, t: &str, previous: Option<&str>) -> bool {
        // A unit after a slash (`元/GPU小时`) is the unit.
        let unit = t.strip_prefix('/').is_some_and(|u| TERMS.contains(&u));
        unit || !has_word(t)
            || TERMS.contains(&t)
            || self.words.contains(t)
            || t.starts_with("--")
            || (previous == Some("burstsim") && self.subcommands.contains(t))
            || self.is_file(t)
    }
}

/// Every token of `text` that [`Allowed`] refuses, with its context, and the count of
/// words (runs of two or more letters) in them.
fn english(text: &str, allowed: &Allowed) -> (Vec<String>, usize) {
    let toks = tokens(text);
    let mut bad = Vec::new();
    let mut words = 0;
    for (i, (at, t)) in toks.iter().enumerate() {
        let previous = i.checked_sub(1).map(|j| toks[j].1.as_str());
        if allowed.allows(t, previous) {
            continue;
        }
        words += t.split(|c: char| !c.is_ascii_alphabetic()).filter(|w| w.len() >= 2).count();
        let mut a = at.saturating_sub(40);
        while !text.is_char_boundary(a) {
            a -= 1;
        }
        let mut b = (at + t.len() + 40).min(text.len());
        while !text.is_char_boundary(b) {
            b += 1;
        }
        let context: String = text[a..b].split_whitespace().collect::<Vec<_>>().join(" ");
        bad.push(format!("'{t}' in: …{context}…"));
    }
    (bad, words)
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn burstsim(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_burstsim")).current_dir(root()).args(args).output().unwrap();
    assert!(out.status.success(), "burstsim {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

fn verdict(what: &str, bad: &[String], words: usize) {
    assert!(bad.is_empty(), "{what}: {words} English word(s) in {} token(s):\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn the_chinese_report_has_no_english_words_but_the_users_names() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("default");
    let o = out.to_str().unwrap();
    burstsim(&["run", "-n", "3", "--sensitivity-replications", "1", "-q", "--out", o]);
    burstsim(&["plot", o, "--lang", "zh"]);
    let html = std::fs::read_to_string(out.join("report.zh.html")).unwrap();
    let mut allowed = Allowed { folders: vec![out.clone(), root()], ..Allowed::default() };
    let manifest = std::fs::read_to_string(out.join("run.toml")).unwrap();
    allowed.scenario(&toml::from_str(&manifest).unwrap());
    allowed.csv_columns(&out);
    allowed.subcommands();
    let (bad, words) = english(&visible_text(&html), &allowed);
    verdict("report.zh.html", &bad, words);
}

#[test]
fn advise_in_chinese_has_no_english_words_but_the_users_names() {
    let dir = tempfile::tempdir().unwrap();
    let fix = root().join("tests/fixtures/snapshot");
    // Job 1002 has run 22 h on a 4 h limit; job 1003 was submitted after the snapshot.
    let squeue = std::fs::read_to_string(fix.join("squeue.txt"))
        .unwrap()
        .replace("|4:00:00|1:00:00|1|gres/gpu:1", "|4:00:00|22:00:00|1|gres/gpu:1")
        .replace("4300|1764685000|", "4300|1764694800|");
    let q = dir.path().join("squeue.txt");
    std::fs::write(&q, squeue).unwrap();
    let n = fix.join("sinfo.txt");
    let (q, n) = (q.to_str().unwrap(), n.to_str().unwrap());
    let args = [
        "advise",
        "--squeue",
        q,
        "--sinfo",
        n,
        "--gpus",
        "4",
        "--walltime",
        "1-00:00:00",
        "--runtime",
        "10h",
        "-n",
        "8",
        "--partition",
        "gpu",
        "--deadline",
        "36h",
        "--lang",
        "zh",
    ];
    let text = String::from_utf8(burstsim(&args).stdout).unwrap();
    assert!(text.contains("警告") && text.contains("1002") && text.contains("1003"), "the warnings show: {text}");
    let mut allowed = Allowed { folders: vec![dir.path().to_path_buf(), root()], ..Allowed::default() };
    allowed.scenario(&toml::from_str(burstsim::scenario::DEFAULT_SCENARIO).unwrap());
    allowed.subcommands();
    for a in &args[1..] {
        allowed.name(a);
    }
    let (bad, words) = english(&text, &allowed);
    verdict("advise --lang zh", &bad, words);
}

#[test]
fn the_word_finder_sees_words_and_spares_names_keys_and_units() {
    let mut allowed = Allowed { folders: vec![root()], ..Allowed::default() };
    allowed.scenario(&toml::from_str("[[policies]]\nname = \"timeout-12h\"\n[simulation]\nseed = 1\n").unwrap());
    let (bad, words) = english(
        "策略 timeout-12h 的 p95 等待 3 h；GPU 数见 docs/STATISTICS.md 与 simulation.seed（--target），only 3 replication(s)",
        &allowed,
    );
    assert_eq!(words, 2, "{bad:?}");
    assert!(bad[0].starts_with("'only' in: …") && bad[1].starts_with("'replication(s' in"), "{bad:?}");
    assert_eq!(visible_text("<p title=\"English\">中<style>p{x}</style>文</p>"), " 中 文 ");
}

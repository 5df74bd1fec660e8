//! The README (README.md, README.zh.md) and docs/*.md tell the truth about files. In every
//! ```sh block:
//! - each repository path named (`scenarios/…`, `docs/…`, `tests/…`, `scripts/…`,
//!   `assets/…`, `src/…`) exists, so renaming a file fails this test;
//! - each scenario a `run` or `sweep` command runs loads;
//! - a log under `../shared/` exists when the shared data is present (and CI without it
//!   fails, as for every real-log test: tests/suite/common/mod.rs);
//! - an input file that is not in the repository (`my-lab.toml`, `jobs.txt`) is introduced
//!   first: made by an earlier command of the same document (`cp`, `-o`, `>`) or named in
//!   its prose before the block, so a fresh clone knows what to get.
//!
//! And the README stays short (at most 250 lines and 20,000 characters; the long material
//! lives in docs/), points to the Chinese guide at the top, docs/README.md lists every page
//! of docs/, and `CITATION.cff` carries the version of Cargo.toml.

use std::path::{Path, PathBuf};

use burstsim::scenario::Scenario;

use crate::common;

const REPO_DIRS: [&str; 7] = ["scenarios", "docs", "tests", "scripts", "assets", "src", ".ci"];
const FILE_EXTENSIONS: [&str; 6] = [".toml", ".txt", ".swf", ".gz", ".csv", ".sh"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One command line of a ```sh block: the document, its line number, the text before the
/// block (prose and earlier blocks), and the command without its comment.
struct Command {
    doc: String,
    line: usize,
    before: String,
    text: String,
}

fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md"), root().join("README.zh.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

fn commands() -> Vec<Command> {
    let mut out = Vec::new();
    for path in documents() {
        let text = std::fs::read_to_string(&path).unwrap();
        let doc = path.strip_prefix(root()).unwrap().display().to_string();
        let mut in_sh = false;
        let mut offset = 0;
        let mut continued = String::new();
        for (i, line) in text.lines().enumerate() {
            let start = offset;
            offset += line.len() + 1;
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") {
                in_sh = !in_sh && trimmed == "```sh";
                continue;
            }
            if !in_sh {
                continue;
            }
            // Drop a comment: `#` at the start or after a space (not `font.ttc#2`).
            let code = match line.find(" #") {
                Some(k) => &line[..k],
                None if trimmed.starts_with('#') => "",
                None => line,
            };
            continued.push_str(code.trim_end().trim_end_matches('\\'));
            continued.push(' ');
            if code.trim_end().ends_with('\\') {
                continue;
            }
            let command = std::mem::take(&mut continued);
            if !command.trim().is_empty() {
                out.push(Command { doc: doc.clone(), line: i + 1, before: text[..start].to_string(), text: command });
            }
        }
    }
    out
}

fn tokens(command: &str) -> Vec<String> {
    command
        .split_whitespace()
        .map(|t| t.trim_matches(|c| c == '\'' || c == '"' || c == ',' || c == ';').trim_start_matches("./").to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn is_repo_path(t: &str) -> bool {
    t.split('/').next().is_some_and(|first| REPO_DIRS.contains(&first)) && t.contains('/')
}

fn is_file_argument(t: &str) -> bool {
    !t.starts_with('-') && FILE_EXTENSIONS.iter().any(|e| t.ends_with(e))
}

/// `SCENARIO.toml`, `FILE.toml`, `LOG`: placeholders of a synopsis, not files.
fn is_placeholder(t: &str) -> bool {
    let stem = t.rsplit('/').next().unwrap_or(t).split('.').next().unwrap_or("");
    !stem.is_empty() && stem.chars().all(|c| c.is_ascii_uppercase() || c == '_' || c == '-')
}

/// The scenario file a `run`/`sweep` command runs (after `run`, `sweep` or `-- run`).
fn scenario_of(tokens: &[String]) -> Option<&String> {
    let sub = tokens.iter().position(|t| t == "run" || t == "sweep")?;
    tokens.get(sub + 1).filter(|t| t.ends_with(".toml"))
}

/// Whether an earlier command of the document or its prose introduces `file`.
fn introduced(c: &Command, all: &[Command], file: &str) -> bool {
    let made_earlier = all.iter().filter(|o| o.doc == c.doc && o.line < c.line).any(|o| {
        let t = tokens(&o.text);
        t.windows(2).any(|w| (w[0] == "-o" || w[0] == ">" || w[0] == "--out") && w[1] == file)
            || (t.first().is_some_and(|x| x == "cp") && t.last().is_some_and(|x| x == file))
    });
    let made_here = {
        let t = tokens(&c.text);
        t.first().is_some_and(|x| x == "cp" || x == "mkdir")
            || t.windows(2).any(|w| (w[0] == "-o" || w[0] == ">") && w[1] == file)
    };
    made_earlier || made_here || c.before.contains(&format!("`{file}`"))
}

#[test]
fn every_path_in_the_docs_sh_blocks_exists_and_every_scenario_they_run_loads() {
    let all = commands();
    assert!(all.len() > 30, "the README and docs have sh blocks: found {}", all.len());
    let mut problems = Vec::new();
    let mut checked = 0;
    let shared_present = common::shared_dir().join("data").exists();
    for c in &all {
        let where_ = format!("{}:{}", c.doc, c.line);
        let toks = tokens(&c.text);
        for t in &toks {
            if is_repo_path(t) {
                checked += 1;
                if !root().join(t).exists() {
                    problems.push(format!("{where_}: '{t}' does not exist in the repository"));
                }
            } else if let Some(rel) = t.strip_prefix("../shared/") {
                checked += 1;
                if (shared_present || common::in_ci()) && common::shared_data(rel).is_none() {
                    problems.push(format!("{where_}: '{t}' is missing from the shared data"));
                }
                if !(c.before.contains("Parallel Workloads Archive") || c.before.contains("SOURCE.md")) {
                    problems.push(format!(
                        "{where_}: '{t}' is not in the repository and the text before does not say where to get it"
                    ));
                }
            } else if is_file_argument(t)
                && !t.contains('/')
                && !is_placeholder(t)
                && !root().join(t).exists()
                && !introduced(c, &all, t)
            {
                problems.push(format!(
                    "{where_}: '{t}' is neither in the repository nor made or named earlier in {}",
                    c.doc
                ));
            }
        }
        if let Some(s) = scenario_of(&toks).filter(|s| is_repo_path(s)) {
            let path = root().join(s);
            match Scenario::load(&path) {
                Ok(_) => checked += 1,
                Err(e) => {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let needs_shared = text.contains("../../shared/");
                    if needs_shared && !shared_present && !common::in_ci() {
                        eprintln!("skipped loading {s}: it reads the shared data, which is absent");
                    } else {
                        problems.push(format!("{where_}: {s} does not load: {e}"));
                    }
                }
            }
        }
    }
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
    assert!(checked > 12, "only {checked} paths checked: is the parser still finding the blocks?");
}

#[test]
fn the_checker_catches_a_renamed_file_and_an_unintroduced_input() {
    let c =
        |before: &str, text: &str| Command { doc: "X.md".into(), line: 9, before: before.into(), text: text.into() };
    assert!(is_repo_path("scenarios/no-such.toml") && !root().join("scenarios/no-such.toml").exists());
    assert!(!is_repo_path("output/default") && !is_repo_path("2026/27"));
    let plain = c("Run it:", "cargo run --release -- run my-lab.toml");
    assert!(!introduced(&plain, &[], "my-lab.toml"), "nothing says where my-lab.toml comes from");
    let copied = [c("", "cp scenarios/default.toml my-lab.toml")];
    let later = Command { line: 10, ..c("", "cargo run --release -- run my-lab.toml") };
    assert!(introduced(&later, &copied, "my-lab.toml"));
    assert!(introduced(&c("export it into `jobs.txt`", "burstsim fit jobs.txt"), &[], "jobs.txt"));
    assert!(is_placeholder("SCENARIO.toml") && is_placeholder("LOG") && !is_placeholder("my-lab.toml"));
    assert_eq!(
        tokens("burstsim plot output/default --font /x.ttc#2"),
        ["burstsim", "plot", "output/default", "--font", "/x.ttc#2"]
    );
}

/// The README's budget: a newcomer reads it in a few minutes (issue 46 item 5).
const README_MAX_LINES: usize = 250;
const README_MAX_CHARS: usize = 20_000;

/// Whether `text` is within the README's budget, or what exceeds it.
fn readme_budget(text: &str) -> Result<(), String> {
    let (lines, chars) = (text.lines().count(), text.chars().count());
    if lines > README_MAX_LINES || chars > README_MAX_CHARS {
        return Err(format!(
            "README.md has {lines} lines and {chars} characters; at most {README_MAX_LINES} and {README_MAX_CHARS}: \
             move the long material to docs/ (e.g. docs/TASKS.md) and link it"
        ));
    }
    Ok(())
}

#[test]
fn the_readme_stays_short_and_points_to_the_chinese_guide() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    readme_budget(&readme).unwrap();
    // The budget bites: one line or one character too many fails.
    assert!(readme_budget(&"x\n".repeat(README_MAX_LINES + 1)).is_err());
    assert!(readme_budget(&"x".repeat(README_MAX_CHARS + 1)).is_err());
    assert!(readme_budget(&"x\n".repeat(README_MAX_LINES)).is_ok());
    let top: Vec<&str> = readme.lines().take(5).collect();
    assert!(
        top.iter().any(|l| l.contains("README.zh.md")),
        "README.md must link the Chinese guide (README.zh.md) in its first lines: {top:?}"
    );
    assert!(root().join("README.zh.md").exists());
    assert!(readme.contains("## 快速开始"), "README.md keeps a short 快速开始 pointing to README.zh.md");
}

/// The pages of docs/ (besides the index itself) that docs/README.md does not link.
fn unlisted_pages(index: &str, pages: &[String]) -> Vec<String> {
    pages.iter().filter(|p| !index.contains(&format!("]({p})"))).cloned().collect()
}

#[test]
fn the_docs_index_lists_every_page() {
    let index = std::fs::read_to_string(root().join("docs/README.md")).unwrap();
    let pages: Vec<String> = documents()
        .iter()
        .filter(|p| p.parent() == Some(&root().join("docs")))
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|name| name != "README.md")
        .collect();
    assert!(pages.len() >= 15, "docs/ has its pages: {pages:?}");
    let missing = unlisted_pages(&index, &pages);
    assert!(missing.is_empty(), "docs/README.md does not list {missing:?}");
    assert_eq!(unlisted_pages("[A](A.md)", &["A.md".into(), "B.md".into()]), ["B.md"]);
}

#[test]
fn citation_cff_is_cff_1_2_0_with_the_crates_version() {
    let cff = std::fs::read_to_string(root().join("CITATION.cff")).unwrap();
    let cargo: toml::Table = toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let version = cargo["package"]["version"].as_str().unwrap();
    assert!(cff.lines().any(|l| l == "cff-version: 1.2.0"), "{cff}");
    assert!(cff.lines().any(|l| l == format!("version: \"{version}\"")), "CITATION.cff must say version {version}");
    for key in ["message:", "title:", "authors:", "type: software", "  - name: \"burstsim contributors\""] {
        assert!(cff.lines().any(|l| l.starts_with(key)), "CITATION.cff lacks {key}");
    }
    for f in ["LICENSE-MIT", "LICENSE-APACHE", "assets/fonts/OFL.txt", "assets/fonts/DejaVuSans-LICENSE.txt"] {
        assert!(Path::new(&root().join(f)).exists(), "{f}");
    }
    assert_eq!(cargo["package"]["license"].as_str(), Some("MIT OR Apache-2.0"));
}

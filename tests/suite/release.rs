//! The release's promises that a quick test can keep (issue 47; scripts/release.sh builds
//! and runs the artifacts themselves, in about 5 minutes, as a step of .ci/run: docs/RELEASE.md):
//! - one version: python/Cargo.toml (the wheel's, through pyproject's `dynamic`) and its
//!   lock follow the root Cargo.toml;
//! - `burstsim --version` names the version and the commit, and build.rs falls back to the
//!   environment's `BURSTSIM_COMMIT`, then `unknown`, outside a git checkout;
//! - the glibc check of scripts/release.sh lists exactly the symbols newer than its ceiling.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read_toml(path: &str) -> toml::Table {
    let text = std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.parse().unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn root_version() -> String {
    read_toml("Cargo.toml")["package"]["version"].as_str().expect("Cargo.toml: package.version").to_owned()
}

#[test]
fn the_wheel_takes_the_root_crates_version() {
    let version = root_version();
    let python = read_toml("python/Cargo.toml");
    assert_eq!(
        python["package"]["version"].as_str(),
        Some(version.as_str()),
        "python/Cargo.toml's version is the wheel's: make it Cargo.toml's {version}"
    );
    let project = &read_toml("python/pyproject.toml")["project"];
    assert!(
        project.get("version").is_none(),
        "python/pyproject.toml: [project] version must not be set; maturin takes it from python/Cargo.toml"
    );
    let dynamic = project["dynamic"].as_array().expect("python/pyproject.toml: project.dynamic");
    assert!(
        dynamic.iter().any(|d| d.as_str() == Some("version")),
        "python/pyproject.toml: dynamic must list \"version\""
    );
    // `maturin build --locked` fails on a lock that still records the old version.
    let lock = read_toml("python/Cargo.lock");
    for name in ["burstsim", "burstsim-python"] {
        let entry = lock["package"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"].as_str() == Some(name))
            .unwrap_or_else(|| panic!("python/Cargo.lock has no package {name}"));
        assert_eq!(
            entry["version"].as_str(),
            Some(version.as_str()),
            "python/Cargo.lock records {name} at another version than {version}: run `cargo update -p {name}` in python/"
        );
    }
}

#[test]
fn the_docs_name_the_artifacts_of_this_version() {
    let version = root_version();
    let mut docs = vec![root().join("README.md")];
    docs.extend(std::fs::read_dir(root().join("docs")).unwrap().map(|e| e.unwrap().path()));
    let mut named = 0;
    for doc in docs.iter().filter(|p| p.extension().is_some_and(|e| e == "md")) {
        let text = std::fs::read_to_string(doc).unwrap();
        // `burstsim-0.1.0-…`: a tarball or wheel name, whose version follows the name.
        for (at, _) in text.match_indices("burstsim-") {
            let rest = &text[at + "burstsim-".len()..];
            if !rest.starts_with(|c: char| c.is_ascii_digit()) {
                continue;
            }
            let found = rest.split('-').next().unwrap();
            named += 1;
            assert_eq!(found, version, "{} names an artifact of version {found}, not Cargo.toml's", doc.display());
        }
    }
    assert!(named >= 4, "README.md and docs/ should name the tarball and the wheel (found {named} names)");
}

/// `git ARGS` in the repository, if git is there and succeeds.
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(root()).output().ok()?;
    out.status.success().then(|| String::from_utf8(out.stdout).unwrap().trim().to_owned())
}

#[test]
fn version_flag_names_the_version_and_the_commit() {
    let out = Command::new(env!("CARGO_BIN_EXE_burstsim")).arg("--version").output().unwrap();
    assert!(out.status.success());
    let commit = if root().join(".git").exists() { git(&["rev-parse", "--short=12", "HEAD"]) } else { None };
    let commit = commit.unwrap_or_else(|| std::env::var("BURSTSIM_COMMIT").unwrap_or_else(|_| "unknown".into()));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), format!("burstsim {} (commit {commit})\n", root_version()));
}

/// build.rs compiled on its own and run as cargo would, in `dir`, with `BURSTSIM_COMMIT`
/// set to `env_commit`: the commit it gives the crate.
fn build_script_commit(exe: &Path, dir: &Path, env_commit: Option<&str>) -> String {
    let mut cmd = Command::new(exe);
    cmd.env("CARGO_MANIFEST_DIR", dir).env_remove("BURSTSIM_COMMIT");
    if let Some(c) = env_commit {
        cmd.env("BURSTSIM_COMMIT", c);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "build.rs failed in {}: {}", dir.display(), String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let values: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("cargo:rustc-env=BURSTSIM_COMMIT=")).collect();
    assert_eq!(values.len(), 1, "build.rs should set BURSTSIM_COMMIT once:\n{text}");
    values[0].to_owned()
}

#[test]
fn build_script_takes_git_then_the_environment_then_unknown() {
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("build-script");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let status = Command::new(rustc)
        .args(["--edition", "2024", "-o"])
        .arg(&exe)
        .arg(root().join("build.rs"))
        .status()
        .expect("rustc runs");
    assert!(status.success(), "build.rs does not compile on its own");
    // A source tree without .git (an unpacked tarball), even inside this repository.
    let bare = root().join("target").join("build-script-no-git");
    std::fs::create_dir_all(&bare).unwrap();
    assert_eq!(build_script_commit(&exe, &bare, None), "unknown");
    assert_eq!(build_script_commit(&exe, &bare, Some("abc123")), "abc123");
    assert_eq!(build_script_commit(&exe, &bare, Some("  ")), "unknown");
    // A checkout's own commit wins over the environment.
    if root().join(".git").exists()
        && let Some(head) = git(&["rev-parse", "--short=12", "HEAD"])
    {
        assert_eq!(build_script_commit(&exe, &root(), Some("abc123")), head);
    }
}

/// A glibc symbol version (`2.3.4`) as numbers, to compare them as glibc does; `None` for
/// a name such as `GLIBC_PRIVATE`, which the check does not read either.
fn glibc_version(v: &str) -> Option<Vec<u32>> {
    v.split('.').map(|p| p.parse().ok()).collect()
}

/// `scripts/release.sh --glibc-ceiling MAX FILE`: (success, the `symbol@GLIBC_x` it lists).
fn ceiling_check(max: &str, file: &str) -> (bool, BTreeSet<String>) {
    let out = Command::new(root().join("scripts/release.sh")).args(["--glibc-ceiling", max, file]).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let listed = stderr
        .lines()
        .filter_map(|l| l.split_once(&format!("'{file}' needs glibc newer than {max}:")))
        .flat_map(|(_, syms)| syms.split_whitespace().map(str::to_owned))
        .collect();
    (out.status.success(), listed)
}

#[test]
fn glibc_check_lists_exactly_the_symbols_newer_than_its_ceiling() {
    if Command::new("objdump").arg("--version").output().is_err() {
        eprintln!("objdump is not installed (binutils): the glibc check of scripts/release.sh is not tested");
        return;
    }
    // This test's own binary, linked against the build machine's glibc.
    let exe = env!("CARGO_BIN_EXE_burstsim");
    let dump = String::from_utf8(Command::new("objdump").args(["-T", exe]).output().unwrap().stdout).unwrap();
    let needs: BTreeSet<(Vec<u32>, String)> = dump
        .lines()
        .filter_map(|l| {
            let (version, symbol) = l.split_once("GLIBC_")?.1.split_once([')', ' '])?;
            Some((glibc_version(version)?, format!("{}@GLIBC_{version}", symbol.trim())))
        })
        .collect();
    let versions: BTreeSet<&Vec<u32>> = needs.iter().map(|(v, _)| v).collect();
    assert!(versions.len() >= 2, "a Rust binary needs several glibc versions:\n{dump}");
    // As the ceiling: the oldest version needed, the newest, one between, and 2.17 (the
    // release's) when needed; each objdump of this binary takes about a second.
    let versions: Vec<&Vec<u32>> = versions.into_iter().collect();
    let mut ceilings: BTreeSet<&Vec<u32>> =
        [versions[0], versions[versions.len() / 2], versions[versions.len() - 1]].into();
    let release = glibc_version("2.17").unwrap();
    ceilings.extend(versions.iter().filter(|v| ***v == release));
    for max in ceilings.iter().map(|v| v.iter().map(u32::to_string).collect::<Vec<_>>().join(".")) {
        let expected: BTreeSet<String> =
            needs.iter().filter(|(v, _)| Some(v) > glibc_version(&max).as_ref()).map(|(_, s)| s.clone()).collect();
        let (ok, listed) = ceiling_check(&max, exe);
        assert_eq!(ok, expected.is_empty(), "ceiling {max}: exit status");
        assert_eq!(listed, expected, "ceiling {max}: the symbols listed");
    }
}

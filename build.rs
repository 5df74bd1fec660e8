//! Build script: records the git commit the crate is built from, for `burstsim --version`
//! (issue 47), as the compile-time variable `BURSTSIM_COMMIT`.
//!
//! A checkout (a `.git` beside Cargo.toml, a directory or a worktree's file) gives
//! `git rev-parse --short=12 HEAD`. A source tree without one (an unpacked tarball, a
//! crate download) gives the `BURSTSIM_COMMIT` of the environment when a packager sets
//! it, else `unknown`. Git missing or failing never fails the build. The `.git` test keeps
//! a source tree unpacked inside some other repository from taking that repository's commit.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The trimmed standard output of `git ARGS` run in `dir`, if git ran and succeeded.
fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).current_dir(dir).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    println!("cargo:rerun-if-env-changed=BURSTSIM_COMMIT");
    // Only the files below decide the commit; without this line cargo would rerun the
    // script (and rebuild the crate) on any change in the package.
    println!("cargo:rerun-if-changed=build.rs");
    let from_git = if root.join(".git").exists() {
        // HEAD moves on a commit or checkout; the branch it names moves on a commit
        // (loose ref or packed-refs). Only existing files are listed: cargo treats a
        // missing one as always changed.
        let mut watched = vec!["HEAD".to_owned(), "packed-refs".to_owned()];
        watched.extend(git(&root, &["symbolic-ref", "-q", "HEAD"]));
        for name in watched {
            if let Some(path) = git(&root, &["rev-parse", "--git-path", &name]) {
                let path = root.join(path);
                if path.exists() {
                    println!("cargo:rerun-if-changed={}", path.display());
                }
            }
        }
        git(&root, &["rev-parse", "--short=12", "HEAD"])
    } else {
        None
    };
    let commit = from_git
        .or_else(|| std::env::var("BURSTSIM_COMMIT").ok().filter(|c| !c.trim().is_empty()))
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=BURSTSIM_COMMIT={commit}");
}

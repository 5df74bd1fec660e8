//! A fitted scenario that runs as a lab's scenario (issue 46 item 7): the campus and
//! background fitted from the log ([`super::write`]), with the lab's side copied from the
//! built-in default scenario ([`crate::scenario::DEFAULT_SCENARIO`]): its cloud offers, its
//! policies and its targets, and, when no group was named in the log, its group's
//! workload. Without them `burstsim run` of a fitted file compared one policy on no job.
//!
//! The sections are copied from the default's own text, comments (and their sources)
//! included, so they stay what the default says; a test compares their values with the
//! default's. A policy or target that names a class of the default's workload which a
//! workload fitted from the log does not have (`guide-hybrid`'s `main_classes`, a
//! `main-training:` target) is written commented out, with what to change to use it.

use std::fmt::Write as _;

use super::LogFit;
use super::write::{TextLayout, compose, group_class_name};
use crate::scenario::DEFAULT_SCENARIO;

/// How the fitted campus is written, and what else the file holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LabOptions {
    /// Nodes of this many GPUs (Slurm's node model, `placement = "nodes"`); `None`: one
    /// pool of the cluster's GPUs, as `fit` writes without `--gpus-per-node`. It must
    /// divide the cluster's size (the use case refuses one that does not).
    pub gpus_per_node: Option<u32>,
}

/// The scenario text of a fit, with the lab's sections from the default scenario (see
/// the module doc). Loads whenever [`super::write::to_toml`]'s text does.
pub fn to_toml(fit: &LogFit, o: &LabOptions) -> String {
    let fitted_classes: Option<Vec<String>> =
        fit.group.as_ref().map(|g| g.classes.iter().map(group_class_name).collect());
    let copied = if fitted_classes.is_some() {
        "The cloud offers, policies and targets at the end"
    } else {
        "The group's workload, the cloud offers, policies and targets at the end"
    };
    let header = vec![
        format!("{copied} are copied from burstsim's default"),
        "scenario (scenarios/default.toml): a Wuhan lab's at AutoDL's prices. Edit them for your lab's own".to_string(),
        "jobs, offers, prices and targets (docs/TRACES.md, \"What fit writes\").".to_string(),
    ];
    let mut s = compose(fit, &TextLayout { gpus_per_node: o.gpus_per_node, header: &header, lab: true });
    s.push_str(&lab_sections(fitted_classes.as_deref()));
    s
}

/// One top-level table of a TOML document's text: its dotted header (`cloud.offers`) and
/// its lines, with the comment lines right above its header.
struct Block<'a> {
    path: &'a str,
    text: String,
}

/// The header path of a line that opens a table (`[a.b]` or `[[a.b]]` at the start of
/// the line, then only a comment), else `None`.
fn header(line: &str) -> Option<&str> {
    let rest = line.strip_prefix('[')?;
    let rest = rest.strip_prefix('[').unwrap_or(rest);
    let end = rest.find(']')?;
    let path = &rest[..end];
    let after = rest[end..].trim_start_matches(']').trim_start();
    let plain = !path.is_empty() && path.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    (plain && (after.is_empty() || after.starts_with('#'))).then_some(path)
}

/// The tables of `text` in order (what comes before the first table is left out).
fn blocks(text: &str) -> Vec<Block<'_>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut starts: Vec<(usize, &str)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(path) = header(line) {
            // The comments right above a header describe its table.
            let floor = starts.last().map_or(0, |&(s, _)| s + 1);
            let mut first = i;
            while first > floor && lines[first - 1].starts_with('#') {
                first -= 1;
            }
            starts.push((first, path));
        }
    }
    let ends = starts.iter().skip(1).map(|&(s, _)| s).chain([lines.len()]);
    starts
        .iter()
        .zip(ends)
        .map(|(&(start, path), end)| Block { path, text: lines[start..end].iter().map(|l| format!("{l}\n")).collect() })
        .collect()
}

/// Whether a table path is `name` or inside it.
fn within(path: &str, name: &str) -> bool {
    path == name || path.strip_prefix(name).is_some_and(|rest| rest.starts_with('.'))
}

/// `text` with every line commented out.
fn commented(text: &str) -> String {
    text.lines().map(|l| if l.is_empty() { "#\n".to_string() } else { format!("# {l}\n") }).collect()
}

/// The lab's sections: the default's workload (when `fitted_classes` is `None`: no group
/// was fitted), cloud offers, policies and targets. A policy or target naming a class
/// that `fitted_classes` lacks is commented out with what to change.
fn lab_sections(fitted_classes: Option<&[String]>) -> String {
    let all = blocks(DEFAULT_SCENARIO);
    let mut s = String::new();
    let classes: Vec<String> = match fitted_classes {
        Some(c) => c.to_vec(),
        None => {
            let _ = writeln!(
                s,
                "\n# ---- The group's own jobs: the default scenario's lab (about 10 people, all assumed; \
                 docs/ASSUMPTIONS.md §6).\n# Replace them with your group's classes (docs/SCENARIOS.md §6), \
                 or fit them from the log: burstsim fit LOG --group-user NAME.\n"
            );
            for b in all.iter().filter(|b| within(b.path, "workload")) {
                s.push_str(&b.text);
            }
            default_doc()
                .get("workload")
                .and_then(|w| w.get("classes"))
                .and_then(toml::Value::as_array)
                .map(|a| a.iter().filter_map(|c| c.get("name")?.as_str().map(str::to_string)).collect())
                .unwrap_or_default()
        }
    };
    let _ = writeln!(
        s,
        "\n# ---- Cloud offers and policies: copied from the default scenario (scenarios/default.toml).\n\
         # Edit the offers for your lab's own providers and prices (docs/SCENARIOS.md §10, §11).\n"
    );
    for b in all.iter().filter(|b| within(b.path, "cloud")) {
        s.push_str(&b.text);
    }
    for b in all.iter().filter(|b| within(b.path, "policies")) {
        let missing = policy_classes(&b.text).into_iter().filter(|c| !classes.contains(c)).collect::<Vec<_>>();
        if missing.is_empty() {
            s.push_str(&b.text);
        } else {
            let _ = writeln!(
                s,
                "# Left out: this policy of the default names the classes {}, which this workload does not have.\n\
                 # To use it, uncomment it and list your main runs in main_classes (the classes: {}).",
                quoted(&missing),
                classes.join(", ")
            );
            s.push_str(&commented(&b.text));
        }
    }
    let (kept, left): (Vec<String>, Vec<String>) = default_targets().into_iter().partition(|t| {
        crate::target::parse_target(t).is_ok_and(|t| t.class.as_ref().is_none_or(|c| classes.contains(c)))
    });
    let _ = writeln!(
        s,
        "# What \"recommended\" means: the default scenario's targets (`run --target` replaces them); set your own."
    );
    let _ = writeln!(s, "[sensitivity]");
    let list: Vec<String> = kept.iter().map(|t| toml::Value::String(t.clone()).to_string()).collect();
    let _ = writeln!(s, "targets = [{}]", list.join(", "));
    for t in &left {
        let _ = writeln!(
            s,
            "# Left out: the default's target \"{t}\" names a class this workload does not have; give one of \
             yours (the classes: {}).",
            classes.join(", ")
        );
    }
    s
}

/// `'a', 'b'`.
fn quoted(names: &[String]) -> String {
    names.iter().map(|n| format!("'{n}'")).collect::<Vec<_>>().join(", ")
}

/// The class names a `[[policies]]` block names (`main_classes`).
fn policy_classes(block: &str) -> Vec<String> {
    let Ok(doc) = block.parse::<toml::Table>() else { return Vec::new() };
    let policy = doc.get("policies").and_then(toml::Value::as_array).and_then(|a| a.first());
    policy
        .and_then(|p| p.get("main_classes"))
        .and_then(toml::Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The default scenario as a TOML document.
fn default_doc() -> toml::Table {
    DEFAULT_SCENARIO.parse::<toml::Table>().expect("the default scenario is valid TOML")
}

/// The default scenario's `[sensitivity] targets`.
fn default_targets() -> Vec<String> {
    default_doc()
        .get("sensitivity")
        .and_then(|s| s.get("targets"))
        .and_then(toml::Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sections as a TOML document.
    fn parsed(text: &str) -> toml::Table {
        text.parse::<toml::Table>().unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn the_lab_sections_are_the_defaults_offers_policies_targets_and_workload() {
        let ours = parsed(&lab_sections(None));
        let default = default_doc();
        for key in ["cloud", "policies", "workload"] {
            assert_eq!(ours.get(key), default.get(key), "{key} as the default has it");
        }
        assert_eq!(ours["sensitivity"]["targets"], default["sensitivity"]["targets"]);
        let keys: Vec<&String> = ours.keys().collect();
        assert_eq!(keys, ["cloud", "policies", "sensitivity", "workload"], "nothing else of the default");
    }

    #[test]
    fn a_fitted_workload_keeps_what_names_no_default_class_and_says_what_to_change() {
        let classes = vec!["our-size-1".to_string(), "our-size-2-4".to_string()];
        let text = lab_sections(Some(&classes));
        let ours = parsed(&text);
        assert!(ours.get("workload").is_none(), "the fitted workload is the group's");
        assert_eq!(ours.get("cloud"), default_doc().get("cloud"));
        let names: Vec<&str> =
            ours["policies"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["campus-only", "overflow-4h", "timeout-12h"], "guide-hybrid names main-training");
        assert!(text.contains("# [[policies]]\n# name = \"guide-hybrid\""), "{text}");
        assert!(text.contains("the classes: our-size-1, our-size-2-4"), "{text}");
        assert_eq!(ours["sensitivity"]["targets"].as_array().unwrap().len(), 1);
        assert!(text.contains("\"main-training:wait_p95_h<=48\" names a class"), "{text}");
    }

    #[test]
    fn headers_are_lines_that_open_a_table() {
        assert_eq!(header("[[cloud.offers]]"), Some("cloud.offers"));
        assert_eq!(header("[campus]   # note"), Some("campus"));
        assert_eq!(header("  [0.1, 0.2],"), None);
        assert_eq!(header("[1, 2],"), None);
        assert_eq!(header("# [campus]"), None);
    }
}

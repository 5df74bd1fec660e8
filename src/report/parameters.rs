//! The report's parameter tables: the scenario's settings in words with their units, the
//! value as a reader would write it, and the TOML key for whoever edits the file.
//!
//! A setting is named as the sweep charts name a swept key
//! ([`crate::plot::sweep_charts::axis_label`]: "Max walltime (h)", "校内价格（元/GPU小时）"),
//! so a key reads the same in a chart and in the report. Values lose their TOML syntax:
//! strings without quotes, lists as "1, 2, 4", a distribution as
//! "choice: values 1, 2, 4; weights 0.6, 0.3, 0.1".

use super::Block;
use crate::i18n::{L, Lang, fill};
use crate::plot::sweep_charts::axis_label;

/// The longest value shown in a cell (characters); longer ones end in "…".
const MAX_VALUE_CHARS: usize = 120;

/// A TOML value in words, in one line.
pub fn human(v: &toml::Value) -> String {
    let s = match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(a) => a.iter().map(human).collect::<Vec<_>>().join(", "),
        toml::Value::Table(t) => {
            // A distribution or a small table: its kind first, then "field value" pairs.
            let kind = t.get("kind").and_then(|k| k.as_str());
            let fields: Vec<String> = t
                .iter()
                .filter(|(k, _)| k.as_str() != "kind")
                .map(|(k, v)| format!("{} {}", k.replace('_', " "), human(v)))
                .collect();
            match kind {
                Some(k) if fields.is_empty() => k.to_string(),
                Some(k) => format!("{k}: {}", fields.join("; ")),
                None => fields.join("; "),
            }
        }
        other => other.to_string(),
    };
    if s.chars().count() > MAX_VALUE_CHARS {
        format!("{}…", s.chars().take(MAX_VALUE_CHARS - 1).collect::<String>())
    } else {
        s
    }
}

fn is_table_list(v: &toml::Value) -> bool {
    matches!(v, toml::Value::Array(a) if a.first().is_some_and(|x| x.is_table()))
}

/// The scenario's key parameters: the scalar settings of `[simulation]`, `[campus]`,
/// `[background]`, `[workload]` and `[cloud]` (setting in words with its unit, value,
/// TOML key), and one table per list (classes, seasons, offers, policies) with columns
/// named in words.
pub fn parameter_blocks(table: &toml::Table, lang: Lang) -> Vec<Block> {
    let mut out = Vec::new();
    let mut scalars = Vec::new();
    for section in ["simulation", "campus", "background", "workload", "cloud"] {
        let Some(toml::Value::Table(t)) = table.get(section) else { continue };
        for (k, v) in t {
            if !matches!(v, toml::Value::Table(_)) && !is_table_list(v) {
                let key = format!("{section}.{k}");
                scalars.push(vec![axis_label(&key, None, lang), human(v), key]);
            }
        }
    }
    let head = vec![L::Setting.get(lang).into(), L::Value.get(lang).into(), L::Key.get(lang).into()];
    out.push(Block::Table(head, scalars));
    let lists: [(&str, &[&str]); 6] = [
        ("workload.classes", &["name", "jobs_per_week", "gpus", "runtime_hours", "vram_gb", "deadline_hours"]),
        ("background.classes", &["name", "share", "gpus", "runtime_hours"]),
        ("background.seasons", &["name", "start", "end", "multiplier"]),
        ("workload.seasons", &["name", "start", "end", "multiplier"]),
        (
            "cloud.offers",
            &[
                "name",
                "gpu_type",
                "billing",
                "price_per_gpu_hour_cny",
                "price_per_gpu_month_cny",
                "gpus",
                "capacity_gpus",
            ],
        ),
        ("policies", &["name", "kind", "threshold_hours", "offers", "reserved_offer", "budget"]),
    ];
    for (path, keys) in lists {
        let mut v: Option<&toml::Value> = None;
        let mut cur = Some(table);
        for (i, part) in path.split('.').enumerate() {
            let next = cur.and_then(|t| t.get(part));
            if i == path.split('.').count() - 1 {
                v = next;
            } else {
                cur = next.and_then(|n| n.as_table());
            }
        }
        let Some(toml::Value::Array(items)) = v else { continue };
        let used: Vec<&str> = keys.iter().copied().filter(|k| items.iter().any(|it| it.get(k).is_some())).collect();
        if items.is_empty() || used.is_empty() {
            continue;
        }
        let rows =
            items.iter().map(|it| used.iter().map(|k| it.get(k).map(human).unwrap_or_default()).collect()).collect();
        out.push(Block::Para(fill(L::SectionOf.get(lang), &[path])));
        // A column is named by its field in words ("Jobs per week", "Runtime (h)").
        out.push(Block::Table(used.iter().map(|k| axis_label(k, None, lang)).collect(), rows));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_lose_their_toml_syntax() {
        let t: toml::Table = toml::from_str(
            "a = \"x\"\nb = [1, 2, 4]\nc = { kind = \"choice\", values = [1, 2], weights = [0.5, 0.5] }",
        )
        .unwrap();
        assert_eq!(human(&t["a"]), "x");
        assert_eq!(human(&t["b"]), "1, 2, 4");
        assert_eq!(human(&t["c"]), "choice: values 1, 2; weights 0.5, 0.5");
        assert!(human(&toml::Value::String("y".repeat(300))).ends_with('…'));
    }

    #[test]
    fn settings_are_named_in_words_with_their_units_and_keep_their_key() {
        let t: toml::Table = toml::from_str("[campus]\nmax_walltime_hours = 72\n").unwrap();
        let blocks = parameter_blocks(&t, Lang::En);
        let Block::Table(head, rows) = &blocks[0] else { panic!("a table first") };
        assert_eq!(head.len(), 3);
        assert_eq!(rows[0], vec!["Max walltime (h)".to_string(), "72".into(), "campus.max_walltime_hours".into()]);
    }
}

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

/// A TOML value in words, in one line, with a distribution's kind and fields in `lang`
/// ("choice: values 1, 2; weights 0.5, 0.5", "离散取值：取值 1, 2；权重 0.5, 0.5").
pub fn human_in(v: &toml::Value, lang: Lang) -> String {
    let zh = lang == Lang::Zh;
    let s = match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(a) => a.iter().map(|x| human_in(x, lang)).collect::<Vec<_>>().join(", "),
        toml::Value::Table(t) => {
            // A distribution or a small table: its kind first, then "field value" pairs.
            // Kinds and fields in Chinese from `i18n::FIELDS_ZH` (so the report's font has them).
            let field = |k: &str| match crate::i18n::field_zh(k) {
                Some(z) if zh => z.to_string(),
                _ => k.replace('_', " "),
            };
            let kind = t.get("kind").and_then(|k| k.as_str()).map(field);
            let fields: Vec<String> = t
                .iter()
                .filter(|(k, _)| k.as_str() != "kind")
                .map(|(k, v)| format!("{} {}", field(k), human_in(v, lang)))
                .collect();
            let (colon, semi) = if zh { ("：", "；") } else { (": ", "; ") };
            match kind {
                Some(k) if fields.is_empty() => k,
                Some(k) => format!("{k}{colon}{}", fields.join(semi)),
                None => fields.join(semi),
            }
        }
        // A whole number written as a float ("gpus = 3.0", as `fit` writes a choice's values)
        // reads as a person writes it: "3".
        toml::Value::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        other => other.to_string(),
    };
    if s.chars().count() > MAX_VALUE_CHARS {
        format!("{}…", s.chars().take(MAX_VALUE_CHARS - 1).collect::<String>())
    } else {
        s
    }
}

/// As [`human_in`], for the value of `key`: in Chinese a value from a fixed set (`placement
/// = "nodes"`, a policy's `kind`) in words ([`crate::i18n::value_zh`]).
fn value_in(key: &str, v: &toml::Value, lang: Lang) -> String {
    match (lang, v.as_str().and_then(|s| crate::i18n::value_zh(key, s))) {
        (Lang::Zh, Some(zh)) => zh.to_string(),
        _ => human_in(v, lang),
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
                scalars.push(vec![axis_label(&key, None, lang), value_in(&key, v, lang), key]);
            }
        }
    }
    let head = vec![L::Setting.get(lang).into(), L::Value.get(lang).into(), L::Key.get(lang).into()];
    out.push(Block::Table(head, scalars));
    let lists: [(&str, &[&str]); 6] = [
        (
            "workload.classes",
            &["name", "jobs_per_week", "gpus", "runtime_hours", "requests", "vram_gb", "deadline_hours"],
        ),
        ("background.classes", &["name", "load_share", "gpus", "runtime_hours", "requests"]),
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
        let cell =
            |k: &str, v: &toml::Value| if k == "requests" { requests_in_words(v, lang) } else { value_in(k, v, lang) };
        let rows = items
            .iter()
            .map(|it| used.iter().map(|k| it.get(k).map(|v| cell(k, v)).unwrap_or_default()).collect())
            .collect();
        out.push(Block::Para(fill(L::SectionOf.get(lang), &[path])));
        // A column is named by its field in words ("Jobs per week", "Runtime (h)").
        out.push(Block::Table(used.iter().map(|k| axis_label(k, None, lang)).collect(), rows));
    }
    out
}

/// A class's `requests` table (hundreds of quantiles, as `burstsim fit` writes it) in
/// words: the requested time's median, 90th percentile and longest value, and the mean
/// run time the table implies. A table that does not validate is shown as written.
fn requests_in_words(v: &toml::Value, lang: Lang) -> String {
    let floats = |v: Option<&toml::Value>| -> Option<Vec<f64>> {
        v?.as_array()?.iter().map(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64))).collect()
    };
    let rows: Option<Vec<Vec<f64>>> =
        v.get("used_fraction").and_then(|r| r.as_array()).and_then(|r| r.iter().map(|row| floats(Some(row))).collect());
    let table = floats(v.get("hours"))
        .zip(rows)
        .and_then(|(hours, rows)| crate::scenario::requests::Requests::new(hours, rows).ok());
    let Some(t) = table else { return human_in(v, lang) };
    let q = |u: f64| format!("{:.3}", crate::scenario::requests::quantile(t.hours(), u));
    let round = |s: String| s.trim_end_matches('0').trim_end_matches('.').to_string();
    fill(
        L::RequestsInWords.get(lang),
        &[&round(q(0.5)), &round(q(0.9)), &round(q(1.0)), &round(format!("{:.3}", t.mean_runtime_h()))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn human_in_en(v: &toml::Value) -> String {
        human_in(v, Lang::En)
    }

    #[test]
    fn values_lose_their_toml_syntax() {
        let t: toml::Table = toml::from_str(
            "a = \"x\"\nb = [1, 2, 4]\nc = { kind = \"choice\", values = [1, 2], weights = [0.5, 0.5] }",
        )
        .unwrap();
        assert_eq!(human_in_en(&t["a"]), "x");
        assert_eq!(human_in_en(&t["b"]), "1, 2, 4");
        assert_eq!(human_in_en(&t["c"]), "choice: values 1, 2; weights 0.5, 0.5");
        let f: toml::Table =
            toml::from_str("g = { kind = \"choice\", values = [3.0, 16.0], weights = [0.25, 2.0] }\nh = 1.5").unwrap();
        assert_eq!(human_in_en(&f["g"]), "choice: values 3, 16; weights 0.25, 2");
        assert_eq!(human_in_en(&f["h"]), "1.5");
        assert_eq!(human_in(&f["g"], Lang::Zh), "离散取值：取值 3, 16；权重 0.25, 2");
        let l: toml::Table = toml::from_str("d = { kind = \"lognormal\", mean = 8, cv = 1.0 }").unwrap();
        assert_eq!(human_in(&l["d"], Lang::Zh), "对数正态分布：变异系数 1；均值 8");
        assert_eq!(human_in(&l["d"], Lang::En), "lognormal: cv 1; mean 8");
        assert!(human_in_en(&toml::Value::String("y".repeat(300))).ends_with('…'));
    }

    #[test]
    fn a_requests_table_is_shown_by_its_quantiles_and_mean_run_time() {
        let t: toml::Table = toml::from_str(
            "[[background.classes]]\nname = \"a\"\nshare = 1\ngpus = 1\n\
             requests = { hours = [1, 2, 4, 4, 60], used_fraction = [[0.5, 1.0]] }\n",
        )
        .unwrap();
        for (lang, text) in [
            (Lang::En, "request median 4 h, p90 37.6 h, longest 60 h; mean run time 7.594 h"),
            (Lang::Zh, "申请时长中位数 4 小时，90%分位 37.6 小时，最长 60 小时；平均运行时长 7.594 小时"),
        ] {
            let blocks = parameter_blocks(&t, lang);
            let Some(Block::Table(head, rows)) = blocks.last() else { panic!("the classes' table last") };
            let i = head.iter().position(|h| h.contains("Requests") || h.contains("申请")).expect("a requests column");
            assert_eq!(rows[0][i], text);
        }
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

//! Checks of the display names (`label`, `label_zh`) of the scenario, its policies, classes
//! and seasons: one line, short, and distinct within a list. Apart from the sections
//! because one rule runs across all of them.

use super::*;

/// Longest display name, in characters: longer ones do not fit a legend.
const MAX_LABEL_CHARS: usize = 60;

/// Display names: one line, not empty, at most [`MAX_LABEL_CHARS`] characters, and
/// distinct within a list (two policies drawn with one name could not be told apart).
pub(super) fn check_labels(raw: &RawScenario) -> Result<()> {
    let one = |key: String, l: &Option<String>| -> Result<()> {
        let Some(l) = l else { return Ok(()) };
        if l.trim().is_empty() {
            return bad(key, "an empty label is not allowed (leave the key out to show the name)");
        }
        if l.chars().any(char::is_control) {
            return bad(
                key,
                format!("'{}' has a line break or control character; labels are one line", l.escape_debug()),
            );
        }
        if l.chars().count() > MAX_LABEL_CHARS {
            return bad(key, format!("'{l}' is longer than {MAX_LABEL_CHARS} characters; charts need a short name"));
        }
        Ok(())
    };
    one("label".into(), &raw.label)?;
    one("label_zh".into(), &raw.label_zh)?;
    type Entry<'a> = (&'a str, &'a Option<String>, &'a Option<String>);
    let list = |key: &str, items: Vec<Entry<'_>>| -> Result<()> {
        let (mut en, mut zh) = (HashSet::new(), HashSet::new());
        for (i, (name, l, lz)) in items.iter().enumerate() {
            one(format!("{key}[{i}].label"), l)?;
            one(format!("{key}[{i}].label_zh"), lz)?;
            // The name each language shows: two entries must not look alike.
            let shown_en = l.as_deref().unwrap_or(name);
            let shown_zh = lz.as_deref().or(l.as_deref()).unwrap_or(name);
            if !en.insert(shown_en) || !zh.insert(shown_zh) {
                let (field, shown) = if lz.is_some() { ("label_zh", shown_zh) } else { ("label", shown_en) };
                return bad(
                    format!("{key}[{i}].{field}"),
                    format!("'{shown}' is already the display name of another entry; display names must be distinct"),
                );
            }
        }
        Ok(())
    };
    list("policies", raw.policies.iter().map(|p| (p.name.as_str(), &p.label, &p.label_zh)).collect())?;
    list("workload.classes", raw.workload.classes.iter().map(|c| (c.name.as_str(), &c.label, &c.label_zh)).collect())?;
    list("workload.seasons", raw.workload.seasons.iter().map(|c| (c.name.as_str(), &c.label, &c.label_zh)).collect())?;
    if let Some(bg) = &raw.background {
        list("background.classes", bg.classes.iter().map(|c| (c.name.as_str(), &c.label, &c.label_zh)).collect())?;
        list("background.seasons", bg.seasons.iter().map(|c| (c.name.as_str(), &c.label, &c.label_zh)).collect())?;
    }
    Ok(())
}

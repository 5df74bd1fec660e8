//! Finds the line of a dotted key path (`cloud.offers[1].billing`) in a scenario's text,
//! so that errors found after parsing can still point at a line.

use toml::de::{DeTable, DeValue};

/// One step of a key path.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    for part in path.split('.') {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        while let Some(close) = rest.find(']') {
            if let Ok(i) = rest[1..close].parse() {
                out.push(Step::Index(i));
            }
            rest = &rest[close + 1..];
        }
    }
    out
}

/// The 1-based line of the deepest part of `path` found in `text`, if any.
pub fn line_of(text: &str, path: &str) -> Option<usize> {
    let doc = DeTable::parse(text).ok()?;
    let mut offset = None;
    let mut table = Some(doc.get_ref());
    let mut array: Option<&toml::de::DeArray> = None;
    for step in steps(path) {
        let value = match (step, table, array) {
            // A missing part (a required key left out) stops the walk: the error then
            // points at the deepest part that is there, e.g. the table that lacks the key.
            (Step::Key(k), Some(t), _) => {
                let Some((key, value)) = t.get_key_value(k) else { break };
                offset = Some(key.span().start);
                value
            }
            (Step::Index(i), _, Some(a)) => {
                let Some(value) = a.get(i) else { break };
                offset = Some(value.span().start);
                value
            }
            _ => break,
        };
        table = None;
        array = None;
        match value.get_ref() {
            DeValue::Table(t) => table = Some(t),
            DeValue::Array(a) => array = Some(a),
            _ => {}
        }
    }
    offset.map(|o| text[..o.min(text.len())].matches('\n').count() + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_in_tables_and_arrays_of_tables() {
        let text = "[simulation]\nseed = 1\n\n[[cloud.offers]]\nname = \"a\"\n\n[[cloud.offers]]\nname = \"b\"\nbilling = \"weekly\"\n";
        assert_eq!(line_of(text, "simulation.seed"), Some(2));
        assert_eq!(line_of(text, "cloud.offers[1].billing"), Some(9));
        assert_eq!(line_of(text, "cloud.offers[0]"), Some(4), "an array-of-tables entry points at its header");
        assert_eq!(line_of(text, "nothing.here"), None);
        assert_eq!(line_of(text, "cloud.offers[1].price"), Some(7), "a missing key points at its table");
        assert_eq!(line_of(text, "simulation.horizon_days"), Some(1));
    }
}

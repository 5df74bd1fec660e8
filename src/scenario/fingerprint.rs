//! What a calibrated file's header vouches for (issue 45 item 5). `burstsim calibrate`
//! writes a comment block on top of the scenario it fits, saying which values were fitted
//! to which observations; copied into another file (the default adapted to a smaller
//! campus), that block goes on claiming a calibration that no longer describes the file.
//! The header therefore carries a fingerprint of the file's values, and loading compares
//! it with the values the file now holds: comments and layout do not count, any value does.

use std::fmt::Write as _;

use super::raw::RawScenario;

/// The header line's opening words; the 16 hexadecimal digits follow.
pub const HEADER_LINE: &str = "#   fingerprint of the file's values (a run warns when they change): ";

/// The fingerprint of a scenario's values: FNV-1a (64 bits) of their canonical TOML
/// (keys in a fixed order, defaults as parsed), so that comments, spacing and the order
/// of keys in the file do not change it. Not a security hash: it catches edits, not forgery.
/// `[sensitivity]` is left out: it says what a run checks (its targets) and varies (the
/// band), not a value of the model the calibration fitted or relied on; so are the
/// stopping rule and its cap (`simulation.ci_target`, `ci_target_paired`,
/// `max_replications`), which say how many years a run takes, not what a year is.
pub fn of(raw: &RawScenario) -> String {
    let mut values = RawScenario { sensitivity: None, ..raw.clone() };
    values.simulation.ci_target = None;
    values.simulation.ci_target_paired = None;
    values.simulation.max_replications = None;
    let canonical = toml::to_string(&values).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in canonical.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut out = String::with_capacity(16);
    let _ = write!(out, "{h:016x}");
    out
}

/// The fingerprint written in a calibration header on top of `text`, if there is one
/// (the block runs from the first line to the first empty line).
pub fn written(text: &str) -> Option<&str> {
    if !text.starts_with("# Calibrated by `burstsim calibrate`") {
        return None;
    }
    text.lines().take_while(|l| !l.trim().is_empty()).find_map(|l| l.strip_prefix(HEADER_LINE)).map(str::trim)
}

/// A calibration header whose fingerprint no longer matches the file's values.
#[derive(Clone, Debug, PartialEq)]
pub struct StaleHeader {
    /// The fingerprint the header carries.
    pub written: String,
    /// The fingerprint of the values the file holds now.
    pub now: String,
}

/// Compares the header of `text` (if it has one with a fingerprint) with `raw`, its values.
pub fn check(text: &str, raw: &RawScenario) -> Option<StaleHeader> {
    let written = written(text)?;
    let now = of(raw);
    (written != now).then(|| StaleHeader { written: written.to_string(), now })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> RawScenario {
        toml::from_str(text).unwrap()
    }

    const TINY: &str = include_str!("../../tests/fixtures/tiny.toml");

    #[test]
    fn comments_and_spacing_keep_the_fingerprint_and_a_value_changes_it() {
        let base = of(&raw(TINY));
        assert_eq!(base.len(), 16);
        let commented = TINY.replacen("gpus = 64\n", "gpus   =   64   # the same value\n", 1);
        assert_eq!(of(&raw(&commented)), base);
        let edited = TINY.replacen("gpus = 64\n", "gpus = 32\n", 1);
        assert_ne!(of(&raw(&edited)), base);
    }

    #[test]
    fn a_header_is_stale_only_when_its_fingerprint_differs() {
        let head = |fp: &str| format!("# Calibrated by `burstsim calibrate` from t.toml: …\n{HEADER_LINE}{fp}\n\n");
        let fp = of(&raw(TINY));
        assert_eq!(check(&(head(&fp) + TINY), &raw(TINY)), None);
        let smaller = TINY.replacen("gpus = 64\n", "gpus = 32\n", 1);
        let stale = check(&(head(&fp) + &smaller), &raw(&smaller)).expect("a changed value makes it stale");
        assert_eq!(stale.written, fp);
        // No header, or a header without a fingerprint (written before fingerprints): nothing to check.
        assert_eq!(check(&smaller, &raw(&smaller)), None);
        let old = "# Calibrated by `burstsim calibrate` from t.toml: …\n#   x = 1\n\n".to_string() + &smaller;
        assert_eq!(check(&old, &raw(&smaller)), None);
    }
}

//! Writing results, below every layer that writes: numbers as CSV text ([`num`]) and
//! for people ([`fmt_num`]), CSV files built in memory ([`CsvBytes`]), files written
//! atomically ([`atomic_write`]) after proving the path writable ([`probe_file`]), the lock that keeps two runs out of one folder
//! ([`lock`]) and the rule for when a folder may be written at all ([`occupied`]).
//!
//! Every file is produced as bytes by a pure function and written atomically (temporary
//! file in the same folder, flushed, then renamed), so an interrupted run never leaves a
//! half-written file under a final name.

pub mod lock;
pub mod occupied;

use std::io::Write;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` atomically: a temporary sibling is written and synced, then
/// renamed over the target.
///
/// # Errors
/// Any I/O error, with the path in the message.
pub fn atomic_write(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp: PathBuf = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(|e| std::io::Error::new(e.kind(), format!("could not write '{}': {e}", path.display())))
}

/// Proves, before any work, that `path` can be written as a file: creates its folder if
/// needed, then creates and removes a temporary sibling. A command whose output comes after
/// minutes of work (fit, a replay's job list, a fitted scenario) calls this first, so an
/// unusable path fails at once with the path named instead of after the work.
///
/// # Errors
/// The path is a folder, its folder cannot be created, or a file cannot be created there;
/// the message names the path and the system's reason.
pub fn probe_file(path: &Path) -> std::io::Result<()> {
    let named = |e: std::io::Error| std::io::Error::new(e.kind(), format!("cannot write '{}': {e}", path.display()));
    if path.is_dir() {
        return Err(named(std::io::Error::new(std::io::ErrorKind::IsADirectory, "it is a folder; give a file name")));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(named)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let probe = dir.join(format!(".{name}.probe-{}", std::process::id()));
    std::fs::File::create(&probe).map_err(named)?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Formats a number for CSV: shortest round-trip text, empty for NaN, `0` for −0.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        String::new()
    } else if v == 0.0 {
        "0".to_string()
    } else {
        format!("{v}")
    }
}

/// A number with thousands separators and `decimals` decimals (`120,000`, `3.62`).
pub fn fmt_num(v: f64, decimals: usize) -> String {
    if !v.is_finite() {
        return "–".into();
    }
    let s = format!("{:.*}", decimals, v.abs());
    let (int, frac) = s.split_once('.').map_or((s.as_str(), None), |(a, b)| (a, Some(b)));
    let mut out = String::new();
    for (i, ch) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    let negative = v < 0.0 && out.chars().any(|c| c.is_ascii_digit() && c != '0');
    if negative { format!("−{out}") } else { out }
}

/// A CSV file built in memory: `\n` line ends, quoting as needed. Writing to memory
/// cannot fail, so rows are added without a `Result`.
pub struct CsvBytes(csv::Writer<Vec<u8>>);

impl CsvBytes {
    /// A file with this header row.
    pub fn new<I: IntoIterator<Item = T>, T: AsRef<[u8]>>(header: I) -> CsvBytes {
        let mut c = CsvBytes(csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new()));
        c.row(header);
        c
    }

    /// Adds a row.
    pub fn row<I: IntoIterator<Item = T>, T: AsRef<[u8]>>(&mut self, fields: I) {
        self.0.write_record(fields).expect("writing to memory cannot fail");
    }

    /// The bytes.
    pub fn finish(self) -> Vec<u8> {
        self.0.into_inner().expect("writing to memory cannot fail")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.csv");
        atomic_write(&p, b"one").unwrap();
        atomic_write(&p, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "two");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn numbers_are_plain_and_nan_is_empty() {
        assert_eq!(num(f64::NAN), "");
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(1.5), "1.5");
        assert_eq!(num(1e-7), "0.0000001");
    }

    #[test]
    fn numbers_get_thousands_separators_and_a_real_minus() {
        assert_eq!(fmt_num(112_304.4, 0), "112,304");
        assert_eq!(fmt_num(3.617, 2), "3.62");
        assert_eq!(fmt_num(-26_596.0, 0), "−26,596");
        assert_eq!(fmt_num(-0.0001, 2), "0.00");
        assert_eq!(fmt_num(f64::NAN, 2), "–");
    }
}

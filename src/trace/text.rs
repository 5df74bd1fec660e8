//! Text helpers shared by the readers: gzip, lines (CRLF, non-UTF-8), numbers, Slurm
//! durations and calendar timestamps. Nothing here panics on any input.

use std::borrow::Cow;
use std::io::Read;

use super::record::{Problem, TraceError};
use crate::date::Date;

/// Decompresses gzip data (detected by its magic bytes). A broken stream is an error in
/// strict mode; otherwise what was decompressed is kept (without its last, possibly cut,
/// line) and a note says what happened.
pub(crate) fn gunzip_if_needed<'a>(
    bytes: &'a [u8],
    file: &str,
    strict: bool,
) -> Result<(Cow<'a, [u8]>, Option<String>), TraceError> {
    if !(bytes.len() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b) {
        return Ok((Cow::Borrowed(bytes), None));
    }
    let mut out = Vec::with_capacity(bytes.len() * 8);
    let mut dec = flate2::read::MultiGzDecoder::new(bytes);
    let mut buf = [0u8; 64 * 1024];
    loop {
        match dec.read(&mut buf) {
            Ok(0) => return Ok((Cow::Owned(out), None)),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                if strict {
                    return Err(TraceError::Gzip { file: file.to_string(), bytes: out.len(), message: e.to_string() });
                }
                let keep = out.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
                out.truncate(keep);
                let note = format!(
                    "the gzip stream is broken ({e}); the {keep} bytes decompressed before it were read, up to the last whole line"
                );
                return Ok((Cow::Owned(out), Some(note)));
            }
        }
    }
}

/// "UTF-16 (little-endian)" or "UTF-16 (big-endian)" when `text` is UTF-16 (a byte-order
/// mark, or ASCII with a NUL byte beside every character, as Windows tools write), which
/// the readers would otherwise see as rows of NUL-riddled garbage.
pub(crate) fn utf16(text: &[u8]) -> Option<&'static str> {
    match text {
        [0xFF, 0xFE, ..] => return Some("UTF-16 (little-endian)"),
        [0xFE, 0xFF, ..] => return Some("UTF-16 (big-endian)"),
        _ => {}
    }
    let head = &text[..text.len().min(256) & !1];
    if head.len() < 8 {
        return None;
    }
    let nul =
        |offset: usize| head.iter().skip(offset).step_by(2).filter(|&&b| b == 0).count() * 2 >= head.len() * 9 / 10;
    if nul(1) {
        Some("UTF-16 (little-endian)")
    } else if nul(0) {
        Some("UTF-16 (big-endian)")
    } else {
        None
    }
}

/// Lines with their 1-based numbers; a trailing `\r` is removed and bytes that are not
/// UTF-8 become U+FFFD.
pub(crate) fn lines(text: &[u8]) -> impl Iterator<Item = (usize, Cow<'_, str>)> {
    let body = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    body.split(|&b| b == b'\n').enumerate().map(|(i, l)| {
        let l = l.strip_suffix(b"\r").unwrap_or(l);
        (i + 1, String::from_utf8_lossy(l))
    })
}

/// Cuts a field's text for messages.
pub(crate) fn clip(text: &str) -> String {
    let t: String = text.chars().take(40).collect();
    if t.len() < text.len() { format!("{t}…") } else { t }
}

fn bad(field: &str, text: &str) -> Problem {
    Problem::BadValue { field: field.to_string(), text: clip(text) }
}

/// A finite number.
pub(crate) fn number(field: &str, text: &str) -> Result<f64, Problem> {
    match text.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(bad(field, text)),
    }
}

/// Whether a field means "missing" in CSV and sacct output.
pub(crate) fn is_missing(text: &str) -> bool {
    matches!(text.trim().to_ascii_lowercase().as_str(), "" | "nan" | "null" | "none" | "unknown" | "na" | "n/a" | "-")
}

/// Seconds to a whole number of seconds, refusing values that would overflow.
pub(crate) fn whole_seconds(field: &str, secs: f64) -> Result<i64, Problem> {
    if secs.is_finite() && secs.abs() < 1e15 { Ok(secs.round() as i64) } else { Err(bad(field, &format!("{secs}"))) }
}

/// A Slurm duration: `[D-]HH:MM:SS`, `MM:SS`, `MM`, `D-HH`, `D-HH:MM`, with optional
/// fractional seconds (`MM:SS.mmm`). Returns seconds.
pub(crate) fn slurm_duration(field: &str, text: &str) -> Result<i64, Problem> {
    let t = text.trim();
    let err = || bad(field, text);
    let (days, rest, has_days) = match t.split_once('-') {
        Some((d, r)) => (d.parse::<i64>().map_err(|_| err())?, r, true),
        None => (0, t, false),
    };
    if days < 0 || rest.is_empty() {
        return Err(err());
    }
    let parts: Vec<&str> = rest.split(':').collect();
    let num = |s: &str| -> Result<f64, Problem> {
        match s.parse::<f64>() {
            Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
            _ => Err(err()),
        }
    };
    let secs = match (has_days, parts.as_slice()) {
        (false, [m]) => num(m)? * 60.0,
        (false, [m, s]) => num(m)? * 60.0 + num(s)?,
        (_, [h, m, s]) => num(h)? * 3600.0 + num(m)? * 60.0 + num(s)?,
        (true, [h]) => num(h)? * 3600.0,
        (true, [h, m]) => num(h)? * 3600.0 + num(m)? * 60.0,
        _ => return Err(err()),
    };
    whole_seconds(field, days as f64 * 86_400.0 + secs)
}

/// A calendar timestamp `YYYY-MM-DD[T| ]HH:MM[:SS[.fff]]` (or a date alone), as seconds
/// since 1970-01-01 00:00 in the timestamp's own (local) time. A trailing `Z` is allowed.
pub(crate) fn timestamp(field: &str, text: &str) -> Result<i64, Problem> {
    let t = text.trim().trim_end_matches('Z');
    let err = || bad(field, text);
    let (date, time) = match t.find(['T', ' ']) {
        Some(i) => (&t[..i], t[i + 1..].trim()),
        None => (t, ""),
    };
    let mut d = date.split('-');
    let (Some(y), Some(m), Some(dd), None) = (d.next(), d.next(), d.next(), d.next()) else {
        return Err(err());
    };
    let (y, m, dd) = (y.parse::<i32>(), m.parse::<u8>(), dd.parse::<u8>());
    let (Ok(y), Ok(m), Ok(dd)) = (y, m, dd) else { return Err(err()) };
    if !(1..=9999).contains(&y) {
        return Err(err());
    }
    let day = Date::new(y, m, dd).ok_or_else(err)?;
    let mut secs = 0.0;
    if !time.is_empty() {
        let parts: Vec<&str> = time.split(':').collect();
        if parts.len() < 2 || parts.len() > 3 {
            return Err(err());
        }
        let h: u32 = parts[0].parse().map_err(|_| err())?;
        let mi: u32 = parts[1].parse().map_err(|_| err())?;
        let s: f64 = match parts.get(2) {
            Some(s) => s.parse().map_err(|_| err())?,
            None => 0.0,
        };
        if h > 23 || mi > 59 || !(0.0..61.0).contains(&s) {
            return Err(err());
        }
        secs = f64::from(h * 3600 + mi * 60) + s;
    }
    Ok(day.to_days() * 86_400 + secs.floor() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_is_recognised_with_or_without_a_byte_order_mark() {
        let le: Vec<u8> = "JobID|State\n1|COMPLETED\n".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = "JobID|State\n1|COMPLETED\n".encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert_eq!(utf16(&le), Some("UTF-16 (little-endian)"));
        assert_eq!(utf16(&be), Some("UTF-16 (big-endian)"));
        assert_eq!(utf16(&[[0xFF, 0xFE].as_slice(), &le].concat()), Some("UTF-16 (little-endian)"));
        assert_eq!(utf16(b"JobID|State\n1|COMPLETED\n"), None);
        assert_eq!(utf16("; 校园 GPU 集群\n".as_bytes()), None);
    }

    #[test]
    fn slurm_durations_in_every_form() {
        assert_eq!(slurm_duration("t", "1-02:03:04"), Ok(93_784));
        assert_eq!(slurm_duration("t", "02:03:04"), Ok(7_384));
        assert_eq!(slurm_duration("t", "03:04"), Ok(184));
        assert_eq!(slurm_duration("t", "30"), Ok(1_800));
        assert_eq!(slurm_duration("t", "2-00:00:00"), Ok(172_800));
        assert_eq!(slurm_duration("t", "2-12"), Ok(216_000));
        assert_eq!(slurm_duration("t", "00:01.500"), Ok(2));
        assert!(slurm_duration("t", "UNLIMITED").is_err());
        assert!(slurm_duration("t", "-1").is_err());
        assert!(slurm_duration("t", "1:2:3:4").is_err());
        assert!(slurm_duration("t", "").is_err());
    }

    #[test]
    fn timestamps_are_local_seconds() {
        assert_eq!(timestamp("s", "1970-01-02T00:00:01"), Ok(86_401));
        assert_eq!(timestamp("s", "2024-03-01 12:30:00"), timestamp("s", "2024-03-01T12:30"));
        assert_eq!(timestamp("s", "1970-01-01"), Ok(0));
        assert!(timestamp("s", "2024-02-30T00:00:00").is_err());
        assert!(timestamp("s", "2024-01-01T25:00:00").is_err());
        assert!(timestamp("s", "Unknown").is_err());
    }

    #[test]
    fn lines_strip_crlf_and_replace_bad_bytes() {
        let v: Vec<(usize, String)> = lines(b"a\r\nb\xff\nc").map(|(n, l)| (n, l.into_owned())).collect();
        assert_eq!(v, vec![(1, "a".into()), (2, "b\u{fffd}".into()), (3, "c".into())]);
    }

    #[test]
    fn broken_gzip_keeps_whole_lines_or_fails_in_strict_mode() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let text: String = (0..2000).map(|i| format!("line {i}\n")).collect();
        enc.write_all(text.as_bytes()).unwrap();
        let gz = enc.finish().unwrap();
        let (full, note) = gunzip_if_needed(&gz, "f", true).unwrap();
        assert_eq!(&full[..], text.as_bytes());
        assert!(note.is_none());
        let cut = &gz[..gz.len() / 2];
        let (part, note) = gunzip_if_needed(cut, "f", false).unwrap();
        assert!(note.is_some());
        assert!(part.is_empty() || part.ends_with(b"\n"));
        assert!(gunzip_if_needed(cut, "f", true).is_err());
    }
}

//! GPU counts from the ways Slurm writes them: TRES strings (`cpu=8,gres/gpu=4`,
//! `gres/gpu:a100=2`), GRES (`gpu:4`, `gpu:a100:2(IDX:0-1)`, `gres:gpu:4`, `gres/gpu:4`,
//! several comma-separated) and the empty words (`N/A`, `(null)`). An untyped count wins
//! over typed ones of the same string (Slurm lists both); typed counts alone are summed.

/// What a GPU string allows, for error messages.
pub(super) const ALLOWED: &str = "GPU counts such as `gres/gpu=4`, `gres/gpu:a100=2` (TRES), `gpu:4`, \
     `gpu:a100:2`, `gres:gpu:4`, `gres/gpu:4` (GRES), several joined by commas, or `N/A`";

/// GPUs in `text`; `Ok(None)` when it names none (a CPU-only job or node).
///
/// # Errors
/// The offending item when a GPU count is not a whole non-negative number.
pub(super) fn gpus(text: &str) -> Result<Option<u32>, String> {
    let t = text.trim();
    if t.is_empty() || matches!(t.to_ascii_lowercase().as_str(), "n/a" | "(null)" | "none") {
        return Ok(None);
    }
    let (mut plain, mut typed) = (None::<u32>, None::<u32>);
    for raw in t.split(',') {
        let item = raw.split('(').next().unwrap_or("").trim();
        let item = item.strip_prefix("gres:").or_else(|| item.strip_prefix("gres/")).unwrap_or(item);
        let (name, count) = match item.split_once('=') {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => match item.split_once(':') {
                // `gpu:4`, `gpu:a100:2`, `gpu:a100` (one GPU)
                Some((k, rest)) => {
                    if k.trim() != "gpu" {
                        continue;
                    }
                    let parts: Vec<&str> = rest.split(':').collect();
                    let last = parts.last().copied().unwrap_or("");
                    // `gpu:a100` names a type and no count: one GPU.
                    let typed_only = parts.len() == 1 && last.starts_with(|c: char| c.is_ascii_alphabetic());
                    let v = if typed_only { 1 } else { parse(Some(last), raw)?.unwrap_or(1) };
                    add(&mut plain, &mut typed, parts.len() > 1 || typed_only, v);
                    continue;
                }
                None => (item, None),
            },
        };
        if name == "gpu" || name.starts_with("gpu:") {
            let v = parse(count, raw)?.unwrap_or(1);
            add(&mut plain, &mut typed, name != "gpu", v);
        }
    }
    Ok(plain.or(typed))
}

fn add(plain: &mut Option<u32>, typed: &mut Option<u32>, is_typed: bool, v: u32) {
    let slot = if is_typed { typed } else { plain };
    *slot = Some(slot.unwrap_or(0).saturating_add(v));
}

fn parse(count: Option<&str>, raw: &str) -> Result<Option<u32>, String> {
    match count {
        None => Ok(None),
        Some(c) => c.parse::<u32>().map(Some).map_err(|_| raw.trim().to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::gpus;

    #[test]
    fn every_spelling_of_a_gpu_count() {
        for (text, want) in [
            ("cpu=8,mem=64G,node=1,billing=8,gres/gpu=4", Some(4)),
            ("cpu=8,gres/gpu=2,gres/gpu:a100=2", Some(2)),
            ("gres/gpu:a100=2,gres/gpu:v100=1", Some(3)),
            ("gres:gpu:4", Some(4)),
            ("gres/gpu:4", Some(4)),
            ("gpu:a100:2", Some(2)),
            ("gres:gpu:a100:2", Some(2)),
            ("gpu:a100:4(S:0-1),gpu:v100:2", Some(6)),
            ("gpu:4(IDX:0-3)", Some(4)),
            ("gpu", Some(1)),
            ("gpu:a100", Some(1)),
            ("N/A", None),
            ("(null)", None),
            ("", None),
            ("cpu=4,mem=1G", None),
            ("craynetwork:1", None),
        ] {
            assert_eq!(gpus(text), Ok(want), "{text}");
        }
        assert_eq!(gpus("cpu=4,gres/gpu=abc"), Err("gres/gpu=abc".into()));
        assert_eq!(gpus("gres:gpu:-1"), Err("gres:gpu:-1".into()));
        assert_eq!(gpus("gpu:a100:2x"), Err("gpu:a100:2x".into()));
    }
}

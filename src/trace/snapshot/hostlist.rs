//! Slurm's compressed node lists (`g[1-2]`, `gpu[01-03,07],cpu5`), as `squeue --json`
//! gives a running job's `nodes`, expanded to names.

/// The node names of a Slurm host list, in order. Zero-padded ranges keep their width
/// (`gpu[08-10]` is `gpu08`, `gpu09`, `gpu10`). `None` for a list that is not well formed
/// (an unclosed bracket, a range that is not two numbers in order), or that names more
/// than `limit` nodes (a range of a billion is no node list).
pub(super) fn expand(list: &str, limit: usize) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for item in split_top(list.trim())? {
        let item = item.trim();
        if item.is_empty() {
            continue;
        }
        match item.find('[') {
            None => out.push(item.to_string()),
            Some(open) => {
                let close = open + item[open..].find(']')?;
                let (prefix, ranges, suffix) = (&item[..open], &item[open + 1..close], &item[close + 1..]);
                if suffix.contains('[') {
                    return None; // several bracket groups in one name: not written by squeue
                }
                for range in ranges.split(',') {
                    let (a, b) = range.split_once('-').unwrap_or((range, range));
                    let (from, to): (u64, u64) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                    if to < from || (to - from) as usize >= limit.saturating_sub(out.len()) {
                        return None;
                    }
                    let width = a.trim().len();
                    out.extend((from..=to).map(|n| format!("{prefix}{n:0width$}{suffix}")));
                }
            }
        }
        if out.len() > limit {
            return None;
        }
    }
    Some(out)
}

/// Splits at the commas outside brackets; `None` when brackets do not pair.
fn split_top(list: &str) -> Option<Vec<&str>> {
    let (mut parts, mut depth, mut from) = (Vec::new(), 0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[from..i]);
                from = i + 1;
            }
            _ => {}
        }
        if !(0..=1).contains(&depth) {
            return None;
        }
    }
    (depth == 0).then(|| {
        parts.push(&list[from..]);
        parts
    })
}

#[cfg(test)]
mod tests {
    use super::expand;

    #[test]
    fn host_lists_as_squeue_writes_them() {
        let v = |s: &[&str]| Some(s.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(expand("g[1-2]", 100), v(&["g1", "g2"]));
        assert_eq!(expand("g3", 100), v(&["g3"]));
        assert_eq!(expand("gpu[08-10,12],cpu5", 100), v(&["gpu08", "gpu09", "gpu10", "gpu12", "cpu5"]));
        assert_eq!(expand("", 100), v(&[]));
        assert_eq!(expand("g[1-", 100), None);
        assert_eq!(expand("g[3-1]", 100), None);
        assert_eq!(expand("g[1-1000000000]", 100), None, "more nodes than the limit");
        assert_eq!(expand("g[1-3]", 2), None);
    }
}

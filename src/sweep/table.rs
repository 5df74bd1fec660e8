//! The sweep's text: the table of results grouped by scenario point with one row per
//! decision, aligned columns, paragraphs wrapped to a page width, and the list of the
//! decisions and points where the campus was unstable. Formatting only: the grouping
//! comes from [`crate::sweep::decide::Layout`].

use super::decide::Layout;
use super::recommend::PointResult;
use crate::metric::Metric;

/// The width text is wrapped to (the terminal, `recommendation.txt` and the report's box).
pub const WIDTH: usize = 100;

/// Whole CNY with thousands separators: `12,345` (`–` when not finite), with an ASCII
/// minus in this plain-text table.
pub fn cny(v: f64) -> String {
    crate::write::fmt_num(v, 0).replace('−', "-")
}

/// Wraps every line longer than `width` at spaces; a continuation is indented four
/// spaces past its line. A `choose policy '…'` line is left whole (charts read the point
/// from it, `plot::data::parse_recommendation`).
pub fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let (body, nl) = line.strip_suffix('\n').map_or((line, ""), |b| (b, "\n"));
        if body.chars().count() <= width || body.trim_start().starts_with("choose policy '") {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start().len();
        let pad = " ".repeat((indent + 4).min(width / 2));
        let mut current = String::new();
        let mut first = true;
        for word in body.trim_start().split(' ') {
            let lead = if first { " ".repeat(indent) } else { pad.clone() };
            if current.is_empty() {
                current = format!("{lead}{word}");
            } else if current.chars().count() + 1 + word.chars().count() > width {
                out.push_str(current.trim_end());
                out.push('\n');
                first = false;
                current = format!("{pad}{word}");
            } else {
                current.push(' ');
                current.push_str(word);
            }
        }
        out.push_str(current.trim_end());
        out.push_str(nl);
    }
    out
}

enum Line {
    Heading(String),
    Cells(Vec<String>),
    Note(String),
}

/// A text table: one header, rows of cells (aligned over the whole table, also across
/// headings), group headings and notes under a row.
pub struct Table {
    header: Vec<String>,
    right: Vec<bool>,
    lines: Vec<Line>,
}

impl Table {
    /// A table with these column titles; `right[c]` aligns column `c` to the right.
    pub fn new(header: &[&str], right: &[bool]) -> Table {
        Table { header: header.iter().map(|h| h.to_string()).collect(), right: right.to_vec(), lines: Vec::new() }
    }

    /// A group heading (a scenario point), on a line of its own.
    pub fn heading(&mut self, text: impl Into<String>) {
        self.lines.push(Line::Heading(text.into()));
    }

    /// A row of cells.
    pub fn row(&mut self, cells: Vec<String>) {
        self.lines.push(Line::Cells(cells));
    }

    /// A note under the last row, indented and wrapped.
    pub fn note(&mut self, text: impl Into<String>) {
        self.lines.push(Line::Note(text.into()));
    }

    /// The table, each line indented by `indent` spaces.
    pub fn render(&self, indent: usize) -> String {
        let n = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| h.chars().count()).collect();
        for l in &self.lines {
            if let Line::Cells(c) = l {
                for (k, cell) in c.iter().enumerate().take(n) {
                    widths[k] = widths[k].max(cell.chars().count());
                }
            }
        }
        let pad = " ".repeat(indent);
        let fmt = |cells: &[String]| {
            let mut s = pad.clone();
            for (k, width) in widths.iter().enumerate() {
                let cell = cells.get(k).map_or("", String::as_str);
                let gap = " ".repeat(width - cell.chars().count());
                if k > 0 {
                    s.push_str("  ");
                }
                if self.right.get(k).copied().unwrap_or(false) {
                    s.push_str(&gap);
                    s.push_str(cell);
                } else {
                    s.push_str(cell);
                    s.push_str(&gap);
                }
            }
            format!("{}\n", s.trim_end())
        };
        let mut out = fmt(&self.header);
        for l in &self.lines {
            match l {
                Line::Heading(h) => out.push_str(&format!("{}{h}\n", " ".repeat(indent.saturating_sub(2)))),
                Line::Cells(c) => out.push_str(&fmt(c)),
                Line::Note(t) => out.push_str(&wrap(&format!("{pad}    {t}\n"), WIDTH)),
            }
        }
        out
    }
}

/// `mean ± half-width` at `d` decimals (the mean alone without an interval), `–` when
/// undefined.
fn pm(mean: f64, hw: f64, scale: f64, d: usize) -> String {
    if !mean.is_finite() {
        "–".into()
    } else if hw.is_finite() {
        format!("{:.*} ± {:.*}", d, mean * scale, d, hw * scale)
    } else {
        format!("{:.*}", d, mean * scale)
    }
}

/// The sweep table: per scenario point (a heading when the sweep has conditions), one row
/// per decision with its cost, waits, cloud share and (with targets) the years that
/// missed them. A policy the decisions do not change is one row, not one per value.
pub fn sweep_table(lay: &Layout, points: &[PointResult], years_missing: bool) -> String {
    let mut header = vec!["decision", "total cost (CNY)", "mean wait (h)", "p95 wait (h)", "cloud (%)"];
    if years_missing {
        header.push("years missing");
    }
    let mut t = Table::new(&header, &[false, true, true, true, true, true]);
    let headings = !lay.condition_keys.is_empty();
    for (s, sp) in lay.scenarios.iter().enumerate() {
        if headings {
            t.heading(format!("{}:", sp.label));
        }
        for (d, dec) in lay.decisions.iter().enumerate() {
            let Some(i) = lay.point_of[d][s] else { continue };
            let pr = &points[i];
            let g = |m: Metric| pr.summaries.get(&dec.policy, m).map(|r| r.summary);
            let f =
                |m: Metric, scale: f64, dp: usize| g(m).map_or("–".into(), |x| pm(x.mean, x.half_width, scale, dp));
            let cost = g(Metric::TotalCost).map_or("–".into(), |x| {
                if x.half_width.is_finite() { format!("{} ± {}", cny(x.mean), cny(x.half_width)) } else { cny(x.mean) }
            });
            let mut row = vec![
                dec.label.clone(),
                cost,
                f(Metric::WaitMean, 1.0, 2),
                f(Metric::WaitP95, 1.0, 2),
                f(Metric::CloudJobShare, 100.0, 1),
            ];
            if years_missing {
                let c = pr.risk.iter().find(|r| r.policy == dec.policy).map(|r| r.count);
                row.push(c.map_or("–".into(), |c| format!("{}/{} ({:.0}%)", c.missed, c.years, c.share() * 100.0)));
            }
            t.row(row);
        }
    }
    t.render(if headings { 4 } else { 2 })
}

/// The decisions and scenario points where the campus was unstable in some replication:
/// "campus-only at exam-intensity=1.3, 1.45" (one entry per decision).
pub fn unstable(lay: &Layout, points: &[PointResult]) -> Vec<String> {
    let mut out = Vec::new();
    for (d, dec) in lay.decisions.iter().enumerate() {
        let at: Vec<&str> = (0..lay.scenarios.len())
            .filter(|&s| {
                lay.point_of[d][s].is_some_and(|i| {
                    points[i].summaries.rows.iter().any(|r| r.policy == dec.policy && r.unstable_replications > 0)
                })
            })
            .map(|s| lay.scenarios[s].label.as_str())
            .collect();
        if at.is_empty() {
            continue;
        }
        if lay.condition_keys.is_empty() {
            out.push(dec.label.clone());
        } else if at.len() == lay.scenarios.len() {
            out.push(format!("{} at every scenario point", dec.label));
        } else if let [key] = lay.condition_keys.as_slice() {
            let values: Vec<&str> = at.iter().map(|l| l.strip_prefix(&format!("{key}=")).unwrap_or(l)).collect();
            out.push(format!("{} at {key}={}", dec.label, values.join(", ")));
        } else {
            out.push(format!("{} at {}", dec.label, at.join("; ")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_wrap_at_spaces_with_a_hanging_indent() {
        let line = format!("  {}\n", ["word"; 40].join(" "));
        let w = wrap(&line, 30);
        assert!(w.lines().all(|l| l.chars().count() <= 30), "{w}");
        assert!(w.lines().skip(1).all(|l| l.starts_with("      word")), "{w}");
        assert_eq!(w.split_whitespace().count(), 40, "no word lost");
        let keep = "  choose policy 'p' at a.b=1, c.d=2: total cost 1 ± 2 CNY and a long tail of words\n";
        assert_eq!(wrap(keep, 20), keep);
    }

    #[test]
    fn columns_align_across_groups() {
        let mut t = Table::new(&["decision", "cost"], &[false, true]);
        t.heading("a=1:");
        t.row(vec!["x".into(), "1".into()]);
        t.heading("a=2:");
        t.row(vec!["a longer one".into(), "1,000".into()]);
        let text = t.render(4);
        let ends: Vec<usize> = text.lines().filter(|l| !l.ends_with(':')).map(|l| l.chars().count()).collect();
        assert!(ends.windows(2).all(|w| w[0] == w[1]), "right-aligned columns end together:\n{text}");
        assert_eq!(cny(-1234.4), "-1,234");
        assert_eq!(cny(1234567.0), "1,234,567");
    }
}

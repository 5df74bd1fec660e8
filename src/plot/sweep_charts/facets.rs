//! Small multiples of a sweep's line charts: one panel per combination of the parameters
//! that are not on the x axis. The panels form a grid that shares its axes: the column
//! parameter is named once above the grid and each column by its value, a second
//! parameter names the rows at their right, and the two axis titles are drawn once for
//! the whole grid instead of once per panel (where they collided with their neighbours).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::param_label;
use crate::plot::folder::SweepFolder;
use crate::plot::theme::{Textual, Theme};

/// Where each panel of a faceted chart goes.
pub struct FacetGrid<'a> {
    sweep: &'a SweepFolder,
    /// The parameter that names the columns, and its position in a facet's values.
    col: (usize, usize),
    /// The parameter that names the rows, when there are two.
    row: Option<(usize, usize)>,
    rows: usize,
    cols: usize,
    /// (row, column) of each facet, in the facets' order.
    place: Vec<(usize, usize)>,
    /// The column value and the row value (if any) of each facet.
    values: Vec<(String, Option<String>)>,
}

impl<'a> FacetGrid<'a> {
    /// The grid of `facets` (the values of every parameter but `x`, as
    /// `super::facets_except` lists them).
    pub fn new(sweep: &'a SweepFolder, x: usize, facets: &[Vec<String>]) -> FacetGrid<'a> {
        let others: Vec<usize> = (0..sweep.params.len()).filter(|i| *i != x).collect();
        // The distinct values of the k-th other parameter among the facets, in sweep order.
        let distinct = |k: usize| -> Vec<String> {
            sweep.values(others[k]).into_iter().filter(|v| facets.iter().any(|f| f.get(k) == Some(v))).collect()
        };
        let values: Vec<(String, Option<String>)>;
        let (col, row, rows, cols, place) = if others.len() == 2 {
            // The parameter with more values runs along the columns (a tie: the second).
            let (c, r) = if distinct(0).len() > distinct(1).len() { (0, 1) } else { (1, 0) };
            let (cv, rv) = (distinct(c), distinct(r));
            let pos = |list: &[String], v: &String| list.iter().position(|x| x == v).unwrap_or(0);
            let place = facets.iter().map(|f| (pos(&rv, &f[r]), pos(&cv, &f[c]))).collect();
            values = facets.iter().map(|f| (f[c].clone(), Some(f[r].clone()))).collect();
            ((others[c], c), Some((others[r], r)), rv.len().max(1), cv.len().max(1), place)
        } else {
            let n = facets.len().max(1);
            let cols = if n <= 4 { n } else { (n as f64).sqrt().ceil() as usize };
            values = facets.iter().map(|f| (f.first().cloned().unwrap_or_default(), None)).collect();
            (
                (others.first().copied().unwrap_or(0), 0),
                None,
                n.div_ceil(cols),
                cols,
                (0..n).map(|i| (i / cols, i % cols)).collect(),
            )
        };
        FacetGrid { sweep, col, row, rows, cols, place, values }
    }

    /// Draws the grid's titles on `area` (the column parameter above, the axis titles
    /// `x_desc` below and `y_desc` at the left, each column's value and each row's
    /// parameter and value) and returns the plot area of each facet, in order.
    ///
    /// # Errors
    /// Backend errors as text.
    pub fn layout<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        th: &Theme,
        x_desc: &str,
        y_desc: &str,
    ) -> Result<Vec<DrawingArea<DB, Shift>>, String> {
        let (w, h) = area.dim_in_pixel();
        let (w, h) = (w as i32, h as i32);
        let (head, bottom, left) = (th.px(1.5), th.px(1.7), th.px(1.6));
        let right = if self.row.is_some() { th.px(1.5) } else { 0 };
        let (gw, gh) = (w - left - right, h - head - bottom);
        let centre = Pos::new(HPos::Center, VPos::Center);
        let (text, k) = th.fit(area, &param_label(self.sweep, self.col.0, th.lang), 0.85, gw)?;
        area.draw_text(&text, &th.font(k).pos(centre), (left + gw / 2, head / 2)).s()?;
        let (text, k) = th.fit(area, x_desc, 0.9, gw)?;
        area.draw_text(&text, &th.font(k).pos(centre), (left + gw / 2, h - bottom / 2)).s()?;
        let (text, k) = th.fit(area, y_desc, 0.9, gh)?;
        let up = th.font(k).transform(FontTransform::Rotate270).pos(Pos::new(HPos::Center, VPos::Top));
        area.draw_text(&text, &up, (th.px(0.1), head + gh / 2)).s()?;
        let grid = area.margin(head, bottom, left, right);
        let cells = grid.split_evenly((self.rows, self.cols));
        let title_h = th.px(1.3);
        let mut out = Vec::with_capacity(self.place.len());
        for (&(r, c), (col_value, row_value)) in self.place.iter().zip(&self.values) {
            let cell = &cells[(r * self.cols + c).min(cells.len() - 1)];
            let (cw, ch) = cell.dim_in_pixel();
            let (title, rest) = cell.split_vertically(title_h);
            let (text, k) = th.fit(&title, col_value, 0.8, cw as i32)?;
            title.draw_text(&text, &th.font(k).pos(centre), (cw as i32 / 2, title_h / 2)).s()?;
            if let (Some((row, _)), Some(v), true) = (self.row, row_value, c + 1 == self.cols) {
                let label = format!("{} = {v}", param_label(self.sweep, row, th.lang));
                let (text, k) = th.fit(cell, &label, 0.75, ch as i32)?;
                let down = th.font(k).transform(FontTransform::Rotate90).pos(Pos::new(HPos::Center, VPos::Bottom));
                cell.draw_text(&text, &down, (cw as i32 + th.px(0.3), ch as i32 / 2)).s()?;
            }
            out.push(rest);
        }
        Ok(out)
    }
}

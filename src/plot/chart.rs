//! What every chart is: a name, a caption and a drawing on any plotters backend. The
//! chart modules implement it; `crate::plot` renders them to SVG and PNG.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::theme::Theme;

/// A chart that can be drawn on any plotters backend.
pub trait Chart {
    /// File stem.
    fn name(&self) -> String;
    /// Title without the scenario prefix.
    fn caption(&self, th: &Theme) -> String;
    /// Draws the whole chart on `root` with the sizes of `th`.
    ///
    /// # Errors
    /// The backend's error, as text.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, th: &Theme) -> Result<(), String>;
}

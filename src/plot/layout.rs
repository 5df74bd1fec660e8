//! The text-layout check: a chart is drawn on a backend that draws nothing and records
//! the box of every piece of text, then the boxes are checked for overlaps with each
//! other and for running off the canvas.
//!
//! A box is the text's advance width by one em, placed by its anchor the way
//! [`super::typeset`] places it (and an SVG viewer does), and turned with the text's
//! rotation. Two labels whose ems overlap by more than [`TOLERANCE_PX`] in both
//! directions are drawn over each other; tests run the check on every chart of every
//! shipped scenario (tests/suite/chart_layout.rs).

use ab_glyph::FontRef;
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

use super::typeset::measure;

/// Overlap (pixels, in both directions) below which two boxes are taken to touch, not to
/// overlap: em boxes of adjacent lines may share a pixel row through rounding.
pub const TOLERANCE_PX: i32 = 1;

/// Where one piece of text was drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct TextBox {
    /// The text.
    pub text: String,
    /// Left, top, right, bottom, in pixels of the canvas.
    pub rect: (i32, i32, i32, i32),
}

impl TextBox {
    /// Whether `self` and `other` overlap by more than [`TOLERANCE_PX`] both ways.
    pub fn overlaps(&self, other: &TextBox) -> bool {
        let (a, b) = (self.rect, other.rect);
        let w = a.2.min(b.2) - a.0.max(b.0);
        let h = a.3.min(b.3) - a.1.max(b.1);
        w > TOLERANCE_PX && h > TOLERANCE_PX
    }

    /// Whether the box runs off a canvas `width` × `height` by more than the tolerance.
    pub fn clipped(&self, width: u32, height: u32) -> bool {
        let (l, t, r, b) = self.rect;
        let (w, h) = (width as i32, height as i32);
        l < -TOLERANCE_PX || t < -TOLERANCE_PX || r > w + TOLERANCE_PX || b > h + TOLERANCE_PX
    }
}

/// The box of `text` drawn with `style` at `pos` (font size, anchor and rotation as
/// [`super::typeset::Typeset`] draws it).
pub fn text_box<S: BackendTextStyle>(font: &FontRef<'static>, text: &str, style: &S, pos: BackendCoord) -> TextBox {
    let (w, em) = measure(font, text, style.size());
    let (w, em) = (w as i32, em as i32);
    let anchor = style.anchor();
    let left = match anchor.h_pos {
        HPos::Left => 0,
        HPos::Center => -w / 2,
        HPos::Right => -w,
    };
    let top = match anchor.v_pos {
        VPos::Top => 0,
        VPos::Center => -em / 2,
        VPos::Bottom => -em,
    };
    let trans = style.transform();
    let corners = [(left, top), (left + w, top), (left, top + em), (left + w, top + em)]
        .map(|(x, y)| trans.transform(x, y))
        .map(|(x, y)| (pos.0 + x, pos.1 + y));
    let fold = |f: fn(i32, i32) -> i32, k: fn(&(i32, i32)) -> i32| corners.iter().map(k).reduce(f).unwrap_or(0);
    let rect = (fold(i32::min, |c| c.0), fold(i32::min, |c| c.1), fold(i32::max, |c| c.0), fold(i32::max, |c| c.1));
    TextBox { text: text.to_string(), rect }
}

/// A layout fault of one chart.
#[derive(Clone, Debug, PartialEq)]
pub enum Fault {
    /// Two pieces of text drawn over each other.
    Overlap(TextBox, TextBox),
    /// A piece of text that runs off the canvas.
    Clipped(TextBox),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Overlap(a, b) => write!(f, "'{}' {:?} overlaps '{}' {:?}", a.text, a.rect, b.text, b.rect),
            Fault::Clipped(a) => write!(f, "'{}' {:?} runs off the canvas", a.text, a.rect),
        }
    }
}

/// The faults among `boxes` on a canvas `width` × `height`: every overlapping pair and
/// every box off the canvas. Blank text is ignored.
pub fn faults(boxes: &[TextBox], width: u32, height: u32) -> Vec<Fault> {
    let inked: Vec<&TextBox> = boxes.iter().filter(|b| !b.text.trim().is_empty()).collect();
    let mut out: Vec<Fault> =
        inked.iter().filter(|b| b.clipped(width, height)).map(|b| Fault::Clipped((*b).clone())).collect();
    for (i, a) in inked.iter().enumerate() {
        for b in &inked[i + 1..] {
            if a.overlaps(b) {
                out.push(Fault::Overlap((*a).clone(), (*b).clone()));
            }
        }
    }
    out
}

/// A backend that draws nothing and records where text goes.
pub struct TextProbe {
    size: (u32, u32),
    font: FontRef<'static>,
    /// Every piece of text drawn, in order.
    pub boxes: std::rc::Rc<std::cell::RefCell<Vec<TextBox>>>,
}

impl TextProbe {
    /// A probe canvas `size` measuring text in `font` (face 0 of the bytes).
    ///
    /// # Errors
    /// A message when the bytes are not a font.
    pub fn new(size: (u32, u32), font: &'static [u8]) -> Result<TextProbe, String> {
        let font = FontRef::try_from_slice(font).map_err(|e| format!("not a font: {e}"))?;
        Ok(TextProbe { size, font, boxes: Default::default() })
    }
}

/// The error of a [`TextProbe`], which never fails.
#[derive(Debug)]
pub struct NoError;

impl std::fmt::Display for NoError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("no error")
    }
}

impl std::error::Error for NoError {}

impl DrawingBackend for TextProbe {
    type ErrorType = NoError;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn draw_pixel(&mut self, _: BackendCoord, _: BackendColor) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        _: BackendCoord,
        _: BackendCoord,
        _: &S,
    ) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        _: BackendCoord,
        _: BackendCoord,
        _: &S,
        _: bool,
    ) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        _: I,
        _: &S,
    ) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        _: BackendCoord,
        _: u32,
        _: &S,
        _: bool,
    ) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        _: I,
        _: &S,
    ) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn blit_bitmap(&mut self, _: BackendCoord, _: (u32, u32), _: &[u8]) -> Result<(), DrawingErrorKind<NoError>> {
        Ok(())
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<NoError>> {
        Ok(measure(&self.font, text, style.size()))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<NoError>> {
        if style.color().alpha > 0.0 {
            self.boxes.borrow_mut().push(text_box(&self.font, text, style, pos));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(text: &str, rect: (i32, i32, i32, i32)) -> TextBox {
        TextBox { text: text.into(), rect }
    }

    #[test]
    fn boxes_that_share_an_edge_do_not_overlap_and_boxes_that_cross_do() {
        let a = b("a", (0, 0, 100, 20));
        assert!(!a.overlaps(&b("below", (0, 20, 100, 40))));
        assert!(!a.overlaps(&b("one pixel", (0, 19, 100, 40))));
        assert!(a.overlaps(&b("crossing", (90, 10, 150, 30))));
        assert!(!a.overlaps(&b("right", (101, 0, 150, 20))));
        assert!(b("x", (-5, 0, 10, 10)).clipped(100, 100));
        assert!(!b("x", (0, 0, 100, 100)).clipped(100, 100));
        let f = faults(&[a.clone(), b("crossing", (90, 10, 150, 30)), b(" ", (0, 0, 100, 20))], 120, 100);
        assert_eq!(f.len(), 2, "{f:?}");
    }
}

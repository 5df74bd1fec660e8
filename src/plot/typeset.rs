//! A drawing backend wrapper that measures and (for bitmaps) draws text itself, so PNG
//! and SVG charts have the same text sizes and positions.
//!
//! plotters' `ab_glyph` text path has three flaws this avoids: glyphs are placed without
//! their left side bearing (uneven letter spacing), the font is scaled by its line
//! height rather than its em (so Noto CJK comes out about 15% smaller than DejaVu at the
//! same size, and both differ from what an SVG viewer draws), and the vertical anchor
//! differs from the SVG backend's. Here text is laid out the way an SVG viewer lays out
//! `<text font-size="size/1.24" dy=…>`: em-scaled, pen positions with kerning, the
//! backend's anchors (`dy` = 0.76 em at the top, ±0.5 ex at the centre and bottom) and
//! its rotations. Everything else goes straight to the wrapped backend.

use ab_glyph::{Font, FontRef, PxScale, ScaleFont, point};
use plotters::prelude::DrawingBackend;
use plotters_backend::text_anchor::{HPos, VPos};
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind};

/// The x-height assumed for `ex` (DejaVu Sans 0.55 em, Noto Sans CJK 0.54 em).
const EX_PER_EM: f64 = 0.54;

/// `inner` with this module's text measuring, and text drawing when `raster`.
pub struct Typeset<B: DrawingBackend> {
    inner: B,
    font: FontRef<'static>,
    raster: bool,
}

impl<B: DrawingBackend> Typeset<B> {
    /// Wraps `inner`; `raster` draws text as pixels (bitmaps) instead of passing it on
    /// (SVG, which keeps text as text).
    ///
    /// # Errors
    /// A message when the font bytes are not a font.
    pub fn new(inner: B, font: &'static [u8], raster: bool) -> Result<Typeset<B>, String> {
        let font = FontRef::try_from_slice(font).map_err(|e| format!("not a font: {e}"))?;
        Ok(Typeset { inner, font, raster })
    }
}

/// Glyph positions of `text` at font size `size` (plotters' size; em = size / 1.24):
/// (the scale, glyphs with their pen x, the advance width, the em in pixels).
fn layout(font: &FontRef<'static>, text: &str, size: f64) -> (PxScale, Vec<(ab_glyph::GlyphId, f32)>, f32, f32) {
    let em = (size / 1.24) as f32;
    let upem = font.units_per_em().unwrap_or(1000.0);
    let scale = PxScale::from(em * font.height_unscaled() / upem);
    let sf = font.as_scaled(scale);
    let mut x = 0.0f32;
    let mut prev = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = sf.glyph_id(c);
        if let Some(p) = prev {
            x += sf.kern(p, id);
        }
        glyphs.push((id, x));
        x += sf.h_advance(id);
        prev = Some(id);
    }
    (scale, glyphs, x, em)
}

/// Width and height (one em) of `text` at `size`.
pub fn measure(font: &FontRef<'static>, text: &str, size: f64) -> (u32, u32) {
    let (_, _, width, em) = layout(font, text, size);
    (width.ceil().max(0.0) as u32, em.ceil() as u32)
}

impl<B: DrawingBackend> DrawingBackend for Typeset<B> {
    type ErrorType = B::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(
        &mut self,
        point: BackendCoord,
        color: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(upper_left, bottom_right, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(center, radius, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn blit_bitmap(
        &mut self,
        pos: BackendCoord,
        size: (u32, u32),
        src: &[u8],
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }

    fn estimate_text_size<S: BackendTextStyle>(
        &self,
        text: &str,
        style: &S,
    ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        Ok(measure(&self.font, text, style.size()))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        if !self.raster {
            return self.inner.draw_text(text, style, pos);
        }
        let color = style.color();
        if color.alpha == 0.0 {
            return Ok(());
        }
        let (scale, glyphs, width, em) = layout(&self.font, text, style.size());
        let anchor = style.anchor();
        let x0 = match anchor.h_pos {
            HPos::Left => 0.0,
            HPos::Center => -width / 2.0,
            HPos::Right => -width,
        };
        let ex = em * EX_PER_EM as f32;
        let baseline = match anchor.v_pos {
            VPos::Top => 0.76 * em,
            VPos::Center => 0.5 * ex,
            VPos::Bottom => -0.5 * ex,
        };
        let trans = style.transform();
        let (w, h) = self.inner.get_size();
        let mut pixels = Vec::new();
        for (id, gx) in glyphs {
            let glyph = id.with_scale_and_position(scale, point(x0 + gx, baseline));
            if let Some(outline) = self.font.outline_glyph(glyph) {
                let b = outline.px_bounds();
                outline.draw(|px, py, coverage| {
                    if coverage > 0.0 {
                        pixels.push((b.min.x as i32 + px as i32, b.min.y as i32 + py as i32, coverage));
                    }
                });
            }
        }
        for (dx, dy, coverage) in pixels {
            let (tx, ty) = trans.transform(dx, dy);
            let (x, y) = (pos.0 + tx, pos.1 + ty);
            if x >= 0 && y >= 0 && (x as u32) < w && (y as u32) < h {
                let c = BackendColor { alpha: color.alpha * f64::from(coverage.min(1.0)), rgb: color.rgb };
                self.inner.draw_pixel((x, y), c)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plot::font::{DEJAVU_SANS, NOTO_SC_SUBSET};

    #[test]
    fn text_is_measured_by_its_em_in_every_font() {
        let latin = FontRef::try_from_slice(DEJAVU_SANS).unwrap();
        let cjk = FontRef::try_from_slice(NOTO_SC_SUBSET).unwrap();
        // One em of a CJK ideograph is one em wide: 31 px at size 38.44 (em 31).
        assert_eq!(measure(&cjk, "成本", 38.44), (62, 31));
        let (w, h) = measure(&latin, "cost", 38.44);
        assert_eq!(h, 31);
        assert!(w > 50 && w < 90, "{w}");
    }
}

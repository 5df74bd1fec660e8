//! Fonts for the charts, with no system font library at build or run time.
//!
//! plotters' `ab_glyph` backend draws every text of a chart with the one font registered
//! under a family name, with no per-character fallback. So before drawing, this module
//! gathers every text the charts will show and picks the first font, in this order,
//! that has a glyph for every character:
//!
//! 1. the `--font PATH[#face]` the user gave;
//! 2. the bundled font of the language: DejaVu Sans (English) or a subset of Noto Sans
//!    CJK SC holding exactly the characters of the Chinese labels plus ASCII (Chinese);
//! 3. the other bundled font;
//! 4. Chinese fonts of the system, when installed (Noto Sans CJK SC, WenQuanYi, …),
//!    for text outside the subset such as a Chinese `--title` or policy name.
//!
//! When no font covers everything, the one covering most is used and a warning names
//! the characters that will show as boxes (instead of drawing boxes silently).
//!
//! The font is registered under the generic family `sans-serif`, so the SVG files say
//! `font-family="sans-serif"` and stay portable. Registration is global in plotters, so
//! [`with_font`] holds a lock while it registers and draws.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use ab_glyph::{Font, FontRef};

use super::error::PlotError;
use crate::i18n::Lang;

/// DejaVu Sans (Bitstream Vera licence, `assets/fonts/DejaVuSans-LICENSE.txt`).
pub static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
/// The subset of Noto Sans CJK SC (SIL OFL 1.1, `assets/fonts/OFL.txt`), made by
/// `scripts/make-font-subset.sh`.
pub static NOTO_SC_SUBSET: &[u8] = include_bytes!("../../assets/fonts/NotoSansSC-burstsim-subset.otf");

/// A smaller subset of [`NOTO_SC_SUBSET`] (about 155 KB): printable ASCII, common
/// punctuation, every non-ASCII character of `src/` and of the shipped scenarios. The HTML
/// report embeds it instead of the whole subset (3 MB) when it covers the report's text,
/// so `report.zh.html` stays well under 1 MB (issue 26). Made by `scripts/make-font-subset.sh`.
pub static NOTO_SC_LABELS: &[u8] = include_bytes!("../../assets/fonts/NotoSansSC-burstsim-labels.otf");

/// Chinese fonts looked for on the system, as (path, face in a collection).
pub const SYSTEM_CJK_FONTS: &[(&str, u32)] = &[
    ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/noto-cjk/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/google-noto-cjk/NotoSansCJK-Regular.ttc", 2),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", 0),
    ("/usr/share/fonts/wenquanyi/wqy-microhei/wqy-microhei.ttc", 0),
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", 0),
    ("/System/Library/Fonts/PingFang.ttc", 0),
    ("/System/Library/Fonts/STHeiti Light.ttc", 0),
    ("C:\\Windows\\Fonts\\msyh.ttc", 0),
    ("C:\\Windows\\Fonts\\simhei.ttf", 0),
];

/// A font file and a face in it (`PATH` or `PATH#face`; faces count from 0).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FontSpec {
    /// The file (`.ttf`, `.otf` or a `.ttc` collection).
    pub path: PathBuf,
    /// The face in a collection.
    pub face: u32,
}

impl FontSpec {
    /// Parses `PATH` or `PATH#FACE`.
    ///
    /// # Errors
    /// A message when the face is not a whole number.
    pub fn parse(text: &str) -> Result<FontSpec, String> {
        match text.rsplit_once('#') {
            Some((p, f)) if !p.is_empty() => {
                let face = f.trim().parse().map_err(|_| {
                    format!("--font '{text}': the face after '#' must be a whole number (0 for the first), not '{f}'")
                })?;
                Ok(FontSpec { path: PathBuf::from(p), face })
            }
            _ => Ok(FontSpec { path: PathBuf::from(text), face: 0 }),
        }
    }
}

/// The font the charts are drawn with.
#[derive(Clone, Debug)]
pub struct ChosenFont {
    /// Where it came from, for messages: `bundled DejaVu Sans`, a path, ….
    pub name: String,
    /// Whether it is the bundled Chinese subset (the HTML report then embeds it).
    pub is_bundled_cjk: bool,
    /// The font bytes with the chosen face moved to face 0 (what plotters reads).
    pub bytes: &'static [u8],
    /// Characters of the texts it has no glyph for (shown as boxes).
    pub missing: Vec<char>,
}

struct Candidate {
    name: String,
    is_bundled_cjk: bool,
    bytes: &'static [u8],
}

/// Picks the font for `text` (every string the charts will draw, concatenated).
/// `system` lists the system fonts to try last (normally [`SYSTEM_CJK_FONTS`]; tests
/// pass none to check the bundled fonts alone). Returns the font and warnings.
///
/// # Errors
/// [`PlotError::Font`] when the `--font` file cannot be read or is not a font.
pub fn choose(
    text: &str,
    lang: Lang,
    user: Option<&FontSpec>,
    system: &[(&str, u32)],
) -> Result<(ChosenFont, Vec<String>), PlotError> {
    let needed = needed_chars(text);
    let latin = || Candidate { name: "bundled DejaVu Sans".into(), is_bundled_cjk: false, bytes: DEJAVU_SANS };
    let cjk =
        || Candidate { name: "bundled Noto Sans CJK SC subset".into(), is_bundled_cjk: true, bytes: NOTO_SC_SUBSET };
    let mut candidates = Vec::new();
    let mut warnings = Vec::new();
    if let Some(spec) = user {
        let bytes = load(&spec.path, spec.face)
            .map_err(|message| PlotError::Font { path: spec.path.display().to_string(), message })?;
        candidates.push(Candidate {
            name: format!("{}#{}", spec.path.display(), spec.face),
            is_bundled_cjk: false,
            bytes,
        });
    }
    match lang {
        Lang::En => candidates.extend([latin(), cjk()]),
        Lang::Zh => candidates.extend([cjk(), latin()]),
    }
    let mut best: Option<(Candidate, Vec<char>)> = None;
    let mut consider = |c: Candidate| -> bool {
        let missing = missing_chars(c.bytes, &needed);
        let done = missing.is_empty();
        if best.as_ref().is_none_or(|(_, m)| missing.len() < m.len()) {
            best = Some((c, missing));
        }
        done
    };
    let mut found = false;
    for c in candidates {
        if consider(c) {
            found = true;
            break;
        }
    }
    if !found {
        for &(path, face) in system {
            if !Path::new(path).exists() {
                continue;
            }
            match load(Path::new(path), face) {
                Ok(bytes) => {
                    if consider(Candidate { name: format!("{path}#{face}"), is_bundled_cjk: false, bytes }) {
                        break;
                    }
                }
                Err(e) => warnings.push(format!("skipping system font '{path}': {e}")),
            }
        }
    }
    let (c, missing) = best.expect("at least the bundled fonts are candidates");
    if let Some(spec) = user {
        let user_name = format!("{}#{}", spec.path.display(), spec.face);
        if c.name != user_name {
            warnings.push(format!(
                "the font '{user_name}' has no glyph for {}; drawing with {} instead",
                quote_chars(&missing_chars(load(&spec.path, spec.face).unwrap_or(DEJAVU_SANS), &needed)),
                c.name
            ));
        }
    }
    if !missing.is_empty() {
        warnings.push(format!(
            "no available font has a glyph for {}: they will show as boxes; install a Chinese font \
             (apt-get install fonts-noto-cjk) or pass --font PATH[#face]",
            quote_chars(&missing)
        ));
    }
    Ok((ChosenFont { name: c.name, is_bundled_cjk: c.is_bundled_cjk, bytes: c.bytes, missing }, warnings))
}

fn quote_chars(chars: &[char]) -> String {
    let shown: String = chars.iter().take(20).collect();
    let more = if chars.len() > 20 { format!(" and {} more", chars.len() - 20) } else { String::new() };
    format!("'{shown}'{more}")
}

/// The distinct characters of `text` that need a glyph (not spaces or controls).
pub(crate) fn needed_chars(text: &str) -> Vec<char> {
    let mut v: Vec<char> = text.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The characters of `needed` that the font (face 0 of `bytes`) has no glyph for.
pub fn missing_chars(bytes: &[u8], needed: &[char]) -> Vec<char> {
    match FontRef::try_from_slice(bytes) {
        Ok(f) => needed.iter().copied().filter(|&c| f.glyph_id(c).0 == 0).collect(),
        Err(_) => needed.to_vec(),
    }
}

/// Reads a font file once per process (kept for the process's life, as plotters needs
/// `'static` bytes) with `face` moved to face 0.
fn load(path: &Path, face: u32) -> Result<&'static [u8], String> {
    type Cache = Mutex<HashMap<(PathBuf, u32), &'static [u8]>>;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (path.to_path_buf(), face);
    if let Some(b) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(b);
    }
    let bytes = std::fs::read(path).map_err(|e| format!("could not read it: {e}"))?;
    let faces = ab_glyph::FontRef::try_from_slice_and_index(&bytes, face).map(|_| ());
    faces.map_err(|_| {
        if face == 0 {
            "it is not a TrueType/OpenType font".to_string()
        } else {
            format!("it has no face {face} (or is not a font)")
        }
    })?;
    let leaked: &'static [u8] = Box::leak(select_face(bytes, face).into_boxed_slice());
    cache.lock().unwrap_or_else(|e| e.into_inner()).insert(key, leaked);
    Ok(leaked)
}

/// Makes face `i` of a `.ttc` collection its face 0 by swapping the two offsets in the
/// collection header (table offsets are absolute, so nothing else moves). Other files
/// are returned as they are.
pub fn select_face(mut b: Vec<u8>, i: u32) -> Vec<u8> {
    let i = i as usize;
    if b.len() > 12 && &b[0..4] == b"ttcf" {
        let n = u32::from_be_bytes([b[8], b[9], b[10], b[11]]) as usize;
        if i < n && b.len() >= 12 + 4 * n {
            for k in 0..4 {
                b.swap(12 + k, 12 + 4 * i + k);
            }
        }
    }
    b
}

/// Registers `font` as `sans-serif` and runs `draw` while no other thread can register
/// another font (plotters' font table is global).
///
/// # Errors
/// [`PlotError::Font`] when plotters refuses the font.
pub fn with_font<R>(font: &ChosenFont, draw: impl FnOnce() -> R) -> Result<R, PlotError> {
    static LOCK: Mutex<()> = Mutex::new(());
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    plotters::style::register_font("sans-serif", plotters::style::FontStyle::Normal, font.bytes)
        .map_err(|_| PlotError::Font { path: font.name.clone(), message: "plotters cannot read this font".into() })?;
    Ok(draw())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::i18n::zh_characters;

    #[test]
    fn font_covers_every_chinese_label() {
        let missing = missing_chars(NOTO_SC_SUBSET, &needed_chars(&zh_characters().iter().collect::<String>()));
        assert!(
            missing.is_empty(),
            "the bundled Chinese subset lacks {missing:?}: run scripts/make-font-subset.sh after changing src/i18n.rs"
        );
        let missing = missing_chars(NOTO_SC_LABELS, &needed_chars(&zh_characters().iter().collect::<String>()));
        assert!(
            missing.is_empty(),
            "the report's Chinese subset lacks {missing:?}: run scripts/make-font-subset.sh after changing src/i18n.rs"
        );
    }

    #[test]
    fn the_subset_also_covers_ascii_so_mixed_labels_need_one_font() {
        let ascii: Vec<char> = (0x21u8..0x7f).map(char::from).collect();
        assert!(missing_chars(NOTO_SC_SUBSET, &ascii).is_empty());
        assert!(NOTO_SC_SUBSET.len() < 4_000_000, "keep the subset to GB 2312 (about 3 MB)");
    }

    #[test]
    fn the_subset_covers_gb2312_and_what_users_write() {
        // GB 2312 has 6,763 hanzi, all in the CJK Unified Ideographs block.
        let cjk: Vec<char> = ('\u{4E00}'..='\u{9FA5}').collect();
        let covered = cjk.len() - missing_chars(NOTO_SC_SUBSET, &cjk).len();
        assert!(covered >= 6_763, "only {covered} hanzi covered");
        // Names a lab writes into its scenario, and punctuation around them.
        let names = "我的课题组 期末考试 毕业季 研究生 博士生 硕士生 深度学习 大模型微调 消融实验 \
                     主训练 调试 国庆节 春节 寒假 暑假 论文截止 武汉大学 华中科技大学 算力 显卡 \
                     包月 按小时 存储 上传 预算 机时费 《》“”（）：；，。、！？";
        let missing = missing_chars(NOTO_SC_SUBSET, &needed_chars(names));
        assert!(missing.is_empty(), "missing {missing:?}");
    }

    #[test]
    fn every_label_of_the_shipped_scenarios_renders_with_the_bundled_fonts() {
        use crate::scenario::labels::DisplayNames;
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "toml") {
                continue;
            }
            let table: toml::Table = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            let names = DisplayNames::from_table(&table);
            let zh = names.texts(Lang::Zh);
            assert!(zh.chars().any(|c| c > '\u{2E80}'), "{} has Chinese labels", path.display());
            let needed = needed_chars(&(zh + &names.texts(Lang::En)));
            let missing = missing_chars(NOTO_SC_SUBSET, &needed);
            assert!(missing.is_empty(), "{}: the bundled font lacks {missing:?}", path.display());
            // The report's small font too, so a shipped scenario's report embeds ~145 KB.
            let missing = missing_chars(NOTO_SC_LABELS, &needed);
            assert!(missing.is_empty(), "{}: the report's font lacks {missing:?}", path.display());
            // And the font chooser picks the bundled subset for them, with no warning.
            let (f, w) = choose(&names.texts(Lang::Zh), Lang::Zh, None, &[]).unwrap();
            assert!(f.is_bundled_cjk && w.is_empty(), "{}: {w:?}", path.display());
            checked += 1;
        }
        assert!(checked >= 5, "{checked} scenarios checked");
    }

    #[test]
    fn dejavu_has_no_chinese_so_chinese_text_picks_the_subset() {
        assert_eq!(missing_chars(DEJAVU_SANS, &['成', '本']), vec!['成', '本']);
        let (f, w) = choose("Total 成本 (CNY)", Lang::En, None, &[]).unwrap();
        assert!(f.is_bundled_cjk && f.missing.is_empty() && w.is_empty(), "{} {w:?}", f.name);
        let (f, _) = choose("Total cost", Lang::En, None, &[]).unwrap();
        assert_eq!(f.name, "bundled DejaVu Sans");
    }

    #[test]
    fn characters_no_font_has_are_warned_about() {
        let (f, w) = choose("策略 龘", Lang::Zh, None, &[]).unwrap();
        assert_eq!(f.missing, vec!['龘']);
        assert!(w[0].contains("'龘'") && w[0].contains("boxes"), "{w:?}");
    }

    #[test]
    fn font_specs_parse_a_face_after_a_hash() {
        assert_eq!(FontSpec::parse("/a/b.ttc#2").unwrap(), FontSpec { path: "/a/b.ttc".into(), face: 2 });
        assert_eq!(FontSpec::parse("b.ttf").unwrap().face, 0);
        assert!(FontSpec::parse("b.ttc#x").unwrap_err().contains("whole number"));
    }

    #[test]
    fn an_unreadable_font_file_is_an_error_naming_it() {
        let e = choose("x", Lang::En, Some(&FontSpec { path: "/no/such.ttf".into(), face: 0 }), &[]).unwrap_err();
        assert!(e.to_string().contains("/no/such.ttf"), "{e}");
    }

    #[test]
    fn selecting_a_face_swaps_the_collection_offsets() {
        let mut b = b"ttcf\0\x01\0\0\0\0\0\x02AAAABBBB".to_vec();
        b = select_face(b, 1);
        assert_eq!(&b[12..20], b"BBBBAAAA");
        assert_eq!(select_face(b"plain".to_vec(), 1), b"plain");
    }
}

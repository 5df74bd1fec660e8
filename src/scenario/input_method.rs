//! Characters a Chinese input method types where TOML needs ASCII (issue 45 item 5): a
//! full-width digit (`１２`), a full-width comma (`，`), a Chinese quotation mark (`“lab”`),
//! an ideographic space. The TOML parser reports them as "string values must be quoted",
//! which does not say what is wrong; [`first_stray`] finds the first such character
//! outside strings and comments, so that the error can name it and say what to type.
//!
//! Only called once the parser has refused the text: inside quotes and comments every
//! character is allowed (a class may well be named "视觉组"), and outside them TOML 1.0
//! allows no character beyond ASCII, so a character found here is always an error.

/// A character outside quotes and comments that TOML does not allow there.
#[derive(Clone, Debug, PartialEq)]
pub struct Stray {
    /// 1-based line.
    pub line: usize,
    /// The character.
    pub ch: char,
    /// The dotted key of the line (`[table]` header and the key before `=`), when it reads.
    pub key: Option<String>,
    /// The character ends a quoted value it did not open (`"lab”`): the string runs on.
    pub closes_string: bool,
}

impl Stray {
    /// What the character is and what to type instead.
    pub fn advice(&self) -> String {
        let c = self.ch;
        let code = format!("U+{:04X}", c as u32);
        let (what, write) = describe(c);
        let typed = match write {
            Some(w) => format!("write {w}"),
            None => "TOML allows only ASCII outside quotes; put text in quotes".to_string(),
        };
        if self.closes_string {
            format!(
                "{what} '{c}' ({code}) ends a value opened with an ASCII quote, so the string is never closed: {typed} \
                 (a Chinese input method types it; switch to English punctuation)"
            )
        } else {
            format!(
                "{what} '{c}' ({code}) outside quotes: {typed} (a Chinese input method types it; switch to half-width input)"
            )
        }
    }
}

/// Words for an input-method character and the ASCII to type instead, if there is one.
fn describe(c: char) -> (&'static str, Option<String>) {
    let ascii = |a: char| Some(if a == '"' { "\"".to_string() } else { a.to_string() });
    match c {
        '０'..='９' => ("full-width digit", ascii(half_width(c))),
        'Ａ'..='Ｚ' | 'ａ'..='ｚ' => ("full-width letter", ascii(half_width(c))),
        '，' => ("full-width comma", ascii(',')),
        '＝' => ("full-width equals sign", ascii('=')),
        '．' => ("full-width full stop", ascii('.')),
        '\u{FF01}'..='\u{FF5E}' => ("full-width character", ascii(half_width(c))),
        '\u{3000}' => ("ideographic (full-width) space", Some("a space".into())),
        '\u{00A0}' => ("no-break space", Some("a space".into())),
        '“' | '”' | '「' | '」' | '『' | '』' => ("Chinese quotation mark", ascii('"')),
        '‘' | '’' => ("Chinese single quotation mark", ascii('\'')),
        '、' => ("ideographic comma", ascii(',')),
        '。' => ("ideographic full stop", ascii('.')),
        '【' => ("Chinese bracket", ascii('[')),
        '】' => ("Chinese bracket", ascii(']')),
        _ => ("character", None),
    }
}

/// The ASCII character of a full-width form (U+FF01–U+FF5E are ASCII 0x21–0x7E shifted).
fn half_width(c: char) -> char {
    char::from_u32(c as u32 - 0xFEE0).unwrap_or(c)
}

/// Where the lexer is in the text.
#[derive(Clone, Copy, PartialEq)]
enum State {
    Bare,
    Comment,
    Basic,
    Literal,
    MultiBasic,
    MultiLiteral,
}

/// The first non-ASCII character outside quotes and comments, or the first Chinese
/// quotation mark in a one-line string that is never closed.
pub fn first_stray(text: &str) -> Option<Stray> {
    let chars: Vec<char> = text.chars().collect();
    let mut state = State::Bare;
    let mut line = 1;
    // A Chinese closing quote seen in the current one-line basic string.
    let mut curly_in_string: Option<char> = None;
    let mut i = 0;
    let three =
        |i: usize, q: char| chars.get(i) == Some(&q) && chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            if state == State::Basic
                && let Some(ch) = curly_in_string
            {
                return Some(Stray { line, ch, key: key_of(text, line), closes_string: true });
            }
            line += 1;
            if matches!(state, State::Comment | State::Basic | State::Literal) {
                state = State::Bare;
            }
            i += 1;
            continue;
        }
        match state {
            State::Bare => match c {
                '#' => state = State::Comment,
                '"' if three(i, '"') => {
                    state = State::MultiBasic;
                    i += 2;
                }
                '"' => {
                    state = State::Basic;
                    curly_in_string = None;
                }
                '\'' if three(i, '\'') => {
                    state = State::MultiLiteral;
                    i += 2;
                }
                '\'' => state = State::Literal,
                c if !c.is_ascii() => {
                    return Some(Stray { line, ch: c, key: key_of(text, line), closes_string: false });
                }
                _ => {}
            },
            State::Comment => {}
            State::Basic => match c {
                '\\' => i += 1,
                '"' => state = State::Bare,
                '”' | '“' if curly_in_string.is_none() => curly_in_string = Some(c),
                _ => {}
            },
            State::Literal => {
                if c == '\'' {
                    state = State::Bare;
                }
            }
            State::MultiBasic | State::MultiLiteral => {
                let q = if state == State::MultiBasic { '"' } else { '\'' };
                if c == '\\' && state == State::MultiBasic {
                    if chars.get(i + 1) == Some(&'\n') {
                        line += 1;
                    }
                    i += 1;
                } else if three(i, q) {
                    // Up to two more quotes belong to the string ("""a"""" is `a"`).
                    i += 2;
                    while chars.get(i + 1) == Some(&q) && chars.get(i + 2) == Some(&q) {
                        i += 1;
                    }
                    state = State::Bare;
                }
            }
        }
        i += 1;
    }
    if state == State::Basic {
        return curly_in_string.map(|ch| Stray { line, ch, key: key_of(text, line), closes_string: true });
    }
    None
}

/// The dotted key of line `line` (1-based): the last `[table]` or `[[array]]` header above
/// it and the bare key before `=` on the line, each when it reads as ASCII.
fn key_of(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let this = lines.get(line - 1)?;
    let header = lines[..line - 1].iter().rev().find_map(|l| {
        let t = l.trim();
        let inner = t
            .strip_prefix("[[")
            .and_then(|r| r.split("]]").next())
            .or_else(|| t.strip_prefix('[')?.split(']').next())?;
        Some(inner.trim().to_string())
    });
    let key =
        this.split_once('=').map(|(k, _)| k.trim()).filter(|k| !k.is_empty() && k.is_ascii() && !k.starts_with('['));
    match (header, key) {
        (Some(h), Some(k)) if h.is_ascii() => Some(format!("{h}.{k}")),
        (None, Some(k)) => Some(k.to_string()),
        (Some(h), None) if h.is_ascii() => Some(h),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stray(text: &str) -> Stray {
        first_stray(text).unwrap_or_else(|| panic!("no stray in {text:?}"))
    }

    #[test]
    fn a_full_width_digit_is_named_with_its_line_key_and_ascii() {
        let s = stray("[campus]\nname = \"a\"\nnodes = １２\n");
        assert_eq!((s.line, s.ch, s.key.as_deref()), (3, '１', Some("campus.nodes")));
        assert!(s.advice().starts_with("full-width digit '１' (U+FF11) outside quotes: write 1"), "{}", s.advice());
    }

    #[test]
    fn commas_quotes_and_spaces_of_an_input_method_are_named() {
        let comma = stray("[w]\nvalues = [1，2]\n");
        assert!(comma.advice().starts_with("full-width comma '，'") && comma.advice().contains("write ,"));
        let quote = stray("name = “lab”\n");
        assert!(quote.advice().starts_with("Chinese quotation mark '“'") && quote.advice().contains("write \""));
        let space = stray("nodes =\u{3000}4\n");
        assert!(space.advice().contains("write a space"), "{}", space.advice());
        let half_open = stray("name = \"lab”\nnodes = 4\n");
        assert!(half_open.closes_string && half_open.line == 1, "{half_open:?}");
        assert!(half_open.advice().contains("never closed"), "{}", half_open.advice());
    }

    #[test]
    fn characters_inside_quotes_and_comments_are_allowed() {
        let text = "# 注释，全角１２\nname = \"视觉组，１２\"\nnote = '“引号”'\nlong = \"\"\"\n第一行，\n\"\"\"\nraw = '''\n，'''\nn = 1 # 行尾，注释\n";
        assert_eq!(first_stray(text), None);
        // After a multi-line string the lexer is back outside quotes.
        let after = format!("{text}x = ２\n");
        assert_eq!(stray(&after).line, 10);
    }

    #[test]
    fn escaped_quotes_do_not_end_a_string() {
        assert_eq!(first_stray("a = \"say \\\"，\\\" here\"\n"), None);
        assert_eq!(stray("a = \"\\\\\"，\n").ch, '，');
    }
}

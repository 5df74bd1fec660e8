//! Text from users' files made safe to print on a terminal.
//!
//! Error messages quote what a scenario or a log says (a name, a value, a row). A NUL
//! byte, an escape sequence, a right-to-left override or a zero-width space echoed raw
//! can hide or reorder the message on the terminal, or make two different names look
//! alike; such characters are shown as `\u{…}` escapes instead.

use std::borrow::Cow;

/// Whether `c` is shown as an escape: control characters other than newline and tab,
/// bidirectional controls, and invisible zero-width characters.
pub fn is_hidden(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{061C}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' | '\u{FEFF}')
}

/// `text` with every [`is_hidden`] character written as `\u{XXXX}` (borrowed when there
/// is none).
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_hidden) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_hidden(c) {
            out.push_str(&format!("\\u{{{:04X}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_escaped_and_the_rest_kept() {
        assert_eq!(printable("x\u{202E}y\0z\u{200B}\u{1b}[2J"), "x\\u{202E}y\\u{0000}z\\u{200B}\\u{001B}[2J");
        assert!(matches!(printable("ordinary 校园 text\n\tindented"), Cow::Borrowed(_)));
    }
}

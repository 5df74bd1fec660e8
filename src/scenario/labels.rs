//! Display names: what charts, reports and the terminal table call a policy, a job class,
//! a season and the scenario itself. Ids (`name`) stay the stable keys of the CSV files
//! and sweep paths; `label` and `label_zh` only change what a reader sees.
//!
//! The names travel with the output folder inside `run.toml` (a run) or `scenario.toml`
//! (a sweep), the resolved scenario, so `burstsim plot` reads them back from the folder
//! alone ([`DisplayNames::from_table`]). A folder written before labels existed simply
//! has none, and every name falls back to its id.

use std::collections::HashMap;

use crate::i18n::Lang;

/// The labels of one list (policies, classes or seasons): id → (English, Chinese).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Names(HashMap<String, (Option<String>, Option<String>)>);

impl Names {
    /// The display name of `id`: for Chinese `label_zh`, else `label`; for English
    /// `label`; else the id itself.
    pub fn get(&self, id: &str, lang: Lang) -> String {
        let Some((en, zh)) = self.0.get(id) else { return id.to_string() };
        let chosen = match lang {
            Lang::Zh => zh.as_ref().or(en.as_ref()),
            Lang::En => en.as_ref(),
        };
        chosen.cloned().unwrap_or_else(|| id.to_string())
    }

    fn insert(&mut self, id: &str, en: Option<String>, zh: Option<String>) {
        if en.is_some() || zh.is_some() {
            self.0.insert(id.to_string(), (en, zh));
        }
    }

    /// Every display name shown in `lang` (of the entries that have a label).
    fn texts(&self, lang: Lang) -> impl Iterator<Item = String> + '_ {
        self.0.keys().map(move |id| self.get(id, lang))
    }
}

/// Every display name of a scenario.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DisplayNames {
    /// The scenario's own `label` and `label_zh` (chart title prefix, report title).
    pub title: (Option<String>, Option<String>),
    /// Policies.
    pub policies: Names,
    /// Job classes, the group's and the other groups'.
    pub classes: Names,
    /// Seasons of both calendars.
    pub seasons: Names,
}

impl DisplayNames {
    /// Reads the labels from a scenario document (a scenario file, `run.toml` or a
    /// sweep's `scenario.toml`), ignoring everything else in it.
    pub fn from_table(t: &toml::Table) -> DisplayNames {
        let text = |v: &toml::Value, k: &str| v.get(k).and_then(|x| x.as_str()).map(String::from);
        let mut d = DisplayNames::default();
        let top = toml::Value::Table(t.clone());
        d.title = (text(&top, "label"), text(&top, "label_zh"));
        let list = |path: &[&str]| -> Vec<toml::Value> {
            let mut v = Some(&top);
            for p in path {
                v = v.and_then(|x| x.get(p));
            }
            v.and_then(|x| x.as_array()).cloned().unwrap_or_default()
        };
        let fill = |names: &mut Names, items: Vec<toml::Value>| {
            for it in items {
                if let Some(id) = text(&it, "name") {
                    names.insert(&id, text(&it, "label"), text(&it, "label_zh"));
                }
            }
        };
        fill(&mut d.policies, list(&["policies"]));
        fill(&mut d.classes, list(&["workload", "classes"]));
        fill(&mut d.classes, list(&["background", "classes"]));
        fill(&mut d.seasons, list(&["workload", "seasons"]));
        fill(&mut d.seasons, list(&["background", "seasons"]));
        d
    }

    /// The labels of a raw scenario.
    pub fn from_raw(raw: &super::raw::RawScenario) -> DisplayNames {
        toml::Table::try_from(raw).map(|t| DisplayNames::from_table(&t)).unwrap_or_default()
    }

    /// The chart title prefix and report title in `lang`: the scenario's label (Chinese:
    /// `label_zh`, else a `label` or description written in Chinese), else for English
    /// the id `name`. Chinese output never falls back to an English id: `None` then
    /// (charts draw no prefix).
    pub fn title(&self, name: &str, description: Option<&str>, lang: Lang) -> Option<String> {
        match lang {
            Lang::En => Some(self.title.0.clone().unwrap_or_else(|| name.to_string())),
            Lang::Zh => self
                .title
                .1
                .clone()
                .or_else(|| self.title.0.clone().filter(|l| has_cjk(l)))
                .or_else(|| description.filter(|d| has_cjk(d)).map(String::from)),
        }
    }

    /// Every label shown in `lang`, concatenated (for choosing a font that covers them:
    /// a user's label goes through the same glyph check as every other text).
    pub fn texts(&self, lang: Lang) -> String {
        let mut s = String::new();
        let title = match lang {
            Lang::En => self.title.0.as_ref(),
            Lang::Zh => self.title.1.as_ref().or(self.title.0.as_ref()),
        };
        s.push_str(title.map_or("", String::as_str));
        for t in self.policies.texts(lang).chain(self.classes.texts(lang)).chain(self.seasons.texts(lang)) {
            s.push_str(&t);
        }
        s
    }
}

/// Whether a text has a CJK ideograph (so it reads as Chinese).
pub fn has_cjk(s: &str) -> bool {
    s.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{3400}'..='\u{4DBF}').contains(&c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_fall_back_from_chinese_to_english_to_the_id() {
        let t: toml::Table = toml::from_str(
            "label_zh = \"默认场景\"\n[[policies]]\nname = \"a\"\nlabel = \"Campus only\"\nlabel_zh = \"只用校内\"\n\
             [[policies]]\nname = \"b\"\nlabel = \"Rent\"\n[[policies]]\nname = \"c\"\n\
             [workload]\n[[workload.seasons]]\nname = \"s\"\nlabel_zh = \"期末考试\"\n",
        )
        .unwrap();
        let d = DisplayNames::from_table(&t);
        assert_eq!(d.policies.get("a", Lang::Zh), "只用校内");
        assert_eq!(d.policies.get("a", Lang::En), "Campus only");
        assert_eq!(d.policies.get("b", Lang::Zh), "Rent");
        assert_eq!(d.policies.get("c", Lang::Zh), "c");
        assert_eq!(d.seasons.get("s", Lang::En), "s");
        assert_eq!(d.seasons.get("s", Lang::Zh), "期末考试");
        assert_eq!(d.title("default", None, Lang::Zh).as_deref(), Some("默认场景"));
        assert_eq!(d.title("default", None, Lang::En).as_deref(), Some("default"));
        let none = DisplayNames::default();
        assert_eq!(none.title("default", Some("English only"), Lang::Zh), None, "never the English id");
        assert_eq!(none.title("default", Some("武汉课题组"), Lang::Zh).as_deref(), Some("武汉课题组"));
        assert!(d.texts(Lang::Zh).contains("期末考试") && d.texts(Lang::Zh).contains("只用校内"));
        assert!(!d.texts(Lang::En).contains("期末考试"), "English charts draw no Chinese label");
    }
}

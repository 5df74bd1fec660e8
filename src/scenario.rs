//! Scenarios: loading a TOML file, checking it, and the typed model the engine runs.
//!
//! Loading happens in two stages (as ripgrep does with its flags): the text is parsed
//! into [`raw::RawScenario`], a serde mirror that refuses unknown keys, and
//! `validate` turns that into a [`Scenario`] whose every number has been checked and
//! converted to clock units. Errors name the file, the line, the key and what is
//! allowed.

pub mod assumptions;
pub mod calendar;
pub mod calibration;
pub mod campus_model;
pub mod capacity;
pub mod class_metrics;
pub mod dist;
pub mod feasibility;
pub mod fingerprint;
mod input_method;
pub mod keys;
pub mod labels;
pub mod locate;
mod model;
pub mod raw;
pub mod recurring;
pub mod requests;
pub mod sensitivity;
pub mod shape;
mod trace_source;
mod validate;
pub mod week;

pub use model::{
    Account, Backfill, Budget, Campus, ComputeTimeout, Destination, JobClass, MAX_RUNTIME_HOURS, Multifactor,
    NodeGroup, Offer, Partition, Policy, Priority, Scenario, SizeRule, Timing,
};
pub use trace_source::TraceSource;
pub use validate::{GROUP_ACCOUNT, MAX_REPLICATIONS, OTHERS_ACCOUNT, too_many_replications};

use std::path::Path;

use crate::date::Clock;
use crate::scenario::raw::RawScenario;
use crate::units::SimTime;

/// The default scenario, compiled into the binary (also shipped as `scenarios/default.toml`).
pub const DEFAULT_SCENARIO: &str = include_str!("../scenarios/default.toml");

/// A scenario file that cannot be used, with where and why.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("could not read scenario '{path}': {cause}")]
    Read {
        /// The path given.
        path: String,
        /// The I/O error (in the message, not repeated as a source).
        cause: std::io::Error,
    },
    /// The text is not valid TOML, or a key is unknown or of the wrong type (the message
    /// from the TOML parser carries the line and column).
    #[error("{file}: {message}")]
    Syntax {
        /// File name (or `<embedded default>`).
        file: String,
        /// Parser message with line, column and the offending text.
        message: String,
    },
    /// A value is not allowed.
    #[error("{}{key}: {message}", location(file, *line))]
    Invalid {
        /// File name.
        file: String,
        /// 1-based line of the key, when it could be found.
        line: Option<usize>,
        /// Dotted key path, e.g. `cloud.offers[1].billing`.
        key: String,
        /// What is wrong and what is allowed.
        message: String,
    },
}

/// Largest scenario file read (the shipped ones are under 20 kB): a bigger one is refused
/// before the TOML parser spends seconds and gigabytes on it.
pub const MAX_SCENARIO_BYTES: usize = 4 << 20;

/// Most `[[campus.node_groups]]` a campus may have (real clusters have a few node types).
pub const MAX_NODE_GROUPS: usize = 1000;

/// Cheap checks on the text before parsing it: its size and its number of node groups.
fn precheck(text: &str, file: &str) -> Result<(), ScenarioError> {
    if text.len() > MAX_SCENARIO_BYTES {
        return Err(ScenarioError::Syntax {
            file: file.to_string(),
            message: format!(
                "the file is {:.1} MB; a scenario is at most {} MB (the shipped ones are under 20 kB)",
                text.len() as f64 / 1_048_576.0,
                MAX_SCENARIO_BYTES >> 20
            ),
        });
    }
    let headers = text.lines().enumerate().filter(|(_, l)| {
        l.trim().strip_prefix("[[").and_then(|r| r.split("]]").next()).map(str::trim) == Some("campus.node_groups")
    });
    if let Some((line, _)) = headers.clone().nth(MAX_NODE_GROUPS) {
        return Err(ScenarioError::Invalid {
            file: file.to_string(),
            line: Some(line + 1),
            key: "campus.node_groups".into(),
            message: format!(
                "{} node groups; at most {MAX_NODE_GROUPS} are allowed (a group holds any number of identical nodes)",
                headers.count()
            ),
        });
    }
    Ok(())
}

/// The parser's refusal of `text`, unless an input method's character (a full-width digit
/// or comma, a Chinese quotation mark) comes first: then that character, named, at its line
/// and key, with what to type instead (issue 45 item 5).
fn syntax_error(text: &str, file: &str, e: &toml::de::Error) -> ScenarioError {
    let parser_line = e.span().map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
    match input_method::first_stray(text) {
        Some(stray) if parser_line.is_none_or(|l| stray.line <= l) => ScenarioError::Invalid {
            file: file.to_string(),
            line: Some(stray.line),
            key: stray.key.clone().unwrap_or_else(|| "(top level)".into()),
            message: stray.advice(),
        },
        _ => ScenarioError::Syntax { file: file.to_string(), message: e.to_string().trim_end().to_string() },
    }
}

/// `file:line: `, `file: ` or nothing, for error messages.
fn location(file: &str, line: Option<usize>) -> String {
    match (file.is_empty(), line) {
        (true, _) => String::new(),
        (false, Some(l)) => format!("{file}:{l}: "),
        (false, None) => format!("{file}: "),
    }
}

impl Scenario {
    /// Reads and checks a scenario file.
    ///
    /// # Errors
    /// [`ScenarioError`] naming the file, line and key.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let text = std::fs::read_to_string(path)
            .map_err(|cause| ScenarioError::Read { path: path.display().to_string(), cause })?;
        Scenario::from_toml_str(&text, &path.display().to_string())
    }

    /// The embedded default scenario.
    pub fn embedded_default() -> Scenario {
        Scenario::from_toml_str(DEFAULT_SCENARIO, "<embedded default>").expect("the embedded default scenario is valid")
    }

    /// Parses and checks scenario text; `file` names it in errors.
    ///
    /// # Errors
    /// [`ScenarioError::Syntax`] or [`ScenarioError::Invalid`].
    pub fn from_toml_str(text: &str, file: &str) -> Result<Scenario, ScenarioError> {
        precheck(text, file)?;
        let raw: RawScenario = toml::from_str(text).map_err(|e| syntax_error(text, file, &e))?;
        let base = Path::new(file).parent().unwrap_or(Path::new(""));
        let stale = fingerprint::check(text, &raw);
        let mut scenario = validate::validate(raw, base)
            .map_err(|e| ScenarioError::Invalid { file: String::new(), line: None, key: e.key, message: e.message })
            .map_err(|e| e.locate(file, Some(text)))?;
        scenario.stale_calibration_header = stale;
        Ok(scenario)
    }

    /// Checks a raw scenario built in code (errors carry no file or line).
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`].
    pub fn from_raw(raw: RawScenario) -> Result<Scenario, ScenarioError> {
        Scenario::from_raw_at(raw, Path::new(""))
    }

    /// As [`Scenario::from_raw`], with relative paths (a trace) resolved against `base`.
    ///
    /// # Errors
    /// [`ScenarioError::Invalid`].
    pub fn from_raw_at(raw: RawScenario, base: &Path) -> Result<Scenario, ScenarioError> {
        validate::validate(raw, base).map_err(|e| ScenarioError::Invalid {
            file: String::new(),
            line: None,
            key: e.key,
            message: e.message,
        })
    }

    /// The resolved raw form (every default filled in), as `run.toml` writes it. To change
    /// a scenario, clone this, edit the clone and build a new one with [`Scenario::from_raw`],
    /// which checks it again. The field itself cannot be edited from outside the crate:
    ///
    /// ```compile_fail,E0616
    /// let mut scenario = burstsim::scenario::Scenario::embedded_default();
    /// scenario.raw.simulation.replications = 0; // would bypass validation
    /// ```
    pub fn raw(&self) -> &RawScenario {
        &self.raw
    }

    /// The resolved scenario as TOML (every default filled in), loadable again.
    pub fn resolved_toml(&self) -> String {
        toml::to_string(&self.raw).expect("a raw scenario always serialises")
    }

    /// Replaces the master seed and the number of replications (command-line overrides);
    /// `run.toml` records the values used.
    pub fn with_overrides(mut self, seed: Option<u64>, replications: Option<u32>) -> Scenario {
        if let Some(s) = seed {
            self.seed = s;
            self.raw.simulation.seed = s;
        }
        if let Some(r) = replications.filter(|&r| r > 0) {
            self.replications = r;
            self.raw.simulation.replications = r;
            self.max_replications = self.max_replications.max(r);
            if let Some(m) = &mut self.raw.simulation.max_replications {
                *m = (*m).max(r);
            }
        }
        self
    }

    /// The scenario with its campus model set (`--campus-model`; `None`: as written),
    /// recorded in its resolved form (`run.toml`) too.
    pub fn with_campus_model(mut self, model: Option<raw::CampusModel>) -> Scenario {
        if let Some(m) = model {
            self.campus_model = m;
            self.raw.simulation.campus_model = Some(m);
        }
        self
    }

    /// A stable 64-bit hash (FNV-1a) of the resolved scenario, to tell runs apart and to
    /// refuse resuming into results of a different scenario.
    pub fn hash(&self) -> u64 {
        let trace = self.background_trace.as_ref().map_or(0, |t| t.content_hash);
        self.resolved_toml()
            .bytes()
            .chain(trace.to_le_bytes())
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
    }

    /// Whether the scenario models failing capacity, scheduler cycles, start delays,
    /// patience or balking (issue 14); only then do outputs carry the capacity metrics.
    pub fn models_capacity(&self) -> bool {
        self.campus.capacity.any() || self.campus.accounts.iter().any(|a| a.patience.any())
    }

    /// Whether the campus has recurring reservations or time-of-day limits (its week of
    /// windows): only then can a job's walltime request be too long ever to start.
    pub fn has_windows(&self) -> bool {
        !self.campus.week.is_empty()
    }

    /// The clock against the civil calendar.
    pub fn clock(&self) -> Clock {
        Clock { start: self.start_date, warmup: self.warmup }
    }

    /// Length of the measured window, seconds.
    pub fn window(&self) -> SimTime {
        self.horizon - self.warmup
    }

    /// Days in the measured window (a part day counts as one): the length of the daily series.
    pub fn window_days(&self) -> usize {
        self.window().div_ceil(crate::units::DAY) as usize
    }

    /// True when the measured window is exactly one calendar year from the start date, so
    /// totals are annual figures (labelled "CNY/year").
    pub fn is_one_year(&self) -> bool {
        self.window() == crate::date::days_in_year_from(self.start_date) as SimTime * crate::units::DAY
    }

    /// Names of the rows of `classes.csv`: each group class, then the whole group.
    pub fn class_names(&self) -> Vec<String> {
        self.group
            .iter()
            .map(|c| c.name.clone())
            .chain([crate::scenario::class_metrics::ALL_CLASSES.to_string()])
            .collect()
    }

    /// Index of a policy by name.
    pub fn policy_index(&self, name: &str) -> Option<usize> {
        self.policies.iter().position(|p| p.name == name)
    }
}

impl ScenarioError {
    /// The error's parts for a front end that shows them apart (Python's `ScenarioError`
    /// attributes): the file, the line, the key (any of them may be unknown) and the
    /// message alone. A syntax error's line is the one the TOML parser names ("TOML parse
    /// error at line 3, column 5").
    pub fn parts(&self) -> (Option<String>, Option<usize>, Option<String>, String) {
        match self {
            ScenarioError::Read { path, cause } => (Some(path.clone()), None, None, format!("could not read: {cause}")),
            ScenarioError::Syntax { file, message } => {
                let line = message
                    .find("line ")
                    .and_then(|at| message[at + 5..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok());
                (Some(file.clone()), line, None, message.clone())
            }
            ScenarioError::Invalid { file, line, key, message } => {
                (Some(file.clone()).filter(|f| !f.is_empty()), *line, Some(key.clone()), message.clone())
            }
        }
    }

    /// Adds the file name and, when the text is known, the line of the key.
    fn locate(self, file: &str, text: Option<&str>) -> ScenarioError {
        match self {
            ScenarioError::Invalid { key, message, .. } => {
                let line = text.and_then(|t| locate::line_of(t, &key));
                ScenarioError::Invalid { file: file.to_string(), line, key, message }
            }
            other => other,
        }
    }
}

/// Scenario text with dotted keys set (`[("campus.nodes", "32")]`), each value typed like
/// the key it replaces, as a sweep sets them, then checked again as a whole: the new text
/// and its scenario. `origin` is the text as the user wrote it (before any earlier edit):
/// the rewritten text has other line numbers, so an error names the key's line in
/// `origin`, and a parse error (a key that does not exist) the keys given here instead of
/// a line of the rewritten text.
///
/// # Errors
/// `text` does not parse, a key or value is not allowed, or the edited scenario is invalid.
pub fn with_values(
    text: &str,
    origin: &str,
    file: &str,
    values: &[(String, String)],
) -> Result<(String, Scenario), ScenarioError> {
    let mut doc: toml::Table =
        toml::from_str(text).map_err(|e| ScenarioError::Syntax { file: file.to_string(), message: e.to_string() })?;
    for (key, value) in values {
        keys::set_path(&mut doc, key, value).map_err(|e| ScenarioError::Invalid {
            file: file.to_string(),
            line: None,
            key: key.clone(),
            message: e.to_string(),
        })?;
    }
    let text = toml::to_string(&doc).map_err(|e| ScenarioError::Invalid {
        file: file.to_string(),
        line: None,
        key: String::new(),
        message: e.to_string(),
    })?;
    let scenario = Scenario::from_toml_str(&text, file).map_err(|e| match e {
        ScenarioError::Invalid { key, message, .. } => {
            ScenarioError::Invalid { file: file.to_string(), line: locate::line_of(origin, &key), key, message }
        }
        ScenarioError::Syntax { message, .. } => ScenarioError::Invalid {
            file: file.to_string(),
            line: None,
            key: values.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>().join(", "),
            message: message.lines().last().unwrap_or_default().to_string(),
        },
        other => other,
    })?;
    Ok((text, scenario))
}

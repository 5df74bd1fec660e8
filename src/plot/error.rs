//! Why charts could not be drawn: the one error type of plotting and the report.

/// Why charts could not be drawn.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    /// The folder holds neither a run nor a sweep.
    #[error("'{dir}' is not a burstsim output folder: it has neither summary.csv (a run) nor sweep.csv (a sweep)")]
    NotAnOutputFolder {
        /// The folder.
        dir: String,
    },
    /// A file the charts need is missing.
    #[error("'{path}' is missing; `burstsim plot` needs the files that `burstsim run` or `burstsim sweep` writes")]
    Missing {
        /// The file.
        path: String,
    },
    /// A CSV file lacks columns.
    #[error("'{path}' lacks the column(s) {}; its columns are: {}", quoted(.missing), .found.join(", "))]
    Columns {
        /// The file.
        path: String,
        /// Missing columns.
        missing: Vec<String>,
        /// Columns found.
        found: Vec<String>,
    },
    /// A value cannot be read.
    #[error("'{path}' line {line}: {message}")]
    Value {
        /// The file.
        path: String,
        /// 1-based line (the header is line 1).
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// An option is out of range.
    #[error("{0}")]
    Option(String),
    /// A font cannot be used.
    #[error("font '{path}': {message}")]
    Font {
        /// The font file (or its description).
        path: String,
        /// What is wrong.
        message: String,
    },
    /// Drawing failed (a bug or an I/O problem of the backend).
    #[error("could not draw the chart '{chart}': {message}")]
    Draw {
        /// Chart name.
        chart: String,
        /// The backend's message.
        message: String,
    },
    /// Writing a file failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

fn quoted(v: &[String]) -> String {
    v.iter().map(|s| format!("'{s}'")).collect::<Vec<_>>().join(", ")
}

impl PlotError {
    /// Whether the error comes from the user's input (folder, files, options, font):
    /// the command line exits with 2 for these, 1 for the others.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, PlotError::Draw { .. } | PlotError::Io(_))
    }
}

//! `burstsim plot OUTPUT_DIR`: redraws every chart of a run or sweep folder from its files
//! alone, and writes report.html and report.md; and the small hooks with which `run` and
//! `sweep` draw the same charts when they finish (unless `--no-charts`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use burstsim::i18n::Lang;
use burstsim::plot::{FontSpec, PlotError, PlotOptions};

use crate::args::{LangArg, PlotArgs};
use crate::common::UsageError;

/// Maps a chart error to the binary's errors: bad input exits with 2.
fn to_anyhow(e: PlotError) -> anyhow::Error {
    if e.is_bad_input() { UsageError(e.to_string()).into() } else { e.into() }
}

/// Runs `burstsim plot`.
pub fn plot(a: PlotArgs) -> Result<ExitCode> {
    let font = a.font.as_deref().map(FontSpec::parse).transpose().map_err(UsageError)?;
    let opts = PlotOptions {
        lang: if a.lang == LangArg::Zh { Lang::Zh } else { Lang::En },
        width: a.width,
        height: a.height,
        title: a.title,
        font_size: a.font_size,
        font,
        system_fonts: true,
    };
    if a.check_layout {
        let faults = burstsim::plot::layout_faults(&a.dir, &opts).map_err(to_anyhow)?;
        for (chart, list) in &faults {
            for f in list {
                println!("{chart}: {f}");
            }
        }
        if !a.quiet {
            let n: usize = faults.iter().map(|c| c.1.len()).sum();
            say!("burstsim: {n} text-layout fault(s) in {} chart(s)", faults.len());
        }
        return Ok(if faults.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) });
    }
    // The charts and the report are written into the results folder: proved writable and
    // kept from a concurrent writer before any chart is drawn (issue 45 item 3). A folder
    // that does not exist is left to plot_dir's own message.
    let _lock = if a.dir.is_dir() { Some(crate::common::lock_out_dir(&a.dir, "plot")?) } else { None };
    let out = burstsim::report::plot_dir(&a.dir, &opts).map_err(to_anyhow)?;
    for w in &out.warnings {
        say!("burstsim: warning: {w}");
    }
    if !a.quiet {
        print_files(&out);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_files(out: &burstsim::report::PlotOutput) {
    println!(
        "Charts: {}/{{{}}}.{{svg,png}} (font: {})\nReport: {} and {}",
        out.charts_dir.display(),
        out.charts.iter().map(|c| c.name.as_str()).collect::<Vec<_>>().join(","),
        out.font.name,
        out.report_html.display(),
        out.report_md.display()
    );
}

/// Draws the charts and the report of a finished `run` or `sweep` in `dir`. A failure
/// here never fails the run: the CSV files are complete, so it is a warning saying how
/// to retry.
pub fn after(dir: &Path, no_charts: bool, quiet: bool) {
    if no_charts {
        return;
    }
    match burstsim::report::plot_dir(dir, &PlotOptions::default()) {
        Ok(out) => {
            for w in &out.warnings {
                say!("burstsim: warning: {w}");
            }
            if !quiet {
                print_files(&out);
            }
        }
        Err(e) => say!(
            "burstsim: warning: charts were not drawn: {e}; the CSV files are complete, retry with `burstsim plot {}`",
            dir.display()
        ),
    }
}

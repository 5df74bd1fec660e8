//! `burstsim`: the command line. Parses arguments, dispatches to one function per
//! subcommand, prints errors as `burstsim: error: …` and maps them to exit codes:
//! 0 success, 1 the run failed, 2 bad input or usage. A closed pipe (`| head`) exits 0.

/// Writes a line to stderr and ignores a failure. `eprintln!` panics when stderr is closed
/// (the reader of `2>&1 | head` gone, a killed parent), and a panic on the main thread after
/// an interrupt turned "stopped cleanly, exit 130" into a crash that left the lock behind.
/// Every message of the binary goes through this (or `say_part!`, without the newline).
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// `say!` without the newline.
macro_rules! say_part {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

mod advise_cmd;
mod args;
mod calibrate_cmd;
mod commands;
mod common;
mod fit_cmd;
mod plot_cmd;
mod sweep_cmd;
mod trace_cmd;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = args::Cli::parse();
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(err) => {
            if err.chain().any(|e| {
                e.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }) {
                return ExitCode::SUCCESS;
            }
            // Messages quote users' files: control, bidi and zero-width characters are escaped.
            say!("burstsim: error: {}", burstsim::output::printable::printable(&format!("{err:#}")));
            ExitCode::from(common::exit_code(&err))
        }
    }
}

//! `burstsim`: the command line. Parses arguments, dispatches to one function per
//! subcommand, prints errors as `burstsim: error: …` and maps them to exit codes:
//! 0 success, 1 the run failed, 2 bad input or usage. A closed pipe (`| head`) exits 0.

mod args;
mod calibrate_cmd;
mod commands;
mod plot_cmd;
mod sensitivity_cmd;
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
            eprintln!("burstsim: error: {}", burstsim::output::printable::printable(&format!("{err:#}")));
            ExitCode::from(commands::exit_code(&err))
        }
    }
}

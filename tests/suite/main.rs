//! The integration tests, as modules of one test binary (issue 21 item 3): each file of
//! `tests/` used to be its own binary, linking the whole crate 40 times; one binary builds
//! in a fraction of the time and `target/` stays small. Run one file's tests with its
//! module name as the filter, e.g. `cargo test --test suite golden::`.

mod common;

mod accounting;
mod advise;
mod advise_forward;
mod backtest;
mod bad_input_messages;
mod budget;
mod calibrate;
mod capacity;
mod capacity_kth;
mod chart_layout;
mod chart_ticks;
mod cli;
mod compute_timeout;
mod conservation;
mod coverage;
mod crn;
mod docs;
mod easy_reservation;
mod engine_invariants;
mod excel;
mod feasibility;
mod feasibility_property;
mod fit_small_log;
mod golden;
mod interrupt;
mod layers;
mod monte_carlo;
mod never_start_property;
mod node_reservations;
mod nodes;
mod numbers;
mod output_folders;
mod output_safety;
mod planned_starts;
mod plot;
mod policies;
mod pool_vs_nodes;
mod real_slurm;
mod recurring;
mod release;
mod rentals;
mod robustness;
mod scenario_errors;
mod sensitivity;
mod shared_background;
mod shipped_scenarios;
mod stop_on_decision;
mod sweep;
mod theory;
mod trace_cli;
mod trace_data;
mod trace_fit;
mod trace_fitness;
mod trace_readers;
mod trace_scenario;
mod zh_words;

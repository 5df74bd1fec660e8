//! # burstsim
//!
//! Simulates a shared campus GPU cluster's queue through the academic year next to hourly
//! and monthly cloud GPUs, and estimates by Monte Carlo what each hybrid policy costs a
//! research group and how long its jobs wait, with confidence intervals.
//!
//! ```text
//! scenario.toml ─load+validate─▶ Scenario
//!   ├─ workload: JobStream per replication (same for every policy: common random numbers)
//!   ▼
//! engine (integer-second clock, deterministic tie-break)
//!   ├─ cluster: campus GPUs, FCFS / EASY backfill, group GPU limit, maintenance
//!   ├─ cloud: hourly / monthly offers, billing, start-up, upload, interruptions
//!   └─ policy: where each group job goes, when it gives up waiting
//!   ▼
//! metrics per replication ─▶ experiment (rayon) ─▶ stats (mean ± 95% CI, paired diffs)
//!   ▼
//! output: terminal table, CSVs, run.toml
//! ```
//!
//! ## Example
//! ```
//! use burstsim::{scenario::Scenario, workload::JobStream, engine::simulate, metric::Metric};
//! let scenario = Scenario::embedded_default();
//! let jobs = JobStream::generate(&scenario, 0);
//! let out = simulate(&scenario, &jobs, 0, 0);
//! assert!(out.metrics.get(Metric::JobsCompleted) > 0.0);
//! ```
//!
//! ## Guarantees
//! - **Ordering**: events at the same second follow the rule in [`engine::queue`].
//! - **Determinism**: every random stream derives from (seed, replication, purpose)
//!   (the crate-private `rng` module); results are collected in replication order and reduced sequentially, so
//!   the output bytes do not depend on the number of threads.

/// The version every written file names (`run.toml`, a sweep's `scenario.toml`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub mod advise;
pub mod backtest;
pub mod bench;
pub mod cloud;
pub mod cluster;
pub mod date;
pub mod engine;
pub mod evidence;
pub mod experiment;
pub mod i18n;
pub mod job;
pub mod metric;
pub mod metrics;
pub mod output;
pub mod plot;
pub(crate) mod policy;
pub mod report;
pub(crate) mod rng;
pub mod scenario;
pub mod sensitivity;
pub mod stats;
pub mod sweep;
pub mod target;
pub mod trace;
pub mod units;
pub mod usecase;
pub mod validation;
pub mod workload;
pub mod write;

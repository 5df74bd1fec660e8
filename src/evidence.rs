//! What the logs say about the model, built on the engine: replay a log and set the
//! simulated waits next to the recorded ones ([`replay`]), fit a scenario to a log
//! ([`fit`], with [`mle`] and [`infer`]), test the fit on the half of the log it never
//! saw ([`holdout`]; within one policy regime under a site's documented rules,
//! [`rules_holdout`], with [`site_rules`]), and calibrate a scenario's unmeasured inputs to the waits a group
//! observed ([`calibrate`]). Scoring `advise` on a log's own jobs out of sample
//! stands above `advise`, in [`crate::backtest`].
//!
//! Reading the logs is below the scenario ([`crate::trace`]); everything here runs the
//! engine (or, for `fit`, writes a scenario), so it stands above the engine and the sweep.

pub mod calibrate;
pub mod fit;
pub mod holdout;
pub mod infer;
pub mod mle;
pub mod replay;
pub mod rules_holdout;
pub mod site_rules;

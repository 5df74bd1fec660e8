//! The choices a group has when it submits now, each costed per replication from the
//! same simulated campus start:
//!
//! - **campus**: wait for the campus, however long; it runs there at the campus price;
//! - **rent now**: an hourly cloud offer, launched at once (start-up, upload, the offer's
//!   speed, its billing and interruptions, as `cloud::plan_run` plans any cloud run);
//! - **wait T h, then rent**: if the campus has started the job within T hours it runs
//!   there; otherwise the job is withdrawn at T and rented then.
//!
//! Finishing times count from the snapshot. A choice *meets* a deadline when it finishes
//! by then in at least `confidence` of the replications.

use serde::Serialize;

use super::{AdviseError, Options, Probe};
use crate::cloud::plan_run;
use crate::job::Job;
use crate::rng::{Purpose, stream};
use crate::scenario::raw::BillingMode;
use crate::scenario::{Offer, Scenario};
use crate::stats::summarize;
use crate::units::{HOUR, SimTime};

/// What a choice does.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum ChoiceKind {
    /// Wait for the campus.
    Campus,
    /// Rent the offer now.
    RentNow {
        /// The offer.
        offer: String,
    },
    /// Wait up to `hours` for the campus, then rent the offer.
    WaitThenRent {
        /// Hours waited before renting.
        hours: f64,
        /// The offer.
        offer: String,
    },
}

/// One choice's cost and finish over the replications.
#[derive(Clone, Debug, Serialize)]
pub struct Choice {
    /// What it does.
    #[serde(flatten)]
    pub kind: ChoiceKind,
    /// Mean cost, CNY.
    pub cost_cny: f64,
    /// Half-width of its 95% interval (NaN with fewer than 2 replications).
    pub cost_half_width: f64,
    /// Mean finish, seconds after the snapshot (`None` when some replication never finished).
    pub finish_s: Option<f64>,
    /// Half-width of its 95% interval.
    pub finish_half_width_s: Option<f64>,
    /// Median finish (`None`: beyond the horizon).
    pub finish_median_s: Option<f64>,
    /// Share of replications in which the job ran in the cloud.
    pub rented: f64,
    /// Share of replications finishing by the deadline (`None` without one).
    pub p_deadline: Option<f64>,
}

/// The hourly offer to rent: the one named, or the one cheapest for this job now.
///
/// # Errors
/// [`AdviseError::UnknownOffer`] for a name that is not an hourly offer.
pub(super) fn pick_offer<'s>(scn: &'s Scenario, probe: &Probe, o: &Options) -> Result<Option<&'s Offer>, AdviseError> {
    let hourly: Vec<&Offer> = scn
        .offers
        .iter()
        .filter(|x| x.billing == BillingMode::Hourly && x.capacity.is_none_or(|c| c >= probe.gpus))
        .collect();
    if let Some(name) = &o.offer {
        return hourly.iter().find(|x| &x.name == name).copied().map(Some).ok_or_else(|| AdviseError::UnknownOffer {
            name: name.clone(),
            known: hourly.iter().map(|x| x.name.clone()).collect(),
        });
    }
    let job = probe_job(probe);
    let cost = |x: &Offer| {
        let run = plan_run(x, &job, probe.runtime_s as SimTime, 0, &mut stream(o.seed, 0, Purpose::CloudJob(0)));
        run.compute_cost + run.transfer_cost + run.storage_cost
    };
    Ok(hourly.into_iter().min_by(|a, b| cost(a).total_cmp(&cost(b))))
}

fn probe_job(p: &Probe) -> Job {
    Job { kind: p.kind, data_gb: p.data_gb, ..Job::plain(0, p.gpus, p.runtime_s as SimTime, true) }
}

/// Costs every choice on every replication's campus start (`None`: never started).
pub(super) fn evaluate(
    scn: &Scenario,
    probe: &Probe,
    o: &Options,
    starts: &[Option<SimTime>],
    offer: Option<&Offer>,
) -> Vec<Choice> {
    let price = scn.campus.partitions.first().map_or(scn.campus.price_per_gpu_hour_cny, |p| p.price_per_gpu_hour_cny);
    let runtime = probe.runtime_s as SimTime;
    let campus_cost = price * f64::from(probe.gpus) * runtime as f64 / HOUR as f64;
    let job = probe_job(probe);
    // (finish, cost, rented) of one replication under one choice.
    let outcome = |r: usize, start: Option<SimTime>, rent_at: Option<SimTime>| -> (f64, f64, bool) {
        match (start, rent_at, offer) {
            (Some(s), Some(t), _) if s <= t => ((s + runtime) as f64, campus_cost, false),
            (Some(s), None, _) => ((s + runtime) as f64, campus_cost, false),
            (_, Some(t), Some(x)) => {
                // The same cloud draws for every choice of a replication.
                let mut rng = stream(o.seed, r as u64, Purpose::CloudJob(0));
                let run = plan_run(x, &job, runtime, t, &mut rng);
                (run.end as f64, run.compute_cost + run.transfer_cost + run.storage_cost, true)
            }
            _ => (f64::INFINITY, campus_cost, false),
        }
    };
    let mut kinds = vec![(ChoiceKind::Campus, None)];
    if let Some(x) = offer {
        kinds.push((ChoiceKind::RentNow { offer: x.name.clone() }, Some(0)));
        for &h in &o.waits_h {
            kinds.push((
                ChoiceKind::WaitThenRent { hours: h, offer: x.name.clone() },
                Some((h * HOUR as f64) as SimTime),
            ));
        }
    }
    kinds
        .into_iter()
        .map(|(kind, rent_at)| {
            let rows: Vec<(f64, f64, bool)> = starts.iter().enumerate().map(|(r, &s)| outcome(r, s, rent_at)).collect();
            let n = rows.len().max(1) as f64;
            let cost = summarize(&rows.iter().map(|x| x.1).collect::<Vec<_>>());
            let finishes: Vec<f64> = rows.iter().map(|x| x.0).collect();
            let all_finish = finishes.iter().all(|f| f.is_finite());
            let finish = summarize(&finishes);
            let mut sorted = finishes.clone();
            sorted.sort_by(f64::total_cmp);
            let median = Some(crate::stats::percentile_sorted(&sorted, 0.5)).filter(|m| m.is_finite());
            Choice {
                kind,
                cost_cny: cost.mean,
                cost_half_width: cost.half_width,
                finish_s: all_finish.then_some(finish.mean),
                finish_half_width_s: all_finish.then_some(finish.half_width),
                finish_median_s: median,
                rented: rows.iter().filter(|x| x.2).count() as f64 / n,
                p_deadline: o.deadline_s.map(|d| finishes.iter().filter(|&&f| f <= d as f64).count() as f64 / n),
            }
        })
        .collect()
}

/// The cheapest choice (by mean cost) that finishes by the deadline in at least
/// `confidence` of the replications.
pub(super) fn cheapest_meeting(choices: &[Choice], confidence: f64) -> Option<usize> {
    choices
        .iter()
        .enumerate()
        .filter(|(_, c)| c.p_deadline.is_some_and(|p| p >= confidence))
        .min_by(|(_, a), (_, b)| a.cost_cny.total_cmp(&b.cost_cny))
        .map(|(i, _)| i)
}

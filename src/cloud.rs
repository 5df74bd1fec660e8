//! Cloud offers at run time: capacity, waiting lines, and the timeline and bill of one
//! job's cloud run (start-up, upload, compute, interruptions).

pub mod billing;

use std::collections::VecDeque;

use rand_distr::{Distribution, Exp};

use crate::job::Job;
use crate::rng::SimRng;
use crate::scenario::Offer;
use crate::scenario::raw::BillingMode;
use crate::units::{HOUR, MINUTE, SimTime};

/// Largest number of interruptions simulated for one run. Validation keeps interruptions
/// per checkpoint interval at most 3, so this is reached only by extremely long runs; the
/// run then completes without further interruptions.
const MAX_INTERRUPTIONS: u32 = 10_000;

/// One offer's live state.
#[derive(Debug)]
pub struct OfferState {
    /// GPUs in use (jobs and debugging sessions).
    pub busy: u32,
    /// Most GPUs at once (`u32::MAX` = unlimited).
    pub capacity: u32,
    /// Jobs waiting for capacity, first come first served.
    pub waiting: VecDeque<u32>,
    /// End of the current rental of a monthly offer rented by the month or when needed
    /// (`SimTime::MAX`: always there; at or before now: not rented now).
    pub rented_until: SimTime,
    /// Rentals started when needed (`rent_when_needed`), `[start, end)` on the clock.
    pub rented: Vec<(SimTime, SimTime)>,
}

impl OfferState {
    /// An idle offer.
    pub fn new(offer: &Offer) -> OfferState {
        OfferState {
            busy: 0,
            capacity: offer.capacity.unwrap_or(u32::MAX),
            waiting: VecDeque::new(),
            rented_until: SimTime::MAX,
            rented: Vec::new(),
        }
    }

    /// An offer not rented yet: no GPUs until a rental starts.
    pub fn unrented(offer: &Offer) -> OfferState {
        OfferState { capacity: 0, rented_until: 0, ..OfferState::new(offer) }
    }

    /// Whether `gpus` more GPUs are free now.
    pub fn has_room(&self, gpus: u32) -> bool {
        self.busy.saturating_add(gpus) <= self.capacity
    }
}

/// The timeline and bill of one cloud run.
#[derive(Clone, Debug, PartialEq)]
pub struct CloudRun {
    /// When compute begins (after start-up and upload): the job's wait ends here.
    pub compute_start: SimTime,
    /// When the run ends and the GPUs are released.
    pub end: SimTime,
    /// GPU charges, CNY (hourly offers; includes re-done work).
    pub compute_cost: f64,
    /// Part of the GPU time billed while uploading, CNY.
    pub transfer_cost: f64,
    /// Storage charges, CNY.
    pub storage_cost: f64,
    /// Interruptions suffered.
    pub interruptions: u32,
}

/// A sampled delay in minutes as clock seconds, capped at 30 days (heavy tails).
pub(crate) fn minutes(m: f64) -> SimTime {
    (m.min(30.0 * 24.0 * 60.0) * MINUTE as f64).round().max(0.0) as SimTime
}

/// Longest span any single cloud phase may take (a hundred years): absurd inputs are cut
/// here rather than overflowing the clock.
const MAX_PHASE: f64 = 100.0 * 365.0 * 86_400.0;

/// Compute seconds on the offer for `work` seconds of campus runtime.
pub fn cloud_compute_secs(offer: &Offer, job: &Job, work: SimTime) -> SimTime {
    ((work as f64 / offer.speed(job.kind) * offer.io_slowdown).ceil().min(MAX_PHASE) as SimTime).max(1)
}

/// Upload seconds for a job's data.
pub fn upload_secs(offer: &Offer, job: &Job) -> SimTime {
    match offer.upload_mb_per_s {
        Some(bw) if job.data_gb > 0.0 => (job.data_gb * 1000.0 / bw).ceil().min(MAX_PHASE) as SimTime,
        _ => 0,
    }
}

/// Plans a run of `work` campus-seconds of `job` launched at `launch`. Draws start-up
/// delays and interruptions from `rng` (the job's own cloud stream). After an
/// interruption the work since the last checkpoint is lost; a new instance starts (a new
/// start-up delay, a new billing session) and the data stays on the platform's storage.
pub fn plan_run(offer: &Offer, job: &Job, work: SimTime, launch: SimTime, rng: &mut SimRng) -> CloudRun {
    let hourly = offer.billing == BillingMode::Hourly;
    let startup = minutes(offer.startup_minutes.sample(rng));
    let upload = upload_secs(offer, job);
    let compute = cloud_compute_secs(offer, job, work);
    let ckpt = offer.checkpoint_interval.max(1);
    let gap = (offer.interruption_rate_per_hour > 0.0)
        .then(|| Exp::new(offer.interruption_rate_per_hour / HOUR as f64).expect("validated rate"));

    let running_from = launch + startup;
    let mut t = running_from + upload;
    let compute_start = t;
    let mut compute_cost = 0.0;
    let mut session = if offer.upload_billed { upload } else { 0 };
    let mut progress: SimTime = 0;
    let mut interruptions = 0;
    loop {
        let remaining = compute - progress;
        let x = match &gap {
            Some(d) if interruptions < MAX_INTERRUPTIONS => d.sample(rng).ceil() as SimTime,
            _ => SimTime::MAX,
        };
        if x >= remaining {
            t += remaining;
            session += remaining;
            if hourly {
                compute_cost += billing::session_charge(offer, session, job.gpus);
            }
            break;
        }
        t += x;
        session += x;
        if hourly {
            compute_cost += billing::session_charge(offer, session, job.gpus);
        }
        interruptions += 1;
        progress = (progress + x) / ckpt * ckpt;
        t += minutes(offer.startup_minutes.sample(rng));
        session = 0;
    }
    let transfer_cost = if hourly && offer.upload_billed {
        upload as f64 / HOUR as f64 * f64::from(job.gpus) * offer.price_per_gpu_hour_cny
    } else {
        0.0
    };
    let storage_cost = if job.data_gb > 0.0 {
        billing::storage_charge(offer, job.data_gb, t - running_from + offer.retention)
    } else {
        0.0
    };
    CloudRun {
        compute_start,
        end: t,
        compute_cost: (compute_cost - transfer_cost).max(0.0),
        transfer_cost,
        storage_cost,
        interruptions,
    }
}

/// An upper estimate of a run's variable charges before it starts (for budgets): the
/// walltime request stands in for the unknown runtime; interruptions are not foreseen.
pub fn estimate_charge(offer: &Offer, job: &Job, walltime: SimTime) -> f64 {
    if offer.billing == BillingMode::Monthly {
        return if job.data_gb > 0.0 {
            billing::storage_charge(offer, job.data_gb, walltime + offer.retention)
        } else {
            0.0
        };
    }
    let busy = upload_secs(offer, job) + cloud_compute_secs(offer, job, walltime);
    billing::session_charge(offer, busy, job.gpus) + billing::storage_charge(offer, job.data_gb, busy + offer.retention)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::JobKind;
    use crate::job::NO_DEADLINE;
    use crate::rng::{Purpose, stream};
    use crate::scenario::dist::DistSpec;

    fn offer() -> Offer {
        Offer {
            name: "t".into(),
            gpu_type: "t".into(),
            vram_gb: 24.0,
            speed_cv: 2.0,
            speed_transformer: 1.0,
            billing: BillingMode::Hourly,
            price_per_gpu_hour_cny: 3.6,
            price_per_gpu_month_cny: 0.0,
            capacity: None,
            rentals: None,
            min_term: 30 * 86_400,
            granularity: 1,
            minimum_charge: 0,
            startup_minutes: DistSpec::fixed(2.0).sampler().unwrap(),
            upload_mb_per_s: Some(100.0),
            upload_billed: true,
            storage_price_per_gb_day_cny: 0.0,
            free_storage_gb: 0.0,
            retention: 0,
            interruption_rate_per_hour: 0.0,
            checkpoint_interval: HOUR,
            io_slowdown: 1.0,
        }
    }

    fn job(kind: JobKind) -> Job {
        Job {
            submit: 0,
            runtime: 2 * HOUR,
            walltime_factor: 1.0,
            gpus: 2,
            class: 0,
            group: true,
            ordinal: 0,
            vram_gb: 10.0,
            data_gb: 36.0,
            deadline: NO_DEADLINE,
            kind,
            account: crate::job::OTHERS,
            partition: 0,
            nodes: 0,
            gpus_per_node: 0,
        }
    }

    #[test]
    fn a_run_is_startup_then_upload_then_compute_at_the_offer_speed() {
        let mut rng = stream(1, 0, Purpose::Test(2));
        let r = plan_run(&offer(), &job(JobKind::Cv), 2 * HOUR, 1000, &mut rng);
        assert_eq!(r.compute_start, 1000 + 120 + 360);
        assert_eq!(r.end, r.compute_start + HOUR, "CV runs twice as fast here");
        // 1 h compute + 360 s upload on 2 GPUs at 3.6/h.
        assert!((r.compute_cost - 7.2).abs() < 1e-9 && (r.transfer_cost - 0.72).abs() < 1e-9, "{r:?}");
    }

    #[test]
    fn interruptions_cost_more_and_still_finish_the_work() {
        let mut o = offer();
        o.upload_mb_per_s = None;
        let base = plan_run(&o, &job(JobKind::Transformer), 10 * HOUR, 0, &mut stream(1, 0, Purpose::Test(3)));
        o.interruption_rate_per_hour = 0.3;
        for seed in 0..50 {
            let r = plan_run(&o, &job(JobKind::Transformer), 10 * HOUR, 0, &mut stream(seed, 0, Purpose::Test(3)));
            assert!(r.end >= base.end && r.compute_cost >= base.compute_cost);
            if r.interruptions > 0 {
                assert!(r.end > base.end && r.compute_cost > base.compute_cost, "{r:?}");
            }
        }
    }
}

//! The end of a replication: the capacity and outcome tallies closed, monthly rent by
//! day, and every metric of [`RunMetrics`] computed from the world's tallies and levels.
//! Apart from the event loop because it runs once, after it.

use super::{JobRecord, Observer, SimOutput, World};
use crate::metric::Metric;
use crate::metrics::class::ClassTally;
use crate::metrics::{Daily, RunMetrics, wait_stats};
use crate::units::{HOUR, SimTime, secs_to_hours};

impl<O: Observer> World<'_, O> {
    pub(super) fn finish_with(mut self, keep_records: bool) -> SimOutput {
        self.close_capacity();
        let seasons = self.close_outcomes();
        let scn = self.scn;
        let end = self.now.max(scn.horizon);
        for l in
            [&mut self.busy, &mut self.queued, &mut self.cloud_busy, &mut self.monthly_busy, &mut self.group_waiting]
        {
            l.advance(end);
        }
        let window = scn.window();
        let rented = std::mem::take(&mut self.rented_offers);
        let mut rent_by_day = vec![0.0; self.tally.daily_cost.len()];
        let mut part_time = false;
        for &o in &rented {
            let offer = &scn.offers[o];
            let rent = match &offer.rentals {
                Some(windows) => crate::cloud::billing::rent_by_day(offer, scn.clock(), window, windows),
                None if crate::policy::rents_when_needed(self.policy, scn, o) => {
                    crate::cloud::billing::rent_by_day(offer, scn.clock(), window, &self.offers[o].rented)
                }
                None => crate::cloud::billing::monthly_rent_by_day(offer, scn.clock(), window),
            };
            part_time |= self.offers[o].rented_until != SimTime::MAX;
            rent_by_day.iter_mut().zip(rent).for_each(|(a, r)| *a += r);
        }
        let monthly_cost: f64 = rent_by_day.iter().sum();
        let monthly_gpus: u32 = rented.iter().map(|&o| scn.offers[o].capacity.unwrap_or(0)).sum();
        self.monthly_rented.advance(end);
        let monthly_utilization = if monthly_gpus == 0 {
            f64::NAN
        } else if part_time {
            // Busy GPUs over the GPUs rented at the time (NaN when nothing was rented).
            let rented_mean = self.monthly_rented.window_mean();
            if rented_mean > 0.0 { self.monthly_busy.window_mean() / rented_mean } else { f64::NAN }
        } else {
            self.monthly_busy.window_mean() / f64::from(monthly_gpus)
        };
        let t = &self.tally;
        let [wait_mean, p50, p95, p99, waited] = wait_stats(&t.waits_h);
        let nan_if_zero = |num: f64, den: u64| if den == 0 { f64::NAN } else { num / den as f64 };
        let offered: f64 = self
            .jobs
            .iter()
            .filter(|j| j.submit >= scn.warmup && j.submit < scn.horizon)
            .map(|j| f64::from(j.gpus) * j.runtime as f64)
            .sum::<f64>()
            / (f64::from(scn.campus.gpus) * window as f64);
        let mut values = vec![f64::NAN; Metric::ALL.len()];
        let mut put = |m: Metric, v: f64| values[m.index()] = v;
        let cloud_cost = t.hourly_cost + monthly_cost + t.transfer_cost;
        put(Metric::TotalCost, t.campus_cost + cloud_cost + t.storage_cost);
        put(Metric::CampusCost, t.campus_cost);
        put(Metric::CloudCost, cloud_cost);
        put(Metric::HourlyCost, t.hourly_cost);
        put(Metric::MonthlyCost, monthly_cost);
        put(Metric::TransferCost, t.transfer_cost);
        put(Metric::StorageCost, t.storage_cost);
        put(Metric::WaitMean, wait_mean);
        put(Metric::WaitP50, p50);
        put(Metric::WaitP95, p95);
        put(Metric::WaitP99, p99);
        put(Metric::WaitedShare, waited);
        put(Metric::TurnaroundMean, nan_if_zero(t.turnaround_h, t.completed));
        put(Metric::DeadlineMissRate, nan_if_zero(t.missed as f64, t.with_deadline));
        put(Metric::CloudJobShare, nan_if_zero(t.cloud_jobs as f64, t.completed));
        put(Metric::CloudGpuHours, t.cloud_gpu_secs / HOUR as f64);
        put(Metric::CampusGpuHours, t.campus_gpu_secs / HOUR as f64);
        put(Metric::CampusUtilization, self.busy.window_mean() / f64::from(scn.campus.gpus));
        put(Metric::MonthlyUtilization, monthly_utilization);
        put(Metric::JobsCompleted, t.completed as f64);
        put(Metric::CampusOfferedLoad, offered);
        put(Metric::BacklogAtHorizonDays, t.backlog_days);
        put(Metric::BudgetAlerts, self.budget.alerts_fired() as f64);
        put(Metric::BudgetCapDay, self.budget.cap_day().unwrap_or(f64::NAN));
        put(Metric::Interruptions, t.interruptions as f64);
        put(Metric::WalltimeResubmits, t.resubmits as f64);
        put(Metric::QueueLenMean, self.group_waiting.window_mean());
        put(Metric::ArrivalRatePerHour, t.arrivals as f64 / secs_to_hours(window));
        put(Metric::FirstWaitMean, nan_if_zero(t.first_waits_h, t.completed));
        let c = &self.cap;
        put(Metric::CapacityLostGpuHours, c.lost_capacity_gpu_secs / HOUR as f64);
        put(Metric::FailureLostWorkGpuHours, c.lost_work_gpu_secs / HOUR as f64);
        put(Metric::FailureKilledJobs, c.killed as f64);
        put(Metric::RenegedShare, nan_if_zero(c.reneged as f64, c.submitted));
        put(Metric::BalkedShare, nan_if_zero(c.balked as f64, c.submitted));
        // Every class together, once: the per-class rows' "all classes" row and the
        // counts below (it copies every class's waits).
        let set = &scn.class_metrics;
        let mut all = ClassTally::default();
        self.tally.classes.iter().for_each(|c| all.absorb(c));
        let mut rows: Vec<&ClassTally> = self.tally.classes[..scn.group.len()].iter().collect();
        rows.push(&all);
        let classes = crate::metrics::values_once(&rows, |c| c.values(set));
        let t = &self.tally;
        put(Metric::JobsSubmitted, t.arrivals as f64);
        put(Metric::JobsCompletedCampus, (t.completed - t.cloud_jobs) as f64);
        put(Metric::JobsCompletedCloud, t.cloud_jobs as f64);
        put(Metric::JobsReneged, all.reneged as f64);
        put(Metric::JobsBalked, all.balked as f64);
        put(Metric::JobsUnfinished, all.unfinished as f64);
        put(Metric::JobsNeverStartable, t.never_startable as f64);
        let gpu_secs = t.cloud_gpu_secs + t.campus_gpu_secs;
        put(Metric::CloudGpuHourShare, if gpu_secs > 0.0 { t.cloud_gpu_secs / gpu_secs } else { f64::NAN });
        put(Metric::GroupRenegedShare, nan_if_zero(all.reneged as f64, t.arrivals));
        put(Metric::GroupBalkedShare, nan_if_zero(all.balked as f64, t.arrivals));
        put(Metric::GaveUpGpuHours, t.gave_up_gpu_secs / HOUR as f64);
        let queue_daily = self.queued.daily_means();
        let unstable = offered >= 1.0 || growing_backlog(&queue_daily, t.backlog_days);
        let daily = Daily {
            campus_queue_gpus: queue_daily,
            campus_busy_gpus: self.busy.daily_means(),
            cloud_busy_gpus: self.cloud_busy.daily_means(),
            cost_cny: t.daily_cost.iter().zip(&rent_by_day).map(|(c, r)| c + r).collect(),
        };
        let records = if keep_records {
            self.jobs
                .iter()
                .zip(&self.st)
                .map(|(j, s)| JobRecord { submit: j.submit, start: s.first_start, end: s.end, place: s.place })
                .collect()
        } else {
            Vec::new()
        };
        let class_waits_h =
            self.tally.classes.iter_mut().take(scn.group.len()).map(|c| std::mem::take(&mut c.waits_h)).collect();
        let metrics =
            RunMetrics { values, waits_h: self.tally.waits_h, daily, unstable, classes, class_waits_h, seasons };
        SimOutput { metrics, records }
    }
}

/// "Still growing at the horizon": more than a day of the whole cluster's work is queued
/// when arrivals stop, and the queue over the last tenth of the horizon is more than 1.5×
/// its average.
fn growing_backlog(queue_daily: &[f64], backlog_days: f64) -> bool {
    if backlog_days < 1.0 || queue_daily.len() < 10 {
        return false;
    }
    let mean = queue_daily.iter().sum::<f64>() / queue_daily.len() as f64;
    let tail = &queue_daily[queue_daily.len() - queue_daily.len() / 10..];
    let tail_mean = tail.iter().sum::<f64>() / tail.len() as f64;
    tail_mean > 1.5 * mean
}

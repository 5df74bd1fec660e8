//! The names of what one replication of one policy measures ([`Metric`]): the list
//! is the column order of `replications.csv` and the row order of `summary.csv`, and the
//! names are a stable contract (see DESIGN.md). Plain names and units, below the scenario,
//! so that requirements on them ([`crate::target`]) can be checked when a scenario loads;
//! the values are measured in [`crate::metrics`].

/// A per-replication metric.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Metric {
    /// Everything the group paid: campus + cloud + storage.
    TotalCost,
    /// Internal campus charges (机时费).
    CampusCost,
    /// Cloud compute: hourly + monthly + transfer.
    CloudCost,
    /// Hourly cloud GPU time (incl. debugging sessions and re-done work).
    HourlyCost,
    /// Monthly rent over the measured months.
    MonthlyCost,
    /// GPU time billed while uploading data.
    TransferCost,
    /// Cloud storage.
    StorageCost,
    /// Mean wait: all the time a job spent queued on campus (every segment, including
    /// re-queues after walltime kills), in an offer's line, and in cloud start-up and upload.
    /// Over completed jobs and reneged ones (their wait until they gave up: a censored
    /// wait, so that the jobs that waited longest do not drop out); balked jobs never queued.
    WaitMean,
    /// Median wait.
    WaitP50,
    /// 95th percentile of wait within one replication (a simulated year); summaries
    /// give the mean over years of each year's p95 ("mean of yearly p95").
    WaitP95,
    /// 99th percentile of wait.
    WaitP99,
    /// Share of jobs that waited at all.
    WaitedShare,
    /// Mean submission-to-end time.
    TurnaroundMean,
    /// Share of the group's jobs with a deadline (only the classes that have one) that did
    /// not finish by it; jobs that reneged, balked or never finished count as missed.
    DeadlineMissRate,
    /// Share of jobs that ran in the cloud.
    CloudJobShare,
    /// GPU-hours used in the cloud.
    CloudGpuHours,
    /// GPU-hours the group used on campus.
    CampusGpuHours,
    /// Busy share of the campus cluster (all groups).
    CampusUtilization,
    /// Busy share of monthly-rented GPUs.
    MonthlyUtilization,
    /// Group jobs completed (measured window).
    JobsCompleted,
    /// Campus work submitted (all groups, as if all ran on campus) ÷ capacity.
    CampusOfferedLoad,
    /// Campus work still queued when arrivals stop, in days of the whole cluster.
    BacklogAtHorizonDays,
    /// Budget alerts fired.
    BudgetAlerts,
    /// Day (from the start) on which the budget cap first refused a job; empty if never.
    BudgetCapDay,
    /// Cloud interruptions suffered.
    Interruptions,
    /// Campus segments killed at the walltime limit and resubmitted.
    WalltimeResubmits,
    /// Time-average number of group jobs waiting in the campus queue (Little's L).
    QueueLenMean,
    /// Group arrivals per hour in the measured window (Little's λ).
    ArrivalRatePerHour,
    /// Mean wait from submission to the first start of compute (the first segment only:
    /// what a user sees before anything runs).
    FirstWaitMean,
    /// Campus capacity out of service in the window (failed and drained nodes, outages),
    /// GPU-hours. Written only when the scenario models failures, drains, outages,
    /// scheduler cycles, start delays, patience or balking (as are the four below).
    CapacityLostGpuHours,
    /// Work thrown away by jobs killed by node failures or outages (since their last
    /// checkpoint), GPU-hours, all campus jobs.
    FailureLostWorkGpuHours,
    /// Campus job segments killed by node failures or outages in the window, all jobs.
    FailureKilledJobs,
    /// Share of campus submissions in the window (every account, the group's included)
    /// cancelled in the queue when their users' patience ran out. The group's own share is
    /// [`Metric::GroupRenegedShare`].
    RenegedShare,
    /// Share of campus submissions in the window (every account) never made because the
    /// queue ahead was too long. The group's own share is [`Metric::GroupBalkedShare`].
    BalkedShare,
    /// Group jobs submitted in the window (the five buckets below add up to it).
    JobsSubmitted,
    /// Of those, completed on campus.
    JobsCompletedCampus,
    /// Completed in the cloud.
    JobsCompletedCloud,
    /// Reneged: cancelled in the campus queue when their users' patience ran out.
    JobsReneged,
    /// Balked: never submitted to the campus because the queue ahead was too long.
    JobsBalked,
    /// Still waiting or running when the simulation ended (it drains the queue after
    /// arrivals stop, so only jobs that can never start stay here).
    JobsUnfinished,
    /// Of [`Metric::JobsUnfinished`], the jobs that could never have started: their
    /// walltime request is longer than every gap the campus's recurring reservations and
    /// time-of-day limits leave, and no cloud offer took them (issue 45). Written only for
    /// a campus with such windows ([`Metric::WINDOWED`]); elsewhere no job is of this kind.
    JobsNeverStartable,
    /// Share of the group's GPU-hours used in the cloud (cloud ÷ cloud + campus), next
    /// to [`Metric::CloudJobShare`], which counts jobs.
    CloudGpuHourShare,
    /// Share of the group's submitted jobs that reneged (capacity model only).
    GroupRenegedShare,
    /// Share of the group's submitted jobs that balked (capacity model only).
    GroupBalkedShare,
    /// GPU-hours of work the group's reneged and balked jobs never got done (their
    /// runtimes on a campus GPU): what a cheaper policy may owe to jobs that gave up.
    GaveUpGpuHours,
}

impl Metric {
    /// Every metric, in output order.
    pub const ALL: [Metric; 45] = [
        Metric::TotalCost,
        Metric::CampusCost,
        Metric::CloudCost,
        Metric::HourlyCost,
        Metric::MonthlyCost,
        Metric::TransferCost,
        Metric::StorageCost,
        Metric::WaitMean,
        Metric::WaitP50,
        Metric::WaitP95,
        Metric::WaitP99,
        Metric::WaitedShare,
        Metric::TurnaroundMean,
        Metric::DeadlineMissRate,
        Metric::CloudJobShare,
        Metric::CloudGpuHours,
        Metric::CampusGpuHours,
        Metric::CampusUtilization,
        Metric::MonthlyUtilization,
        Metric::JobsCompleted,
        Metric::CampusOfferedLoad,
        Metric::BacklogAtHorizonDays,
        Metric::BudgetAlerts,
        Metric::BudgetCapDay,
        Metric::Interruptions,
        Metric::WalltimeResubmits,
        Metric::QueueLenMean,
        Metric::ArrivalRatePerHour,
        Metric::FirstWaitMean,
        Metric::CapacityLostGpuHours,
        Metric::FailureLostWorkGpuHours,
        Metric::FailureKilledJobs,
        Metric::RenegedShare,
        Metric::BalkedShare,
        Metric::JobsSubmitted,
        Metric::JobsCompletedCampus,
        Metric::JobsCompletedCloud,
        Metric::JobsReneged,
        Metric::JobsBalked,
        Metric::JobsUnfinished,
        Metric::JobsNeverStartable,
        Metric::CloudGpuHourShare,
        Metric::GroupRenegedShare,
        Metric::GroupBalkedShare,
        Metric::GaveUpGpuHours,
    ];

    /// The metrics of the capacity model (issue 14), written only for scenarios that use it
    /// ([`Metric::written`]), so that every other scenario's outputs keep their bytes.
    pub const CAPACITY: [Metric; 8] = [
        Metric::CapacityLostGpuHours,
        Metric::FailureLostWorkGpuHours,
        Metric::FailureKilledJobs,
        Metric::RenegedShare,
        Metric::BalkedShare,
        Metric::GroupRenegedShare,
        Metric::GroupBalkedShare,
        Metric::GaveUpGpuHours,
    ];

    /// The metrics only a campus with recurring reservations or time-of-day limits has
    /// ([`Metric::written`]), so that every other scenario's outputs keep their bytes.
    pub const WINDOWED: [Metric; 1] = [Metric::JobsNeverStartable];

    /// Where the group's submitted jobs ended, one bucket each: these add up to
    /// [`Metric::JobsSubmitted`] in every replication.
    pub const BUCKETS: [Metric; 5] = [
        Metric::JobsCompletedCampus,
        Metric::JobsCompletedCloud,
        Metric::JobsReneged,
        Metric::JobsBalked,
        Metric::JobsUnfinished,
    ];

    /// Headline metrics: the ones sequential stopping and the terminal table watch.
    pub const HEADLINE: [Metric; 5] =
        [Metric::TotalCost, Metric::WaitMean, Metric::WaitP95, Metric::DeadlineMissRate, Metric::CloudJobShare];

    /// Column / row name (stable).
    pub fn name(self) -> &'static str {
        match self {
            Metric::TotalCost => "total_cost_cny",
            Metric::CampusCost => "campus_cost_cny",
            Metric::CloudCost => "cloud_cost_cny",
            Metric::HourlyCost => "hourly_cost_cny",
            Metric::MonthlyCost => "monthly_cost_cny",
            Metric::TransferCost => "transfer_cost_cny",
            Metric::StorageCost => "storage_cost_cny",
            Metric::WaitMean => "wait_mean_h",
            Metric::WaitP50 => "wait_p50_h",
            Metric::WaitP95 => "wait_p95_h",
            Metric::WaitP99 => "wait_p99_h",
            Metric::WaitedShare => "waited_share",
            Metric::TurnaroundMean => "turnaround_mean_h",
            Metric::DeadlineMissRate => "deadline_miss_rate",
            Metric::CloudJobShare => "cloud_job_share",
            Metric::CloudGpuHours => "cloud_gpu_hours",
            Metric::CampusGpuHours => "campus_gpu_hours",
            Metric::CampusUtilization => "campus_utilization",
            Metric::MonthlyUtilization => "monthly_utilization",
            Metric::JobsCompleted => "jobs_completed",
            Metric::CampusOfferedLoad => "campus_offered_load",
            Metric::BacklogAtHorizonDays => "backlog_at_horizon_days",
            Metric::BudgetAlerts => "budget_alerts",
            Metric::BudgetCapDay => "budget_cap_day",
            Metric::Interruptions => "interruptions",
            Metric::WalltimeResubmits => "walltime_resubmits",
            Metric::QueueLenMean => "queue_len_mean",
            Metric::ArrivalRatePerHour => "arrival_rate_per_h",
            Metric::FirstWaitMean => "first_wait_mean_h",
            Metric::CapacityLostGpuHours => "capacity_lost_gpu_hours",
            Metric::FailureLostWorkGpuHours => "failure_lost_work_gpu_hours",
            Metric::FailureKilledJobs => "failure_killed_jobs",
            Metric::RenegedShare => "reneged_share",
            Metric::BalkedShare => "balked_share",
            Metric::JobsSubmitted => "jobs_submitted",
            Metric::JobsCompletedCampus => "jobs_completed_campus",
            Metric::JobsCompletedCloud => "jobs_completed_cloud",
            Metric::JobsReneged => "jobs_reneged",
            Metric::JobsBalked => "jobs_balked",
            Metric::JobsUnfinished => "jobs_unfinished",
            Metric::JobsNeverStartable => "jobs_never_startable",
            Metric::CloudGpuHourShare => "cloud_gpu_hour_share",
            Metric::GroupRenegedShare => "group_reneged_share",
            Metric::GroupBalkedShare => "group_balked_share",
            Metric::GaveUpGpuHours => "gave_up_gpu_hours",
        }
    }

    /// Unit, for the `unit` column.
    pub fn unit(self) -> &'static str {
        match self {
            Metric::TotalCost
            | Metric::CampusCost
            | Metric::CloudCost
            | Metric::HourlyCost
            | Metric::MonthlyCost
            | Metric::TransferCost
            | Metric::StorageCost => "CNY",
            Metric::WaitMean
            | Metric::WaitP50
            | Metric::WaitP95
            | Metric::WaitP99
            | Metric::TurnaroundMean
            | Metric::FirstWaitMean => "h",
            Metric::WaitedShare
            | Metric::DeadlineMissRate
            | Metric::CloudJobShare
            | Metric::CampusUtilization
            | Metric::MonthlyUtilization
            | Metric::CampusOfferedLoad => "share",
            Metric::CloudGpuHours
            | Metric::CampusGpuHours
            | Metric::CapacityLostGpuHours
            | Metric::FailureLostWorkGpuHours
            | Metric::GaveUpGpuHours => "GPU-h",
            Metric::RenegedShare
            | Metric::BalkedShare
            | Metric::CloudGpuHourShare
            | Metric::GroupRenegedShare
            | Metric::GroupBalkedShare => "share",
            Metric::JobsSubmitted
            | Metric::JobsCompletedCampus
            | Metric::JobsCompletedCloud
            | Metric::JobsReneged
            | Metric::JobsBalked
            | Metric::JobsUnfinished
            | Metric::JobsNeverStartable => "jobs",
            Metric::FailureKilledJobs => "count",
            Metric::JobsCompleted => "jobs",
            Metric::BacklogAtHorizonDays | Metric::BudgetCapDay => "days",
            Metric::BudgetAlerts | Metric::Interruptions | Metric::WalltimeResubmits => "count",
            Metric::QueueLenMean => "jobs",
            Metric::ArrivalRatePerHour => "jobs/h",
        }
    }

    /// Whether tables, charts and reports show this metric in percent (rates and shares,
    /// stored as fractions). Targets and absolute CI widths on such a metric are given
    /// in percent too ([`crate::target`]). The offered load is a ratio shown as is.
    pub fn shown_in_percent(self) -> bool {
        matches!(
            self,
            Metric::WaitedShare
                | Metric::DeadlineMissRate
                | Metric::CloudJobShare
                | Metric::CampusUtilization
                | Metric::MonthlyUtilization
                | Metric::RenegedShare
                | Metric::BalkedShare
                | Metric::CloudGpuHourShare
                | Metric::GroupRenegedShare
                | Metric::GroupBalkedShare
        )
    }

    /// Index in [`Metric::ALL`].
    pub fn index(self) -> usize {
        Metric::ALL.iter().position(|&m| m == self).expect("listed")
    }

    /// Looks a metric up by its name.
    pub fn from_name(name: &str) -> Option<Metric> {
        Metric::ALL.iter().copied().find(|m| m.name() == name)
    }
}

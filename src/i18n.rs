//! Every word a chart or the report shows, in English and Simplified Chinese.
//!
//! All user-visible text lives in this one table so that the bundled Chinese font subset
//! (`assets/fonts/NotoSansSC-burstsim-subset.otf`) can be regenerated from this file alone:
//! `scripts/make-font-subset.sh` takes every non-ASCII character written here. A unit
//! test fails when a Chinese character here is missing from the bundled subset. Keep
//! Chinese out of the other files of `src/plot/` and `src/report.rs`.
//!
//! Templates use `{}` placeholders, filled in order by [`fill`].

/// The language of the charts and the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Lang {
    /// English (the default).
    #[default]
    En,
    /// Simplified Chinese.
    Zh,
}

impl Lang {
    /// Parses `en` or `zh` (also `zh-cn`, `cn`, `chinese`, `english`).
    pub fn parse(text: &str) -> Option<Lang> {
        match text.trim().to_ascii_lowercase().as_str() {
            "en" | "english" | "en-us" | "en-gb" => Some(Lang::En),
            "zh" | "cn" | "zh-cn" | "zh-hans" | "chinese" => Some(Lang::Zh),
            _ => None,
        }
    }

    /// The folder of the charts inside an output folder: `charts` for English,
    /// `charts-zh` for Chinese, so the two languages sit side by side.
    pub fn charts_folder(self) -> &'static str {
        match self {
            Lang::En => "charts",
            Lang::Zh => "charts-zh",
        }
    }

    /// The report's file name with extension `ext` (`html`, `md`): `report.html` for
    /// English, `report.zh.html` for Chinese.
    pub fn report_file(self, ext: &str) -> String {
        match self {
            Lang::En => format!("report.{ext}"),
            Lang::Zh => format!("report.zh.{ext}"),
        }
    }

    /// The `lang` attribute of the HTML report.
    pub fn html_code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Zh => "zh-CN",
        }
    }
}

macro_rules! labels {
    ($($key:ident => $en:literal, $zh:literal;)*) => {
        /// A piece of text shown to the user.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(missing_docs)]
        pub enum L { $($key,)* }

        impl L {
            /// Every label, for the font-coverage test.
            pub const ALL: &'static [L] = &[$(L::$key,)*];

            /// The text in a language.
            pub fn get(self, lang: Lang) -> &'static str {
                match (self, lang) {
                    $((L::$key, Lang::En) => $en, (L::$key, Lang::Zh) => $zh,)*
                }
            }
        }
    };
}

labels! {
    // Chart titles.
    CostVsWaitTitle => "Cost vs 95th-percentile wait", "总成本与第95百分位等待时间";
    WaitCdfTitle => "How long jobs wait", "作业等待时间分布";
    CostBreakdownTitle => "Cost by component", "成本构成";
    ClassWaitCdfTitle => "How long jobs wait, by job class", "各类作业的等待时间分布";
    MainRuns => "counted as main runs", "计为主训练";
    NoteClassCdf => "Each panel: share of the class's jobs (%) that waited at most the time on the log axis; all replications pooled.",
        "每个子图：该类作业中等待不超过横轴时间（对数刻度）的比例（%）；汇总全部重复。";
    CampusTitle => "Campus queue and busy GPUs over time", "校内集群排队与在用GPU随时间变化";
    MonthlyTitle => "Monthly GPU use", "每月GPU使用情况";
    SweepTitle => "{} against {}", "{}随{}的变化";
    HeatmapTitle => "{}: policy '{}'", "{}：策略“{}”";
    // Axes.
    TotalCostAxis => "Total cost (CNY)", "总成本（元）";
    WaitP95Axis => "Mean of yearly p95 wait (h)", "各年第95百分位等待时间的平均（小时）";
    WaitAxis => "Wait before the job starts (log scale)", "作业开始前的等待时间（对数刻度）";
    ShareAxis => "Jobs that waited at most this long (%)", "等待不超过该时间的作业比例（%）";
    CostAxis => "Mean cost (CNY)", "平均成本（元）";
    PolicyAxis => "Policy", "策略";
    QueueAxis => "GPUs requested by queued jobs", "排队作业申请的GPU数";
    BusyAxis => "Busy campus GPUs (all groups)", "校内在用GPU数（全部课题组）";
    DateAxis => "Date", "日期";
    MonthAxis => "Month", "月份";
    CampusUtilAxis => "Campus GPUs busy, all groups (%)", "校内GPU利用率，全部课题组（%）";
    CloudGpusAxis => "Cloud GPUs in use by the group", "本组在用云端GPU数";
    // Metrics (headline metrics of the sweep charts and the tables).
    MetricTotalCost => "Total cost (CNY)", "总成本（元）";
    MetricWaitMean => "Mean wait (h)", "平均等待时间（小时）";
    MetricWaitP95 => "Mean of yearly p95 wait (h)", "各年第95百分位等待时间的平均（小时）";
    MetricDeadlineMiss => "Deadline misses (%)", "错过截止时间的作业比例（%）";
    MetricCloudShare => "Jobs run in the cloud (%)", "在云端运行的作业比例（%）";
    MetricCloudGpuShare => "Cloud share of GPU-hours (%)", "云端GPU时占比（%）";
    MetricGroupReneged => "Group jobs reneged (%)", "本组放弃排队的作业比例（%）";
    MetricGroupBalked => "Group jobs balked (%)", "本组因队列过长未提交的作业比例（%）";
    // Cost components.
    CompCampus => "Campus GPU time", "校内机时费";
    CompHourly => "Cloud, hourly", "云端按小时计费";
    CompMonthly => "Cloud, monthly rent", "云端包月租金";
    CompStorage => "Cloud storage", "云端存储";
    CompTransfer => "Data upload time", "数据上传时间";
    // Legends and notes.
    Legend => "Legend", "图例";
    Pareto => "Pareto frontier", "帕累托前沿";
    Ci95 => "95% CI", "95%置信区间";
    Replication => "one replication", "单次重复";
    Recommended => "recommended", "推荐";
    OwnSeason => "own group's season", "本组时段";
    OtherSeason => "other groups' busy season", "其他课题组繁忙时段";
    QuietSeason => "other groups' quiet season", "其他课题组空闲时段";
    NoteRun => "Mean of {} simulated years; error bars: 95% confidence intervals of the mean.",
        "{}个模拟年份的平均值；误差线：平均值的95%置信区间。";
    NoteCostYears => "Mean of {} simulated years; error bar: 95% CI of the mean. Thin line under each bar: a single year's total bill, median (dot) to 90th-percentile year.",
        "{}个模拟年份的平均值；误差线：平均值的95%置信区间。每个条形下方的线：单个年份的总成本，从中位年份（圆点）到第90百分位年份。";
    P90Label => "p90 {}", "p90 {}";
    YearP50P90 => "a single year: median to 90th percentile", "单个年份：中位数至第90百分位";
    NoteCdf => "All replications pooled; jobs submitted after the warm-up.",
        "汇总全部重复；仅统计预热期后提交的作业。";
    NoteTimeseries => "Daily means over {} replications. Shaded: seasons (name × arrival multiplier).",
        "{}次重复的每日平均值。阴影：季节时段（名称 × 到达率倍数）。";
    NoteMonthly => "Monthly means of the daily series; campus utilisation over {} GPUs.",
        "按月平均的每日数据；校内利用率按{}块GPU计算。";
    NoteSweep => "Mean ± 95% CI at each point; {} replications per point.",
        "每个取值点的平均值 ± 95%置信区间；每点{}次重复。";
    NoteSweepAt => "Mean and {} CI at each point (each bound at the confidence the recommendation uses: 95% Bonferroni-corrected over its candidates); {} replications per point.",
        "每个取值点的平均值与{}置信区间（即推荐规则所用的置信度：对候选方案做Bonferroni校正后的95%）；每点{}次重复。";
    CiAt => "{} CI", "{}置信区间";
    NoteHeatmap => "Cell: mean (± 95% CI half-width). Same colour scale for every policy.",
        "单元格：平均值（± 95%置信区间半宽）。所有策略使用同一色标。";
    MonthFormat => "{}/{}", "{}年{}月";
    UnitMinute => "min", "分钟";
    UnitHour => "h", "小时";
    UnitDay => "d", "天";
    UnitWeek => "wk", "周";
    Capacity => "campus GPUs", "校内GPU总数";
    Maintenance => "campus maintenance", "校内集群维护";
    // Report.
    ReportRunTitle => "burstsim results: {}", "burstsim 模拟结果：{}";
    ReportSweepTitle => "burstsim sweep: {}", "burstsim 参数扫描：{}";
    Generated => "Generated by burstsim {} from the files in this folder.", "由 burstsim {} 根据本文件夹中的数据生成。";
    Seed => "Seed", "随机种子";
    Replications => "Replications per policy", "每个策略的重复次数";
    Version => "burstsim version", "burstsim 版本";
    ScenarioName => "Scenario", "场景";
    Description => "Description", "说明";
    SummaryHeading => "Summary (mean ± 95% CI half-width)", "结果汇总（平均值 ± 95%置信区间半宽）";
    CiLegend => "± in every table of this report: the 95% confidence interval of the mean over the {} simulated years (how precisely the average year is known), not the range of a single year. To budget a year, see \"{}\".",
        "下列各表中的 ±：{}个模拟年份平均值的95%置信区间，不是单个年份的取值区间。一年的预算见“{}”。";
    BudgetHeading => "Budget a year (the spread of single simulated years)", "一年的预算（单个模拟年份的分布）";
    BudgetNote => "A single year's total bill over the {} simulated years of this run: the median year, the 90th-percentile year (nine years in ten cost at most this) and the years whose bill exceeded the mean plus 20% (the usual budget buffer). This is the spread of single years, what a year's budget must cover; it is not the 95% CI of the mean, which the ± beside the mean gives and which narrows as years are added.",
        "本次运行{}个模拟年份中单个年份的总成本：中位年份、第90百分位年份（90%的年份不超过该值），以及总成本超过平均值加20%（即预留20%的预算）的年份。这是单个年份的分布，一年的预算应以此为准；这不是平均值的95%置信区间（表中的 ±，年份多时变小）。";
    BudgetMean => "Mean ± 95% CI of the mean", "平均值 ± 平均值的95%置信区间";
    BudgetP50 => "Median year", "中位年份";
    BudgetP90 => "90th-percentile year", "第90百分位年份";
    BudgetAbove => "Years above mean + 20%", "超过平均值 + 20% 的年份";
    YearsOf => "{} of {}", "{}年（共{}年）";
    PairedHeading => "Paired differences against '{}' (same simulated years)", "与“{}”的配对差异（相同的模拟年份）";
    ChartsHeading => "Charts", "图表";
    ParamsHeading => "Key parameters of the scenario", "场景的主要参数";
    WarningsHeading => "Warnings", "警告";
    ModelHeading => "Campus model and assumptions", "校园集群模型与假设";
    RecommendationHeading => "Recommendation", "推荐方案";
    NoRecommendation => "No targets were given (run the sweep with --target to get a recommendation).",
        "未给出目标（运行扫描时加 --target 可得到推荐方案）。";
    SweepPointsHeading => "Results at each point (mean ± 95% CI half-width)", "各取值点的结果（平均值 ± 95%置信区间半宽）";
    SweptParams => "Swept parameters", "扫描的参数";
    Points => "Points", "取值点数";
    Point => "Point", "取值点";
    Policy => "Policy", "策略";
    Metric => "Metric", "指标";
    Value => "Value", "取值";
    Key => "Key", "键";
    SectionOf => "Section {}", "配置段 {}";
    Setting => "Setting", "设置";
    Difference => "Difference", "差异";
    Unknown => "unknown", "未知";
    RowsTrimmed => "… {} more rows in sweep.csv", "…… 另有{}行见 sweep.csv";
    NoScenario => "The scenario file was not found in this folder, so its parameters are not shown.",
        "本文件夹中没有场景文件，因此不显示其参数。";
    Chosen => "Choose policy '{}' at {}.", "选择策略“{}”，参数取 {}。";
    Colon => ": ", "：";
    RequestsInWords => "request median {} h, p90 {} h, longest {} h; mean run time {} h",
        "申请时长中位数 {} 小时，90%分位 {} 小时，最长 {} 小时；平均运行时长 {} 小时";
    CnyUnit => " (CNY)", "（元）";
    // Results by job class (report).
    ClassHeading => "Results by job class (mean ± 95% CI half-width)", "按作业类型的结果（平均值 ± 95%置信区间半宽）";
    ClassNote => "Jobs per measured window; waits count every queueing stretch. \"{}\" is every job of the group together.",
        "作业数为统计期内的作业数；等待时间包括每一段排队。“{}”一行汇总本组全部作业。";
    Class => "Class", "作业类型";
    AllClasses => "(all classes)", "全部作业";
    Jobs => "Jobs", "作业数";
    WaitOver => "Wait > {} h (%)", "等待超过{}小时（%）";
    // What the figures mean (report, under the summary).
    P95Note => "p95 wait: the mean over simulated years of each year's 95th-percentile wait; cloud share: of the jobs completed (by jobs) and of the group's GPU-hours.",
        "p95等待时间：各模拟年份第95百分位等待时间的平均值；云端占比：按完成的作业数计，以及按本组GPU时计。";
    DeadlineNote => "Deadline misses cover only the classes with a deadline: {}. Jobs that reneged, balked or never finished count as missed.",
        "错过截止时间的比例只统计有截止时间的作业类型：{}。放弃排队、未提交或未完成的作业都算错过。";
    NoDeadlineNote => "No job class of the group has a deadline, so deadline misses are undefined (–).",
        "本组没有带截止时间的作业类型，因此错过截止时间的比例无定义（–）。";
    // Where the group's jobs ended (report).
    OutcomesHeading => "Where the group's jobs ended (jobs per measured window, mean ± 95% CI half-width)",
        "本组作业的去向（统计期内的作业数，平均值 ± 95%置信区间半宽）";
    OutcomesNote => "Every submitted job is in exactly one of the five columns after \"Submitted\". A reneged job's wait until it gave up counts among the waits (a censored wait); balked jobs never queued. Campus-wide shares of every account are reneged_share and balked_share in summary.csv.",
        "每个提交的作业恰好属于“提交”之后五列中的一列。放弃排队的作业，其放弃前的等待时间计入等待时间（删失的等待时间）；因队列过长未提交的作业没有排队。全部账户的全校比例见 summary.csv 中的 reneged_share 和 balked_share。";
    Submitted => "Submitted", "提交";
    CompletedCampus => "Completed on campus", "在校内完成";
    CompletedCloud => "Completed in the cloud", "在云端完成";
    Reneged => "Reneged", "放弃排队";
    Balked => "Balked", "因队列过长未提交";
    Unfinished => "Unfinished", "未完成";
    // Waits by season (report).
    SeasonHeading => "Waits by season (by submission date; mean ± 95% CI half-width)",
        "按时期的等待时间（按提交日期；平均值 ± 95%置信区间半宽）";
    SeasonNote => "A job counts in every season its submission date falls in; \"{}\" holds the jobs submitted in no season, \"{}\" every job. Waits include reneged jobs up to when they gave up. All numbers are in seasons.csv.",
        "作业计入其提交日期所在的每个时期；“{}”为不在任何时期内提交的作业，“{}”为全部作业。等待时间包括放弃排队的作业放弃前的等待。全部数据见 seasons.csv。";
    SeasonClassTitle => "Jobs of class {}", "作业类型：{}";
    Season => "Season", "时期";
    OutsideSeasons => "outside seasons", "其他时间";
    AllSeasons => "whole window", "全部时间";
    MeanWaitOf => "{}: mean wait (h)", "{}：平均等待（小时）";
    P95WaitOf => "{}: p95 wait (h)", "{}：p95等待（小时）";
    // Methods, assumptions and limitations (report).
    MethodsHeading => "Methods, assumptions and limitations", "方法、假设与局限";
    MethodsModel => "Each replication simulates one year from the start date (after a warm-up before it) of the campus queue — other groups' jobs arriving as a Poisson process shaped by the academic calendar, and the group's own jobs — next to the cloud offers; every policy runs on the same simulated years (common random numbers). Costs are for that year; monthly rent is pro rata by day; waits count every stretch a job spends queued.",
        "每次重复模拟从起始日期起的一年（预热期在起始日期之前）：校内队列中其他课题组的作业按受校历调节的泊松过程到达，本组作业同时提交，另有云端租卡可选；所有策略在相同的模拟年份上比较（公共随机数）。成本按该年计算，包月租金按日折算，等待时间包括作业每一段排队时间。";
    MethodsCi => "Every ± figure is a 95% Student-t confidence interval over independent simulated years. It covers simulation noise given the model — not errors in the inputs (prices, loads, calendar), nor what the model leaves out. Measured on the default scenario (Slurm node campus), the intervals contain the true mean 87–96% of the time at 10 replications and 90–100% at 20 (docs/STATISTICS.md); on a simpler pool campus the 95th-percentile wait of policies that leave the queue at a threshold covered only 56–82.5%: judge tail requirements by the share of years that miss them.",
        "所有 ± 数值均为对独立模拟年份的 95% Student t 置信区间，只反映在模型假设成立前提下的模拟波动，不反映输入（价格、负载、校历）的误差，也不反映模型未包含的因素。在默认场景（Slurm 节点模型）上实测：10 次重复时区间有 87–96% 的概率包含真值，20 次时为 90–100%（见 docs/STATISTICS.md）；在更简单的资源池模型上，按阈值离开队列的策略，其第95百分位等待时间的区间只有 56–82.5%。对尾部要求，请看未达标年份的比例。";
    MethodsBias => "No known direction of bias: replaying the KTH-SP2 log as a machine that never stops waits less than it recorded (0.44× the mean; 0.62× with its outages and scheduling cycle), under KTH's documented time-of-day limits it matches September–January (1.03×) and waits longer in February–June (1.32×), and a scenario fitted on one part of the log predicts the next at 1.7× (docs/LIMITS.md). Check against your own cluster (validate --trace, fit, calibrate) before quoting waits.",
        "偏差方向未知：KTH-SP2 日志看作从不停机的集群重放时，等待低于记录（平均 0.44 倍；加上停机与周期调度后 0.62 倍）；按 KTH 公布的分时段规则重放，9 月至 1 月与记录相差不大（1.03 倍），2 月至 6 月偏高（1.32 倍）；用日志前一段得出的场景预测后一段，平均等待为记录的 1.7 倍（见 docs/LIMITS.md）。给出等待时间前，请先用本校集群的日志或实测等待对比（burstsim validate --trace、burstsim fit、burstsim calibrate）。";
    // Sweep axis titles (src/plot/sweep_charts.rs, `axis_label`), the target line and
    // the policy map.
    AxisThreshold => "Overflow threshold (h)", "溢出阈值（小时）";
    AxisThresholdOf => "Overflow threshold of {} (h)", "{}的溢出阈值（小时）";
    AxisBudget => "Budget cap of {} (CNY)", "{}的预算上限（元）";
    AxisMonthlyGpus => "Monthly GPUs rented ({})", "包月租用的GPU数（{}）";
    AxisRentMonths => "Months {} is rented", "{}的包月租用月份";
    AxisHourlyPrice => "Hourly price of {} (CNY per GPU-hour)", "{}的按小时价格（元/GPU小时）";
    AxisMonthlyPrice => "Monthly price of {} (CNY per GPU-month)", "{}的包月价格（元/GPU月）";
    AxisCapacity => "Cloud capacity of {} (GPUs)", "{}的云端容量（GPU数）";
    AxisSeason => "Other groups' load in {} (× base)", "{}期间其他课题组的负载（基准的倍数）";
    AxisOwnSeason => "Own load in {} (× base)", "{}期间本组的负载（基准的倍数）";
    AxisOfferedLoad => "Other groups' load (share of the cluster)", "其他课题组的负载（占集群的比例）";
    AxisJobsPerWeek => "{} jobs per week", "{}每周作业数";
    AxisCampusGpus => "Campus GPUs", "校内GPU数";
    AxisGroupLimit => "Group GPU limit", "课题组GPU上限";
    AxisCampusPrice => "Campus price (CNY per GPU-hour)", "校内机时费（元/GPU小时）";
    UnitHourParen => " (h)", "（小时）";
    UnitCnyParen => " (CNY)", "（元）";
    UnitDayParen => " (d)", "（天）";
    UnitMinuteParen => " (min)", "（分钟）";
    UnitTimesParen => " (×)", "（倍）";
    LogScale => "{} (log scale)", "{}（对数刻度）";
    TargetLine => "target {}", "目标 {}";
    BestAtPoint => "best at this condition", "该条件下的最优决策";
    PolicyMapTitle => "Best decision against {}", "不同条件下的最优决策：{}";
    PolicyMapGridTitle => "Best decision at each scenario point", "各情景下的最优决策";
    DecisionAxis => "Best decision", "最优决策";
    NoDecision => "none meets the targets", "无方案达标";
    RobustMinimax => "robust: least worst regret", "稳健：最坏后悔值最小";
    RobustWorstCase => "robust: meets the targets everywhere", "稳健：各情景均达标";
    LeastWeightedCost => "least weighted mean cost", "加权平均成本最低";
    ScenarioPointCol => "Scenario point", "情景点";
    ChoiceCol => "Choice", "结论";
    DecisionCol => "Decision", "决策";
    AllPoints => "all scenario points", "全部情景点";
    FullAnalysis => "The full analysis (recommendation.txt, in English)", "完整分析（recommendation.txt，英文）";
    NotePolicyMap => "Dot: the cheapest decision meeting the targets there; mean ± 95% CI of the cost (above) and of the {} (below).",
        "圆点：该处达标决策中成本最低者；上方为成本、下方为{}的平均值 ± 95%置信区间。";
    // The sensitivity band (src/sensitivity, the tornado chart, the report's section).
    SensBackgroundLoad => "Background load", "其他课题组的负载";
    SensPeakSeason => "Peak-season multiplier", "高峰季节的负载倍数";
    SensGroupShares => "The group's fair-share shares", "本组的公平份额";
    SensPatience => "Patience (every account)", "用户耐心（全部账户）";
    TornadoTitle => "Sensitivity: the answer across uncertain inputs", "敏感性：不确定输入下的结论";
    TornadoCostAxis => "Cost difference vs {} (CNY)", "与{}的成本差（元）";
    TornadoWaitAxis => "p95-wait difference vs {} (h)", "与{}的第95百分位等待时间差（小时）";
    NoteTornado => "Bar: paired difference from each input's low value (light) through the scenario's value (dot) to its high value (dark); whiskers: 95% CI; {} replications per level, same seeds.",
        "条形：各输入从低值（浅色）经场景设定值（圆点）到高值（深色）时的配对差；横线：95%置信区间；每个水平{}次重复，相同随机种子。";
    SensHeading => "Sensitivity band", "敏感性区间";
    SensIntro => "Paired differences against '{}' at the low, central and high value of each uncertain input, one input at a time, {} replications per level on the same simulated years. Recommended: the cheapest policy whose 95% CI meets {} (Bonferroni over the policies).",
        "每次只改变一个不确定输入，取其低值、中间值与高值，给出各策略与“{}”的配对差；每个水平{}次重复，使用相同的模拟年份。推荐策略：95%置信区间满足目标（{}）的策略中成本最低者（按策略数做 Bonferroni 校正）。";
    SensNoFlip => "The recommendation does not flip: '{}' at every level of every input.", "推荐结论不变：每个输入的各个水平下均为“{}”。";
    SensFlip => "The recommendation flips (at the scenario's values: '{}'): {}.", "推荐结论会改变（场景设定值下为“{}”）：{}。";
    SensFlipItem => "{}: '{}' at low, '{}' at high", "{}：低值时为“{}”，高值时为“{}”";
    SensRobust => "Robust across the band: '{}' meets the targets at every level.", "在整个区间内稳健：“{}”在所有水平下都满足目标。";
    SensNoRobust => "No policy meets the targets at every level of the band.", "没有策略在区间的所有水平下都满足目标。";
    SensNoInputs => "This scenario has no uncertain input to vary.", "该场景没有可变化的不确定输入。";
    SensNone => "none", "无";
    SensInput => "Input", "输入";
    SensLevel => "Level", "水平";
    SensLow => "low", "低";
    SensCentral => "central", "中";
    SensHigh => "high", "高";
    SensRecommended => "Recommended", "推荐策略";
    SensDeltaCost => "Δ cost (CNY)", "成本差（元）";
    SensDeltaWaitP95 => "Δ p95 wait (h)", "第95百分位等待时间差（小时）";
    // The decision `run` prints first (src/usecase/decision.rs); the full tables follow
    // only with --verbose.
    DecHead => "{}: the decision, from {} simulated years per policy (every policy on the same years)",
        "{}：结论，根据每个策略 {} 个模拟年份（各策略使用相同的年份）";
    DecRecommended => "Recommended: {}", "推荐策略：{}";
    DecRule => "  the cheapest policy whose 95% CI meets {} ({}; Bonferroni over {} policies)",
        "  即 95% 置信区间满足 {} 的策略中成本最低者（{}；按 {} 个策略做 Bonferroni 校正）";
    DecNoneMeets => "Recommended: none; the closest: {}", "推荐策略：无；与目标相差最小的是 {}";
    DecNoneRule => "  no policy's 95% CI meets {} ({}; Bonferroni over {} policies)",
        "  没有策略的 95% 置信区间满足 {}（{}；按 {} 个策略做 Bonferroni 校正）";
    DecSourceCli => "--target", "由 --target 给出";
    DecSourceScenario => "the scenario's [sensitivity] targets", "场景的 [sensitivity] targets";
    DecSourceDefault => "the default target; set yours with --target", "默认目标，可用 --target 指定";
    DecCostYear => "Its cost: ¥{} a year (95% CI of the mean: ± ¥{})", "其成本：每年 ¥{}（平均值的 95% 置信区间：± ¥{}）";
    DecCostWindow => "Its cost: ¥{} per {} days (95% CI of the mean: ± ¥{})", "其成本：¥{}，统计期 {} 天（平均值的 95% 置信区间：± ¥{}）";
    DecAgainst => "Against the baseline {} (paired over the same simulated years):", "与基准策略{}的配对差（相同的模拟年份）：";
    DecIsBaseline => "It is the baseline; the next policy that meets the targets, {}, against it (paired over the same simulated years):",
        "该策略即为基准策略；其次满足目标的策略{}与该策略的配对差（相同的模拟年份）：";
    DecIsBaselineAlone => "It is the baseline; no other policy meets the targets.", "该策略即为基准策略；没有其他策略满足目标。";
    DecPairedLine => "  cost {} (95% CI {} to {}), p95 wait {} h (95% CI {} to {})",
        "  成本 {}（95% 置信区间 {} 至 {}），第95百分位等待时间 {} 小时（95% 置信区间 {} 至 {}）";
    DecWaitsHead => "Waits under {} (mean ± 95% CI; p95: the mean of each year's 95th percentile):",
        "{}下的等待时间（平均值 ± 95% 置信区间；第95百分位为各年第95百分位的平均）：";
    DecClassWaits => "  main jobs, {}: mean {} h, p95 {} h", "  主要作业（{}）：平均 {} 小时，第95百分位 {} 小时";
    DecGroupWaits => "  all of the group's jobs: mean {} h, p95 {} h", "  本组全部作业：平均 {} 小时，第95百分位 {} 小时";
    DecSure => "How sure: {} simulated years per policy; {}", "可信程度：每个策略 {} 个模拟年份；{}";
    DecStopSettled => "  (sequential stopping, at most {} years: it stopped when more years could not change the decision)",
        "  （增加年份，最多 {} 个：更多年份已不能改变结论时停止）";
    DecStopWidths => "  (sequential stopping, at most {} years: it stopped when every watched 95% CI met its target)",
        "  （增加年份，最多 {} 个：所有目标置信区间都达到要求时停止）";
    DecStopCap => "  (sequential stopping reached its cap of {} years before the decision was settled: read the verdict with its CIs)",
        "  （增加年份，已到上限 {} 个，结论仍未确定：请看置信区间）";
    DecSettledCheapest => "settled: it is the cheapest policy and its CI meets the targets",
        "结论已确定：该策略成本最低，其置信区间也满足目标";
    DecSettled => "settled: every cheaper policy misses the targets even on its mean",
        "结论已确定：每个更便宜的策略的平均值都不满足目标";
    DecUnsettled => "not settled: {} is cheaper and meets the targets on its mean but not with 95% confidence; more replications (--replications) may recommend it",
        "结论未确定：{}更便宜，其平均值满足目标，只是未达到 95% 置信度；增加重复次数（--replications）后可能推荐该策略";
    DecNoneClose => "not settled: {} meets the targets on its mean but not with 95% confidence; more replications (--replications) may qualify it",
        "结论未确定：{}的平均值满足目标，只是未达到 95% 置信度；增加重复次数（--replications）后该策略可能达标";
    DecNoneFar => "no policy meets the targets even on its mean: loosen them (--target) or add a policy",
        "没有策略的平均值满足目标：请放宽目标（--target）或增加策略";
    DecBandNoFlip => "Sensitivity band ({} inputs at low and high, {} years per level): the recommendation does not flip ({} at every level)",
        "敏感性区间（{} 个输入取低值与高值，每个水平 {} 个年份）：推荐结论不变（各水平下均为{}）";
    DecBandFlip => "Sensitivity band ({} inputs at low and high, {} years per level): the recommendation flips",
        "敏感性区间（{} 个输入取低值与高值，每个水平 {} 个年份）：推荐结论会改变";
    DecBandFlips => "  {}; robust across the band: {}", "  {}；在整个区间内稳健：{}";
    DecFlipAt => "{} {}: {}", "{}取{}值时为{}";
    DecBandCentral => "; at the scenario's values, with {} years per level, it recommends {}", "；在场景设定值下、每个水平 {} 个年份时推荐{}";
    DecBandOff => "Sensitivity band: not computed (--no-sensitivity, [sensitivity] enabled = false, or the run was interrupted)",
        "敏感性区间：未计算（--no-sensitivity、[sensitivity] enabled = false，或运行未完成）";
    DecMore => "Full tables (summary, by class, risk, band): --verbose, report.html and the CSV files",
        "完整表格（汇总、按作业类型、未达标年份、敏感性区间）：加 --verbose，或见 report.html 与 CSV 文件";
    // Warnings (src/output/warnings.rs), as `run.toml` keeps them in English: the Chinese
    // report finds the template a line was written from and shows its Chinese
    // (`output::warnings::in_lang`). Each English template is exactly the warning's text.
    WarnFewReplications => "only {} replication(s): confidence intervals need at least 5 to mean much; use --replications 20 or more",
        "只有 {} 次重复：置信区间至少需要 5 次重复才有意义；请用 --replications 20 或更多";
    WarnUnstableWindows => "policy '{}': the campus is unstable in {} of {} replications although the mean offered load is only {}: the recurring reservations and time-of-day limits (campus.reservations, campus.time_limits), not the load, hold the queue (jobs start only where their walltime requests fit between the windows, and GPUs idle before each window); shorten or move the windows, ask for shorter walltimes, or read the waits as 'unbounded'",
        "策略“{}”：有 {} 次重复（共 {} 次）校内集群不稳定，尽管平均负载只有 {}：压住队列的是周期性预留和分时段限制（campus.reservations、campus.time_limits），而不是负载（作业只能在其申请时长放得进两个时间窗口之间时开始，每个窗口前GPU会空闲）；请缩短或移动时间窗口、申请更短的运行时限，或把等待时间看作“无上界”";
    WarnUnstable => "policy '{}': the campus is unstable in {} of {} replications (mean offered load {}; at ≥ 1 or with a backlog still growing at the horizon the queue has no steady state, so its averages depend on the horizon); lower the background load or season multipliers, add GPUs, or read the waits as 'unbounded'",
        "策略“{}”：有 {} 次重复（共 {} 次）校内集群不稳定（平均负载 {}；负载 ≥ 1 或统计期末积压仍在增长时，队列没有稳态，各平均值取决于统计期的长短）；请降低其他课题组的负载或季节倍数、增加GPU，或把等待时间看作“无上界”";
    WarnTargetNotReached => "stopped at the maximum of {} replications before every watched CI met its --ci-target: {}; raise simulation.max_replications or widen the target",
        "已达到最多 {} 次重复，仍有置信区间未达到 --ci-target：{}；请增大 simulation.max_replications 或放宽目标";
    WarnInterrupted => "interrupted: only {} of {} replications finished; the files cover those ({} independent replications are still valid, with wider intervals); run again for all",
        "运行被中断：只完成了 {} 次重复（计划 {} 次）；文件只包含这些重复（这 {} 次独立重复仍然有效，只是区间更宽）；重新运行可得到全部结果";
    WarnInterruptedSequential => "interrupted after {} replications, before sequential stopping reached its CI targets (it would have stopped by itself, at {} at most); the files cover those {} (still valid, with wider intervals); run again to finish",
        "完成 {} 次重复后运行被中断，此时序贯停止尚未达到其置信区间目标（它本会自行停止，最多 {} 次）；文件只包含这 {} 次重复（仍然有效，只是区间更宽）；重新运行以完成";
    WarnNoGroupJobs => "no job of the group arrived after the warm-up in any replication: the group's waits and costs are empty; the campus figures (offered load, utilisation) still hold. Add [[workload.classes]] (or mark the group's jobs in a trace with background.trace.group_user or group_account) to compare policies",
        "所有重复中预热期后都没有本组作业到达：本组的等待时间与成本为空；校内集群的数字（负载、利用率）仍然有效。请添加 [[workload.classes]]（或在日志中用 background.trace.group_user 或 group_account 标出本组作业）后再比较策略";
    WarnFewJobs => "policy '{}': only {} group jobs per replication on average; p95 and p99 waits rest on very few jobs",
        "策略“{}”：每次重复平均只有 {} 个本组作业；p95 与 p99 等待时间所依据的作业很少";
    WarnSharesFarFromUse => "account '{}' holds {}% of the fair-share shares but is expected to bring {}% of the load (more than {}× apart): fair-share will favour or hold back its jobs all year; if that is not what the campus does, set its fairshare near its use (run.toml lists every account's shares and expected use)",
        "账户“{}”占公平份额的 {}%，预期负载却占 {}%（相差超过 {} 倍）：公平份额机制全年都会优待或压后其作业；若校内集群实际并非如此，请把其 fairshare 设为接近其用量（run.toml 列出了每个账户的份额与预期用量）";
    WarnSaturatedSeason => "{} brings the campus to an offered load of {} (≥ {}) and no account's users give up (no patience_hours): the queue grows for as long as the season lasts, so waits depend on the season's length more than on the policy; give the accounts patience (docs/SCENARIOS.md) or check the season's multiplier against what the campus reports",
        "{} 期间校内集群负载达到 {}（≥ {}），且没有账户的用户会放弃排队（未设 patience_hours）：整个时期队列都在增长，等待时间更多取决于该时期的长短而不是策略；请为账户设定耐心时长（见 docs/SCENARIOS.md），或按校内集群的实际数据核对该时期的倍数";
    WarnLimitAboveCampus => "account '{}': gpu_limit = {} is more than the campus's {} GPUs, so it never binds; a limit sized for another campus? Set it to what this campus allows (Slurm's GrpTRES=gres/gpu)",
        "账户“{}”：gpu_limit = {} 超过校内集群的 {} 块GPU，因此从不起作用；是按别的集群设定的上限吗？请设为本校集群允许的值（Slurm 的 GrpTRES=gres/gpu）";
    WarnBalkingSized => "account '{}': balk_gpu_hours_ahead = {} is {} hours of this campus's {} GPUs (more than {} h, a week of the whole campus), so it deters almost nobody; sized for a larger campus? The default's 18432 is two days of 384 GPUs: scale it by the GPUs (2 days of {} GPUs is {})",
        "账户“{}”：balk_gpu_hours_ahead = {} 相当于本校集群 {} 小时的全部 {} 块GPU（超过 {} 小时，即整个集群一周），几乎不会让人放弃提交；是按更大的集群设定的吗？默认值 18432 是 384 块GPU的两天：请按GPU数缩放（{} 块GPU的两天为 {}）";
    WarnStaleCalibration => "the '# Calibrated by `burstsim calibrate`' header on top of the scenario no longer describes it: its values changed since the calibration (fingerprint {} in the header, {} now), so the fitted values and observations it lists may not hold; run `burstsim calibrate` again, or delete the header",
        "场景文件顶部的“# Calibrated by `burstsim calibrate`”注释已与场景不符：校准后其取值有改动（注释中的指纹为 {}，现在为 {}），其中列出的拟合值与观测可能不再成立；请重新运行 `burstsim calibrate`，或删除该注释";
    // Cost labels when the totals are for one calendar year (see `L::per_window`).
    TotalCostAxisYear => "Total cost (CNY/year)", "年度总成本（元/年）";
    CostAxisYear => "Mean cost (CNY/year)", "年均成本（元/年）";
    MetricTotalCostYear => "Total cost (CNY/year)", "年度总成本（元/年）";
    CnyUnitYear => " (CNY/year)", "（元/年）";
}

impl L {
    /// The annual form of a cost label when `annual` (the measured window is one calendar
    /// year), else the label itself.
    pub fn per_window(self, annual: bool) -> L {
        match (self, annual) {
            (L::TotalCostAxis, true) => L::TotalCostAxisYear,
            (L::CostAxis, true) => L::CostAxisYear,
            (L::MetricTotalCost, true) => L::MetricTotalCostYear,
            (L::CnyUnit, true) => L::CnyUnitYear,
            (l, _) => l,
        }
    }
}

/// Fills the `{}` placeholders of a template in order.
pub fn fill(template: &str, args: &[&str]) -> String {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    let mut it = args.iter();
    while let Some(i) = rest.find("{}") {
        out.push_str(&rest[..i]);
        out.push_str(it.next().copied().unwrap_or(""));
        rest = &rest[i + 2..];
    }
    out.push_str(rest);
    out
}

/// The arguments `text` fills into `template` (the inverse of [`fill`]): `None` when the
/// text was not written from the template. Each placeholder takes the shortest non-empty
/// text before the literal that follows it; a template with two placeholders side by side
/// matches nothing.
pub fn unfill<'a>(template: &str, text: &'a str) -> Option<Vec<&'a str>> {
    let lits: Vec<&str> = template.split("{}").collect();
    let mut rest = text.strip_prefix(lits[0])?;
    let mut args = Vec::with_capacity(lits.len() - 1);
    for (i, lit) in lits.iter().enumerate().skip(1) {
        let end = if i == lits.len() - 1 {
            rest.strip_suffix(lit).map(str::len)?
        } else if lit.is_empty() {
            return None;
        } else {
            // The first occurrence after at least one character.
            let from = rest.chars().next()?.len_utf8();
            from + rest[from..].find(lit)?
        };
        if end == 0 {
            return None;
        }
        args.push(&rest[..end]);
        rest = &rest[end + lit.len()..];
    }
    rest.is_empty().then_some(args)
}

/// Chinese names of the scenario's field names (a unit suffix such as `_hours` removed),
/// for a key that has no label of its own: the report's parameter tables and the axis
/// title of a swept key (`campus.nodes` → 节点数).
pub const FIELDS_ZH: [(&str, &str); 62] = [
    ("baseline_policy", "基准策略"),
    ("horizon", "统计期"),
    ("replications", "重复次数"),
    ("max_replications", "最多重复次数"),
    ("ci_target_paired", "配对差置信区间的目标宽度"),
    ("seed", "随机种子"),
    ("start_date", "开始日期"),
    ("warmup", "预热期"),
    ("bf_interval_seconds", "回填间隔（秒）"),
    ("bf_max_job_test", "每轮回填最多检查的作业数"),
    ("bf_reservations", "每轮回填预留的作业数"),
    ("bf_window", "回填规划窗口"),
    ("gpu_type", "GPU型号"),
    ("gpus_per_node", "每节点GPU数"),
    ("nodes", "节点数"),
    ("gpus", "GPU数"),
    ("placement", "放置模型"),
    ("priority", "优先级"),
    ("scheduler", "调度器"),
    ("vram_gb", "显存（GB）"),
    ("season_overlap", "季节叠加方式"),
    ("max_walltime", "最长运行时限"),
    ("name", "名称"),
    ("jobs_per_week", "每周作业数"),
    ("runtime", "运行时长"),
    ("requests", "申请时长与运行时长"),
    ("deadline", "截止时间"),
    ("start", "开始"),
    ("end", "结束"),
    ("multiplier", "倍数"),
    ("share", "份额"),
    ("load_share", "负载份额"),
    ("billing", "计费方式"),
    ("kind", "类型"),
    ("offers", "云端方案"),
    ("reserved_offer", "包月方案"),
    ("budget", "预算"),
    ("price_per_gpu_hour", "每GPU小时价格"),
    ("price_per_gpu_month", "每GPU月价格"),
    ("capacity_gpus", "可租GPU上限"),
    ("threshold", "阈值"),
    // A distribution's fields, as the report's parameter tables show them.
    ("values", "取值"),
    ("weights", "权重"),
    ("value", "值"),
    ("mean", "均值"),
    ("cv", "变异系数"),
    ("median", "中位数"),
    ("sd", "标准差"),
    ("min", "最小值"),
    ("max", "最大值"),
    ("low", "下限"),
    ("high", "上限"),
    ("shape", "形状参数"),
    ("scale", "尺度参数"),
    // A distribution's kinds.
    ("choice", "离散取值"),
    ("fixed", "固定值"),
    ("uniform", "均匀分布"),
    ("lognormal", "对数正态分布"),
    ("exponential", "指数分布"),
    ("gamma", "伽马分布"),
    ("weibull", "韦布尔分布"),
    ("normal", "正态分布"),
];

/// Chinese words for the values a scenario key takes from a fixed set (`placement =
/// "nodes"`, a policy's `kind`), as `(key, value, 中文)`: the report's parameter tables show
/// them in words; a value not listed here is shown as written.
pub const VALUES_ZH: [(&str, &str, &str); 21] = [
    ("placement", "pool", "资源池（不分节点）"),
    ("placement", "nodes", "按节点放置"),
    ("priority", "fifo", "先来先服务"),
    ("priority", "multifactor", "多因素优先级"),
    ("scheduler", "fcfs", "FCFS（严格先来先服务）"),
    ("scheduler", "easy-backfill", "EASY 回填"),
    ("season_overlap", "max", "取最大倍数"),
    ("season_overlap", "product", "倍数相乘"),
    ("billing", "hourly", "按小时"),
    ("billing", "monthly", "包月"),
    ("granularity", "second", "按秒"),
    ("granularity", "minute", "按分钟"),
    ("granularity", "hour", "按小时"),
    ("kind", "campus-only", "只用校内集群"),
    ("kind", "cloud-only", "只用云端"),
    ("kind", "overflow-predicted", "预计等待超过阈值则上云"),
    ("kind", "overflow-timeout", "排队超时则上云"),
    ("kind", "reserved-first", "包月优先"),
    ("kind", "by-size", "按作业规模分流"),
    ("kind", "deadline-aware", "按截止时间上云"),
    ("kind", "guide-hybrid", "指南方案：先调试再迁移"),
];

/// The Chinese words of `value` written for the key `key` (its last part), if
/// [`VALUES_ZH`] has them.
pub fn value_zh(key: &str, value: &str) -> Option<&'static str> {
    let leaf = key.rsplit('.').next().unwrap_or(key);
    VALUES_ZH.iter().find(|(k, v, _)| *k == leaf && *v == value).map(|(_, _, zh)| *zh)
}

/// The Chinese name of a field (see [`FIELDS_ZH`]).
pub fn field_zh(field: &str) -> Option<&'static str> {
    FIELDS_ZH.iter().find(|(f, _)| *f == field).map(|(_, zh)| *zh)
}

/// Every character the Chinese labels use (for the font-coverage check).
pub fn zh_characters() -> Vec<char> {
    let mut v: Vec<char> = L::ALL.iter().flat_map(|l| l.get(Lang::Zh).chars()).collect();
    v.extend(FIELDS_ZH.iter().flat_map(|(_, zh)| zh.chars()));
    v.extend(VALUES_ZH.iter().flat_map(|(_, _, zh)| zh.chars()));
    v.sort_unstable();
    v.dedup();
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill_in_order_and_tolerate_missing_arguments() {
        assert_eq!(fill("{} against {}", &["a", "b"]), "a against b");
        assert_eq!(fill("{}年{}月", &["2026", "9"]), "2026年9月");
        assert_eq!(fill("x {} y", &[]), "x  y");
    }

    #[test]
    fn every_label_has_both_languages_with_the_same_placeholders() {
        for l in L::ALL {
            let (en, zh) = (l.get(Lang::En), l.get(Lang::Zh));
            assert!(!en.is_empty() && !zh.is_empty(), "{l:?}");
            assert_eq!(en.matches("{}").count(), zh.matches("{}").count(), "{l:?}");
        }
    }

    #[test]
    fn unfill_recovers_what_fill_put_in() {
        let t = "only {} of {} finished; run {} again";
        let text = fill(t, &["3", "10", "'x y'"]);
        assert_eq!(unfill(t, &text), Some(vec!["3", "10", "'x y'"]));
        assert_eq!(unfill(t, "only 3 of 10 finished"), None);
        assert_eq!(unfill("{} ends", "x ends"), Some(vec!["x"]));
        assert_eq!(unfill("no placeholder", "no placeholder"), Some(vec![]));
        assert_eq!(unfill("no placeholder", "no placeholder here"), None);
        assert_eq!(unfill("a {}{} b", "a xy b"), None);
    }

    #[test]
    fn languages_parse_from_common_spellings() {
        assert_eq!(Lang::parse("ZH"), Some(Lang::Zh));
        assert_eq!(Lang::parse("en"), Some(Lang::En));
        assert_eq!(Lang::parse("fr"), None);
    }
}

//! The advice as a table for the terminal, in English or Chinese (`burstsim advise`
//! without `--json`): the snapshot and the job, when it starts on campus, each choice's
//! cost and finish with their intervals, and the cheapest choice that meets the deadline.

use super::{Advice, AdviceWarning, ChoiceKind, Probe};
use crate::i18n::Lang;
use crate::trace::snapshot::SnapshotWarning;

/// Labels of the table in one language.
struct Words {
    snapshot: &'static str,
    job: &'static str,
    start: &'static str,
    within: &'static str,
    median: &'static str,
    interval: &'static str,
    corrected: &'static str,
    beyond: &'static str,
    slurm: &'static str,
    choice: &'static str,
    cost: &'static str,
    finish: &'static str,
    rented: &'static str,
    meets: &'static str,
    campus: &'static str,
    rent_now: &'static str,
    wait_then: &'static str,
    cheapest: &'static str,
    none_meets: &'static str,
    no_deadline: &'static str,
    warning: &'static str,
    partition: &'static str,
    running: &'static str,
    pending: &'static str,
    ahead: &'static str,
    limit: &'static str,
    runtime: &'static str,
    replications: &'static str,
}

const EN: Words = Words {
    snapshot: "Snapshot",
    job: "Your job",
    start: "When it starts on campus",
    within: "started within",
    median: "median",
    interval: "80% interval",
    corrected: "80% interval widened by the backtest's correction ({n} probes)",
    beyond: "beyond the horizon",
    slurm: "Slurm's own estimate (squeue --start)",
    choice: "choice",
    cost: "cost, CNY (95% CI)",
    finish: "finish (mean ± 95% CI)",
    rented: "rented",
    meets: "P(by deadline)",
    campus: "wait for the campus",
    rent_now: "rent now",
    wait_then: "wait {h} h, then rent",
    cheapest: "Cheapest choice that finishes by the deadline with probability ≥ {p}:",
    none_meets: "No choice finishes by the deadline with probability ≥ {p}; the likeliest is:",
    no_deadline: "Give --deadline to be told the cheapest choice that finishes in time.",
    warning: "warning",
    partition: "partition",
    running: "running",
    pending: "pending",
    ahead: "ahead of it",
    limit: "limit",
    runtime: "runtime",
    replications: "replications",
};

const ZH: Words = Words {
    snapshot: "快照",
    job: "您的作业",
    start: "在校内集群开始运行的时间",
    within: "开始于",
    median: "中位数",
    interval: "80%区间",
    corrected: "按回测校正（{n}个探测作业）放宽后的80%区间",
    beyond: "超出模拟时长",
    slurm: "Slurm自身估计（squeue --start）",
    choice: "选择",
    cost: "费用，元（95%置信区间）",
    finish: "完成时间（均值 ± 95%置信区间）",
    rented: "租用比例",
    meets: "按期完成概率",
    campus: "等待校内集群",
    rent_now: "立即租用",
    wait_then: "等待{h}小时后租用",
    cheapest: "在截止时间前完成（概率 ≥ {p}）的最便宜选择：",
    none_meets: "没有选择能以概率 ≥ {p} 在截止时间前完成；最有可能的是：",
    no_deadline: "使用 --deadline 给出截止时间，即可得到能按期完成的最便宜选择。",
    warning: "警告",
    partition: "分区",
    running: "运行中",
    pending: "排队中",
    ahead: "排在其前",
    limit: "时限",
    runtime: "运行时长",
    replications: "次重复模拟",
};

/// A duration for people: seconds, minutes, hours or days.
fn human(secs: f64, lang: Lang) -> String {
    let zh = lang == Lang::Zh;
    let (v, unit) = if secs < 60.0 {
        (secs, if zh { "秒" } else { "s" })
    } else if secs < 3600.0 {
        (secs / 60.0, if zh { "分钟" } else { "min" })
    } else if secs < 2.0 * 86_400.0 {
        (secs / 3600.0, if zh { "小时" } else { "h" })
    } else {
        (secs / 86_400.0, if zh { "天" } else { "days" })
    };
    let digits = if v < 10.0 && secs >= 60.0 { 1 } else { 0 };
    if zh { format!("{v:.digits$}{unit}") } else { format!("{v:.digits$} {unit}") }
}

/// The answer as the terminal shows it, in `lang`: the snapshot and the job, when it
/// starts on campus, each choice's cost and finish, the cheapest choice that meets the
/// deadline, and the warnings.
pub fn table(adv: &Advice, probe: &Probe, lang: Lang) -> String {
    let w = if lang == Lang::Zh { &ZH } else { &EN };
    let dur = |s: Option<f64>| s.map_or(w.beyond.to_string(), |s| human(s, lang));
    let c = &adv.campus;
    let mut out = String::new();
    let when = crate::date::Date::from_days(adv.taken_at.div_euclid(86_400));
    let clock = adv.taken_at.rem_euclid(86_400);
    out.push_str(&format!(
        "{}: {when} {:02}:{:02} UTC · {} {} · {} GPU · {} {} · {} {} ({} {})\n",
        w.snapshot,
        clock / 3600,
        clock / 60 % 60,
        w.partition,
        c.partition,
        c.gpus,
        w.running,
        c.running,
        w.pending,
        c.pending,
        w.ahead,
        c.ahead
    ));
    out.push_str(&format!(
        "{}: {} GPU · {} {} · {} {} · {} {}\n\n",
        w.job,
        probe.gpus,
        w.limit,
        human(probe.walltime_s as f64, lang),
        w.runtime,
        human(probe.runtime_s as f64, lang),
        adv.start.replications,
        w.replications
    ));
    out.push_str(&format!("{}\n", w.start));
    for x in &adv.start.within {
        out.push_str(&format!(
            "  {} {}: {:>5.1}%  ({:.1}–{:.1}%)\n",
            w.within,
            human(x.hours * 3600.0, lang),
            x.p * 100.0,
            x.low * 100.0,
            x.high * 100.0
        ));
    }
    out.push_str(&format!(
        "  {}: {} · {}: {} – {}\n",
        w.median,
        dur(adv.start.median_s),
        w.interval,
        dur(adv.start.p10_s),
        dur(adv.start.p90_s)
    ));
    if let Some(c) = adv.start.corrected.iter().find(|c| c.level == 0.8) {
        out.push_str(&format!(
            "  {}: {} – {}\n",
            w.corrected.replace("{n}", &c.probes.to_string()),
            dur(c.low_s),
            dur(c.high_s)
        ));
    }
    if let Some(e) = adv.slurm_estimate_s {
        out.push_str(&format!("  {}: {}\n", w.slurm, human(e.max(0) as f64, lang)));
    }
    out.push('\n');
    let name = |k: &ChoiceKind| match k {
        ChoiceKind::Campus => w.campus.to_string(),
        ChoiceKind::RentNow { offer } => format!("{} ({offer})", w.rent_now),
        ChoiceKind::WaitThenRent { hours, offer } => {
            format!("{} ({offer})", w.wait_then.replace("{h}", &format!("{hours}")))
        }
    };
    let names: Vec<String> = adv.choices.iter().map(|c| name(&c.kind)).collect();
    let width = names.iter().map(|n| columns(n)).chain([columns(w.choice)]).max().unwrap_or(10) + 2;
    let pad = |s: &str, n: usize| format!("{s}{}", " ".repeat(n.saturating_sub(columns(s)).max(1)));
    let (cost_w, finish_w, rented_w) =
        (columns(w.cost).max(20) + 2, columns(w.finish).max(24) + 2, columns(w.rented) + 4);
    out.push_str(&format!(
        "{}{}{}{}{}\n",
        pad(w.choice, width),
        pad(w.cost, cost_w),
        pad(w.finish, finish_w),
        pad(w.rented, rented_w),
        w.meets
    ));
    for (c, n) in adv.choices.iter().zip(&names) {
        let cost = if c.cost_half_width.is_finite() {
            format!("{:.2} ± {:.2}", c.cost_cny, c.cost_half_width)
        } else {
            format!("{:.2}", c.cost_cny)
        };
        let finish = match (c.finish_s, c.finish_half_width_s) {
            (Some(f), Some(h)) if h.is_finite() => format!("{} ± {}", human(f, lang), human(h, lang)),
            (Some(f), _) => human(f, lang),
            _ => format!("{} ({} {})", w.beyond, w.median, dur(c.finish_median_s)),
        };
        let meets = c.p_deadline.map_or("–".to_string(), |p| format!("{:.0}%", p * 100.0));
        out.push_str(&format!(
            "{}{}{}{}{}\n",
            pad(n, width),
            pad(&cost, cost_w),
            pad(&finish, finish_w),
            pad(&format!("{:.0}%", c.rented * 100.0), rented_w),
            meets
        ));
    }
    out.push('\n');
    let p = format!("{:.0}%", adv.confidence * 100.0);
    match (adv.deadline_s, adv.recommended) {
        (None, _) => out.push_str(&format!("{}\n", w.no_deadline)),
        (Some(_), Some(i)) => out.push_str(&format!("{} {}\n", w.cheapest.replace("{p}", &p), names[i])),
        (Some(_), None) => {
            let best = adv
                .choices
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.p_deadline.unwrap_or(0.0).total_cmp(&b.1.p_deadline.unwrap_or(0.0)))
                .map_or(String::new(), |(i, _)| names[i].clone());
            out.push_str(&format!("{} {best}\n", w.none_meets.replace("{p}", &p)));
        }
    }
    for warn in &adv.warnings {
        let text = if lang == Lang::Zh { warning_zh(warn) } else { warn.to_string() };
        out.push_str(&format!("{}: {text}\n", w.warning));
    }
    out
}

/// A warning in Chinese.
fn warning_zh(w: &AdviceWarning) -> String {
    match w {
        AdviceWarning::Stale { age_s } => SnapshotWarning::Stale { age_s: *age_s }.zh(),
        AdviceWarning::FromFuture { ahead_s } => SnapshotWarning::FromFuture { ahead_s: *ahead_s }.zh(),
        AdviceWarning::Job { message_zh, .. } => format!("快照中的作业可疑：{message_zh}"),
        AdviceWarning::LeftOut { jobs } => format!("快照中有 {jobs} 个作业未计入（其他分区、不用GPU或超过分区规模）"),
        AdviceWarning::NotStarted { replications, of, horizon_days } => format!(
            "{of} 次模拟中有 {replications} 次在 {horizon_days} 天的新作业到达后仍未开始；请增大 --horizon-days"
        ),
    }
}

/// Terminal columns of a string: CJK and full-width characters take two.
fn columns(s: &str) -> usize {
    s.chars()
        .map(|c| match c as u32 {
            0x1100..=0x115F
            | 0x2E80..=0xA4CF
            | 0xAC00..=0xD7A3
            | 0xF900..=0xFAFF
            | 0xFE30..=0xFE4F
            | 0xFF00..=0xFF60 => 2,
            _ => 1,
        })
        .sum()
}

//! Checks of `[[cloud.offers]]` and `[[policies]]`: prices and billing, references
//! between policies and offers, and the keys each policy kind uses (that every job class
//! has somewhere to run under every policy is `feasibility.rs`).

use super::*;

pub(super) fn offer(key: &str, o: &RawOffer, clock: Clock, horizon: SimTime) -> Result<Offer> {
    let vram_gb = positive(&format!("{key}.vram_gb"), o.vram_gb)?;
    let speed_cv =
        within(&format!("{key}.speed.cv"), o.speed.cv, 1e-3, 100.0, "a speed factor relative to the campus GPU")?;
    let speed_transformer = within(
        &format!("{key}.speed.transformer"),
        o.speed.transformer,
        1e-3,
        100.0,
        "a speed factor relative to the campus GPU",
    )?;
    let (price_h, price_m, capacity) = match o.billing {
        BillingMode::Hourly => {
            if o.price_per_gpu_month_cny.is_some() {
                return bad(
                    format!("{key}.price_per_gpu_month_cny"),
                    "an hourly offer is priced per GPU-hour; use price_per_gpu_hour_cny (or billing = \"monthly\")",
                );
            }
            if o.gpus.is_some() {
                return bad(
                    format!("{key}.gpus"),
                    "gpus is the rented count of a monthly offer; for an hourly offer give capacity_gpus",
                );
            }
            let Some(p) = o.price_per_gpu_hour_cny else {
                return bad(
                    format!("{key}.price_per_gpu_hour_cny"),
                    "missing; an hourly offer needs a price per GPU-hour (0 for free credit)",
                );
            };
            if let Some(0) = o.capacity_gpus {
                return bad(format!("{key}.capacity_gpus"), "0 is not allowed; omit it for unlimited capacity");
            }
            (nonneg(&format!("{key}.price_per_gpu_hour_cny"), p)?, 0.0, o.capacity_gpus)
        }
        BillingMode::Monthly => {
            if o.price_per_gpu_hour_cny.is_some() {
                return bad(
                    format!("{key}.price_per_gpu_hour_cny"),
                    "a monthly offer is priced per GPU-month; use price_per_gpu_month_cny (or billing = \"hourly\")",
                );
            }
            if o.capacity_gpus.is_some() {
                return bad(
                    format!("{key}.capacity_gpus"),
                    "a monthly offer's capacity is its rented gpus; give gpus only",
                );
            }
            let Some(p) = o.price_per_gpu_month_cny else {
                return bad(
                    format!("{key}.price_per_gpu_month_cny"),
                    "missing; a monthly offer needs a price per GPU-month",
                );
            };
            let gpus = match o.gpus {
                Some(g) if g > 0 && g <= MAX_GPUS => g,
                Some(g) => return bad(format!("{key}.gpus"), format!("{g} is not allowed; rent 1 to {MAX_GPUS} GPUs")),
                None => return bad(format!("{key}.gpus"), "missing; say how many GPUs are rented monthly"),
            };
            (0.0, nonneg(&format!("{key}.price_per_gpu_month_cny"), p)?, Some(gpus))
        }
    };
    let (rentals, min_term) = rental_terms(key, o, clock, horizon)?;
    let min_charge = nonneg(&format!("{key}.minimum_charge_minutes"), o.minimum_charge_minutes)?;
    let interruption_rate_per_hour = finite_at_least(
        &format!("{key}.interruption_rate_per_hour"),
        o.interruption_rate_per_hour,
        0.0,
        "it must be a finite rate ≥ 0 per hour",
    )?;
    let checkpoint_hours = within(
        &format!("{key}.checkpoint_interval_hours"),
        o.checkpoint_interval_hours,
        1.0 / 3600.0,
        8760.0,
        "hours between checkpoints",
    )?;
    // Each interruption loses up to a checkpoint interval; when interruptions are expected
    // several times per interval, work almost never completes (the expected run time
    // grows like e^(rate·interval)).
    if interruption_rate_per_hour * checkpoint_hours > 3.0 {
        return bad(
            format!("{key}.interruption_rate_per_hour"),
            format!(
                "{interruption_rate_per_hour} per hour with checkpoints every {checkpoint_hours} h means {:.1} interruptions per checkpoint interval, so jobs would almost never finish; keep rate × interval ≤ 3 (checkpoint more often)",
                interruption_rate_per_hour * checkpoint_hours
            ),
        );
    }
    let upload = match o.upload_mb_per_s {
        None => None,
        Some(b) => Some(within(&format!("{key}.upload_mb_per_s"), b, 1e-3, 1e7, "a bandwidth in MB/s")?),
    };
    Ok(Offer {
        name: o.name.clone(),
        gpu_type: o.gpu_type.clone(),
        vram_gb,
        speed_cv,
        speed_transformer,
        billing: o.billing,
        price_per_gpu_hour_cny: price_h,
        price_per_gpu_month_cny: price_m,
        capacity,
        rentals,
        min_term,
        granularity: match o.granularity {
            Granularity::Second => 1,
            Granularity::Minute => MINUTE,
            Granularity::Hour => HOUR,
        },
        minimum_charge: (min_charge * MINUTE as f64).round() as SimTime,
        startup_minutes: sampler(
            &format!("{key}.startup_delay_minutes"),
            &o.startup_delay_minutes,
            0.0,
            f64::INFINITY,
            "delays must be ≥ 0 minutes",
        )?,
        upload_mb_per_s: upload,
        upload_billed: o.upload_billed,
        storage_price_per_gb_day_cny: nonneg(
            &format!("{key}.storage_price_per_gb_day_cny"),
            o.storage_price_per_gb_day_cny,
        )?,
        free_storage_gb: nonneg(&format!("{key}.free_storage_gb"), o.free_storage_gb)?,
        retention: (within(&format!("{key}.retention_days"), o.retention_days, 0.0, 3650.0, "days of retention")?
            * DAY as f64)
            .round() as SimTime,
        interruption_rate_per_hour,
        checkpoint_interval: hours_to_secs(checkpoint_hours, 1),
        io_slowdown: within(
            &format!("{key}.io_slowdown"),
            o.io_slowdown,
            1.0,
            100.0,
            "a runtime stretch from slow storage (slow storage can only stretch runtimes)",
        )?,
    })
}

/// Rented windows `[start, end)` on the clock (`None`: the whole time).
type Rentals = Option<Vec<(SimTime, SimTime)>>;

/// The rented windows of a monthly offer on the clock (`rent_months`, `rent_periods`;
/// `None` = the whole time) and its minimum term for rentals started when needed.
fn rental_terms(key: &str, o: &RawOffer, clock: Clock, horizon: SimTime) -> Result<(Rentals, SimTime)> {
    let given = o.rent_months.is_some() || !o.rent_periods.is_empty() || o.min_term_days.is_some();
    if o.billing == BillingMode::Hourly && given {
        let field = if o.rent_months.is_some() {
            "rent_months"
        } else if o.rent_periods.is_empty() {
            "min_term_days"
        } else {
            "rent_periods"
        };
        return bad(
            format!("{key}.{field}"),
            "only a monthly offer is rented for chosen months; an hourly offer is paid by use",
        );
    }
    let min_term_days = within(&format!("{key}.min_term_days"), o.min_term_days.unwrap_or(30.0), 1.0, 3650.0, "days")?;
    let min_term = (min_term_days * DAY as f64).round() as SimTime;
    let months = match &o.rent_months {
        None => None,
        Some(m) => months_of(&format!("{key}.rent_months"), m)?,
    };
    if months.is_none() && o.rent_periods.is_empty() {
        return Ok((None, min_term));
    }
    let mut windows: Vec<(SimTime, SimTime)> = Vec::new();
    let at = |d: Date| clock.seconds_of(d).max(0) as SimTime;
    if let Some(set) = months {
        let (first, last) = (clock.date_at(0).year() - 1, clock.date_at(horizon).year() + 1);
        for y in first..=last {
            for m in 1..=12u8 {
                if set[usize::from(m - 1)] {
                    let a = Date::new(y, m, 1).expect("a first of the month");
                    let b = a.add_days(i64::from(days_in_month(y, m)));
                    windows.push((at(a), at(b)));
                }
            }
        }
    }
    for (i, w) in o.rent_periods.iter().enumerate() {
        let (a, b) = (
            date(&format!("{key}.rent_periods[{i}].start"), &w.start)?,
            date(&format!("{key}.rent_periods[{i}].end"), &w.end)?,
        );
        if b < a {
            return bad(format!("{key}.rent_periods[{i}].end"), format!("'{b}' is before the start '{a}'"));
        }
        windows.push((at(a), at(b.add_days(1))));
    }
    windows.retain(|w| w.1 > w.0);
    windows.sort_unstable();
    let mut merged: Vec<(SimTime, SimTime)> = Vec::new();
    for w in windows {
        match merged.last_mut() {
            Some(last) if w.0 <= last.1 => last.1 = last.1.max(w.1),
            _ => merged.push(w),
        }
    }
    Ok((Some(merged), min_term))
}

/// The months of `rent_months` as a set (`None`: every month, i.e. `"all"`).
fn months_of(key: &str, m: &RawMonths) -> Result<Option<[bool; 12]>> {
    let mut set = [false; 12];
    let one = |v: i64, set: &mut [bool; 12]| -> Result<()> {
        if !(1..=12).contains(&v) {
            return bad(key, format!("{v} is not a month; give month numbers 1 to 12, e.g. [4, 5] or \"4-5\""));
        }
        set[(v - 1) as usize] = true;
        Ok(())
    };
    match m {
        RawMonths::One(v) => one(*v, &mut set)?,
        RawMonths::List(v) => {
            if v.is_empty() {
                return bad(
                    key,
                    "an empty list rents nothing; give months, e.g. [4, 5], or leave the key out for the whole year",
                );
            }
            for &x in v {
                one(x, &mut set)?;
            }
        }
        RawMonths::Text(t) => {
            let t = t.trim();
            if t.eq_ignore_ascii_case("all") {
                return Ok(None);
            }
            if !t.eq_ignore_ascii_case("none") {
                for part in t.split(['+', ',']).map(str::trim) {
                    let num = |x: &str| {
                        x.trim().parse::<i64>().map_err(|_| Invalid {
                            key: key.to_string(),
                            message: format!("'{t}' is not allowed; give months and ranges such as \"4-5\", \"11-2\" or \"4+9-10\", or \"all\" / \"none\""),
                        })
                    };
                    match part.split_once('-') {
                        None => one(num(part)?, &mut set)?,
                        Some((a, b)) => {
                            let (a, b) = (num(a)?, num(b)?);
                            one(a, &mut set)?;
                            one(b, &mut set)?;
                            let mut k = a;
                            while k != b {
                                set[(k - 1) as usize] = true;
                                k = k % 12 + 1;
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(Some(set))
}

fn offer_ref(key: &str, name: &str, offers: &[Offer]) -> Result<usize> {
    offers.iter().position(|o| o.name == name).ok_or_else(|| Invalid {
        key: key.to_string(),
        message: format!(
            "no offer is named '{name}'; the offers are: {}",
            names(offers.iter().map(|o| o.name.as_str()))
        ),
    })
}

pub(super) fn policy(key: &str, p: &RawPolicy, raw: &RawScenario, offers: &[Offer]) -> Result<Policy> {
    use PolicyKind::*;
    let kind_name = toml::Value::try_from(p.kind).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default();
    let unused = |field: &str| -> Result<()> {
        bad(format!("{key}.{field}"), format!("not used by a policy of kind '{kind_name}'; remove it"))
    };
    let needs = |field: &str, what: &str| Invalid {
        key: format!("{key}.{field}"),
        message: format!("missing; a policy of kind '{kind_name}' needs {what}"),
    };

    let wants_offers = !matches!(p.kind, CampusOnly);
    let wants_threshold =
        matches!(p.kind, OverflowPredicted | OverflowTimeout | ReservedFirst | BySize | DeadlineAware | GuideHybrid);
    if !wants_offers && !p.offers.is_empty() {
        unused("offers")?;
    }
    if !wants_threshold && p.threshold_hours.is_some() {
        unused("threshold_hours")?;
    }
    if p.kind != ReservedFirst && p.reserved_offer.is_some() {
        unused("reserved_offer")?;
    }
    if p.kind != BySize && !p.rules.is_empty() {
        unused("rules")?;
    }
    if p.kind != GuideHybrid {
        if p.debug_offer.is_some() {
            unused("debug_offer")?;
        }
        if p.debug_hours.is_some() {
            unused("debug_hours")?;
        }
        if !p.main_classes.is_empty() {
            unused("main_classes")?;
        }
    }
    let offer_ids = p
        .offers
        .iter()
        .enumerate()
        .map(|(i, n)| offer_ref(&format!("{key}.offers[{i}]"), n, offers))
        .collect::<Result<Vec<_>>>()?;
    if matches!(p.kind, CloudOnly | OverflowPredicted | OverflowTimeout | DeadlineAware | GuideHybrid)
        && offer_ids.is_empty()
    {
        return Err(needs("offers", "at least one cloud offer, e.g. offers = [\"a800-hourly\"]"));
    }
    let compute_timeout = compute_timeout(key, p, &kind_name)?;
    let threshold = match p.threshold_hours {
        None => {
            if p.kind == OverflowPredicted {
                return Err(needs("threshold_hours", "a threshold in hours (inf = never overflow)"));
            }
            if p.kind == OverflowTimeout && compute_timeout.is_none() {
                return Err(needs(
                    "threshold_hours",
                    "a threshold in hours (inf = never overflow), or timeout_per_gpu_hour for a limit proportional to the job's requested GPU-hours",
                ));
            }
            None
        }
        Some(h) if h.is_infinite() && h > 0.0 => None,
        Some(h) => Some(hours_to_secs(nonneg(&format!("{key}.threshold_hours"), h)?, 0)),
    };
    if p.threshold_hours.is_some() && offer_ids.is_empty() {
        return Err(needs("offers", "offers to overflow to when threshold_hours is given"));
    }
    let reserved = match (&p.reserved_offer, p.kind) {
        (Some(n), _) => {
            let i = offer_ref(&format!("{key}.reserved_offer"), n, offers)?;
            if offers[i].billing != BillingMode::Monthly {
                return bad(
                    format!("{key}.reserved_offer"),
                    format!("'{n}' is billed hourly; reserved-first needs a monthly offer"),
                );
            }
            Some(i)
        }
        (None, ReservedFirst) => return Err(needs("reserved_offer", "the monthly offer whose GPUs take jobs first")),
        (None, _) => None,
    };
    let mut rules = Vec::new();
    for (i, r) in p.rules.iter().enumerate() {
        let k = format!("{key}.rules[{i}]");
        let target = if r.target == "campus" {
            Destination::Campus
        } else {
            Destination::Offer(offer_ref(&format!("{k}.target"), &r.target, offers)?)
        };
        rules.push(SizeRule {
            max_vram_gb: match r.max_vram_gb {
                Some(v) => nonneg(&format!("{k}.max_vram_gb"), v)?,
                None => f64::INFINITY,
            },
            max_gpus: r.max_gpus.unwrap_or(u32::MAX),
            target,
        });
    }
    if p.kind == BySize && rules.is_empty() {
        return Err(needs(
            "rules",
            "routing rules, e.g. rules = [{ max_vram_gb = 24, max_gpus = 1, target = \"campus\" }, { target = \"a800-hourly\" }]",
        ));
    }
    let (debug_offer, debug_hours, main_class) = if p.kind == GuideHybrid {
        let Some(d) = &p.debug_offer else {
            return Err(needs("debug_offer", "the cheap offer used to debug while the job queues"));
        };
        let Some(h) = &p.debug_hours else { return Err(needs("debug_hours", "how long debugging takes, in hours")) };
        if p.main_classes.is_empty() {
            return Err(needs("main_classes", "the names of the job classes treated as main runs"));
        }
        let mut main = vec![false; raw.workload.classes.len()];
        for (i, name) in p.main_classes.iter().enumerate() {
            let Some(c) = raw.workload.classes.iter().position(|c| &c.name == name) else {
                return bad(
                    format!("{key}.main_classes[{i}]"),
                    format!(
                        "no job class is named '{name}'; the classes are: {}",
                        names(raw.workload.classes.iter().map(|c| c.name.as_str()))
                    ),
                );
            };
            main[c] = true;
        }
        (
            Some(offer_ref(&format!("{key}.debug_offer"), d, offers)?),
            Some(sampler(&format!("{key}.debug_hours"), h, 0.0, f64::INFINITY, "debugging takes ≥ 0 hours")?),
            main,
        )
    } else {
        (None, None, vec![false; raw.workload.classes.len()])
    };
    let rent_when_needed = p.rent_when_needed.unwrap_or(false);
    if rent_when_needed {
        if p.kind != GuideHybrid {
            unused("rent_when_needed")?;
        }
        let on_demand =
            offer_ids.iter().any(|&o| offers[o].billing == BillingMode::Monthly && offers[o].rentals.is_none());
        if !on_demand {
            return bad(
                format!("{key}.rent_when_needed"),
                "none of the policy's offers is a monthly offer without rent_months or rent_periods; add one to offers",
            );
        }
    }
    let budget = match &p.budget {
        None => None,
        Some(b) => {
            let cap_cny = nonneg(&format!("{key}.budget.cap_cny"), b.cap_cny)?;
            let mut alerts = b.alerts.clone();
            for (i, a) in alerts.iter().enumerate() {
                if !(a.is_finite() && *a > 0.0) {
                    return bad(
                        format!("{key}.budget.alerts[{i}]"),
                        format!("{a} is not allowed; alerts are positive fractions of the cap, e.g. 0.8"),
                    );
                }
            }
            alerts.sort_by(f64::total_cmp);
            alerts.dedup();
            Some(Budget { cap_cny, period: b.period, alerts })
        }
    };
    Ok(Policy {
        name: p.name.clone(),
        kind: p.kind,
        offers: offer_ids,
        threshold,
        compute_timeout,
        reserved,
        rules,
        debug_offer,
        debug_hours,
        main_class,
        when_full: p.when_cloud_full,
        budget,
        rent_when_needed,
    })
}

/// `overflow-timeout`'s compute-proportional limit: `timeout_per_gpu_hour` with its
/// optional floor and cap, in place of `threshold_hours`.
fn compute_timeout(key: &str, p: &RawPolicy, kind_name: &str) -> Result<Option<ComputeTimeout>> {
    let k = |field: &str| format!("{key}.{field}");
    if p.kind != PolicyKind::OverflowTimeout {
        for (field, given) in [
            ("timeout_per_gpu_hour", p.timeout_per_gpu_hour.is_some()),
            ("timeout_floor_hours", p.timeout_floor_hours.is_some()),
            ("timeout_cap_hours", p.timeout_cap_hours.is_some()),
        ] {
            if given {
                return bad(
                    k(field),
                    format!(
                        "not used by a policy of kind '{kind_name}'; remove it, or use kind 'overflow-timeout' for a compute-proportional limit"
                    ),
                );
            }
        }
        return Ok(None);
    }
    let Some(per_gpu_hour) = p.timeout_per_gpu_hour else {
        for (field, value) in
            [("timeout_floor_hours", p.timeout_floor_hours), ("timeout_cap_hours", p.timeout_cap_hours)]
        {
            if value.is_some() {
                return bad(
                    k(field),
                    "only used with timeout_per_gpu_hour (a limit proportional to the job's requested GPU-hours); \
                     a constant threshold_hours has no floor or cap",
                );
            }
        }
        return Ok(None);
    };
    if p.threshold_hours.is_some() {
        return bad(
            k("timeout_per_gpu_hour"),
            "give either threshold_hours (a constant limit) or timeout_per_gpu_hour (a limit proportional to the \
             job's requested GPU-hours), not both",
        );
    }
    if per_gpu_hour.is_nan() || per_gpu_hour < 0.0 {
        return bad(
            k("timeout_per_gpu_hour"),
            format!(
                "{per_gpu_hour} is not allowed; give hours of waiting per GPU-hour requested, ≥ 0 (inf = never overflow unless timeout_cap_hours is given)"
            ),
        );
    }
    let floor_h = match p.timeout_floor_hours {
        None => 0.0,
        Some(h) => {
            finite_at_least(&k("timeout_floor_hours"), h, 0.0, "give the shortest limit in hours, finite and ≥ 0")?
        }
    };
    let cap = match p.timeout_cap_hours {
        None => None,
        Some(h) if h.is_infinite() && h > 0.0 => None,
        Some(h) => {
            let h = finite_at_least(
                &k("timeout_cap_hours"),
                h,
                0.0,
                "give the longest limit in hours, ≥ 0 (inf = no cap)",
            )?;
            if h < floor_h {
                return bad(
                    k("timeout_cap_hours"),
                    format!("{h} h is below timeout_floor_hours = {floor_h} h; the cap must be at least the floor"),
                );
            }
            Some(hours_to_secs(h, 0))
        }
    };
    Ok(Some(ComputeTimeout { per_gpu_hour, floor: hours_to_secs(floor_h, 0), cap }))
}

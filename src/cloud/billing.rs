//! Pure billing arithmetic: granularity round-up, minimum charges, storage, monthly rent.
//! No state and no randomness, so every rule is testable on its own.

use crate::date::{Clock, days_in_month};
use crate::scenario::Offer;
use crate::units::{DAY, HOUR, SimTime};

/// Seconds charged for a session of `duration` seconds: rounded up to the granularity,
/// and never less than the minimum charge.
pub fn billed_seconds(duration: SimTime, granularity: SimTime, minimum: SimTime) -> SimTime {
    if duration == 0 {
        return 0;
    }
    let g = granularity.max(1);
    (duration.div_ceil(g) * g).max(minimum)
}

/// Charge in CNY for one session of `duration` seconds on `gpus` GPUs of an hourly offer.
pub fn session_charge(offer: &Offer, duration: SimTime, gpus: u32) -> f64 {
    let billed = billed_seconds(duration, offer.granularity, offer.minimum_charge);
    billed as f64 / HOUR as f64 * f64::from(gpus) * offer.price_per_gpu_hour_cny
}

/// Storage charge in CNY for `data_gb` kept `seconds` on the platform (beyond the free
/// allowance).
pub fn storage_charge(offer: &Offer, data_gb: f64, seconds: SimTime) -> f64 {
    let chargeable = (data_gb - offer.free_storage_gb).max(0.0);
    chargeable * seconds as f64 / DAY as f64 * offer.storage_price_per_gb_day_cny
}

/// Monthly rent in CNY for each day of the measured window, pro rata by day of the
/// calendar month: a day of a 30-day month costs 1/30 of the monthly price, a day of
/// February 2027 1/28, and a part day (a window that does not end at midnight) its
/// fraction. A whole calendar year therefore costs exactly twelve months, and any window
/// the share of the months it covers; paid whether the GPUs are busy or idle.
pub fn monthly_rent_by_day(offer: &Offer, clock: Clock, window: SimTime) -> Vec<f64> {
    let per_month = f64::from(offer.capacity.unwrap_or(0)) * offer.price_per_gpu_month_cny;
    let days = window.div_ceil(DAY);
    (0..days)
        .map(|d| {
            let date = clock.start.add_days(d as i64);
            let covered = (window - d * DAY).min(DAY) as f64 / DAY as f64;
            per_month * covered / f64::from(days_in_month(date.year(), date.month()))
        })
        .collect()
}

/// Monthly rent in CNY for each day of the measured window of an offer rented only
/// during `rented` (`[start, end)` clock intervals, sorted and disjoint: the months of
/// `rent_months`, or rentals started when needed), pro rata by day of the calendar
/// month as [`monthly_rent_by_day`]. Rent for time after the window (a rental started
/// in it that runs on past its end) is added to the last day, so a rental started in the
/// window is paid in full; rent before the window (in the warm-up) is not counted.
///
/// ```text
/// 8 GPUs rented April and May 2027 at P per GPU-month: 8 × P × (30/30 + 31/31)
/// ```
pub fn rent_by_day(offer: &Offer, clock: Clock, window: SimTime, rented: &[(SimTime, SimTime)]) -> Vec<f64> {
    let per_month = f64::from(offer.capacity.unwrap_or(0)) * offer.price_per_gpu_month_cny;
    let (start, end) = (clock.warmup, clock.warmup + window);
    // Rent of the clock span [a, b) (a ≥ the window's start), day by day of the
    // calendar (days begin at the start date's midnight plus whole days).
    let between = |a: SimTime, b: SimTime| -> f64 {
        let mut sum = 0.0;
        let mut t = a;
        while t < b {
            let day_end = start + ((t - start) / DAY + 1) * DAY;
            let date = clock.date_at(t);
            let covered = (b.min(day_end) - t) as f64 / DAY as f64;
            sum += per_month * covered / f64::from(days_in_month(date.year(), date.month()));
            t = day_end;
        }
        sum
    };
    let days = window.div_ceil(DAY) as usize;
    let mut out = vec![0.0; days];
    // Rentals beginning after the window are not in its bill.
    for &(a, b) in rented.iter().filter(|r| r.0 < end) {
        let (a, b) = (a.max(start), b);
        if b <= a {
            continue;
        }
        let mut t = a;
        while t < b.min(end) {
            let day = ((t - start) / DAY) as usize;
            let day_end = (start + (day as SimTime + 1) * DAY).min(end);
            out[day] += between(t, b.min(day_end));
            t = day_end;
        }
        if b > end
            && let Some(last) = out.last_mut()
        {
            *last += between(a.max(end), b);
        }
    }
    out
}

/// Monthly rent in CNY for an offer over the measured window (the sum of
/// [`monthly_rent_by_day`]).
pub fn monthly_rent(offer: &Offer, clock: Clock, window: SimTime) -> f64 {
    monthly_rent_by_day(offer, clock, window).iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::dist::DistSpec;
    use crate::scenario::raw::BillingMode;

    pub(crate) fn offer(granularity: SimTime, minimum: SimTime, price: f64) -> Offer {
        Offer {
            name: "t".into(),
            gpu_type: "t".into(),
            vram_gb: 24.0,
            speed_cv: 1.0,
            speed_transformer: 1.0,
            billing: BillingMode::Hourly,
            price_per_gpu_hour_cny: price,
            price_per_gpu_month_cny: 0.0,
            capacity: None,
            rentals: None,
            min_term: 30 * DAY,
            granularity,
            minimum_charge: minimum,
            startup_minutes: DistSpec::fixed(0.0).sampler().unwrap(),
            upload_mb_per_s: None,
            upload_billed: true,
            storage_price_per_gb_day_cny: 0.5,
            free_storage_gb: 10.0,
            retention: 0,
            interruption_rate_per_hour: 0.0,
            checkpoint_interval: HOUR,
            io_slowdown: 1.0,
        }
    }

    #[test]
    fn a_61_minute_job_on_hourly_granularity_pays_two_hours() {
        assert_eq!(billed_seconds(61 * 60, HOUR, 0), 2 * HOUR);
        let o = offer(HOUR, 0, 10.0);
        assert_eq!(session_charge(&o, 61 * 60, 1), 20.0);
        assert_eq!(session_charge(&o, 61 * 60, 4), 80.0);
    }

    #[test]
    fn minute_and_second_granularity_round_up() {
        assert_eq!(billed_seconds(61, 60, 0), 120);
        assert_eq!(billed_seconds(60, 60, 0), 60);
        assert_eq!(billed_seconds(61, 1, 0), 61);
        assert_eq!(billed_seconds(10, 1, 300), 300, "minimum charge");
        assert_eq!(billed_seconds(0, 60, 300), 0, "no session, no charge");
    }

    #[test]
    fn billing_is_monotone_in_duration() {
        for g in [1, 60, 3600] {
            let mut last = 0;
            for d in 0..10_000 {
                let b = billed_seconds(d, g, 120);
                assert!(b >= last && b >= d);
                last = b;
            }
        }
    }

    #[test]
    fn storage_charges_only_beyond_the_free_allowance() {
        let o = offer(1, 0, 1.0);
        assert_eq!(storage_charge(&o, 5.0, DAY), 0.0);
        assert!((storage_charge(&o, 30.0, 2 * DAY) - 20.0 * 2.0 * 0.5).abs() < 1e-12);
    }

    #[test]
    fn rent_for_chosen_months_is_paid_for_those_months_only() {
        use crate::date::Date;
        let mut o = offer(1, 0, 0.0);
        o.billing = BillingMode::Monthly;
        o.capacity = Some(8);
        o.price_per_gpu_month_cny = 9000.0;
        // The academic year from 1 September 2026, with a 14-day warm-up before it.
        let clock = Clock { start: Date::parse("2026-09-01").unwrap(), warmup: 14 * DAY };
        let at = |d: &str| clock.seconds_of(Date::parse(d).unwrap()) as SimTime;
        // April and May 2027: 8 × 9000 × (30/30 + 31/31) = 144,000.
        let by_day = rent_by_day(&o, clock, 365 * DAY, &[(at("2027-04-01"), at("2027-06-01"))]);
        let total: f64 = by_day.iter().sum();
        assert!((total - 8.0 * 9000.0 * (30.0 / 30.0 + 31.0 / 31.0)).abs() < 1e-6, "{total}");
        // Nothing is paid outside the rented months.
        let april_first = (at("2027-04-01") - clock.warmup) / DAY;
        let june_first = (at("2027-06-01") - clock.warmup) / DAY;
        for (d, r) in by_day.iter().enumerate() {
            assert_eq!(*r > 0.0, (april_first..june_first).contains(&(d as SimTime)), "day {d}");
        }
        // A 30-day term from 15 April: 16 days of April (16/30) and 14 of May (14/31).
        let term = rent_by_day(&o, clock, 365 * DAY, &[(at("2027-04-15"), at("2027-05-15"))]);
        let want = 8.0 * 9000.0 * (16.0 / 30.0 + 14.0 / 31.0);
        assert!((term.iter().sum::<f64>() - want).abs() < 1e-6);
        // A term running past the window's end is paid in full, on the last day; the
        // warm-up part of a rental is not in the window's bill.
        let late = rent_by_day(&o, clock, 365 * DAY, &[(at("2027-08-17"), at("2027-09-16"))]);
        let want = 8.0 * 9000.0 * (15.0 / 31.0 + 15.0 / 30.0);
        assert!((late.iter().sum::<f64>() - want).abs() < 1e-6 && late[364] > late[363]);
        let early = rent_by_day(&o, clock, 365 * DAY, &[(0, at("2026-09-02"))]);
        assert!((early.iter().sum::<f64>() - 8.0 * 9000.0 / 30.0).abs() < 1e-6);
        // The whole window as one interval is the whole-window rent.
        let whole = rent_by_day(&o, clock, 365 * DAY, &[(clock.warmup, clock.warmup + 365 * DAY)]);
        assert!((whole.iter().sum::<f64>() - monthly_rent(&o, clock, 365 * DAY)).abs() < 1e-6);
    }

    #[test]
    fn monthly_rent_is_pro_rata_by_day_of_the_calendar_month() {
        use crate::date::Date;
        let mut o = offer(1, 0, 0.0);
        o.billing = BillingMode::Monthly;
        o.capacity = Some(2);
        o.price_per_gpu_month_cny = 1000.0;
        let clock = |d: &str| Clock { start: Date::parse(d).unwrap(), warmup: 14 * DAY };
        // A year from 1 September 2026 is twelve whole months: 12 × 2 GPUs × 1000.
        let year = monthly_rent(&o, clock("2026-09-01"), 365 * DAY);
        assert!((year - 24_000.0).abs() < 1e-6, "{year}");
        // Hand computation: 15 Sep – 14 Oct 2026 is 16 days of a 30-day month and 14 of a
        // 31-day month: 2000 × (16/30 + 14/31) = 1969.89…
        let got = monthly_rent(&o, clock("2026-09-15"), 30 * DAY);
        assert!((got - 2000.0 * (16.0 / 30.0 + 14.0 / 31.0)).abs() < 1e-9, "{got}");
        // February 2027 has 28 days: all of it is one month; half a day is 1/56 month.
        assert!((monthly_rent(&o, clock("2027-02-01"), 28 * DAY) - 2000.0).abs() < 1e-9);
        assert!((monthly_rent(&o, clock("2027-02-01"), DAY / 2) - 2000.0 / 56.0).abs() < 1e-9);
        // Each day of a 31-day month costs the same.
        let by_day = monthly_rent_by_day(&o, clock("2026-10-01"), 31 * DAY);
        assert!(by_day.iter().all(|&d| (d - 2000.0 / 31.0).abs() < 1e-9));
    }
}

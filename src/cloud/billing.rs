//! Pure billing arithmetic: granularity round-up, minimum charges, storage, monthly rent.
//! No state and no randomness, so every rule is testable on its own.

use crate::scenario::Offer;
use crate::date::{Clock, days_in_month};
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

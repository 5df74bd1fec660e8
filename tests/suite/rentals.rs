//! Monthly rentals in time (issue 16, item 12): a monthly offer rented for chosen months
//! has GPUs and costs rent only in those months; `guide-hybrid` with `rent_when_needed`
//! starts a rental when a main job is ready and the campus has not started it, pays the
//! offer's minimum term, and later jobs use the machine until the term ends; the rented
//! months can be swept as a decision.

use burstsim::engine::{Observer, Place, simulate, simulate_observed};
use burstsim::metric::Metric;
use burstsim::scenario::Scenario;
use burstsim::units::{DAY, SimTime};
use burstsim::workload::JobStream;

/// The tiny fixture with its policies replaced and `tweak` applied to the text.
fn scenario(policies: &str, tweak: impl Fn(String) -> String) -> Scenario {
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").expect("fixture");
    let base = &text[..text.find("[[policies]]").expect("fixture has policies")];
    Scenario::from_toml_str(&tweak(format!("{base}{policies}")), "rentals-test.toml").expect("valid scenario")
}

/// Starts on one offer: (time, GPUs).
#[derive(Default)]
struct OfferStarts {
    offer: u16,
    starts: Vec<(SimTime, u32)>,
}

impl Observer for OfferStarts {
    fn started(&mut self, t: SimTime, _job: u32, place: Place, gpus: u32) {
        if place == Place::Offer(self.offer) {
            self.starts.push((t, gpus));
        }
    }
}

const RESERVED: &str = "[[policies]]\nname = \"reserved\"\nkind = \"reserved-first\"\nreserved_offer = \"big-monthly\"\n\
                        threshold_hours = 6\noffers = [\"big-hourly\"]\n";

#[test]
fn an_offer_rented_for_november_runs_jobs_and_costs_rent_in_november_only() {
    // The fixture runs 60 days from 1 October 2026 (after a 5-day warm-up): October and
    // November. Eight A800s at 2,500 per GPU-month, rented for November only.
    let scn = scenario(RESERVED, |s| {
        s.replace("price_per_gpu_month_cny = 2500\n", "price_per_gpu_month_cny = 2500\nrent_months = [11]\n")
    });
    let clock = scn.clock();
    let at = |d: &str| clock.seconds_of(burstsim::date::Date::parse(d).unwrap()) as SimTime;
    let (nov, dec) = (at("2026-11-01"), at("2026-12-01"));
    for r in 0..2 {
        let jobs = JobStream::generate(&scn, r);
        let mut seen = OfferStarts { offer: 2, ..OfferStarts::default() };
        let out = simulate_observed(&scn, &jobs, 0, r, &mut seen);
        assert!(!seen.starts.is_empty(), "replication {r}: jobs ran on the rented GPUs");
        for &(t, _) in &seen.starts {
            assert!((nov..dec).contains(&t), "replication {r}: a job started on the offer at {t}, outside November");
        }
        // Hand computation: 8 GPUs × 2,500 × 30/30 (November begins in the window, which
        // ends on 29 November: a rental begun in the window is paid in full).
        let rent = out.metrics.get(Metric::MonthlyCost);
        assert!((rent - 8.0 * 2500.0 * (30.0 / 30.0)).abs() < 1e-6, "{rent}");
    }
    // The same offer rented for the whole window (1 October – 29 November) pays
    // 8 × 2,500 × (31/31 + 29/30).
    let whole = scenario(RESERVED, |s| s);
    let out = simulate(&whole, &JobStream::generate(&whole, 0), 0, 0);
    assert!((out.metrics.get(Metric::MonthlyCost) - 8.0 * 2500.0 * (1.0 + 29.0 / 30.0)).abs() < 1e-6);
}

#[test]
fn april_and_may_2027_of_8_gpus_cost_8_times_the_price_times_two_months() {
    // A year from 1 September 2026; eight GPUs rented for April and May 2027 only:
    // 8 × 2,500 × (30/30 + 31/31) = 40,000, whatever the jobs do.
    let scn = scenario(RESERVED, |s| {
        s.replace(
            "start_date = \"2026-10-01\"\nhorizon_days = 60\n",
            "start_date = \"2026-09-01\"\nhorizon_days = 365\n",
        )
        .replace("price_per_gpu_month_cny = 2500\n", "price_per_gpu_month_cny = 2500\nrent_months = \"4-5\"\n")
        .replace("jobs_per_week = 30\n", "jobs_per_week = 3\n")
        .replace("offered_load = 0.8\n", "offered_load = 0.3\n")
    });
    let out = simulate(&scn, &JobStream::generate(&scn, 0), 0, 0);
    let rent = out.metrics.get(Metric::MonthlyCost);
    assert!((rent - 8.0 * 2500.0 * (30.0 / 30.0 + 31.0 / 31.0)).abs() < 1e-6, "{rent}");
    let util = out.metrics.get(Metric::MonthlyUtilization);
    assert!((0.0..=1.0).contains(&util), "utilisation is over the rented months: {util}");
}

#[test]
fn guide_hybrid_rents_when_a_main_job_needs_it_and_pays_the_minimum_term() {
    // No warm-up and a 20-day window from 1 October: the first 30-day term runs past the
    // window's end, and is paid in full.
    let policy = "[[policies]]\nname = \"guide-rent\"\nkind = \"guide-hybrid\"\ndebug_offer = \"small-hourly\"\n\
                  debug_hours = 2\nmain_classes = [\"big\"]\noffers = [\"big-monthly\"]\nthreshold_hours = 8\n\
                  rent_when_needed = true\n\
                  [[policies]]\nname = \"guide-all-year\"\nkind = \"guide-hybrid\"\ndebug_offer = \"small-hourly\"\n\
                  debug_hours = 2\nmain_classes = [\"big\"]\noffers = [\"big-monthly\"]\nthreshold_hours = 8\n";
    let scn = scenario(policy, |s| {
        s.replace("horizon_days = 60\nwarmup_days = 5\n", "horizon_days = 20\nwarmup_days = 0\n")
            .replace("offered_load = 0.8\n", "offered_load = 0.95\n")
    });
    let term = 30 * DAY;
    let mut rented = 0;
    for r in 0..4 {
        let jobs = JobStream::generate(&scn, r);
        let mut seen = OfferStarts { offer: 2, ..OfferStarts::default() };
        let out = simulate_observed(&scn, &jobs, 0, r, &mut seen);
        let rent = out.metrics.get(Metric::MonthlyCost);
        let Some(&(t0, _)) = seen.starts.first() else {
            assert_eq!(rent, 0.0, "replication {r}: no rental, no rent");
            continue;
        };
        rented += 1;
        // Later jobs use the machine until the term ends.
        assert!(seen.starts.iter().all(|&(t, _)| t >= t0 && t < t0 + term), "replication {r}: {:?}", seen.starts);
        // Hand computation of the 30-day term from t0 (days from 1 October): the days
        // left in October at 1/31 of a month each, the rest of November at 1/30.
        let d0 = t0 as f64 / DAY as f64;
        let october = (31.0 - d0).min(30.0);
        let want = 8.0 * 2500.0 * (october / 31.0 + (30.0 - october) / 30.0);
        assert!((rent - want).abs() < 1e-6, "replication {r}: rent {rent}, a 30-day term from day {d0:.2} is {want}");
        // Renting up front pays for the 20 days of the window.
        let all_year = simulate(&scn, &jobs, 1, r).metrics.get(Metric::MonthlyCost);
        assert!((all_year - 8.0 * 2500.0 * 20.0 / 31.0).abs() < 1e-6, "{all_year}");
    }
    assert!(rented >= 2, "a busy campus makes main jobs wait past debugging: {rented} of 4 rented");
}

#[test]
fn rented_months_are_a_decision_axis_and_sweep_as_text() {
    assert_eq!(
        burstsim::scenario::keys::Role::infer("cloud.offers.a800-monthly.rent_months"),
        burstsim::scenario::keys::Role::Decision
    );
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    let text =
        text.replace("price_per_gpu_month_cny = 2500\n", "price_per_gpu_month_cny = 2500\nrent_months = [4, 5]\n");
    // The window is 1 October – 29 November; a month begun in it is paid in full.
    for (value, months) in [("10-11", 2.0), ("11", 1.0), ("all", 1.0 + 29.0 / 30.0), ("10+11", 2.0), ("none", 0.0)] {
        let mut doc: toml::Table = toml::from_str(&text).unwrap();
        burstsim::scenario::keys::set_path(&mut doc, "cloud.offers.big-monthly.rent_months", value).unwrap();
        let scn = Scenario::from_toml_str(&toml::to_string(&doc).unwrap(), "swept.toml").unwrap();
        let p = scn.policy_index("reserved").unwrap();
        let out = simulate(&scn, &JobStream::generate(&scn, 0), p, 0);
        let rent = out.metrics.get(Metric::MonthlyCost);
        assert!((rent - 8.0 * 2500.0 * months).abs() < 1e-6, "rent_months = '{value}': {rent}");
    }
}

#[test]
fn bad_rented_months_are_refused_with_the_key_named() {
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    let bad = |extra: &str, on: &str| {
        let t = text.replace(on, &format!("{on}{extra}\n"));
        Scenario::from_toml_str(&t, "bad.toml").unwrap_err().to_string()
    };
    let e = bad("rent_months = [13]", "price_per_gpu_month_cny = 2500\n");
    assert!(e.contains("rent_months") && e.contains("13"), "{e}");
    let e = bad("rent_months = \"April\"", "price_per_gpu_month_cny = 2500\n");
    assert!(e.contains("rent_months") && e.contains("4-5"), "{e}");
    let e = bad("rent_months = [4]", "price_per_gpu_hour_cny = 5.0\n");
    assert!(e.contains("rent_months") && e.contains("hourly"), "{e}");
    let e = bad("rent_when_needed = true", "name = \"deadline\"\nkind = \"deadline-aware\"\n");
    assert!(e.contains("rent_when_needed"), "{e}");
}

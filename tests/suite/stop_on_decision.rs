//! Sequential stopping on the decision (issue 43 item 4): `--ci-target paired:X` watches
//! each policy's difference against the baseline, and stops as soon as more years could
//! not change the recommendation; `simulation.ci_target_paired` is the scenario's form.

use burstsim::experiment::sequential::{MIN_REPLICATIONS, parse_ci_targets, settled};
use burstsim::experiment::{self, Results, Sequential, Stopping};
use burstsim::metric::Metric;
use burstsim::scenario::Scenario;
use burstsim::stats::summarize;
use burstsim::target::{Target, parse_target};

fn tiny() -> Scenario {
    Scenario::load(std::path::Path::new("tests/fixtures/tiny.toml")).expect("fixture")
}

fn targets() -> Vec<Target> {
    vec![parse_target("wait_p95_h<=24").unwrap()]
}

/// Twenty real years of the fixture whose cost and p95 columns are then set by hand, so
/// that each case of the settled rule is known by construction.
fn crafted(costs: impl Fn(usize, usize) -> f64, p95s: impl Fn(usize, usize) -> f64) -> (Scenario, Results) {
    let scn = tiny().with_overrides(None, Some(MIN_REPLICATIONS as u32));
    let (mut r, _) = experiment::run(&scn, None, &|| {});
    for (p, policy) in r.policies.iter_mut().enumerate() {
        for (y, values) in policy.values.iter_mut().enumerate() {
            values[Metric::TotalCost.index()] = costs(p, y);
            values[Metric::WaitP95.index()] = p95s(p, y);
        }
    }
    (scn, r)
}

/// A small deterministic wobble in [-1, 1] by policy and year.
fn wobble(p: usize, y: usize) -> f64 {
    (((p * 7 + y * 13) % 11) as f64 - 5.0) / 5.0
}

#[test]
fn a_decision_is_settled_only_when_no_verdict_and_no_choice_could_change() {
    // The baseline (policy 0) misses by far, every other policy meets by far, and
    // policy 1 is cheaper than every other by far: settled.
    let miss_meet = |p: usize, y: usize| if p == 0 { 100.0 + wobble(p, y) } else { 5.0 + wobble(p, y) };
    let clear_costs =
        |p: usize, y: usize| if p == 1 { 1000.0 + wobble(p, y) } else { 2000.0 + 10.0 * p as f64 + wobble(p, y) };
    let (scn, r) = crafted(clear_costs, miss_meet);
    assert!(settled(&scn, &r, &targets()), "clear verdicts and a clear cheapest policy");

    // Policy 2's p95 straddles the target: its verdict could change with more years.
    let straddle = |p: usize, y: usize| if p == 2 { 24.0 + 3.0 * wobble(p, y) } else { miss_meet(p, y) };
    let (scn, r) = crafted(clear_costs, straddle);
    assert!(!settled(&scn, &r, &targets()), "a verdict on the fence is not settled");

    // Policies 1 and 3 meet and cost the same on average, by a difference that changes
    // sign from year to year: which is cheaper is not settled.
    let tied = |p: usize, y: usize| match p {
        1 => 1000.0 + 50.0 * wobble(p, y),
        3 => 1000.0 + 50.0 * wobble(p + 4, y),
        _ => clear_costs(p, y),
    };
    let (scn, r) = crafted(tied, miss_meet);
    assert!(!settled(&scn, &r, &targets()), "two meeting policies of the same cost are not settled");

    // No policy meets, each by far: settled on "none".
    let (scn, r) = crafted(clear_costs, |p, y| 100.0 + wobble(p, y));
    assert!(settled(&scn, &r, &targets()), "every policy misses by far");
}

#[test]
fn a_paired_rule_stops_on_narrow_paired_differences_or_a_settled_decision() {
    let scn = tiny();
    let rule = parse_ci_targets(&["paired:10%".to_string()]).unwrap().with_decision(&targets());
    let watched: Vec<String> = rule.targets.iter().map(ToString::to_string).collect();
    assert_eq!(watched, ["paired total_cost_cny ±10%", "paired wait_p95_h ±10%"], "cost and the target's metric");
    let (r, stop) = experiment::run_until(&scn, Some(&rule), &|| {}, &|| false).unwrap();
    let n = r.replications.len();
    assert!(n >= MIN_REPLICATIONS && n <= scn.max_replications as usize, "{n}");
    let b = scn.baseline;
    let paired_ok = |metric: Metric| {
        (0..scn.policies.len()).filter(|&p| p != b).all(|p| {
            let (x, y) = (r.column(p, metric), r.column(b, metric));
            let d = summarize(&x.iter().zip(&y).map(|(x, y)| x - y).collect::<Vec<_>>());
            d.half_width == 0.0 || d.half_width <= 0.1 * d.mean.abs()
        })
    };
    match stop {
        Stopping::TargetReached { settled: false, .. } => {
            assert!(paired_ok(Metric::TotalCost) && paired_ok(Metric::WaitP95), "stopped on widths it did not reach");
        }
        Stopping::TargetReached { settled: true, .. } => {
            assert!(settled(&scn, &r, &targets()), "stopped as settled when it was not");
            assert!(!(paired_ok(Metric::TotalCost) && paired_ok(Metric::WaitP95)), "widths met: it should say so");
        }
        other => panic!("the fixture's decision settles well before the cap: {other:?}"),
    }
    // One batch fewer would not have stopped: the rule stopped at its first chance.
    let before = n - n / 3;
    if n > MIN_REPLICATIONS {
        let mut fewer = r.clone();
        for p in &mut fewer.policies {
            p.values.truncate(before);
            p.class_values.truncate(before);
            p.season_values.truncate(before);
        }
        fewer.replications.truncate(before);
        assert!(!rule.check(&scn, &fewer).met, "it ran past a point where the rule was met ({before} of {n})");
    }
}

#[test]
fn a_width_in_yuan_on_the_paired_cost_needs_fewer_years_than_on_each_policys_own_cost() {
    // The point of pairing: over the same years the difference varies less than each
    // policy's cost, so the same width in yuan is reached sooner (a relative width is
    // another matter: the difference is smaller than the cost, so ±10% of it is fewer
    // yuan). On the fixture's first four policies.
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap();
    let cut = text.find("[[policies]]\nname = \"reserved\"").expect("the fixture's fifth policy");
    let scn = Scenario::from_toml_str(&text[..cut], "four-policies.toml").unwrap();
    let years = |spec: &str| {
        let rule: Sequential = parse_ci_targets(&[spec.to_string()]).unwrap();
        experiment::run_until(&scn, Some(&rule), &|| {}, &|| false).unwrap().0.replications.len()
    };
    let own = years("total_cost_cny=300");
    let paired = years("paired:total_cost_cny=300");
    assert!(paired < own, "paired {paired} years, own {own}");
}

#[test]
fn a_fixed_count_overrides_the_scenarios_own_rule() {
    // `-n 3` runs exactly 3 years of a scenario with a rule of its own.
    let text = std::fs::read_to_string("tests/fixtures/tiny.toml").unwrap().replacen(
        "[simulation]\n",
        "[simulation]\nci_target_paired = 0.1\n",
        1,
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rule.toml");
    std::fs::write(&file, text).unwrap();
    let out = assert_cmd::Command::cargo_bin("burstsim")
        .unwrap()
        .args(["run", "-n", "3", "--quiet", "--no-charts", "--no-sensitivity", "--out"])
        .arg(dir.path().join("out"))
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let manifest = std::fs::read_to_string(dir.path().join("out/run.toml")).unwrap();
    assert!(manifest.contains("# seed: ") && manifest.contains("replications: 3\n"), "{manifest}");
    assert!(manifest.contains("# stopping: fixed number of replications"), "{manifest}");
}

/// The default `run` stops on its decision (issue 43 item 4): the paired ±10% rule with a
/// cap of 40 years, not a fixed count or each policy's own interval. What it prints under
/// that rule (20 years, "it stopped when more years could not change the decision") is
/// the README's quoted decision, which `scripts/quoted-figures.sh --check` reruns in CI.
#[test]
fn the_default_stops_on_the_paired_difference_with_a_cap() {
    let d = Scenario::embedded_default();
    assert_eq!(d.ci_target_paired, Some(0.10), "the default watches its paired differences");
    assert_eq!(d.ci_target, None, "not each policy's own interval");
    assert_eq!(d.max_replications, 40, "a run of the default never takes more than 40 years");
}

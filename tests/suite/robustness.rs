//! Robustness of the scenario loader: mutated scenario files (deleted or duplicated lines,
//! numbers replaced by extreme values, truncation, random bytes) never make burstsim panic;
//! they load or fail with an error. A bounded, seeded, proptest-based fuzzer (cargo-fuzz
//! needs a nightly toolchain, which this machine cannot fetch). Failures persist under
//! tests/proptest-regressions/ and become regression fixtures.

use burstsim::scenario::Scenario;
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, RngSeed};

const SOURCES: [&str; 3] = [
    include_str!("../../scenarios/default.toml"),
    include_str!("../fixtures/tiny.toml"),
    include_str!("../../scenarios/all-policies.toml"),
];

const EXTREMES: [&str; 14] = [
    "0",
    "-1",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-inf",
    "4294967296",
    "18446744073709551615",
    "0.0000001",
    "\"x\"",
    "[]",
    "{}",
    "true",
];

#[derive(Debug, Clone)]
enum Mutation {
    DeleteLine(usize),
    DuplicateLine(usize),
    ReplaceNumber(usize, usize),
    Truncate(usize),
    InsertBytes(usize, Vec<u8>),
    SwapLines(usize, usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::DeleteLine),
        any::<usize>().prop_map(Mutation::DuplicateLine),
        (any::<usize>(), 0..EXTREMES.len()).prop_map(|(a, b)| Mutation::ReplaceNumber(a, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 1..8)).prop_map(|(a, b)| Mutation::InsertBytes(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
    ]
}

fn apply(text: &str, m: &Mutation) -> Vec<u8> {
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let n = lines.len();
    if n == 0 || text.is_empty() {
        return text.as_bytes().to_vec();
    }
    match m {
        Mutation::DeleteLine(i) => {
            lines.remove(i % n);
        }
        Mutation::DuplicateLine(i) => {
            let l = lines[i % n].clone();
            lines.insert(i % n, l);
        }
        Mutation::SwapLines(a, b) => lines.swap(a % n, b % n),
        Mutation::ReplaceNumber(i, e) => {
            // Replace the value of the i-th `key = number` line.
            let numeric: Vec<usize> = (0..n)
                .filter(|&k| {
                    lines[k]
                        .split_once('=')
                        .is_some_and(|(_, v)| v.trim().starts_with(|c: char| c.is_ascii_digit() || c == '-'))
                })
                .collect();
            if !numeric.is_empty() {
                let k = numeric[i % numeric.len()];
                let key = lines[k].split_once('=').unwrap().0.to_string();
                lines[k] = format!("{key}= {}", EXTREMES[*e]);
            }
        }
        Mutation::Truncate(i) => {
            let bytes = text.as_bytes();
            return bytes[..i % bytes.len()].to_vec();
        }
        Mutation::InsertBytes(i, b) => {
            let mut bytes = text.as_bytes().to_vec();
            let at = i % bytes.len();
            bytes.splice(at..at, b.iter().copied());
            return bytes;
        }
    }
    (lines.join("\n") + "\n").into_bytes()
}

/// Prints a fuzz case on drop when it took longer than `FUZZ_REPORT_SLOW` seconds.
struct SlowCase {
    started: std::time::Instant,
    source: usize,
    muts: String,
}

impl Drop for SlowCase {
    fn drop(&mut self) {
        let limit = std::env::var("FUZZ_REPORT_SLOW").ok().and_then(|v| v.parse::<f64>().ok());
        let took = self.started.elapsed().as_secs_f64();
        if limit.is_some_and(|l| took > l) {
            eprintln!("slow fuzz case: {took:.1} s, source {}, mutations {}", self.source, self.muts);
        }
    }
}

proptest! {
    #![proptest_config(Config {
        // FUZZ_CASES=100000 for a long run; the default keeps `cargo test` quick.
        cases: std::env::var("FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000),
        rng_seed: RngSeed::Fixed(0xf022),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    })]

    #[test]
    fn prop_mutated_scenarios_never_panic(source in 0..SOURCES.len(), muts in prop::collection::vec(mutation(), 1..4)) {
        // FUZZ_REPORT_SLOW=<seconds> names the cases slower than that (performance leads).
        let started = std::time::Instant::now();
        let _report = SlowCase { started, source, muts: format!("{muts:?}") };
        let mut bytes = SOURCES[source].as_bytes().to_vec();
        for m in &muts {
            bytes = apply(&String::from_utf8_lossy(&bytes), m);
        }
        let text = String::from_utf8_lossy(&bytes);
        let result = std::panic::catch_unwind(|| Scenario::from_toml_str(&text, "fuzz.toml"));
        prop_assert!(result.is_ok(), "the loader panicked on:\n{text}");
        match result.unwrap() {
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(msg.starts_with("fuzz.toml"), "errors name the file: {msg}");
            }
            Ok(scn) => {
                // A scenario that loads must also simulate without panicking (small ones:
                // the fuzzer's budget is seconds, not minutes).
                // Bounded by the peak season multiplier, so a mutated multiplier cannot turn one
                // case into millions of jobs.
                let peak = scn
                    .background_calendar
                    .max_multiplier(scn.horizon)
                    .max(scn.group_calendar.max_multiplier(scn.horizon))
                    .max(1.0);
                let expected: f64 = scn.group.iter().chain(&scn.background).map(|c| c.rate_per_sec).sum::<f64>()
                    * scn.horizon as f64
                    * peak;
                if expected < 20_000.0 {
                    let jobs = burstsim::workload::JobStream::generate(&scn, 0);
                    for p in 0..scn.policies.len() {
                        let ran = std::panic::catch_unwind(|| burstsim::engine::simulate_metrics(&scn, &jobs, p, 0));
                        prop_assert!(ran.is_ok(), "policy {p} panicked on:\n{text}");
                    }
                }
            }
        }
    }
}

#[test]
fn arbitrary_bytes_never_panic_the_loader() {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(99);
    for _ in 0..2000 {
        let len = rng.random_range(0..400);
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        let text = String::from_utf8_lossy(&bytes);
        assert!(std::panic::catch_unwind(|| Scenario::from_toml_str(&text, "bytes.toml").is_err()).is_ok());
    }
}

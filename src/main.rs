use burstsim::{engine::simulate, metrics::Metric, scenario::Scenario, workload::JobStream};
fn main() {
    let s = Scenario::embedded_default();
    let t0 = std::time::Instant::now();
    let jobs = JobStream::generate(&s, 0);
    eprintln!("generated {} jobs ({} group) in {:?}", jobs.jobs.len(), jobs.group_jobs(), t0.elapsed());
    for p in 0..s.policies.len() {
        let t = std::time::Instant::now();
        let out = simulate(&s, &jobs, p, 0);
        eprintln!("{} in {:?}", s.policies[p].name, t.elapsed());
        for m in Metric::ALL {
            eprint!("{}={:.3} ", m.name(), out.metrics.get(m));
        }
        eprintln!("unstable={}", out.metrics.unstable);
        let q = &out.metrics.daily.campus_queue_gpus;
        let w: Vec<String> = q.chunks(30).map(|c| format!("{:.0}", c.iter().sum::<f64>() / c.len() as f64)).collect();
        eprintln!("monthly queue gpus: {}", w.join(" "));
    }
}

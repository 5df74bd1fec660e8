//! Reference formulas from queueing theory, for validating the engine: Erlang C for the
//! M/M/c queue and Little's law.
//!
//! ```text
//! a = λ/μ (offered load in servers), ρ = a/c < 1
//! C(c, a) = [a^c/c! · 1/(1−ρ)] / [Σ_{k<c} a^k/k! + a^c/c! · 1/(1−ρ)]   (P(wait > 0))
//! E[W_q] = C / (cμ − λ)
//! P(W_q > t) = C · exp(−(cμ − λ) t)
//! ```
//! The sum is evaluated with the stable Erlang-B recursion, so c in the thousands is fine.

/// Erlang C: probability that an arrival waits, for `c` servers and offered load `a = λ/μ`.
/// Returns 1 when `a ≥ c` (unstable).
pub fn erlang_c(c: u32, a: f64) -> f64 {
    if a >= f64::from(c) {
        return 1.0;
    }
    // Erlang B by recursion: B(0) = 1, B(k) = a B(k-1) / (k + a B(k-1)).
    let mut b = 1.0;
    for k in 1..=c {
        b = a * b / (f64::from(k) + a * b);
    }
    let rho = a / f64::from(c);
    b / (1.0 - rho * (1.0 - b))
}

/// Mean wait in queue of M/M/c with arrival rate `lambda` and service rate `mu` per server.
pub fn mmc_mean_wait(c: u32, lambda: f64, mu: f64) -> f64 {
    let a = lambda / mu;
    erlang_c(c, a) / (f64::from(c) * mu - lambda)
}

/// P(W_q > t) for M/M/c.
pub fn mmc_wait_exceeds(c: u32, lambda: f64, mu: f64, t: f64) -> f64 {
    let a = lambda / mu;
    erlang_c(c, a) * (-(f64::from(c) * mu - lambda) * t).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mm1_reduces_to_rho() {
        // M/M/1: P(wait) = ρ, E[W] = ρ/(μ−λ).
        assert!((erlang_c(1, 0.9) - 0.9).abs() < 1e-12);
        assert!((mmc_mean_wait(1, 0.9, 1.0) - 9.0).abs() < 1e-9);
    }

    #[test]
    fn erlang_c_matches_published_values() {
        // c = 2, a = 1 (ρ = 0.5): C = 1/3.
        assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-12);
        // c = 10, a = 8: C ≈ 0.4092 (standard tables).
        assert!((erlang_c(10, 8.0) - 0.40918).abs() < 1e-4);
        // Large c is numerically stable.
        let big = erlang_c(1024, 0.95 * 1024.0);
        assert!(big > 0.0 && big < 1.0);
    }
}

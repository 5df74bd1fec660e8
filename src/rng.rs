//! Random streams: one portable generator per (master seed, replication, purpose).
//!
//! Common random numbers depend on this: every policy of replication `r` sees the same
//! workload because the workload stream is derived only from `(seed, r, Workload)`, and a
//! policy that draws an extra number (say, a cloud start-up delay) draws it from its own
//! stream, so it cannot shift anyone else's draws. Cloud draws are further split per job,
//! so one job's interruptions do not depend on which other jobs went to the cloud.
//!
//! The generator is `Pcg64Mcg` from rand_pcg, which is documented as portable (same
//! output on every platform and version); `StdRng` and `SmallRng` are not.

use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// The generator used for every stream.
pub type SimRng = Pcg64Mcg;

/// What a stream is used for; each purpose is an independent stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// The group's own job arrivals and their sizes.
    GroupWorkload,
    /// Other groups' jobs on the campus cluster.
    Background,
    /// Per-job cloud draws (start-up delay, interruptions); `u64` is the job's index.
    CloudJob(u64),
    /// Resampling of a trace (block bootstrap).
    Bootstrap,
    /// Anything a test needs.
    Test(u64),
    /// Thinning a trace's jobs to scale its load (the fractional part of the scale).
    TraceScale,
    /// Further independent resamples of a trace superposed for a load scale above 1;
    /// `u64` is the copy index (≥ 1: copy 0 is [`Purpose::Bootstrap`]).
    BootstrapCopy(u64),
}

impl Purpose {
    fn code(self) -> (u64, u64) {
        match self {
            Purpose::GroupWorkload => (1, 0),
            Purpose::Background => (2, 0),
            Purpose::CloudJob(j) => (3, j),
            Purpose::Bootstrap => (4, 0),
            Purpose::Test(k) => (5, k),
            Purpose::TraceScale => (6, 0),
            Purpose::BootstrapCopy(c) => (7, c),
        }
    }
}

/// The SplitMix64 finaliser: a bijective mix of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Derives the 64-bit seed of one stream from the master seed, the replication and the
/// purpose. Pure and stable: changing it changes every golden output.
pub fn derive_seed(master: u64, replication: u64, purpose: Purpose) -> u64 {
    let (kind, extra) = purpose.code();
    mix(mix(mix(mix(master) ^ replication) ^ kind) ^ extra)
}

/// A fresh generator for one stream.
pub fn stream(master: u64, replication: u64, purpose: Purpose) -> SimRng {
    SimRng::seed_from_u64(derive_seed(master, replication, purpose))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    #[test]
    fn streams_are_stable_and_distinct() {
        // Pinned: a change here changes every golden output on purpose only.
        assert_eq!(derive_seed(42, 0, Purpose::GroupWorkload), derive_seed(42, 0, Purpose::GroupWorkload));
        assert_ne!(derive_seed(42, 0, Purpose::GroupWorkload), derive_seed(42, 0, Purpose::Background));
        assert_ne!(derive_seed(42, 0, Purpose::GroupWorkload), derive_seed(42, 1, Purpose::GroupWorkload));
        assert_ne!(derive_seed(42, 0, Purpose::CloudJob(1)), derive_seed(42, 0, Purpose::CloudJob(2)));
        assert_ne!(derive_seed(42, 0, Purpose::BootstrapCopy(1)), derive_seed(42, 0, Purpose::BootstrapCopy(2)));
        assert_ne!(derive_seed(42, 0, Purpose::BootstrapCopy(1)), derive_seed(42, 0, Purpose::CloudJob(1)));
        let mut a = stream(7, 3, Purpose::Background);
        let mut b = stream(7, 3, Purpose::Background);
        let xa: Vec<u64> = (0..5).map(|_| a.random()).collect();
        let xb: Vec<u64> = (0..5).map(|_| b.random()).collect();
        assert_eq!(xa, xb);
    }
}

//! A hash map keyed by job index, with a hasher made for such keys.
//!
//! The node model looks its running jobs up by job index at every start and end (about
//! 800,000 a policy-year of the default). With std's SipHash, hashing alone was ~1% of a
//! run and the map's insert and remove another 2%. Job indices are small distinct
//! integers chosen by the workload, not by anyone who could aim collisions at the map,
//! so a multiplicative hash (as rustc's own FxHash) is enough. Nothing may depend on the
//! map's iteration order: every caller that iterates sorts what it collects.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A map from job index to `V`.
pub type JobMap<V> = HashMap<u32, V, BuildHasherDefault<JobIndexHasher>>;

/// Hashes one integer key by a multiplication with an odd constant (2^64 / φ), whose high
/// bits hashbrown uses for its tags and whose low bits keep distinct keys distinct.
#[derive(Clone, Copy, Default)]
pub struct JobIndexHasher(u64);

impl Hasher for JobIndexHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only integer keys are hashed here; this fallback keeps any other key correct.
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u32(&mut self, i: u32) {
        self.write_u64(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_map_of_many_jobs_finds_each_and_forgets_removed_ones() {
        let mut m: JobMap<u32> = JobMap::default();
        for j in 0..100_000u32 {
            m.insert(j * 3, j);
        }
        for j in (0..100_000u32).step_by(2) {
            assert_eq!(m.remove(&(j * 3)), Some(j));
        }
        assert_eq!(m.len(), 50_000);
        assert!((0..100_000u32).all(|j| m.get(&(j * 3)) == (j % 2 == 1).then_some(&j)));
    }

    #[test]
    fn consecutive_keys_spread_over_the_tags() {
        // hashbrown takes its 7-bit tag from the top bits: consecutive job indices must not
        // share it, or every probe would compare keys.
        let tags: std::collections::HashSet<u64> = (0..128u32)
            .map(|j| {
                let mut h = JobIndexHasher::default();
                h.write_u32(j);
                h.finish() >> 57
            })
            .collect();
        assert!(tags.len() > 64, "{} distinct tags of 128", tags.len());
    }
}

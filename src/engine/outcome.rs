//! Where every group job ends, and its results by season.
//!
//! No job vanishes (issue 27): each group job submitted in the measured window ends in
//! exactly one bucket — completed on campus, completed in the cloud, reneged, balked, or
//! unfinished when the simulation ended. The buckets are counted where they happen
//! (arrivals in `arrive`, completions in `complete`, give-ups in [`World::gave_up`]) and
//! the unfinished ones by a last scan of the job states, so a job lost or counted twice
//! breaks the sum that tests/suite/conservation.rs checks in every replication.
//!
//! A job that gives up does not drop out of the figures: a reneged job's wait until it
//! gave up counts among the waits (a censored wait, a lower bound of what it would have
//! waited), and a reneged, balked or unfinished job with a deadline counts as a miss.

use super::{Observer, Place, Status, World};
use crate::job::NO_DEADLINE;
use crate::metrics::class::ClassTally;
use crate::metrics::season::{SeasonSet, SeasonTally};
use crate::units::{SimTime, secs_to_hours};

/// How a job left without running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GaveUp {
    /// It did not (it ran, or is still waiting).
    No,
    /// Its patience ran out in the campus queue.
    Reneged,
    /// It was never submitted: the queue ahead was too long.
    Balked,
}

impl<O: Observer> World<'_, O> {
    /// A job left for good without running (`reneged`: cancelled in the queue; else it
    /// balked). Books a measured group job in its bucket, its wait so far (reneged: a
    /// censored wait), its deadline as missed and its work as not done.
    pub(super) fn gave_up(&mut self, j: u32, reneged: bool) {
        self.st[j as usize].gave_up = if reneged { GaveUp::Reneged } else { GaveUp::Balked };
        self.obs.gave_up(self.now, j, reneged);
        let job = &self.jobs[j as usize];
        if !job.group || !self.measured(j) {
            return;
        }
        let wait = secs_to_hours(self.st[j as usize].waited);
        let has_deadline = job.deadline != NO_DEADLINE;
        let work = f64::from(job.gpus) * job.runtime as f64;
        let t = &mut self.tally;
        t.with_deadline += u64::from(has_deadline);
        t.missed += u64::from(has_deadline);
        t.gave_up_gpu_secs += work;
        if reneged {
            t.waits_h.push(wait);
        }
        let c = self.class_tally(j);
        c.with_deadline += u64::from(has_deadline);
        c.missed += u64::from(has_deadline);
        if reneged {
            c.reneged += 1;
            c.waits_h.push(wait);
        } else {
            c.balked += 1;
        }
    }

    /// At the end: the measured group jobs that never finished go into the unfinished
    /// bucket (a deadline they had counts as missed); returns the per-season values
    /// (season row × class row × [`crate::metrics::season::SEASON_METRICS`]).
    pub(super) fn close_outcomes(&mut self) -> Vec<Vec<Vec<f64>>> {
        let scn = self.scn;
        let classes = scn.group.len();
        for j in 0..self.jobs.len() as u32 {
            let job = &self.jobs[j as usize];
            if !job.group || !self.measured(j) || self.st[j as usize].status == Status::Done {
                continue;
            }
            let has_deadline = job.deadline != NO_DEADLINE;
            self.tally.with_deadline += u64::from(has_deadline);
            self.tally.missed += u64::from(has_deadline);
            // Never started and never could: queued (or left pending) on a campus whose
            // windows leave no gap its walltime request fits.
            let st = &self.st[j as usize];
            if st.first_start == SimTime::MAX
                && matches!(st.status, Status::Pending | Status::CampusQueued)
                && !self.within_windows(j)
            {
                self.tally.never_startable += 1;
            }
            let c: &mut ClassTally = self.class_tally(j);
            c.unfinished += 1;
            c.with_deadline += u64::from(has_deadline);
            c.missed += u64::from(has_deadline);
        }
        let seasons = SeasonSet::of(scn);
        // Class rows: each group class, then all classes (a log's job of no class: all only).
        let mut tallies = vec![vec![SeasonTally::default(); classes + 1]; seasons.len()];
        let mut rows = Vec::new();
        for (job, s) in self.jobs.iter().zip(&self.st) {
            if !job.group || job.submit < scn.warmup {
                continue;
            }
            let class = usize::from(job.class);
            let wait = secs_to_hours(s.waited);
            seasons.rows_of(job.submit, &mut rows);
            for &row in &rows {
                for c in [Some(class).filter(|&c| c < classes), Some(classes)].into_iter().flatten() {
                    let t = &mut tallies[row][c];
                    t.submitted += 1;
                    match (s.status, s.gave_up) {
                        (Status::Done, GaveUp::No) => {
                            t.completed += 1;
                            t.cloud += u64::from(matches!(s.place, Place::Offer(_)));
                            t.waits_h.push(wait);
                        }
                        (_, GaveUp::Reneged) => {
                            t.gave_up += 1;
                            t.waits_h.push(wait);
                        }
                        (_, GaveUp::Balked) => t.gave_up += 1,
                        _ => {}
                    }
                }
            }
        }
        let flat: Vec<SeasonTally> = tallies.into_iter().flatten().collect();
        let values = crate::metrics::values_once(&flat, SeasonTally::values);
        values.chunks(classes + 1).map(<[Vec<f64>]>::to_vec).collect()
    }
}

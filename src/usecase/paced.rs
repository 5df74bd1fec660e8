//! Progress as plain lines at a steady pace, for output that is not a terminal (a job
//! under `nohup` or `sbatch`, a log file, a notebook's captured cell): a bar drawn with
//! carriage returns shows nothing there, so a 30-minute run was silent until it ended.
//!
//! A line is written when a stage starts, each time another tenth of it is done, when
//! `every` has passed without a line (a ticker thread, so a long replication still shows
//! that the work goes on), and when the stage ends:
//!
//! ```text
//! burstsim: replications: 0 of 168 (0%), 0 s elapsed
//! burstsim: replications: 17 of 168 (10%), 41 s elapsed, about 6 min 05 s left
//! burstsim: replications: 168 of 168 done in 6 min 47 s
//! ```

use std::io::Write;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::{Progress, SecondsLeft, Stage};

/// A [`Progress`] that writes a line per tenth of a stage and at least one per `every`.
pub struct PacedLines {
    shared: Arc<Shared>,
    ticker: Option<std::thread::JoinHandle<()>>,
}

/// What the reporting calls and the ticker thread share.
struct Shared {
    state: Mutex<State>,
    /// Wakes the ticker early when the reporter is dropped.
    wake: Condvar,
}

struct State {
    out: Box<dyn Write + Send>,
    stage: Option<Current>,
    every: Duration,
    closed: bool,
}

/// The stage being reported.
struct Current {
    kind: Kind,
    done: u64,
    started: Instant,
    last_line: Instant,
    /// Tenths of the total already reported (counted stages only).
    tenths: u64,
    seconds_left: Option<SecondsLeft>,
}

enum Kind {
    Counted { total: u64, what: String },
    Sequential { max: u64 },
    Search { most: u64 },
}

impl PacedLines {
    /// Reports to `out`, with a line at least every `every` while a stage runs.
    pub fn new(out: Box<dyn Write + Send>, every: Duration) -> PacedLines {
        let shared = Arc::new(Shared {
            state: Mutex::new(State { out, stage: None, every, closed: false }),
            wake: Condvar::new(),
        });
        let for_ticker = Arc::clone(&shared);
        let ticker = std::thread::Builder::new()
            .name("burstsim-progress".into())
            .spawn(move || for_ticker.tick_until_closed())
            .ok();
        PacedLines { shared, ticker }
    }

    /// Reports to stderr, a line at least every 30 s.
    pub fn stderr() -> PacedLines {
        PacedLines::new(Box::new(std::io::stderr()), Duration::from_secs(30))
    }

    fn with_state(&self, f: impl FnOnce(&mut State)) {
        if let Ok(mut s) = self.shared.state.lock() {
            f(&mut s);
        }
    }
}

impl Drop for PacedLines {
    fn drop(&mut self) {
        self.with_state(|s| s.closed = true);
        self.shared.wake.notify_all();
        if let Some(t) = self.ticker.take() {
            let _ = t.join();
        }
    }
}

impl Shared {
    /// The ticker: wakes when a line is due by time and writes it, until closed.
    fn tick_until_closed(&self) {
        let Ok(mut s) = self.state.lock() else { return };
        loop {
            if s.closed {
                return;
            }
            let now = Instant::now();
            let wait = match &s.stage {
                Some(c) if now.duration_since(c.last_line) >= s.every => {
                    s.line(now, false);
                    s.every
                }
                Some(c) => s.every - now.duration_since(c.last_line),
                None => s.every,
            };
            s = match self.wake.wait_timeout(s, wait) {
                Ok((s, _)) => s,
                Err(_) => return,
            };
        }
    }
}

/// What ends a run under sequential stopping, as both progress displays (these lines and
/// the terminal's bar) say it.
pub const SEQUENTIAL_RULE: &str = "sequential: stops once the intervals are narrow enough or the decision is settled";

impl State {
    /// Writes the current stage's line (`end`: the stage is over) and notes the time.
    fn line(&mut self, now: Instant, end: bool) {
        let Some(c) = &mut self.stage else { return };
        c.last_line = now;
        let elapsed = now.duration_since(c.started).as_secs_f64();
        let text = match &c.kind {
            Kind::Counted { total, what } if end => {
                format!("{what}: {} of {total} done in {}", c.done, duration(elapsed))
            }
            Kind::Counted { total, what } => {
                let share = if *total == 0 { 100 } else { c.done * 100 / total };
                let left = match &c.seconds_left {
                    Some(f) => f(elapsed),
                    None if c.done > 0 => Some(elapsed * total.saturating_sub(c.done) as f64 / c.done as f64),
                    None => None,
                };
                let left = left.map(|l| format!(", about {} left", duration(l))).unwrap_or_default();
                format!("{what}: {} of {total} ({share}%), {} elapsed{left}", c.done, duration(elapsed))
            }
            Kind::Sequential { max } if end => {
                format!("replications: {} done in {} (sequential stopping, at most {max})", c.done, duration(elapsed))
            }
            Kind::Sequential { max } => format!(
                "replications: {} done ({SEQUENTIAL_RULE}; at most {max}), {} elapsed",
                c.done,
                duration(elapsed)
            ),
            Kind::Search { most } if end => {
                format!("calibrating: {} points evaluated in {} (at most {most})", c.done, duration(elapsed))
            }
            Kind::Search { most } => {
                format!("calibrating: {} points of at most {most}, {} elapsed", c.done, duration(elapsed))
            }
        };
        let _ = writeln!(self.out, "burstsim: {text}");
        let _ = self.out.flush();
    }
}

impl Progress for PacedLines {
    fn start(&self, stage: Stage<'_>) {
        let (kind, seconds_left) = match stage {
            Stage::Counted { total, what, seconds_left } => {
                (Kind::Counted { total, what: what.to_string() }, seconds_left)
            }
            Stage::Sequential { max } => (Kind::Sequential { max }, None),
            Stage::Search { most } => (Kind::Search { most }, None),
        };
        let now = Instant::now();
        self.with_state(|s| {
            s.stage = Some(Current { kind, done: 0, started: now, last_line: now, tenths: 0, seconds_left });
            s.line(now, false);
        });
    }

    fn advance(&self, units: u64) {
        self.with_state(|s| {
            let Some(c) = &mut s.stage else { return };
            c.done += units;
            // A counted stage writes a line each time it passes another tenth of its total.
            if let Kind::Counted { total, .. } = c.kind
                && total > 0
                && c.done < total
            {
                let tenths = c.done * 10 / total;
                if tenths > c.tenths {
                    c.tenths = tenths;
                    s.line(Instant::now(), false);
                }
            }
        });
    }

    fn label(&self, text: &str) {
        self.with_state(|s| {
            if let Some(Current { kind: Kind::Counted { what, .. }, .. }) = &mut s.stage {
                *what = text.to_string();
            }
        });
    }

    fn finish(&self) {
        self.with_state(|s| {
            s.line(Instant::now(), true);
            s.stage = None;
        });
    }

    fn note(&self, line: &str) {
        self.with_state(|s| {
            let _ = writeln!(s.out, "burstsim: {line}");
        });
    }

    fn detail(&self, line: &str) {
        self.note(line);
    }
}

/// A duration to the second under an hour and to the minute above it ("45 s",
/// "12 min 05 s", "1 h 07 min"): a coarser unit ("2m" for anything from 2:00 to 2:59)
/// is too rough to judge a time left by.
pub fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => {
            let minutes = (s + 30) / 60;
            format!("{} h {:02} min", minutes / 60, minutes % 60)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer the test reads back.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<u8>>>);

    impl Write for Lines {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Lines {
        fn text(&self) -> String {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
        }
    }

    #[test]
    fn a_counted_stage_writes_a_line_per_tenth_and_one_at_the_end() {
        let out = Lines::default();
        let p = PacedLines::new(Box::new(out.clone()), Duration::from_secs(3600));
        p.start(Stage::Counted { total: 40, what: "replications", seconds_left: None });
        for _ in 0..40 {
            p.advance(1);
        }
        p.finish();
        drop(p);
        let text = out.text();
        let lines: Vec<&str> = text.lines().collect();
        // The start, nine tenths (10% … 90%; 100% is the end's line) and the end.
        assert_eq!(lines.len(), 11, "{text}");
        assert!(lines[0].starts_with("burstsim: replications: 0 of 40 (0%)"), "{text}");
        assert!(lines[1].starts_with("burstsim: replications: 4 of 40 (10%)"), "{text}");
        assert!(lines[1].contains("left"), "{text}");
        assert!(lines[10].starts_with("burstsim: replications: 40 of 40 done in "), "{text}");
    }

    #[test]
    fn a_stage_without_steps_still_writes_a_line_every_interval() {
        let out = Lines::default();
        let p = PacedLines::new(Box::new(out.clone()), Duration::from_millis(40));
        p.start(Stage::Sequential { max: 100 });
        std::thread::sleep(Duration::from_millis(300));
        p.finish();
        drop(p);
        let text = out.text();
        let waiting = text.lines().filter(|l| l.contains("replications: 0 done (sequential")).count();
        // The start's line and at least two from the ticker in 300 ms at one per 40 ms
        // (a loaded machine may delay the ticker, never make it silent).
        assert!(waiting >= 3, "{text}");
        assert!(text.lines().last().unwrap().contains("done in"), "{text}");
    }

    #[test]
    fn nothing_is_written_between_stages() {
        let out = Lines::default();
        let p = PacedLines::new(Box::new(out.clone()), Duration::from_millis(20));
        p.start(Stage::Search { most: 8 });
        p.advance(8);
        p.finish();
        let before = out.text();
        std::thread::sleep(Duration::from_millis(120));
        drop(p);
        assert_eq!(out.text(), before);
        assert!(before.contains("calibrating: 8 points evaluated in"), "{before}");
    }

    #[test]
    fn durations_keep_seconds_under_an_hour() {
        assert_eq!(duration(0.4), "0 s");
        assert_eq!(duration(59.4), "59 s");
        assert_eq!(duration(125.0), "2 min 05 s");
        assert_eq!(duration(3599.0), "59 min 59 s");
        assert_eq!(duration(3600.0 + 7.0 * 60.0 + 31.0), "1 h 08 min");
        assert_eq!(duration(2.0 * 3600.0 - 10.0), "2 h 00 min");
        assert_eq!(duration(-3.0), "0 s");
    }
}

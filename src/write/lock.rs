//! One writer per output folder, and a folder that can be written before any work starts.
//!
//! A `run`, `merge`, shard or `sweep` takes the folder's lock before it simulates
//! anything: [`OutputLock::exclusive`] (or [`OutputLock::shared`] for the shards of one
//! sweep, which write their points into one folder together). Taking the lock creates the
//! folder and a file in it, so an unusable `--out` (a path under `/proc`, a read-only
//! filesystem, an existing file, `/dev/null`) fails at once with the path named instead
//! of after hours of simulation; a second writer fails at once naming the process that
//! holds the folder. The lock is removed when it is dropped (normal end, error, first
//! Ctrl-C) and by [`release_all`] (the binary calls it before `exit` on a second Ctrl-C);
//! a lock left by a process that died (`kill -9`, a crash) is recognised by its process
//! id and start time and taken over with a notice.
//!
//! The lock files are `.burstsim.lock` (one writer) and `.burstsim.NAME.lock` (one of
//! several cooperating shards of the work with the same `share` key, e.g. a sweep hash).
//! An exclusive writer first creates its file and then checks for shard files; a shard
//! creates its file and then checks for the exclusive one: whichever order two processes
//! interleave in, at least one of them sees the other and stops.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Name of the exclusive lock file in an output folder.
pub const LOCK_FILE: &str = ".burstsim.lock";

/// Lock files this process holds, so that [`release_all`] can remove them when the
/// process ends through `std::process::exit` (which runs no destructors).
static HELD: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Removes every lock this process holds. For the abort path (`std::process::exit`),
/// where destructors do not run; harmless if the locks are dropped later.
pub fn release_all() {
    let held = HELD.lock().map(|mut h| std::mem::take(&mut *h)).unwrap_or_default();
    for p in held {
        let _ = std::fs::remove_file(p);
    }
}

/// Why a folder cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The folder cannot be created or written (or is not a folder).
    #[error("cannot write the output folder '{dir}': {what}; give a writable folder with --out DIR")]
    Unusable {
        /// The folder.
        dir: String,
        /// What went wrong, with the system's reason.
        what: String,
    },
    /// Another live process is writing there.
    #[error(
        "'{dir}' is being written by another burstsim ({holder}); wait for it to finish or give another folder \
         with --out DIR (if that process is gone, delete '{file}')"
    )]
    Held {
        /// The folder.
        dir: String,
        /// Who holds it: "run, process 1234 on host h, since …".
        holder: String,
        /// The lock file to delete by hand when the holder cannot be checked (another host).
        file: String,
    },
}

/// Who holds a lock, as written in the lock file (one `key = value` per line).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Holder {
    pid: u32,
    /// Start time of the process in clock ticks since boot (`/proc/PID/stat` field 22),
    /// so a recycled process id is not taken for the holder.
    started: Option<u64>,
    host: String,
    kind: String,
    share: String,
}

impl Holder {
    fn me(kind: &str, share: &str) -> Holder {
        let pid = std::process::id();
        Holder { pid, started: start_ticks(pid), host: host_name(), kind: kind.into(), share: share.into() }
    }

    fn text(&self) -> String {
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut t = format!(
            "# burstsim output lock: the process below writes this folder; removed when it ends\npid = {}\n",
            self.pid
        );
        if let Some(s) = self.started {
            t.push_str(&format!("started = {s}\n"));
        }
        t.push_str(&format!("host = {}\nkind = {}\nshare = {}\n", q(&self.host), q(&self.kind), q(&self.share)));
        t
    }

    fn parse(text: &str) -> Option<Holder> {
        let v: toml::Table = text.parse().ok()?;
        let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or_default().to_string();
        Some(Holder {
            pid: u32::try_from(v.get("pid")?.as_integer()?).ok()?,
            started: v.get("started").and_then(toml::Value::as_integer).and_then(|x| u64::try_from(x).ok()),
            host: s("host"),
            kind: s("kind"),
            share: s("share"),
        })
    }

    fn describe(&self) -> String {
        format!("a {}, process {} on host '{}'", self.kind, self.pid, self.host)
    }

    /// Whether the holder may still be running: `false` only when it provably is not
    /// (same host, and no process with its id and start time).
    fn alive(&self) -> bool {
        if self.host != host_name() || !Path::new("/proc/self/stat").exists() {
            return true; // cannot check: assume it runs
        }
        match (start_ticks(self.pid), self.started) {
            (None, _) => false,
            (Some(now), Some(then)) => now == then,
            (Some(_), None) => true,
        }
    }
}

/// The host name (for locks on shared filesystems), or "" when unknown.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Field 22 of `/proc/PID/stat` (start time), `None` when there is no such process or it
/// has ended and only waits to be reaped (a zombie, state `Z` or `X`).
fn start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    if matches!(fields.next(), Some("Z" | "X")) {
        return None;
    }
    fields.nth(18)?.parse().ok()
}

/// A held output lock; dropping it removes the lock file.
#[derive(Debug)]
pub struct OutputLock {
    path: PathBuf,
    /// "took over a stale lock of …", for the caller to print.
    notice: Option<String>,
}

impl OutputLock {
    /// Makes `dir` (creating it) this process's, alone. `kind` says what writes
    /// ("run", "merge", "shard", "sweep") for the message another writer gets.
    ///
    /// # Errors
    /// [`LockError::Unusable`] when the folder cannot be created or written,
    /// [`LockError::Held`] when another live process writes there.
    pub fn exclusive(dir: &Path, kind: &str) -> Result<OutputLock, LockError> {
        prepare(dir)?;
        let me = Holder::me(kind, "");
        let lock = take(dir, &dir.join(LOCK_FILE), &me)?;
        // A shard that took its lock before we took ours is still writing.
        if let Some(h) = live_shards(dir).into_iter().next() {
            return Err(held(dir, &h.0, &h.1));
        }
        Ok(lock)
    }

    /// Takes the slot `name` in `dir` for one of several processes doing the same work
    /// (`share`, e.g. a sweep's hash) that may write together, such as the shards of one
    /// sweep. Refused while an exclusive writer holds the folder, while another process
    /// holds the same slot, or while a process of different work holds any slot.
    ///
    /// # Errors
    /// As [`OutputLock::exclusive`].
    pub fn shared(dir: &Path, kind: &str, share: &str, name: &str) -> Result<OutputLock, LockError> {
        prepare(dir)?;
        let me = Holder::me(kind, share);
        let lock = take(dir, &dir.join(format!(".burstsim.{name}.lock")), &me)?;
        let main = dir.join(LOCK_FILE);
        if let Some(h) = read_holder(&main).filter(Holder::alive) {
            return Err(held(dir, &h, &main));
        }
        if let Some((h, f)) = live_shards(dir).into_iter().find(|(h, f)| h.share != share && *f != lock.path) {
            return Err(held(dir, &h, &f));
        }
        Ok(lock)
    }

    /// A notice to print when the lock was taken over from a process that died.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        if let Ok(mut h) = HELD.lock() {
            h.retain(|p| *p != self.path);
        }
    }
}

fn unusable(dir: &Path, what: impl Into<String>) -> LockError {
    LockError::Unusable { dir: dir.display().to_string(), what: what.into() }
}

fn held(dir: &Path, h: &Holder, file: &Path) -> LockError {
    LockError::Held { dir: dir.display().to_string(), holder: h.describe(), file: file.display().to_string() }
}

/// Creates `dir` if needed and checks that it is a folder.
fn prepare(dir: &Path) -> Result<(), LockError> {
    if let Ok(m) = std::fs::metadata(dir)
        && !m.is_dir()
    {
        return Err(unusable(dir, "it exists and is not a folder (a file or a device)"));
    }
    std::fs::create_dir_all(dir).map_err(|e| unusable(dir, format!("could not create it ({e})")))
}

fn read_holder(file: &Path) -> Option<Holder> {
    std::fs::read_to_string(file).ok().and_then(|t| Holder::parse(&t))
}

/// The live holders of shard slots in `dir`, with their files, in name order.
fn live_shards(dir: &Path) -> Vec<(Holder, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut found: Vec<(Holder, PathBuf)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with(".burstsim.") && n.ends_with(".lock") && n != LOCK_FILE && !n.contains(".tmp")
            })
        })
        .filter_map(|p| read_holder(&p).filter(Holder::alive).map(|h| (h, p)))
        .collect();
    found.sort_by(|a, b| a.1.cmp(&b.1));
    found
}

/// Creates `file` for `me`, taking over a lock whose holder provably died.
fn take(dir: &Path, file: &Path, me: &Holder) -> Result<OutputLock, LockError> {
    let mut notice = None;
    for _ in 0..3 {
        match std::fs::OpenOptions::new().write(true).create_new(true).open(file) {
            Ok(mut f) => {
                let written = f.write_all(me.text().as_bytes()).and_then(|()| f.sync_all());
                if let Err(e) = written {
                    drop(f);
                    let _ = std::fs::remove_file(file);
                    return Err(unusable(dir, format!("could not write a file in it ({e})")));
                }
                if let Ok(mut h) = HELD.lock() {
                    h.push(file.to_path_buf());
                }
                return Ok(OutputLock { path: file.to_path_buf(), notice });
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                // A holder still writing its file reads as empty: give it a moment.
                let mut holder = read_holder(file);
                for _ in 0..20 {
                    if holder.is_some() {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                    holder = read_holder(file);
                }
                match holder {
                    Some(h) if h.alive() => return Err(held(dir, &h, file)),
                    Some(h) => {
                        notice = Some(format!(
                            "'{}' was locked by {}, which is no longer running; taking the folder over",
                            dir.display(),
                            h.describe()
                        ));
                    }
                    None => {
                        notice = Some(format!(
                            "'{}' held an unreadable lock file '{}'; taking the folder over",
                            dir.display(),
                            file.display()
                        ));
                    }
                }
                let _ = std::fs::remove_file(file);
            }
            Err(e) => return Err(unusable(dir, format!("could not create a file in it ({e})"))),
        }
    }
    Err(unusable(dir, format!("could not take '{}' after three tries", file.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_and_the_lock_goes_with_the_first() {
        let d = tempfile::tempdir().unwrap();
        let first = OutputLock::exclusive(d.path(), "run").unwrap();
        assert!(first.notice().is_none());
        let e = OutputLock::exclusive(d.path(), "sweep").unwrap_err().to_string();
        assert!(e.contains("another burstsim (a run, process") && e.contains(&d.path().display().to_string()), "{e}");
        let e = OutputLock::shared(d.path(), "sweep", "h", "shard-0-of-2").unwrap_err().to_string();
        assert!(e.contains("a run"), "a shard waits for the exclusive writer too: {e}");
        drop(first);
        assert!(!d.path().join(LOCK_FILE).exists(), "dropping removes the lock");
        OutputLock::exclusive(d.path(), "run").unwrap();
    }

    #[test]
    fn shards_of_one_work_share_a_folder_other_work_does_not() {
        let d = tempfile::tempdir().unwrap();
        let a = OutputLock::shared(d.path(), "sweep", "h1", "shard-0-of-2").unwrap();
        let _b = OutputLock::shared(d.path(), "sweep", "h1", "shard-1-of-2").unwrap();
        assert!(OutputLock::shared(d.path(), "sweep", "h1", "shard-0-of-2").is_err(), "the same slot twice");
        assert!(OutputLock::shared(d.path(), "sweep", "h2", "shard-0-of-3").is_err(), "a different sweep");
        let e = OutputLock::exclusive(d.path(), "sweep").unwrap_err().to_string();
        assert!(e.contains("shard-0-of-2"), "names the shard's lock file: {e}");
        assert!(!d.path().join(LOCK_FILE).exists(), "a refused exclusive writer leaves no lock");
        drop(a);
    }

    #[test]
    fn a_dead_holders_lock_is_taken_over_with_a_notice() {
        let d = tempfile::tempdir().unwrap();
        // A process that has ended: its id is free (or reused with another start time).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let dead = Holder { pid, started: Some(1), host: host_name(), kind: "run".into(), share: String::new() };
        std::fs::write(d.path().join(LOCK_FILE), dead.text()).unwrap();
        let lock = OutputLock::exclusive(d.path(), "run").unwrap();
        assert!(lock.notice().is_some_and(|n| n.contains("no longer running")), "{:?}", lock.notice());
        // A live holder (this process, as recorded) is respected.
        drop(lock);
        std::fs::write(d.path().join(LOCK_FILE), Holder::me("run", "").text()).unwrap();
        assert!(OutputLock::exclusive(d.path(), "run").is_err());
    }

    #[test]
    fn a_holder_that_ended_but_was_not_reaped_is_dead() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(300)); // now a zombie
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id())).unwrap();
        let started = stat[stat.rfind(')').unwrap() + 1..].split_whitespace().nth(19).unwrap().parse().unwrap();
        let h =
            Holder { pid: child.id(), started: Some(started), host: host_name(), kind: "run".into(), share: "".into() };
        assert!(!h.alive(), "{stat}");
        child.wait().unwrap();
        assert!(Holder::me("run", "").alive());
    }

    #[test]
    fn unusable_folders_are_named_at_once() {
        let d = tempfile::tempdir().unwrap();
        let file = d.path().join("f");
        std::fs::write(&file, "x").unwrap();
        for bad in [file.clone(), file.join("sub"), PathBuf::from("/proc/burstsim-x"), PathBuf::from("/dev/null")] {
            let e = OutputLock::exclusive(&bad, "run").unwrap_err();
            assert!(matches!(e, LockError::Unusable { .. }), "{bad:?}: {e}");
            assert!(e.to_string().contains(&bad.display().to_string()), "{e}");
        }
    }
}

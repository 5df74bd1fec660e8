//! `--excel`: the CSV files start with a UTF-8 byte-order mark only when asked, and read
//! back (with the csv crate, and by `burstsim plot`) exactly as the plain ones.

use std::path::Path;

use assert_cmd::Command;

const TINY: &str = "tests/fixtures/tiny.toml";
const BOM: &[u8] = b"\xEF\xBB\xBF";
const RUN_CSVS: [&str; 8] = [
    "summary.csv",
    "paired.csv",
    "classes.csv",
    "replications.csv",
    "timeseries.csv",
    "waits.csv",
    "class_waits.csv",
    "risk.csv",
];

fn burstsim() -> Command {
    Command::cargo_bin("burstsim").expect("binary built")
}

fn records(path: &Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let mut all = vec![r.headers().unwrap().clone()];
    all.extend(r.records().map(Result::unwrap));
    all
}

#[test]
fn run_and_merge_write_a_bom_only_with_excel_and_the_files_read_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let (plain, excel) = (dir.path().join("plain"), dir.path().join("excel"));
    for (out, extra) in [(&plain, None), (&excel, Some("--excel"))] {
        let o = burstsim()
            .args(["run", TINY, "-n", "3", "-q", "--no-charts", "--target", "wait_p95_h<=2", "--out"])
            .arg(out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    for f in RUN_CSVS {
        let (p, e) = (std::fs::read(plain.join(f)).unwrap(), std::fs::read(excel.join(f)).unwrap());
        assert!(!p.starts_with(BOM), "{f}: no BOM by default (the stable contract)");
        assert!(e.starts_with(BOM), "{f}: a BOM with --excel");
        assert_eq!(&e[3..], &p[..], "{f}: otherwise the same bytes");
        assert_eq!(records(&excel.join(f)), records(&plain.join(f)), "{f} parses the same");
        assert_eq!(records(&excel.join(f))[0].get(0), records(&plain.join(f))[0].get(0), "no BOM in the first header");
    }
    // The report is drawn from a BOM folder as from a plain one.
    let p = burstsim().arg("plot").arg(&excel).arg("-q").output().unwrap();
    assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    // merge --excel, from shards (which stay plain: they are burstsim's own files).
    let shards = dir.path().join("shards");
    for i in 0..2 {
        let o = burstsim()
            .args(["run", TINY, "-n", "3", "-q", "--shard", &format!("{i}/2"), "--out"])
            .arg(&shards)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert!(!std::fs::read(shards.join("shard-0-of-2/replications.csv")).unwrap().starts_with(BOM));
    let merged = dir.path().join("merged");
    let m = burstsim().arg("merge").arg(&shards).args(["-q", "--no-charts", "--excel", "--out"]).arg(&merged).output();
    assert!(m.unwrap().status.success());
    let s = std::fs::read(merged.join("summary.csv")).unwrap();
    assert!(s.starts_with(BOM) && s[3..] == std::fs::read(plain.join("summary.csv")).unwrap()[..]);
}

#[test]
fn sweep_csv_has_a_bom_only_with_excel() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, extra) in [("plain", None), ("excel", Some("--excel"))] {
        let out = dir.path().join(name);
        let o = burstsim()
            .args(["sweep", TINY, "-n", "2", "-q", "--no-charts", "-p", "policies.overflow-2h.threshold_hours=0,4"])
            .args(["--target", "wait_p95_h<=100", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        files.push(out);
    }
    for f in ["sweep.csv", "risk.csv"] {
        let (p, e) = (std::fs::read(files[0].join(f)).unwrap(), std::fs::read(files[1].join(f)).unwrap());
        assert!(!p.starts_with(BOM) && e.starts_with(BOM) && e[3..] == p[..], "{f}");
        assert_eq!(records(&files[1].join(f)), records(&files[0].join(f)));
    }
}

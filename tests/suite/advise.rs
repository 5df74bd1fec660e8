//! The snapshot readers of `burstsim advise` (issue 23; `burstsim::trace::snapshot`) on the
//! fixtures of `tests/fixtures/snapshot/`: `squeue --json` / `sinfo --json` of Slurm 22.05
//! and 23.11, the text formats, and every way a snapshot is refused, each message naming
//! the file, the line or JSON path, the field and what is allowed. The same jobs written
//! as 22.05 JSON and as text read to the same records.

use std::path::Path;

use burstsim::trace::snapshot::{
    RequestError, STALE_AFTER_S, Snapshot, SnapshotError, SnapshotWarning, SubmitRequest, read_bytes, read_files,
};

const DIR: &str = "tests/fixtures/snapshot";
/// When the fixtures' snapshots were taken (their `# taken_at` line and `last_update`).
const TAKEN: i64 = 1_764_687_600;

fn path(name: &str) -> std::path::PathBuf {
    Path::new(DIR).join(name)
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(path(name)).unwrap()
}

fn read(queue: &str, nodes: &str, taken_at: Option<i64>) -> Result<Snapshot, SnapshotError> {
    read_files(&path(queue), &path(nodes), taken_at)
}

/// Reads edited text as the squeue file (named `q`) beside a good sinfo file.
fn queue_text(text: &str) -> Result<Snapshot, SnapshotError> {
    read_bytes(("q", text.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN))
}

/// Reads edited text as the sinfo file (named `n`) beside a good squeue file.
fn nodes_text(text: &str) -> Result<Snapshot, SnapshotError> {
    read_bytes(("q", fixture("squeue.txt").as_bytes()), ("n", text.as_bytes()), None)
}

fn err(r: Result<Snapshot, SnapshotError>) -> String {
    r.expect_err("the snapshot should be refused").to_string()
}

#[test]
fn json_of_slurm_22_05_reads_jobs_nodes_and_slurms_estimate() {
    let s = read("squeue-22.05.json", "sinfo-22.05.json", Some(TAKEN)).unwrap();
    assert_eq!(s.taken_at, TAKEN);
    assert_eq!(s.running.len(), 2);
    let r = &s.running[0];
    assert_eq!(
        (r.id.as_str(), r.partition.as_str(), r.account.as_str(), r.user.as_str()),
        ("1001", "gpu", "nlp", "alice")
    );
    assert_eq!((r.gpus, r.nodes, r.elapsed, r.limit), (8, 2, 7200, Some(2880 * 60)));
    // `gres/gpu=1,gres/gpu:a100=1` is one GPU, not two.
    assert_eq!((s.running[1].gpus, s.running[1].elapsed, s.running[1].limit), (1, 3600, Some(4 * 3600)));
    assert_eq!(s.pending.len(), 2);
    let p = &s.pending[0];
    assert_eq!((p.id.as_str(), p.gpus, p.nodes, p.priority), ("1003", 4, 1, 4300));
    assert_eq!((p.submit, p.estimated_start, p.limit), (1_764_685_000, Some(1_764_691_200), Some(86_400)));
    // start_time 0 is "no estimate"; GPUs from tres_per_job when tres_req_str has none.
    let q = &s.pending[1];
    assert_eq!((q.estimated_start, q.gpus, q.account.as_str()), (None, 2, "bio"));
    assert_eq!(s.other_states, 1, "the COMPLETED job is left out");
    let gpus: Vec<(&str, u32, u32)> = s.nodes.iter().map(|n| (n.name.as_str(), n.gpus, n.cpus)).collect();
    assert_eq!(gpus, [("g1", 4, 64), ("g2", 4, 64), ("g3", 4, 64), ("g4", 2, 32)]);
    assert_eq!(s.nodes[2].partitions, ["gpu", "debug"]);
    assert!(s.nodes[2].usable() && !s.nodes[3].usable(), "g4 is down");
    assert_eq!(s.partitions(), ["debug", "gpu"]);
    assert_eq!(s.accounts(), ["bio", "cv", "nlp"]);
}

#[test]
fn json_of_slurm_23_11_reads_set_infinite_number_state_lists_and_sinfo_groups() {
    let s = read("squeue-23.11.json", "sinfo-23.11.json", None).unwrap();
    assert_eq!(s.taken_at, TAKEN, "from last_update");
    let r = &s.running[0];
    assert_eq!((r.gpus, r.nodes, r.elapsed, r.limit), (4, 1, 7200, None), "an infinite time limit is none");
    let p = &s.pending[0];
    assert_eq!((p.gpus, p.priority, p.limit, p.estimated_start), (2, 9000, Some(7200), None));
    let nodes: Vec<(&str, &str, u32, u32)> =
        s.nodes.iter().map(|n| (n.name.as_str(), n.state.as_str(), n.cpus, n.gpus)).collect();
    assert_eq!(nodes, [("n1", "mixed", 8, 4), ("n2", "idle", 8, 4), ("n3", "idle", 8, 4), ("n4", "idle", 8, 4)]);
    assert!(s.nodes.iter().all(|n| n.partitions == ["campus"]));
    // An explicit time wins over last_update.
    assert_eq!(read("squeue-23.11.json", "sinfo-23.11.json", Some(TAKEN + 5)).unwrap().taken_at, TAKEN + 5);
}

#[test]
fn text_formats_read_the_same_jobs_as_json() {
    let text = read("squeue.txt", "sinfo.txt", None).unwrap();
    let json = read("squeue-22.05.json", "sinfo-22.05.json", Some(TAKEN)).unwrap();
    assert_eq!(text.taken_at, TAKEN, "from the # taken_at line");
    // JSON names each running job's nodes (`g[1-2]`); the text format has no node list.
    assert_eq!(json.running[0].hosts, ["g1", "g2"]);
    let mut json_running = json.running.clone();
    json_running.iter_mut().for_each(|j| j.hosts.clear());
    assert_eq!(text.running[..2], json_running[..]);
    assert_eq!(text.pending[0], json.pending[0]);
    let completing = &text.running[2];
    assert_eq!((completing.id.as_str(), completing.gpus, completing.elapsed), ("1006", 1, 1799));
    let q = &text.pending[1];
    assert_eq!((q.partition.as_str(), q.limit, q.estimated_start, q.gpus), ("gpu,debug", None, None, 0));
    assert_eq!(text.other_states, 1, "SUSPENDED is left out");
    let node_names =
        |s: &Snapshot| s.nodes.iter().map(|n| (n.name.clone(), n.gpus, n.partitions.clone())).collect::<Vec<_>>();
    assert_eq!(node_names(&text), node_names(&json), "g3's two lines merge; `gpu*` is partition gpu");
    assert_eq!(text.nodes[3].state, "down*");
    assert!(!text.nodes[3].usable());
}

#[test]
fn local_calendar_times_and_mixed_formats_are_read() {
    let s = read("squeue-local-times.txt", "sinfo.txt", None).unwrap();
    let r = &s.running[0];
    assert_eq!((r.elapsed, r.gpus), (7200, 8), "%M is the time used; %b is per node");
    assert_eq!(s.pending[0].submit, s.taken_at - 3600);
    assert_eq!(s.pending[0].estimated_start, Some(s.taken_at + 3 * 3600));
    // squeue as JSON, sinfo as text.
    let m = read("squeue-23.11.json", "sinfo.txt", None).unwrap();
    assert_eq!((m.running.len(), m.nodes.len()), (1, 4));
}

#[test]
fn a_snapshot_with_no_running_jobs_is_fine_and_says_so() {
    let s = read("squeue-idle.txt", "sinfo.txt", None).unwrap();
    assert!(s.running.is_empty() && s.pending.is_empty());
    assert!(s.warnings(TAKEN + 60).is_empty());
    let summary = s.summary();
    assert!(summary.contains("running: 0 jobs on 0 GPUs"), "{summary}");
    assert!(summary.contains("4 nodes (3 usable), 14 GPUs, partitions debug, gpu"), "{summary}");
}

#[test]
fn a_snapshot_older_than_fifteen_minutes_gets_a_warning() {
    let s = read("squeue.txt", "sinfo.txt", None).unwrap();
    assert!(s.warnings(TAKEN + STALE_AFTER_S).is_empty());
    let w = s.warnings(TAKEN + 16 * 60);
    assert_eq!(w, [SnapshotWarning::Stale { age_s: 960 }]);
    assert!(w[0].to_string().starts_with("the snapshot is 16 min old (more than 15 min)"), "{}", w[0]);
    assert_eq!(s.warnings(TAKEN - 7200), [SnapshotWarning::FromFuture { ahead_s: 7200 }]);
}

#[test]
fn a_requested_job_must_name_a_known_partition_and_account_and_fit() {
    let s = read("squeue.txt", "sinfo.txt", None).unwrap();
    let job = |gpus, nodes, partition: &str, account: &str| SubmitRequest {
        gpus,
        nodes,
        partition: partition.into(),
        account: account.into(),
    };
    assert_eq!(s.check_request(&job(4, None, "gpu", "nlp"), &[]), Ok(()));
    assert_eq!(s.check_request(&job(12, Some(3), "gpu", "chem"), &["chem".into()]), Ok(()));
    assert_eq!(
        err_req(&s, job(1, None, "a100", "nlp")),
        "partition 'a100' is not in the snapshot; its partitions are: debug, gpu"
    );
    assert_eq!(err_req(&s, job(1, None, "gpu", "chem")), "account 'chem' is not known; known accounts: bio, cv, nlp");
    assert_eq!(
        err_req(&s, job(13, None, "gpu", "nlp")),
        "a job of 13 GPUs does not fit on partition 'gpu': its largest node has 4 GPUs and all 3 nodes together 12 GPUs"
    );
    assert!(matches!(
        s.check_request(&job(6, Some(1), "debug", "nlp"), &[]),
        Err(RequestError::TooLarge { largest_node: 4, total: 6, node_count: 2, .. })
    ));
}

fn err_req(s: &Snapshot, job: SubmitRequest) -> String {
    s.check_request(&job, &[]).unwrap_err().to_string()
}

#[test]
fn truncated_or_broken_json_names_the_file_line_and_column() {
    let e = err(read("squeue-truncated.json", "sinfo-22.05.json", Some(TAKEN)));
    assert!(e.starts_with("tests/fixtures/snapshot/squeue-truncated.json:"), "{e}");
    assert!(e.contains("the JSON ends early") && e.contains("the file is truncated"), "{e}");
    let broken = fixture("squeue-22.05.json").replacen("\"job_id\": 1002,", "\"job_id\": 1002", 1);
    let e = read_bytes(("q.json", broken.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)).unwrap_err();
    match e {
        SnapshotError::Json { line, ref message, .. } => {
            assert_eq!(line, 28, "job 1002's job_id is on line 27; the parser stops at the next line");
            assert!(message.starts_with("not valid JSON"), "{message}");
        }
        other => panic!("{other}"),
    }
    let e = err(read("sinfo-22.05.json", "sinfo-22.05.json", Some(TAKEN)));
    assert!(e.contains("no `jobs` list: is it `squeue --json`"), "{e}");
    let e = err(read("squeue-22.05.json", "squeue-22.05.json", Some(TAKEN)));
    assert!(e.contains("neither a `nodes` nor a `sinfo` list"), "{e}");
}

#[test]
fn a_bad_json_field_names_its_path_and_what_is_allowed() {
    let q = |from: &str, to: &str| {
        let text = fixture("squeue-22.05.json");
        assert!(text.contains(from), "{from}");
        let text = text.replacen(from, to, 1);
        err(read_bytes(("q.json", text.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)))
    };
    assert_eq!(
        q("\"time_limit\": 2880", "\"time_limit\": \"2 days\""),
        "q.json: jobs[0] (job 1001): time_limit '\"2 days\"' is not readable; allowed: a number, or {\"set\": \
         true|false, \"infinite\": true|false, \"number\": N} (Slurm 23.02 and later)"
    );
    let e =
        q("\"tres_req_str\": \"cpu=16,mem=128G,node=1,billing=16,gres/gpu=4\"", "\"tres_req_str\": \"gres/gpu=four\"");
    assert!(
        e.starts_with(
            "q.json: jobs[2] (job 1003): tres_req_str '\"gres/gpu=four\"' is not readable; allowed: GPU counts"
        ),
        "{e}"
    );
    let e = q("\"job_state\": \"RUNNING\",", "");
    assert!(e.contains("jobs[0] (job 1001): job_state 'null'") && e.contains("the field is missing"), "{e}");
    let e = q("\"submit_time\": 1764685000", "\"submit_time\": 0");
    assert!(e.contains("jobs[2] (job 1003): submit_time '0'"), "{e}");
    let e = q("\"priority\": 4300", "\"priority\": -3");
    assert!(e.contains("jobs[2] (job 1003): priority '-3'"), "{e}");
    let e = q("\"start_time\": 1764680400", "\"start_time\": 0");
    assert!(e.contains("jobs[0] (job 1001): start_time '(none)'"), "{e}");
    let n = |from: &str, to: &str| {
        let text = fixture("sinfo-23.11.json").replacen(from, to, 1);
        err(read_bytes(("q", fixture("squeue.txt").as_bytes()), ("n.json", text.as_bytes()), None))
    };
    assert!(n("\"maximum\": 8", "\"maximum\": 8.5").contains("n.json: sinfo[0].cpus: maximum '8.5'"));
    assert!(n("\"total\": \"gpu:4\"", "\"total\": \"gpu:4x\"").contains("sinfo[0].gres: total '\"gpu:4x\"'"));
}

#[test]
fn a_snapshot_must_say_when_it_was_taken() {
    let e = err(read("squeue-22.05.json", "sinfo-22.05.json", None));
    assert!(
        e.starts_with("tests/fixtures/snapshot/squeue-22.05.json: the snapshot does not say when it was taken"),
        "{e}"
    );
    let no_line = fixture("squeue.txt").replace("# taken_at 1764687600\n", "");
    assert!(matches!(
        read_bytes(("q", no_line.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), None),
        Err(SnapshotError::NoTime { .. })
    ));
    let e = err(nodes_text_with_queue("# taken_at soon\n"));
    assert!(e.starts_with("q: line 1: taken_at 'soon' is not readable"), "{e}");
}

fn nodes_text_with_queue(queue: &str) -> Result<Snapshot, SnapshotError> {
    read_bytes(("q", queue.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), None)
}

#[test]
fn a_truncated_text_line_names_the_line_and_the_command_that_writes_the_format() {
    let e = err(read("squeue-truncated.txt", "sinfo.txt", None));
    assert_eq!(
        e,
        "tests/fixtures/snapshot/squeue-truncated.txt:4: 7 fields where 12 are expected (truncated line?); take \
         the file with `SLURM_TIME_FORMAT=%s squeue -h -t PD,R,CG -o '%i|%T|%P|%a|%u|%Q|%V|%S|%l|%M|%D|%b'`"
    );
    let e = err(nodes_text("g1|idle|64|gpu:4\n"));
    assert!(
        e.starts_with("n:1: 4 fields where 5 are expected") && e.contains("sinfo -h -N -o '%N|%T|%c|%G|%P'"),
        "{e}"
    );
}

#[test]
fn a_bad_text_field_names_the_line_the_field_and_what_is_allowed() {
    // Line `n` of squeue.txt (2 is running job 1001, 5 pending job 1003) with field `f` replaced.
    let edit = |n: usize, f: usize, value: &str| {
        let text = fixture("squeue.txt");
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        let mut fields: Vec<&str> = lines[n - 1].split('|').collect();
        fields[f] = value;
        lines[n - 1] = fields.join("|");
        err(queue_text(&lines.join("\n")))
    };
    let line2 = |f: usize, value: &str| edit(2, f, value);
    assert_eq!(
        line2(8, "2-xx:00:00"),
        "q: line 2: %l time limit '2-xx:00:00' is not readable; allowed: [days-]hours:minutes:seconds, \
         minutes:seconds, minutes, or UNLIMITED"
    );
    assert!(line2(9, "soon").starts_with("q: line 2: %M time used 'soon'"));
    assert!(line2(10, "two").starts_with("q: line 2: %D node count 'two' is not readable; allowed: a whole number"));
    assert!(
        line2(11, "gres:gpu:a100:many")
            .starts_with("q: line 2: %b GRES per node 'gres:gpu:a100:many' is not readable; allowed: GPU counts")
    );
    assert!(edit(5, 5, "high").starts_with("q: line 5: %Q priority 'high' is not readable; allowed: a whole number"));
    assert!(line2(7, "yesterday").contains("%S start time 'yesterday' is not readable; allowed: Unix seconds"));
    assert!(line2(1, "").starts_with("q: line 2: %T state '' is not readable"));
    let pending_without_submit = fixture("squeue.txt").replace("4300|1764685000|", "4300|N/A|");
    assert!(err(queue_text(&pending_without_submit)).starts_with("q: line 5: %V submit time 'N/A'"));
    let e = err(nodes_text("g1|idle|lots|gpu:4|gpu\n"));
    assert!(e.starts_with("n: line 1: %c CPUs 'lots' is not readable"), "{e}");
    assert!(err(nodes_text("g1|idle|8|gpu:4x|gpu\n")).starts_with("n: line 1: %G GRES 'gpu:4x'"));
    assert!(err(nodes_text("|idle|8|gpu:4|gpu\n")).starts_with("n: line 1: %N node name"));
}

#[test]
fn empty_missing_and_utf16_files_are_named() {
    let e = err(nodes_text("\n\n"));
    assert_eq!(e, "n: the file is empty");
    let e = err(nodes_text("# only a comment\n"));
    assert!(e.starts_with("n: no nodes: take the file with `sinfo -h -N -o"), "{e}");
    let e = err(read("no-such-squeue.json", "sinfo.txt", None));
    assert!(e.starts_with("could not read snapshot file 'tests/fixtures/snapshot/no-such-squeue.json'"), "{e}");
    let utf16: Vec<u8> = fixture("sinfo.txt").encode_utf16().flat_map(u16::to_le_bytes).collect();
    let e = err(read_bytes(("q", fixture("squeue.txt").as_bytes()), ("n.txt", &utf16), None));
    assert!(e.starts_with("n.txt is UTF-16 (little-endian) text"), "{e}");
}

#[test]
fn every_truncation_of_every_fixture_is_read_or_refused_never_a_panic() {
    for name in
        ["squeue-22.05.json", "squeue-23.11.json", "squeue.txt", "sinfo-22.05.json", "sinfo-23.11.json", "sinfo.txt"]
    {
        let full = fixture(name);
        // A JSON document ends at its last brace; cut before it, it is never whole.
        let text = if name.ends_with(".json") { full.trim_end() } else { full.as_str() };
        let is_queue = name.starts_with("squeue");
        let (queue, nodes) = (fixture("squeue.txt"), fixture("sinfo.txt"));
        for cut in 0..text.len() {
            let part = &text.as_bytes()[..cut];
            let r = if is_queue {
                read_bytes(("q", part), ("n", nodes.as_bytes()), Some(TAKEN))
            } else {
                read_bytes(("q", queue.as_bytes()), ("n", part), None)
            };
            // A JSON file cut anywhere is refused; a text file cut at a line end is whole.
            if name.ends_with(".json") {
                assert!(r.is_err(), "{name} cut at {cut} was accepted");
            }
        }
    }
}

// Snapshots as Slurm writes them (issue 44, item 4): each defect found by trying the
// reader as a careful user would, refused or warned with the file, the line and the field.

#[test]
fn slurm_22_05_state_flags_make_drained_and_not_responding_nodes_unusable() {
    // 22.05 writes the base state in `state` and the flags apart (Slurm's
    // node_state_flag_string_single): an idle node with DRAIN is drained, an allocated
    // one draining; neither takes a new job, and a not-responding node neither.
    let with_flags = |node: &str, state: &str, flags: &str| {
        let text = fixture("sinfo-22.05.json");
        let from = format!("{{\"name\": \"{node}\", \"state\": \"");
        let at = text.find(&from).unwrap();
        let line_end = at + text[at..].find('\n').unwrap();
        let old = &text[at..line_end];
        let old_state = old.split("\"state\": \"").nth(1).unwrap().split('"').next().unwrap();
        let new = old
            .replace(&format!("\"state\": \"{old_state}\""), &format!("\"state\": \"{state}\""))
            .replace("\"state_flags\": []", &format!("\"state_flags\": [{flags}]"));
        let edited = text.replace(old, &new);
        read_bytes(("q", fixture("squeue.txt").as_bytes()), ("n.json", edited.as_bytes()), None).unwrap()
    };
    let s = with_flags("g3", "idle", "\"DRAIN\"");
    assert_eq!(s.nodes[2].state, "idle+drain");
    assert!(!s.nodes[2].usable() && !s.nodes[2].runs_jobs(), "drained: no jobs at all");
    let s = with_flags("g2", "allocated", "\"DRAIN\"");
    assert!(!s.nodes[1].usable() && s.nodes[1].runs_jobs(), "draining: runs its jobs, takes no new one");
    let s = with_flags("g1", "mixed", "\"NOT_RESPONDING\"");
    assert_eq!(s.nodes[0].state, "mixed+not_responding");
    assert!(!s.nodes[0].usable());
    let s = with_flags("g1", "idle", "\"MAINTENANCE\", \"RESERVED\"");
    assert!(!s.nodes[0].usable());
    let s = with_flags("g1", "idle", "");
    assert!(s.nodes[0].usable(), "no flags: the base state decides");
}

#[test]
fn running_jobs_holding_more_gpus_than_their_partition_are_refused() {
    // Partition gpu has g1–g3, 12 GPUs; job 1001 on line 2 holds 8 of them. 64 GPUs
    // (8 nodes × 8) cannot be running there: another cluster's files, or a misread count.
    let text = fixture("squeue.txt").replace("|2|gres:gpu:4\n", "|8|gres:gpu:8\n");
    let e = err(queue_text(&text));
    assert_eq!(
        e,
        "q: line 2: the running jobs of partition 'gpu' hold 64 GPUs up to this job (%b GRES per node × %D nodes), \
         more than the 12 GPUs of its 3 nodes in n: are the squeue and sinfo files of the same cluster and moment, \
         and is the GPU count read right?"
    );
    // The sum counts: 8 + 1 + 4 (the completing job made 4 GPUs) passes 12 at line 4.
    let text = fixture("squeue.txt").replace("|1|gpu:a100:1\n", "|1|gpu:a100:4\n");
    let e = err(queue_text(&text));
    assert!(e.starts_with("q: line 4: the running jobs of partition 'gpu' hold 13 GPUs"), "{e}");
    // JSON: the path of the job and the TRES field.
    let json = fixture("squeue-22.05.json").replace("node=2,billing=64,gres/gpu=8", "node=2,billing=64,gres/gpu=64");
    let e = err(read_bytes(("q.json", json.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)));
    assert!(e.starts_with("q.json: jobs[0] (job 1001): the running jobs of partition 'gpu' hold 64 GPUs"), "{e}");
    assert!(e.contains("(tres_alloc_str)"), "{e}");
    // Exactly full is fine.
    let full = fixture("squeue.txt").replace("|1|gpu:a100:1\n", "|1|gpu:a100:3\n");
    assert!(queue_text(&full).is_ok());
}

#[test]
fn a_job_id_listed_twice_is_refused_naming_both_places() {
    // Two squeue outputs joined: every job counted twice would double the wait.
    let text = fixture("squeue.txt");
    let joined = format!("{text}{}", text.lines().skip(1).collect::<Vec<_>>().join("\n"));
    let e = err(queue_text(&joined));
    assert_eq!(
        e,
        "q: line 8: job 1001 is listed again (first at line 2): are two squeue outputs joined in one file? take the \
         snapshot again with one squeue command"
    );
    // A pending job listed twice, too (the running ones differ).
    let text = fixture("squeue.txt").replace("1004|PENDING", "1003|PENDING");
    assert!(err(queue_text(&text)).starts_with("q: line 6: job 1003 is listed again (first at line 5)"));
    let json = fixture("squeue-22.05.json").replace("\"job_id\": 1004,", "\"job_id\": 1003,");
    let e = err(read_bytes(("q.json", json.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)));
    assert!(e.starts_with("q.json: jobs[3] (job 1003): job 1003 is listed again (first at jobs[2] (job 1003))"), "{e}");
}

#[test]
fn numbers_out_of_range_are_refused_not_wrapped() {
    // 4294967298 = 2^32 + 2 was read as 2 nodes.
    let text = fixture("squeue.txt").replace("|2:00:00|2|gres:gpu:4", "|2:00:00|4294967298|gres:gpu:4");
    let e = err(queue_text(&text));
    assert_eq!(
        e,
        "q: line 2: %D node count '4294967298' is not readable; allowed: a whole number from 0 to 4294967295"
    );
    let json = fixture("squeue-22.05.json").replacen("\"node_count\": 2,", "\"node_count\": 4294967298,", 1);
    let e = err(read_bytes(("q.json", json.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)));
    assert_eq!(
        e,
        "q.json: jobs[0] (job 1001): node_count '4294967298' is not readable; allowed: a whole number from 0 to \
         4294967295"
    );
    // GPUs per node × nodes past 32 bits, a time limit past 32 bits of minutes, CPUs, times.
    let text = fixture("squeue.txt").replace("|0:00|1|gres:gpu:a100:4", "|0:00|2147483648|gres:gpu:a100:4");
    assert!(err(queue_text(&text)).starts_with("q: line 5: %b GRES per node 'gres:gpu:a100:4'"));
    let json = fixture("squeue-22.05.json").replacen("\"time_limit\": 2880,", "\"time_limit\": 1e19,", 1);
    let e = err(read_bytes(("q.json", json.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)));
    assert!(e.starts_with("q.json: jobs[0] (job 1001): time_limit"), "{e}");
    assert!(err(nodes_text("g1|idle|4294967296|gpu:4|gpu\n")).starts_with("n: line 1: %c CPUs '4294967296'"));
    let text = fixture("squeue.txt").replace("4300|1764685000|", "4300|99999999999999|");
    assert!(err(queue_text(&text)).starts_with("q: line 5: %V submit time '99999999999999' is not readable"));
    // Slurm's own sentinels for "no limit" are no limit.
    let json = fixture("squeue-22.05.json").replacen("\"time_limit\": 2880,", "\"time_limit\": 4294967295,", 1);
    let s = read_bytes(("q.json", json.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)).unwrap();
    assert_eq!(s.running[0].limit, None);
}

#[test]
fn a_job_far_past_its_limit_or_started_after_the_snapshot_is_warned_about() {
    let clean = queue_text(&fixture("squeue.txt")).unwrap();
    assert!(clean.notes.is_empty() && clean.warnings(TAKEN).is_empty());
    // Job 1002 (line 3): a 4 h limit, run for 22 h.
    let text = fixture("squeue.txt").replace("|4:00:00|1:00:00|1|gres/gpu:1", "|4:00:00|22:00:00|1|gres/gpu:1");
    let s = queue_text(&text).unwrap();
    assert_eq!(
        s.notes,
        vec![SnapshotWarning::OverLimit {
            file: "q".into(),
            at: "line 3".into(),
            job: "1002".into(),
            over_s: 18 * 3600
        }]
    );
    let w = s.warnings(TAKEN)[0].to_string();
    assert!(w.starts_with("q: line 3: job 1002 has run 18 h past its time limit"), "{w}");
    // Within the quarter hour Slurm may take to end it: no warning.
    let text = fixture("squeue.txt").replace("|4:00:00|1:00:00|1|gres/gpu:1", "|4:00:00|4:10:00|1|gres/gpu:1");
    assert!(queue_text(&text).unwrap().notes.is_empty());
    // A start two hours after the snapshot (JSON), a submission an hour after (text).
    let json = fixture("squeue-22.05.json").replacen("\"start_time\": 1764684000,", "\"start_time\": 1764694800,", 1);
    let s = read_bytes(("q.json", json.as_bytes()), ("n", fixture("sinfo.txt").as_bytes()), Some(TAKEN)).unwrap();
    let w: Vec<String> = s.warnings(TAKEN).iter().map(ToString::to_string).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].starts_with("q.json: jobs[1] (job 1002): job 1002's start_time lies 2 h after the snapshot"), "{w:?}");
    let text = fixture("squeue.txt").replace("4300|1764685000|", "4300|1764691200|");
    let w = queue_text(&text).unwrap().warnings(TAKEN)[0].to_string();
    assert!(w.starts_with("q: line 5: job 1003's %V submit time lies 60 min after the snapshot"), "{w}");
}

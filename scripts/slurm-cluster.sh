#!/usr/bin/env bash
# A 4-node Slurm cluster on this one machine, for checking burstsim against a real Slurm
# (docs/VALIDATION.md, "A real Slurm on one machine").
#
#   scripts/slurm-cluster.sh start    # install (Debian's Slurm 22.05) if needed, start, wait for idle nodes
#   scripts/slurm-cluster.sh status   # daemons, nodes, queue
#   scripts/slurm-cluster.sh stop     # stop the daemons by their PID files
#   eval "$(scripts/slurm-cluster.sh env)"   # SLURM_CONF for sbatch/squeue/scontrol
#
# The cluster: NodeName=n[1-4], each "8 CPUs" (CPUs stand in for GPUs; SlurmdParameters=
# config_overrides lets slurmd claim them on a 2-core machine), one partition `campus`,
# select/cons_tres with CR_Core, sched/backfill, priority/multifactor with explicit weights,
# job completion records in a text file (jobcomp/filetxt; there is no slurmdbd, so no sacct).
# Everything it writes (config, munge key and socket, state, spool, logs, PID files) is under
# $BURSTSIM_SLURM_DIR (default: target/slurm-test in the checkout, which git ignores).
# Daemons run as root, each with its own PID file; `stop` signals only those PIDs.
#
# Accounting (optional): BURSTSIM_SLURM_ACCOUNTING=classic or fairtree also installs
# mariadb-server and slurmdbd, runs mariadbd (datadir, socket, PID file under $DIR/mysql and
# $DIR/run, TCP on 127.0.0.1 only) and slurmdbd (slurmdbd.conf mode 600), stores accounting
# with AccountingStorageType=accounting_storage/slurmdbd, creates the accounts of
# BURSTSIM_SLURM_ACCOUNTS ("name:fairshare,...", default group:1,others:1) with user root
# in each, and turns on fair-share: PriorityWeightFairshare=10000, decay half-life
# BURSTSIM_SLURM_HALF_LIFE (default 0-0:10), classic fair-share (PriorityFlags=NO_FAIR_TREE)
# or Fair Tree. Each accounting start begins with an empty database and no usage. Unset
# (the default) = no database, exactly as before.
#
# GPUs (optional): BURSTSIM_SLURM_GPUS=N gives every node N GPUs as GRES: GresTypes=gpu,
# Gres=gpu:N on the NodeName line, and a gres.conf beside slurm.conf with
# `NodeName=n[1-4] Name=gpu File=$DIR/dev/gpu[0-N-1]`, N character devices that are
# /dev/null (major 1, minor 3; made with mknod, shared by the 4 nodes). Count-only GPUs
# (`Count=N`, no File=) do not work with Debian's 22.05: slurmd reports 0 GPUs and
# slurmctld drains every node ("gres/gpu count reported lower than configured (0 < 8)").
# Jobs ask for them with --gres=gpu:K; squeue's %b and scontrol show node show them. The
# CPUs stay (8 per node). GPUs are not a TRES here (AccountingStorageTRES=gres/gpu needs
# slurmdbd), so squeue --json's tres_alloc_str/tres_req_str do not name them; tres_per_node
# (gres:gpu:K) does. Unset (the default) = no GRES, no gres.conf, and a slurm.conf
# byte-identical to before.
#
# Exit codes: 0 done; 2 usage; 3 not root; 4 no apt-get or the packages cannot be
# installed; 5 installed but the daemons did not come up (see the log tail printed);
# 6 (status only) not running. Scheduling knobs can be changed with environment variables
# (BURSTSIM_SLURM_BF_INTERVAL, …) before `start`; `status` prints the ones in force.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${BURSTSIM_SLURM_DIR:-$ROOT/target/slurm-test}
NODES=4
CPUS=${BURSTSIM_SLURM_CPUS:-8}
PORT=${BURSTSIM_SLURM_PORT:-16817}   # slurmctld; slurmd of node k listens on PORT+k
BF_INTERVAL=${BURSTSIM_SLURM_BF_INTERVAL:-2}
CONF=$DIR/etc/slurm.conf
SLURM_SBIN=${BURSTSIM_SLURM_SBIN:-/usr/sbin}
ACCOUNTING=${BURSTSIM_SLURM_ACCOUNTING:-}
ACCOUNTS=${BURSTSIM_SLURM_ACCOUNTS:-group:1,others:1}
HALF_LIFE=${BURSTSIM_SLURM_HALF_LIFE:-0-0:10}
DBD_PORT=$((PORT + NODES + 1))   # slurmdbd
DB_PORT=$((PORT + NODES + 2))    # mariadbd, 127.0.0.1 only
DBDCONF=$DIR/etc/slurmdbd.conf
GPUS=${BURSTSIM_SLURM_GPUS:-}

say() { echo "slurm-cluster: $*"; }
die() { local code=$1; shift; echo "slurm-cluster: $*" >&2; exit "$code"; }
# The daemons did not come up: stop whatever this start did launch, then exit 5.
fail() { echo "slurm-cluster: $*" >&2; echo "slurm-cluster: stopping what was started" >&2; stop >&2; exit 5; }

alive() { [[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

need_root() {
  [[ $(id -u) -eq 0 ]] || die 3 "cannot set up: must run as root (slurmd and munged run as root here); uid is $(id -u)"
}

install_packages() {
  local missing=()
  for b in munged mungekey slurmctld slurmd sbatch squeue scontrol sinfo; do
    command -v "$b" >/dev/null 2>&1 || [[ -x $SLURM_SBIN/$b ]] || missing+=("$b")
  done
  local extra=()
  # scripts/slurm-replay.py (the job-list driver) needs Python 3.
  command -v python3 >/dev/null 2>&1 || { missing+=(python3); extra+=(python3); }
  if [[ -n $ACCOUNTING ]]; then
    for b in mariadbd mariadb-install-db mariadb slurmdbd sacctmgr; do
      command -v "$b" >/dev/null 2>&1 || [[ -x $SLURM_SBIN/$b ]] || { missing+=("$b"); extra+=(mariadb-server slurmdbd); }
    done
  fi
  if [[ ${#missing[@]} -eq 0 ]]; then
    say "Slurm $(slurmctld -V 2>/dev/null | awk '{print $2}') and munge are installed"
    return 0
  fi
  command -v apt-get >/dev/null 2>&1 || die 4 "cannot set up: ${missing[*]} missing and there is no apt-get to install them"
  say "installing slurmctld slurmd slurm-client munge ${extra[*]} with apt-get (missing: ${missing[*]})"
  local log=$DIR/log/apt.log
  if ! { timeout 600 apt-get update -qq && DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq \
        --no-install-recommends slurmctld slurmd slurm-client munge "${extra[@]}"; } >"$log" 2>&1; then
    tail -n 5 "$log" >&2
    die 4 "cannot set up: apt-get could not install slurmctld slurmd slurm-client munge (log: $log)"
  fi
  command -v slurmctld >/dev/null 2>&1 || [[ -x $SLURM_SBIN/slurmctld ]] \
    || die 4 "cannot set up: apt-get finished but slurmctld is still missing (log: $log)"
  say "installed Slurm $(slurmctld -V | awk '{print $2}')"
}

# The accounting storage lines of slurm.conf.
accounting_lines() {
  if [[ -z $ACCOUNTING ]]; then
    echo "AccountingStorageType=accounting_storage/none"
    return
  fi
  cat <<EOF
# Accounting through slurmdbd (on mariadbd), which fair-share and age need:
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$DBD_PORT
AccountingStorageEnforce=associations
# The munge socket for connections to slurmdbd (AuthInfo does not reach them):
AccountingStoragePass=$DIR/run/munge.socket
EOF
}

# The priority lines of slurm.conf.
priority_lines() {
  if [[ -z $ACCOUNTING ]]; then
    cat <<'EOF'
# Priority: multifactor with explicit weights, all zero. Without slurmdbd Slurm 22.05 ignores
# the age and fair-share factors ("PriorityWeightAge can only be used with SlurmDBD"), and job
# size or partition weights would stop it being FIFO, so every job gets priority 1 and the
# queue order is submission order (equal priorities are ordered by job id).
PriorityType=priority/multifactor
PriorityWeightAge=0
PriorityWeightFairshare=0
PriorityWeightJobSize=0
PriorityWeightPartition=0
PriorityWeightQOS=0
PriorityWeightAssoc=0
PriorityMaxAge=1-0
PriorityCalcPeriod=1
EOF
    return
  fi
  local flags="# Fair Tree (Slurm's default since 19.05): no PriorityFlags."
  [[ $ACCOUNTING == classic ]] && flags="# Classic fair-share 2^(-U/S) instead of Fair Tree:
PriorityFlags=NO_FAIR_TREE"
  cat <<EOF
# Priority: fair-share only (the other weights zero), usage decaying with the half-life;
# equal priorities are ordered by job id.
PriorityType=priority/multifactor
$flags
PriorityWeightAge=0
PriorityWeightFairshare=10000
PriorityWeightJobSize=0
PriorityWeightPartition=0
PriorityWeightQOS=0
PriorityWeightAssoc=0
PriorityMaxAge=1-0
PriorityDecayHalfLife=$HALF_LIFE
PriorityCalcPeriod=1
EOF
}

# With BURSTSIM_SLURM_GPUS: the GresTypes lines of slurm.conf, each after a newline, so
# that without GPUs nothing at all (not even an empty line) is added.
gres_types_lines() {
  [[ -n $GPUS ]] || return 0
  printf '\n%s\n%s' "# GPUs as GRES (BURSTSIM_SLURM_GPUS; gres.conf beside this file):" "GresTypes=gpu"
}

# With BURSTSIM_SLURM_GPUS: the NodeName line's Gres= field, with its leading space.
gres_node_field() {
  [[ -z $GPUS ]] || echo " Gres=gpu:$GPUS"
}

# gres.conf beside slurm.conf, and the GPUs' device files (null devices: slurmd needs a
# File= per GPU, see the header); without GPUs, neither.
write_gres_conf() {
  local gres k
  gres=$(dirname "$1")/gres.conf
  rm -rf "$DIR/dev"
  if [[ -z $GPUS ]]; then
    rm -f "$gres"
    return 0
  fi
  mkdir -p "$DIR/dev"
  for k in $(seq 0 $((GPUS - 1))); do
    mknod "$DIR/dev/gpu$k" c 1 3 || die 5 "cannot set up: mknod $DIR/dev/gpu$k (a null device for GPU $k) failed"
  done
  cat >"$gres" <<EOF
# Generated by scripts/slurm-cluster.sh (BURSTSIM_SLURM_GPUS=$GPUS): $GPUS GPUs per node, each
# a null device (count-only GPUs are refused by slurmd 22.05: it reports 0).
NodeName=n[1-$NODES] Name=gpu File=$DIR/dev/gpu[0-$((GPUS - 1))]
EOF
}

write_config() {
  local conf=${1:-$CONF}
  mkdir -p "$DIR"/{etc,state,log,run,munge,spool}
  chmod 700 "$DIR/munge"
  if [[ ! -s $DIR/munge/munge.key ]]; then
    mungekey --create --keyfile="$DIR/munge/munge.key" >/dev/null 2>&1 \
      || dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 2>/dev/null
    chmod 600 "$DIR/munge/munge.key"
    say "created a munge key for this cluster: $DIR/munge/munge.key"
  fi
  cat >"$conf" <<EOF
# Generated by scripts/slurm-cluster.sh: a 4-node Slurm 22.05 cluster on one machine.
ClusterName=burstsim
SlurmctldHost=localhost
SlurmctldPort=$PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$DIR/run/munge.socket
CryptoType=crypto/munge
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
$(accounting_lines)
# Start and end of every job, without a database (read by scripts/slurm-replay.py):
JobCompType=jobcomp/filetxt
JobCompLoc=$DIR/log/jobcomp.txt
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
# Log every backfill decision (why a job did or did not start) to slurmctld.log:
DebugFlags=Backfill
ReturnToService=2
SlurmctldTimeout=60
SlurmdTimeout=300
InactiveLimit=0
KillWait=5
Waittime=0
# Finished jobs leave squeue/scontrol after this many seconds:
MinJobAge=5
# Fake CPU counts (8 per node on a 2-core machine), as FastSchedule=2 did before 20.02:
SlurmdParameters=config_overrides
# Placement: cons_tres, one core = one CPU = one "GPU" of burstsim.
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Scheduling: the main scheduler runs on submit and job end; backfill every bf_interval s,
# planning at 1 s resolution (the default 60 s is coarser than our compressed runtimes).
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=$BF_INTERVAL,bf_resolution=1,bf_window=60,bf_max_job_test=500,bf_continue
$(priority_lines)$(gres_types_lines)
# Memory is not a consumable resource here (CR_Core); 16 GB per node lets jobs ask for
# memory the way scenarios/slurm-array.sh does (--mem=4G).
NodeName=n[1-$NODES] NodeHostname=localhost NodeAddr=127.0.0.1 Port=[$((PORT + 1))-$((PORT + NODES))] CPUs=$CPUS Sockets=1 CoresPerSocket=$CPUS ThreadsPerCore=1 RealMemory=16000$(gres_node_field) State=UNKNOWN
PartitionName=campus Nodes=n[1-$NODES] Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
  [[ $conf == "$CONF" ]] || return 0
  write_gres_conf "$conf"
  say "wrote $CONF (${NODES} nodes x $CPUS CPUs${GPUS:+ x $GPUS GPUs}, bf_interval=$BF_INTERVAL, ports $PORT-$((PORT + NODES)))"
}

start_munge() {
  if alive "$DIR/run/munged.pid"; then
    say "munged already running (pid $(cat "$DIR/run/munged.pid"))"
    return
  fi
  rm -f "$DIR/run/munge.socket" "$DIR/run/munge.socket.lock"
  "$SLURM_SBIN/munged" --force --socket="$DIR/run/munge.socket" --key-file="$DIR/munge/munge.key" \
    --pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" --seed-file="$DIR/munge/munged.seed" \
    >>"$DIR/log/munged.log" 2>&1 || { tail -n 5 "$DIR/log/munged.log" >&2; fail "cannot set up: munged did not start"; }
  for _ in $(seq 50); do alive "$DIR/run/munged.pid" && break; sleep 0.1; done
  alive "$DIR/run/munged.pid" || fail "cannot set up: munged did not write its PID file"
  say "started munged --force (pid $(cat "$DIR/run/munged.pid"), socket $DIR/run/munge.socket)"
}

MYSQL_SOCK=$DIR/run/mysqld.sock
db() { mariadb --no-defaults --socket="$MYSQL_SOCK" -u root "$@"; }

# mariadbd on a fresh datadir under $DIR/mysql, TCP on 127.0.0.1:$DB_PORT for slurmdbd, and
# a database user `slurm` with a random password (written only to slurmdbd.conf, mode 600).
start_mariadb() {
  if alive "$DIR/run/mariadbd.pid"; then
    say "mariadbd already running (pid $(cat "$DIR/run/mariadbd.pid"))"
    return
  fi
  rm -rf -- "$DIR/mysql"
  mkdir -p "$DIR/mysql"
  mariadb-install-db --no-defaults --user=root --datadir="$DIR/mysql" --auth-root-authentication-method=socket \
    --skip-test-db >"$DIR/log/mariadb-install-db.log" 2>&1 \
    || { tail -n 5 "$DIR/log/mariadb-install-db.log" >&2; fail "cannot set up: mariadb-install-db failed"; }
  rm -f "$MYSQL_SOCK"
  setsid "$(command -v mariadbd)" --no-defaults --user=root --datadir="$DIR/mysql" --socket="$MYSQL_SOCK" \
    --pid-file="$DIR/run/mariadbd.pid" --port="$DB_PORT" --bind-address=127.0.0.1 \
    --log-error="$DIR/log/mariadbd.log" --innodb-buffer-pool-size=32M </dev/null >/dev/null 2>&1 &
  for _ in $(seq 100); do alive "$DIR/run/mariadbd.pid" && db -e 'select 1' >/dev/null 2>&1 && break; sleep 0.2; done
  alive "$DIR/run/mariadbd.pid" || { tail -n 5 "$DIR/log/mariadbd.log" >&2; fail "cannot set up: mariadbd did not start"; }
  local pass
  pass=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  db -e "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';" \
    || fail "cannot set up: could not create the database user"
  (umask 077; cat >"$DBDCONF" <<EOF
# Generated by scripts/slurm-cluster.sh: slurmdbd for the one-machine cluster.
AuthType=auth/munge
AuthInfo=socket=$DIR/run/munge.socket
DbdHost=localhost
DbdPort=$DBD_PORT
SlurmUser=root
PidFile=$DIR/run/slurmdbd.pid
LogFile=$DIR/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$pass
StorageLoc=slurm_acct_db
EOF
  )
  chmod 600 "$DBDCONF"
  say "started mariadbd (pid $(cat "$DIR/run/mariadbd.pid"), 127.0.0.1:$DB_PORT, datadir $DIR/mysql)"
}

# slurmdbd (it reads slurmdbd.conf beside $SLURM_CONF), then the cluster, the accounts with
# their shares and user root in each.
start_slurmdbd() {
  if alive "$DIR/run/slurmdbd.pid"; then
    say "slurmdbd already running (pid $(cat "$DIR/run/slurmdbd.pid"))"
    return
  fi
  SLURM_CONF=$CONF "$SLURM_SBIN/slurmdbd" >>"$DIR/log/slurmdbd.log" 2>&1 \
    || { tail -n 8 "$DIR/log/slurmdbd.log" >&2; fail "cannot set up: slurmdbd did not start"; }
  for _ in $(seq 100); do
    alive "$DIR/run/slurmdbd.pid" && SLURM_CONF=$CONF sacctmgr -n list cluster >/dev/null 2>&1 && break
    sleep 0.2
  done
  alive "$DIR/run/slurmdbd.pid" || { tail -n 8 "$DIR/log/slurmdbd.log" >&2; fail "cannot set up: slurmdbd exited"; }
  say "started slurmdbd (pid $(cat "$DIR/run/slurmdbd.pid"), port $DBD_PORT)"
  local sam=(env SLURM_CONF="$CONF" sacctmgr -i -Q)
  "${sam[@]}" add cluster burstsim >/dev/null || fail "cannot set up: sacctmgr add cluster failed"
  local a name share names=()
  IFS=, read -ra accts <<<"$ACCOUNTS"
  for a in "${accts[@]}"; do
    name=${a%%:*} share=${a#*:}
    [[ -n $name && $share =~ ^[0-9]+$ && $a == *:* ]] || fail "cannot set up: BURSTSIM_SLURM_ACCOUNTS entry '$a' is not name:shares"
    "${sam[@]}" add account "$name" cluster=burstsim fairshare="$share" >/dev/null \
      || fail "cannot set up: sacctmgr add account $name failed"
    names+=("$name")
  done
  "${sam[@]}" add user root account="$(IFS=,; echo "${names[*]}")" cluster=burstsim >/dev/null \
    || fail "cannot set up: sacctmgr add user root failed"
  say "accounts with shares: $ACCOUNTS (user root in each)"
}

node_states() { SLURM_CONF=$CONF sinfo -h -N -o '%N %T' 2>/dev/null | sort -u; }

start() {
  need_root
  mkdir -p "$DIR/log"
  install_packages
  local all=1
  alive "$DIR/run/slurmctld.pid" || all=0
  for k in $(seq $NODES); do alive "$DIR/run/slurmd-n$k.pid" || all=0; done
  if [[ -n $ACCOUNTING ]]; then
    alive "$DIR/run/slurmdbd.pid" || all=0
    alive "$DIR/run/mariadbd.pid" || all=0
  fi
  if [[ $all -eq 1 ]] && alive "$DIR/run/munged.pid"; then
    say "already running (slurmctld pid $(cat "$DIR/run/slurmctld.pid")); nothing to do"
    write_config "$CONF.new" >/dev/null
    if ! cmp -s "$CONF" "$CONF.new"; then
      say "WARNING: the running cluster's $CONF differs from what start would write now; run stop, then start"
    fi
    rm -f "$CONF.new"
    say "export SLURM_CONF=$CONF"
    return 0
  fi
  if ! alive "$DIR/run/slurmctld.pid"; then
    write_config
  else
    say "slurmctld is running: keeping $CONF"
  fi
  if ! alive "$DIR/run/slurmctld.pid" && command -v ss >/dev/null 2>&1; then
    for p in $(seq "$PORT" $((PORT + NODES))); do
      ss -ltn "sport = :$p" 2>/dev/null | grep -q LISTEN \
        && die 5 "cannot set up: port $p is already in use (another cluster?); set BURSTSIM_SLURM_PORT to a free base port"
    done
  fi
  start_munge
  export SLURM_CONF=$CONF
  if [[ -n $ACCOUNTING ]]; then
    start_mariadb
    start_slurmdbd
  fi
  if alive "$DIR/run/slurmctld.pid"; then
    say "slurmctld already running (pid $(cat "$DIR/run/slurmctld.pid"))"
  else
    # With accounting, usage and the decay clock are kept in the state folder
    # (assoc_usage, priority_last_decay_ran); the database is new, so they go too: every
    # accounting start begins with no usage and the decay thread's first run at startup.
    [[ -n $ACCOUNTING ]] && rm -rf -- "${DIR:?}/state" && mkdir -p "$DIR/state"
    # -c: start from an empty state (no jobs from an earlier run); -i: ignore lost state.
    "$SLURM_SBIN/slurmctld" -c -i -f "$CONF" >>"$DIR/log/slurmctld.log" 2>&1 \
      || { tail -n 8 "$DIR/log/slurmctld.log" >&2; fail "cannot set up: slurmctld did not start"; }
    for _ in $(seq 100); do alive "$DIR/run/slurmctld.pid" && scontrol ping >/dev/null 2>&1 && break; sleep 0.1; done
    alive "$DIR/run/slurmctld.pid" || { tail -n 8 "$DIR/log/slurmctld.log" >&2; fail "cannot set up: slurmctld exited"; }
    say "started slurmctld (pid $(cat "$DIR/run/slurmctld.pid"), port $PORT)"
  fi
  for k in $(seq $NODES); do
    local pidf=$DIR/run/slurmd-n$k.pid
    if alive "$pidf"; then
      say "slurmd -N n$k already running (pid $(cat "$pidf"))"
      continue
    fi
    mkdir -p "$DIR/spool/n$k"
    "$SLURM_SBIN/slurmd" -N "n$k" -f "$CONF" >>"$DIR/log/slurmd-n$k.log" 2>&1 \
      || { tail -n 8 "$DIR/log/slurmd-n$k.log" >&2; fail "cannot set up: slurmd -N n$k did not start"; }
    for _ in $(seq 50); do alive "$pidf" && break; sleep 0.1; done
    alive "$pidf" || { tail -n 8 "$DIR/log/slurmd-n$k.log" >&2; fail "cannot set up: slurmd -N n$k exited"; }
    say "started slurmd -N n$k (pid $(cat "$pidf"), port $((PORT + k)))"
  done
  # Wait until every node is idle (a node that registers late starts as down/unknown).
  local states=""
  for i in $(seq 60); do
    states=$(node_states)
    [[ $(grep -c ' idle$' <<<"$states") -eq $NODES ]] && break
    if ((i % 10 == 0)); then
      SLURM_CONF=$CONF scontrol update nodename="n[1-$NODES]" state=resume >/dev/null 2>&1 || true
    fi
    sleep 0.5
  done
  if [[ $(grep -c ' idle$' <<<"$states") -ne $NODES ]]; then
    echo "$states" >&2
    tail -n 8 "$DIR/log/slurmctld.log" >&2
    fail "cannot set up: the nodes did not all become idle"
  fi
  say "all $NODES nodes idle: $(echo "$states" | tr '\n' ' ')"
  say "export SLURM_CONF=$CONF"
}

stop_pidfile() {
  local name=$1 pidf=$2
  if ! alive "$pidf"; then
    [[ -e $pidf ]] && rm -f "$pidf"
    say "$name not running"
    return
  fi
  local pid
  pid=$(cat "$pidf")
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null
    say "$name (pid $pid) did not stop in 10 s: killed"
  else
    say "stopped $name (pid $pid)"
  fi
  rm -f "$pidf"
}

stop() {
  [[ -d $DIR/run ]] || { say "nothing to stop ($DIR/run does not exist)"; return 0; }
  # Cancel what is still queued or running so that slurmstepd/sleep processes end too.
  if alive "$DIR/run/slurmctld.pid"; then
    SLURM_CONF=$CONF scancel --quiet --user=root >/dev/null 2>&1 && say "cancelled remaining jobs"
    sleep 1
  fi
  for k in $(seq $NODES); do stop_pidfile "slurmd -N n$k" "$DIR/run/slurmd-n$k.pid"; done
  stop_pidfile slurmctld "$DIR/run/slurmctld.pid"
  # slurmdbd and mariadbd only exist with accounting; "not running" otherwise.
  [[ -e $DIR/run/slurmdbd.pid ]] && stop_pidfile slurmdbd "$DIR/run/slurmdbd.pid"
  [[ -e $DIR/run/mariadbd.pid ]] && stop_pidfile mariadbd "$DIR/run/mariadbd.pid"
  stop_pidfile munged "$DIR/run/munged.pid"
}

status() {
  local down=0
  local extra=""
  [[ -n $ACCOUNTING ]] && extra="mariadbd slurmdbd"
  for d in munged $extra slurmctld $(printf 'slurmd-n%s ' $(seq $NODES)); do
    if alive "$DIR/run/$d.pid"; then say "$d running (pid $(cat "$DIR/run/$d.pid"))"; else say "$d not running"; down=1; fi
  done
  if alive "$DIR/run/slurmctld.pid"; then
    echo "--- $CONF (scheduling)"
    grep -E '^(SelectType|SchedulerParameters|Priority[A-Za-z]+|GresTypes|NodeName)=' "$CONF"
    echo "--- sinfo"
    SLURM_CONF=$CONF sinfo -N -o '%N %T %C' 2>&1
    echo "--- squeue"
    SLURM_CONF=$CONF squeue -o '%i %j %T %r %C %S' 2>&1
  fi
  [[ $down -eq 0 ]] || return 6
}

[[ -z $GPUS || $GPUS =~ ^[1-9][0-9]*$ ]] \
  || die 2 "BURSTSIM_SLURM_GPUS='$GPUS' is not allowed; give a whole number of GPUs per node (1 or more), or leave it unset for none"

case $ACCOUNTING in
  "" | classic | fairtree) ;;
  *) die 2 "BURSTSIM_SLURM_ACCOUNTING='$ACCOUNTING' is not allowed; give classic or fairtree, or leave it unset for no accounting" ;;
esac

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) die 2 "usage: $0 start|stop|status|env" ;;
esac

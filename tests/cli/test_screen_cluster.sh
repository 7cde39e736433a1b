#!/usr/bin/env bash
# Screening with the real engines, started and stopped here: Open MPI (3 ranks: a dispatcher and
# two workers) and a single-node Slurm (munge + slurmctld + slurmd on loopback ports). Each run's
# merged output equals `predict` byte for byte (after decompression); a rank killed mid-run and a
# cancelled array job are resumed by re-running the same command without recomputing finished
# shards. Needs openmpi-bin and slurm-wlm + munge (scripts/setup-deps.sh installs them).
# Trust is off (cli.screen runs a plan with it) and chunks are 32 rows, so 400 rows
# (GS_SCREEN_TEST_ROWS) make 13 chunks: five shards per plan, twelve for the killed MPI run. The
# bundled `fast` model keeps the runs short.
set -euo pipefail
cli=$1; mpi=$2
rows=${GS_SCREEN_TEST_ROWS:-400}
opts=(--no-trust --chunk-rows 32 --model fast)
nci=/usr/share/RDKit/Data/NCI
tmp=$(mktemp -d)
started_munge=0
cleanup() {
  set +e
  kill $(jobs -p) 2> /dev/null
  if [ -n "${SLURM_CONF:-}" ]; then
    for pidfile in "$tmp"/slurm/slurmd.pid "$tmp"/slurm/slurmctld.pid; do
      [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2> /dev/null
    done
  fi
  [ "$started_munge" = 1 ] && /etc/init.d/munge stop > /dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT
source "$(dirname "$0")/screen_inputs.sh"
make_screen_inputs "$tmp" "$rows"
formats="lib.smi lib.smi.gz lib.csv lib.sdf"
for f in $formats; do
  "$cli" predict --threads 1 --drop-input-columns "${opts[@]}" --input "$tmp/$f" --output "$tmp/$f.pred.csv" --quiet 2> /dev/null
done
same() {  # $1 screen dir, $2 input name: merged output == predict
  zcat "$1/merged/predictions.csv.gz" | cmp - "$tmp/$2.pred.csv" || { echo "$1: merged output differs from predict"; exit 1; }
}
finished() { ls "$1"/receipts/000/ 2> /dev/null | grep -E '^[0-9]+\.json$' | sort; }
wait_for_receipt() {
  for _ in $(seq 1 900); do [ -n "$(finished "$1")" ] && return 0; sleep 0.1; done
  echo "no shard finished in 90 s"; exit 1
}
unchanged() {  # $1 dir, $2 file with "name sha" lines taken before
  while read -r name sum; do
    [ "$sum" = "$(sha256sum < "$1/receipts/000/$name" | cut -d' ' -f1)" ] || { echo "$name was recomputed"; exit 1; }
  done < "$2"
}
snapshot() { for r in $(finished "$1"); do echo "$r $(sha256sum < "$1/receipts/000/$r" | cut -d' ' -f1)"; done; }

# ---- Open MPI: 3 ranks, dynamic queue; then a killed rank and a resume.
mpirun_() {
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_warn_on_fork=0 \
    mpirun --oversubscribe -np 3 --mca btl self,vader --mca btl_vader_single_copy_mechanism none "$@"
}
for f in $formats; do
  "$cli" screen plan --input "$tmp/$f" --out "$tmp/mpi.$f" --shards 5 "${opts[@]}" 2> /dev/null
  if [ "$f" = lib.csv ]; then  # the `screen run --mpi` form
    mpirun_ "$cli" screen run "$tmp/mpi.$f" --mpi 2> "$tmp/mpi.txt" || { cat "$tmp/mpi.txt"; exit 1; }
  else
    mpirun_ "$mpi" "$tmp/mpi.$f" --worker "$cli" 2> "$tmp/mpi.txt" || { cat "$tmp/mpi.txt"; exit 1; }
  fi
  "$cli" screen merge "$tmp/mpi.$f" 2> /dev/null
  same "$tmp/mpi.$f" "$f"
done
echo "mpi: 3 ranks, merged output identical to predict for $formats"

"$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/mpikill" --shards 12 "${opts[@]}" 2> /dev/null
mpirun_ "$mpi" "$tmp/mpikill" --worker "$cli" > /dev/null 2>&1 &
runner=$!
wait_for_receipt "$tmp/mpikill"
victim=$(pgrep -f "graphormer-screen-mpi $tmp/mpikill" | sort -n | tail -1)
kill -9 "$victim"
wait "$runner" 2> /dev/null && { echo "mpirun survived a dead rank"; exit 1; }
snapshot "$tmp/mpikill" > "$tmp/mpikill.sums"
mpirun_ "$mpi" "$tmp/mpikill" --worker "$cli" 2> "$tmp/mpi2.txt" || { cat "$tmp/mpi2.txt"; exit 1; }
unchanged "$tmp/mpikill" "$tmp/mpikill.sums"
"$cli" screen merge "$tmp/mpikill" 2> /dev/null
same "$tmp/mpikill" lib.smi
echo "mpi: rank killed after $(wc -l < "$tmp/mpikill.sums") shard(s); re-run resumed, identical to predict"

# ---- Slurm: one node on loopback.
mkdir -p "$tmp/slurm/state" "$tmp/slurm/spool"
user=$(id -un)
auth="AuthType=auth/munge"
if [ "$(id -u)" = 0 ]; then
  [ -f /etc/munge/munge.key ] || mungekey --create > /dev/null 2>&1 || \
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2> /dev/null
  chown munge:munge /etc/munge/munge.key 2> /dev/null || true; chmod 400 /etc/munge/munge.key
  if ! pgrep -x munged > /dev/null; then /etc/init.d/munge start > /dev/null; started_munge=1; fi
else
  auth=$'AuthType=auth/none\nCredType=cred/none'  # munged needs root to start; CI-only fallback
fi
port=$((20000 + RANDOM % 20000))
cat > "$tmp/slurm/slurm.conf" <<CONF
ClusterName=gsci
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
$auth
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$tmp/slurm/state
SlurmdSpoolDir=$tmp/slurm/spool
SlurmctldPidFile=$tmp/slurm/slurmctld.pid
SlurmdPidFile=$tmp/slurm/slurmd.pid
SlurmctldLogFile=$tmp/slurm/slurmctld.log
SlurmdLogFile=$tmp/slurm/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$tmp/slurm/jobcomp.log
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
# slurmd 22.05 always loads a cgroup plugin; in a chroot or container without a cgroup filesystem
# it refuses to start. Jobs here need no cgroups (proctrack/linuxproc, task/none), so point the v1
# plugin at an empty directory (CgroupMountpoint is meant for testing).
case "$(stat -f -c %T /sys/fs/cgroup 2> /dev/null)" in
  cgroup2fs|cgroupfs|tmpfs) ;;
  *) mkdir -p "$tmp/slurm/cgroup"
     printf 'CgroupPlugin=cgroup/v1\nCgroupMountpoint=%s\nCgroupAutomount=no\n' "$tmp/slurm/cgroup" > "$tmp/slurm/cgroup.conf" ;;
esac
export SLURM_CONF=$tmp/slurm/slurm.conf
slurmctld -f "$SLURM_CONF" || { echo "slurmctld did not start"; tail -5 "$tmp"/slurm/*.log; exit 1; }
slurmd -N localhost -f "$SLURM_CONF" || { echo "slurmd did not start"; tail -5 "$tmp"/slurm/*.log; exit 1; }
for _ in $(seq 1 300); do [ "$(sinfo -h -o %T 2> /dev/null | head -1)" = idle ] && break; sleep 0.1; done
[ "$(sinfo -h -o %T | head -1)" = idle ] || { echo "slurm did not come up"; tail -5 "$tmp"/slurm/*.log; exit 1; }
wait_jobs() {  # until none of this test's jobs is left
  local left
  for _ in $(seq 1 1800); do
    left=$(squeue -h -o %i) || { echo "squeue failed"; exit 1; }
    [ -z "$left" ] && return 0
    sleep 0.2
  done
  echo "slurm jobs did not finish"; squeue; exit 1
}

for f in $formats; do
  "$cli" screen plan --input "$tmp/$f" --out "$tmp/slurm.$f" --shards 5 "${opts[@]}" 2> /dev/null
  "$cli" screen submit "$tmp/slurm.$f" --slurm --shards-per-task 2 2> "$tmp/submit.txt" > /dev/null \
    || { cat "$tmp/submit.txt"; exit 1; }
  expected="5 shard(s) without a receipt in 3 array task(s)"
  [ "$f" = lib.smi.gz ] && expected="1 shard(s) without a receipt in 1 array task(s)"  # compressed: one shard
  grep -q "$expected" "$tmp/submit.txt" || { cat "$tmp/submit.txt"; exit 1; }
done
wait_jobs
for f in $formats; do same "$tmp/slurm.$f" "$f"; done
echo "slurm: arrays + dependent merges, identical to predict for $formats"

# A cancelled array (a failed allocation, a walltime) is resumed by submitting again.
"$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/slurmkill" --shards 5 "${opts[@]}" 2> /dev/null
"$cli" screen submit "$tmp/slurmkill" --slurm --shards-per-task 1 --throttle 1 --no-merge 2> /dev/null > /dev/null
wait_for_receipt "$tmp/slurmkill"
scancel --full $(squeue -h -o %A | sort -u)
wait_jobs
snapshot "$tmp/slurmkill" > "$tmp/slurmkill.sums"
left=$((5 - $(wc -l < "$tmp/slurmkill.sums")))
"$cli" screen submit "$tmp/slurmkill" --slurm --shards-per-task 1 2> "$tmp/submit2.txt" > /dev/null
grep -q "^screen: $left shard(s) without a receipt" "$tmp/submit2.txt" || { cat "$tmp/submit2.txt"; exit 1; }
wait_jobs
unchanged "$tmp/slurmkill" "$tmp/slurmkill.sums"
same "$tmp/slurmkill" lib.smi
echo "slurm: cancelled after $(wc -l < "$tmp/slurmkill.sums") shard(s); resubmission ran the other $left, identical to predict"

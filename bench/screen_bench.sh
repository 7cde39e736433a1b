#!/usr/bin/env bash
# Screening throughput against predict, on one machine: N molecules made from RDKit's NCI set
# (repeated, unique ids), gzip-compressed in 8 files as vendors ship them. Prints molecules/s per
# core for `predict` (one process, one thread) and for `screen` with 1 and 2 processes, the time of
# planning, of the workers outside inference (start, receipts) and of merge, and a projection
# for 10^9 molecules on CPU nodes (a projection from these figures, not a measurement).
#   bash bench/screen_bench.sh [N=1000000] [CLI=build/app/graphormer-cli] [WORKDIR=$TMPDIR]
# STEPS="predict screen1 screen2" (the default) picks the runs; a step left out prints "-" (e.g.
# STEPS=screen2 for the wall time of a large input on 2 cores; merge then runs on its output).
# SIDE_BY_SIDE=1 runs predict and `screen run --local 1` at the same time, one core each, so the two
# per-core rates are measured under the same machine load (and the whole run takes ~40 % less time).
set -euo pipefail
n=${1:-1000000}
cli=$(realpath "${2:-build/app/graphormer-cli}")
work=$(mktemp -d "${3:-${TMPDIR:-/tmp}}/screen-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
nci=/usr/share/RDKit/Data/NCI/first_5K.smi
parts=8
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$(now)"; }

t=$(now)
python3 - "$nci" "$n" "$parts" "$work" <<'PY'
import gzip, sys
src, n, parts, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
mols = [l.split()[0] for l in open(src) if l.strip()]
per = (n + parts - 1) // parts
with gzip.open(f"{work}/all.smi.gz", "wt", compresslevel=6) as whole:
    for p in range(parts):
        with gzip.open(f"{work}/part{p}.smi.gz", "wt", compresslevel=6) as out:
            for i in range(p * per, min(n, (p + 1) * per)):
                line = f"{mols[i % len(mols)]}\tNCI{i % len(mols)}-{i // len(mols)}\n"
                out.write(line); whole.write(line)
PY
echo "input: $n molecules, $parts gzip files of $(du -ch "$work"/part*.smi.gz | tail -1 | cut -f1) ($(since "$t") s to make)"

steps=" ${STEPS:-predict screen1 screen2} "
predict_s=0; plan_s=0; run1_s=0; run2_s=0; last=""
run_predict() {
  local t; t=$(now)
  "$cli" predict --threads 1 --input "$work/all.smi.gz" --output "$work/predict.csv.gz" --quiet 2> /dev/null
  since "$t" > "$work/predict.seconds"
}
predict_pid=""
if [[ $steps == *" predict "* ]]; then
  if [[ ${SIDE_BY_SIDE:-0} == 1 ]]; then run_predict & predict_pid=$!; else run_predict; fi
fi
for k in 1 2; do
  [[ $steps == *" screen$k "* ]] || continue
  t=$(now); "$cli" screen plan --input "$work/part*.smi.gz" --out "$work/s$k" 2> /dev/null; plan_s=$(since "$t")
  t=$(now); "$cli" screen run "$work/s$k" --local "$k" 2> /dev/null; printf -v "run${k}_s" %s "$(since "$t")"
  last=$k
  if [[ $k == 1 && -n $predict_pid ]]; then wait "$predict_pid"; predict_pid=""; fi
done
[[ -z $predict_pid ]] || wait "$predict_pid"
[[ ! -f $work/predict.seconds ]] || predict_s=$(cat "$work/predict.seconds")
[[ -n $last ]] || { echo "STEPS names no screen run" >&2; exit 2; }
t=$(now); "$cli" screen merge "$work/s$last" --output "$work/merged.csv.gz" 2> /dev/null; merge_s=$(since "$t")
merged_mb=$(du -m "$work/merged.csv.gz" | cut -f1)

# The overhead outside the shard loop compares a run's wall time with its own receipts: the
# receipts of screen --local 1 when it ran, else those of --local 2.
receipts_of=$work/s$last
[[ $run1_s == 0 ]] || receipts_of=$work/s1
python3 - "$n" "$predict_s" "$plan_s" "$run1_s" "$run2_s" "$merge_s" "$merged_mb" "$receipts_of" <<'PY'
import glob, json, sys
n = int(sys.argv[1]); predict, plan, run1, run2, merge = map(float, sys.argv[2:7]); mb = float(sys.argv[7])
import os, re
receipts = [json.load(open(f)) for f in glob.glob(sys.argv[8] + "/receipts/*/*.json")
            if re.fullmatch(r"[0-9]+\.json", os.path.basename(f))]  # complete receipts only
inside = sum(r["seconds"]["total"] for r in receipts)
stages = {k: sum(r["seconds"][k] for r in receipts) for k in ("read", "featurize", "infer", "write")}
print(f"| measurement | seconds | molecules/s per core |")
print(f"|---|---:|---:|")
def row(name, s, cores):
    print(f"| {name} | {s:.1f} | {n / s / cores:.1f} |" if s > 0 else f"| {name} | - | - |")
row("predict, 1 process, 1 thread", predict, 1)
row("screen run --local 1", run1, 1)
row("screen run --local 2 (2 cores)", run2, 2)
print(f"| screen plan (fingerprints + rate probe) | {plan:.1f} | |")
print(f"| screen merge ({mb:.0f} MB written) | {merge:.1f} | {mb / max(merge, 1e-9):.0f} MB/s |")
if predict > 0 and run1 > 0:
    print(f"screen --local 1 per core / predict per core: {predict / run1:.3f}")
wall, procs = (run1, 1) if run1 > 0 else (run2, 2)
print(f"worker time outside the shard loop (process start, model load, receipts): "
      f"{wall * procs - inside:.1f} s of {wall * procs:.1f} process-seconds")
print("shard time split: " + ", ".join(f"{k} {100 * v / max(inside, 1e-9):.1f} %" for k, v in stages.items()))
rate = n / run2 / 2 if run2 > 0 else n / run1
core_hours = 1e9 / rate / 3600
print(f"projection (from these figures, not measured) for 10^9 molecules at {rate:.0f} molecules/s per core: "
      f"{core_hours:,.0f} core-hours = {core_hours / 64:,.1f} h on one 64-core node, {core_hours / 64 / 100:,.2f} h on 100; "
      f"merged output ~{mb * 1e9 / n / 1e3:,.0f} GB; merge at the measured {mb / max(merge, 1e-9):.0f} MB/s: "
      f"{mb * 1e9 / n / max(mb / max(merge, 1e-9), 1e-9) / 3600:,.1f} h")
PY

#!/usr/bin/env bash
# graphormer-cli screen end to end on real files and processes: NCI rows plus invalid rows and an
# oversized molecule in .smi, .smi.gz, quoted .csv and .sdf; the merged output equals `predict`
# (after decompression) with 1 shard, 7 shards and 2 local processes; a killed run resumes without
# recomputing finished shards; a stop request commits and exits 0; a flipped byte or a receipt of
# another model makes merge refuse and name the shard; a poison molecule that crashes the worker
# ends as one `crashed` row. The plans read --chunk-rows 32 (predict too), so a few hundred rows
# (GS_SCREEN_TEST_ROWS, 400) make a dozen chunks and seven real shards; the identity checks run
# with --no-trust, and one plan (the 7-shard .smi one, whose hit list filters on sigma) keeps trust.
# The bundled `fast` model keeps the many short runs quick (screening accepts either bundled model).
set -euo pipefail
cli=$1
rows=${GS_SCREEN_TEST_ROWS:-400}
chunk=(--chunk-rows 32 --model fast)
nci=/usr/share/RDKit/Data/NCI
tmp=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$tmp"' EXIT
half=$((rows / 2))

source "$(dirname "$0")/screen_inputs.sh"
make_screen_inputs "$tmp" "$rows"

merged() { zcat "$1/merged/predictions.csv.gz"; }
expect_same() {  # $1 screen dir, $2 predict csv
  "$cli" screen merge "$1" 2> "$tmp/merge.txt" || { cat "$tmp/merge.txt"; exit 1; }
  merged "$1" | cmp - "$2" || { echo "screen $1 differs from predict"; exit 1; }
}

# predict's output, the reference: with trust for lib.smi (the plan that keeps it), without for all.
"$cli" predict --threads 1 --drop-input-columns "${chunk[@]}" --input "$tmp/lib.smi" --output "$tmp/lib.smi.trust.csv" \
  --quiet 2> /dev/null
for f in lib.smi lib.smi.gz lib.csv lib.sdf; do
  "$cli" predict --threads 1 --no-trust --drop-input-columns "${chunk[@]}" --input "$tmp/$f" --output "$tmp/$f.pred.csv" \
    --quiet 2> /dev/null
  trust=(--no-trust); ref="$tmp/$f.pred.csv"
  [ "$f" = lib.smi ] && { trust=(); ref="$tmp/lib.smi.trust.csv"; }
  "$cli" screen plan --input "$tmp/$f" --out "$tmp/$f.s7" --shards 7 "${chunk[@]}" "${trust[@]}" 2> /dev/null
  "$cli" screen run "$tmp/$f.s7" --local 2 2> "$tmp/run.txt" || { cat "$tmp/run.txt"; exit 1; }
  expect_same "$tmp/$f.s7" "$ref"
  n=$(tail -n +2 "$tmp/$f.pred.csv" | python3 -c 'import csv,sys; print(sum(1 for _ in csv.reader(sys.stdin)))')
  echo "$f: $n rows, $(python3 -c "import json;print(len(json.load(open('$tmp/$f.s7/plan.json'))['shards']))") shards: identical to predict"
done
grep -q ",too_many_atoms," "$tmp/lib.smi.pred.csv" || { echo "the oversized molecule has no too_many_atoms row"; exit 1; }
grep -q ",syntax_error," "$tmp/lib.csv.pred.csv" || { echo "no syntax_error row in the CSV"; exit 1; }

# One shard, run by id.
"$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/s1" --shards 1 --no-trust "${chunk[@]}" 2> /dev/null
"$cli" screen run "$tmp/s1" --shard 0 2> /dev/null
expect_same "$tmp/s1" "$tmp/lib.smi.pred.csv"
# Uncompressed output: the merged CSV is byte-identical to predict's as it is.
"$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/plain" --shards 3 --output-codec none --no-trust "${chunk[@]}" 2> /dev/null
"$cli" screen run "$tmp/plain" --local 2 2> /dev/null
"$cli" screen merge "$tmp/plain" --output "$tmp/plain.csv" 2> /dev/null
cmp "$tmp/plain.csv" "$tmp/lib.smi.pred.csv" || { echo "uncompressed merge differs from predict"; exit 1; }
# A damaged (truncated) compressed input: the shard fails at once with a specific error, no retries.
head -c $(( $(stat -c %s "$tmp/lib.smi.gz") / 2 )) "$tmp/lib.smi.gz" > "$tmp/cut.smi.gz"
"$cli" screen plan --input "$tmp/cut.smi.gz" --out "$tmp/cut" --no-trust 2> /dev/null
if "$cli" screen run "$tmp/cut" 2> "$tmp/err.txt"; then echo "a damaged input passed"; exit 1; fi
grep -q "shard 0: .*truncated gzip data.*the file is damaged" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
[ "$(ls "$tmp"/cut/logs/000 | wc -l)" = 1 ] || { echo "a damaged input was retried"; exit 1; }
# A plan is immutable.
if "$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/s1" --shards 2 --no-trust 2> "$tmp/err.txt"; then echo "plan replaced"; exit 1; fi
grep -q "already holds a plan" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }

# Hit lists: top-k of a column among rows passing a threshold equals a full sort of the merge.
"$cli" screen merge "$tmp/lib.smi.s7" --top 50 --by gap_ev --where 'gap_ev_sigma<0.5' --hits "$tmp/hits" 2> /dev/null
python3 - <(merged "$tmp/lib.smi.s7") "$tmp/hits.gap_ev.csv" "$tmp/hits.gap_ev.sqlite" "$tmp/hits.gap_ev.sdf" <<'PY'
import csv, sqlite3, sys
csv.field_size_limit(1 << 30)
rows = list(csv.DictReader(open(sys.argv[1])))
keep = [(i, r) for i, r in enumerate(rows) if r["status"] == "ok" and float(r["gap_ev_sigma"]) < 0.5]
want = [r["row"] for i, r in sorted(keep, key=lambda t: (-float(t[1]["gap_ev"]), t[0]))[:50]]
got = [r["row"] for r in csv.DictReader(open(sys.argv[2]))]
assert got == want, (got[:5], want[:5])
db = sqlite3.connect(sys.argv[3])
assert [str(int(r[0])) for r in db.execute('select "row" from hits order by rank')] == want
assert open(sys.argv[4]).read().count("$$$$") == 50
print("top 50 by gap_ev (sigma < 0.5) equals a full sort; CSV, SQLite and SDF agree")
PY

# A flipped byte in a piece: merge refuses and names the shard.
nshards=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['shards']))" "$tmp/lib.smi.s7/plan.json")
last=$((nshards - 1)); mid=$((nshards / 2))
cp -r "$tmp/lib.smi.s7" "$tmp/flip"
piece=$(ls "$tmp"/flip/shards/000/$last.*.csv.gz)
python3 - "$piece" <<'PY'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 0x01; open(sys.argv[1], "wb").write(b)
PY
rm -f "$tmp/flip/merged/"*
if "$cli" screen merge "$tmp/flip" 2> "$tmp/err.txt"; then echo "merge took a corrupt piece"; exit 1; fi
grep -q "shard $last: output piece .* differs from its receipt" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
# A receipt of another model.
cp -r "$tmp/lib.smi.s7" "$tmp/model"; rm -f "$tmp/model/merged/"*
sed -i 's/"model_sha256":"[0-9a-f]*"/"model_sha256":"0000"/' "$tmp/model/receipts/000/$mid.json"
if "$cli" screen merge "$tmp/model" 2> "$tmp/err.txt"; then echo "merge mixed models"; exit 1; fi
grep -q "shard $mid: computed with another model" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }

# Killed mid-run: nothing half-written is taken; re-running skips finished shards.
"$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/kill" --shards 7 --no-trust "${chunk[@]}" 2> /dev/null
setsid "$cli" screen run "$tmp/kill" --local 1 2> /dev/null &
runner=$!
for _ in $(seq 1 600); do ls "$tmp"/kill/receipts/000/*[0-9].json > /dev/null 2>&1 && break; sleep 0.1; done
kill -9 -- -"$runner" 2> /dev/null || true; wait "$runner" 2> /dev/null || true
done_before=$(ls "$tmp"/kill/receipts/000/ | grep -E '^[0-9]+\.json$' | sort)
[ -n "$done_before" ] || { echo "no shard finished before the kill"; exit 1; }
declare -A sums
for r in $done_before; do sums[$r]=$(sha256sum < "$tmp/kill/receipts/000/$r"); done
"$cli" screen run "$tmp/kill" --local 2 2> /dev/null
for r in $done_before; do
  [ "${sums[$r]}" = "$(sha256sum < "$tmp/kill/receipts/000/$r")" ] || { echo "finished shard $r was recomputed"; exit 1; }
done
expect_same "$tmp/kill" "$tmp/lib.smi.pred.csv"

# Stop request (Slurm's SIGUSR1): commits what is complete, exits 0, re-running finishes.
"$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/stop" --shards 2 --no-trust "${chunk[@]}" 2> /dev/null
"$cli" screen run "$tmp/stop" --local 1 2> "$tmp/stop.txt" &
runner=$!
for _ in $(seq 1 600); do ls "$tmp"/stop/logs/000/*.log > /dev/null 2>&1 && break; sleep 0.1; done
kill -USR1 "$runner"
wait "$runner" || { echo "stopped run did not exit 0"; cat "$tmp/stop.txt"; exit 1; }
"$cli" screen run "$tmp/stop" --local 1 2> /dev/null
expect_same "$tmp/stop" "$tmp/lib.smi.pred.csv"

# A poison molecule that crashes the worker (test hook): quarantined, bisected, one crashed row.
poison=$(sed -n "$((half - 10))p" "$tmp/lib.smi" | awk '{print $1}')
"$cli" screen plan --input "$tmp/lib.smi" --out "$tmp/poison" --shards 7 --no-trust "${chunk[@]}" 2> /dev/null
GS_SCREEN_TEST_CRASH_SMILES="$poison" "$cli" screen run "$tmp/poison" --local 2 2> "$tmp/poison.txt" \
  || { cat "$tmp/poison.txt"; exit 1; }
grep -q "quarantined after 3 failed attempts" "$tmp/poison.txt" || { cat "$tmp/poison.txt"; exit 1; }
"$cli" screen merge "$tmp/poison" 2> /dev/null
python3 - <(merged "$tmp/poison") "$tmp/lib.smi.pred.csv" "$((half - 10))" <<'PY'
import csv, sys
csv.field_size_limit(1 << 30)
got = list(csv.reader(open(sys.argv[1]))); want = list(csv.reader(open(sys.argv[2]))); bad = int(sys.argv[3])
assert len(got) == len(want), (len(got), len(want))
for g, w in zip(got[1:], want[1:]):
    assert g[:3] == w[:3], (g[:3], w[:3])
    if int(g[0]) == bad:
        assert g[4] == "crashed" and g[5] == "" and "crashed" in g[-1], g
    else:
        assert g[3:5] == w[3:5], (g[0], g[3:5], w[3:5])
print("poison row", bad, "crashed; the other", len(got) - 2, "rows predicted")
PY
"$cli" screen status "$tmp/poison" | grep -q "crashed: 1" || { "$cli" screen status "$tmp/poison"; exit 1; }
echo "screen: all checks passed"

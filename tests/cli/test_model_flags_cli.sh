#!/usr/bin/env bash
# Every command that runs a model takes the same model flags through one parser: the same names,
# the same errors for bad values, and a clear refusal where a flag does not apply.
set -euo pipefail
cli=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
head -12 /usr/share/RDKit/Data/NCI/first_5K.smi > "$tmp/m.smi"
printf 'smiles,y\nCCO,1.0\nc1ccccc1,2.0\nCC(=O)O,3.0\nCCN,4.0\nCCCC,5.0\nCCOC,6.0\nCCCl,7.0\nCCBr,8.0\nCC#N,9.0\nCCS,10.0\n' > "$tmp/t.csv"
expect_error() {  # expect_error "pattern" -- args...: the command fails and says pattern
  local pattern=$1; shift; shift
  if "$cli" "$@" > "$tmp/o.txt" 2> "$tmp/e.txt"; then echo "accepted: $*"; exit 1; fi
  grep -q -- "$pattern" "$tmp/e.txt" || { echo "expected '$pattern' from: $*"; cat "$tmp/e.txt"; exit 1; }
}
run() {  # run -- args...: the command succeeds
  shift
  "$cli" "$@" > "$tmp/o.txt" 2> "$tmp/e.txt" || { echo "failed: $*"; cat "$tmp/e.txt"; exit 1; }
}
# The same bad values are refused with the same message by every command.
for cmd in "predict --output $tmp/p.csv" "explain --output $tmp/a.csv" "bench" "evaluate --targets y" "train --targets y --output $tmp/run"; do
  input="$tmp/m.smi"; case $cmd in evaluate*|train*) input="$tmp/t.csv";; esac
  # shellcheck disable=SC2086
  expect_error "unknown precision 'fp8' (fp32, bf16, fp16 or int8)" -- $cmd --input "$input" --precision fp8
  # shellcheck disable=SC2086
  expect_error "unknown device 'tpu'" -- $cmd --input "$input" --device tpu --model "$(dirname "$0")/../../resources/models/accurate"
  # shellcheck disable=SC2086
  expect_error "--threads expects an integer" -- $cmd --input "$input" --threads many
  # shellcheck disable=SC2086
  expect_error "--batch-size expects an integer" -- $cmd --input "$input" --batch-size 0
done
# Where a flag does not apply, the command says why.
expect_error "memory-budget-mib: bench measures fixed batch sizes" -- bench --input "$tmp/m.smi" --memory-budget-mib 64
expect_error "memory-budget-mib: explain sizes its batches" -- explain --input "$tmp/m.smi" --output "$tmp/a.csv" --memory-budget-mib 64
# train takes a budget: it fits its passes and checkpoint ratio to it (tests/cli/test_train_memory_cli.sh).
expect_error "--fit-precision chooses the precision that fits --memory-budget-mib" -- train --input "$tmp/t.csv" --targets y --output "$tmp/run" --fit-precision
expect_error "int8 is for inference only" -- explain --input "$tmp/m.smi" --output "$tmp/a.csv" --precision int8
expect_error "int8 is for inference only" -- train --input "$tmp/t.csv" --targets y --output "$tmp/run" --precision int8
# Accepted where they apply: evaluate takes a device and a budget, bench one precision.
run -- evaluate --input "$tmp/t.csv" --targets y --device cpu --threads 1 --valid-fraction 0.2 --test-fraction 0.2
run -- predict --input "$tmp/m.smi" --output "$tmp/p.csv" --memory-budget-mib 32 --threads 1 --quiet
python3 - "$tmp/p.csv.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["batch_size"] == 4096, r["batch_size"]   # a budget without --batch-size: the budget sizes batches
assert r["threads"] == 1, r["threads"]
PY
run -- predict --input "$tmp/m.smi" --output "$tmp/q.csv" --memory-budget-mib 32 --batch-size 8 --quiet
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['batch_size'] == 8" "$tmp/q.csv.json"
run -- bench --input "$tmp/m.smi" --precision bf16 --batch-size 4 --repeats 1 --quiet
grep -q "^bf16+bs=4 " "$tmp/o.txt" || { cat "$tmp/o.txt"; exit 1; }
[ "$(grep -c "+bs=.* inference " "$tmp/o.txt")" -eq 1 ] || { cat "$tmp/o.txt"; exit 1; }
# The bundled model has several outputs: each one's mean |d| in its own unit, under the table.
grep -q "^mean |d| per output (in its unit):  gap_ev (eV)  homo_ev (eV)" "$tmp/o.txt" || { cat "$tmp/o.txt"; exit 1; }
echo "model flags CLI: all checks passed"

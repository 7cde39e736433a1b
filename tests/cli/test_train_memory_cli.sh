#!/usr/bin/env bash
# graphormer-cli train under memory limits and interruption: --memory-budget-mib chooses and reports
# its settings (and refuses a budget below the smallest step), --micro-batch trains, an interrupted
# run (SIGINT) resumes with --resume to the weights of an uninterrupted one, and an SD file's data
# items are target columns.
set -euo pipefail
cli=$1
nci=/usr/share/RDKit/Data/NCI
[ -f "$nci/first_5k.tpsa.csv" ] && [ -f "$nci/first_200.props.sdf" ] || { echo "RDKit NCI data missing"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{ echo "smiles,tpsa"; awk '!/^#/ && n < 400 { print; n++ }' "$nci/first_5k.tpsa.csv"; } > "$tmp/t.csv"
tiny=(--layers 2 --dim 16 --heads 2 --ffn 16 --seed 3 --snapshots 0 --calibration-fraction 0)

# A budget: the choice is printed with its predicted peak; the run completes.
"$cli" train --input "$tmp/t.csv" --targets tpsa --output "$tmp/fit" "${tiny[@]}" --epochs 1 --memory-budget-mib 64 \
    2> "$tmp/fit.txt" || { cat "$tmp/fit.txt"; exit 1; }
grep -Eq "^fit to memory: batch 32.*predicted peak [0-9.]+ MiB of 64.0 MiB" "$tmp/fit.txt" || { cat "$tmp/fit.txt"; exit 1; }
[ -f "$tmp/fit/model.safetensors" ] || { echo "no model after a fitted run"; exit 1; }
# Below the smallest step: refused by size, nothing trained.
if "$cli" train --input "$tmp/t.csv" --targets tpsa --output "$tmp/none" "${tiny[@]}" --memory-budget-mib 1 2> "$tmp/none.txt"; then
  echo "a 1 MiB budget was accepted"; exit 1
fi
grep -q "a training step needs at least" "$tmp/none.txt" || { cat "$tmp/none.txt"; exit 1; }
[ ! -f "$tmp/none/model.safetensors" ] || { echo "a refused run wrote a model"; exit 1; }
if "$cli" train --input "$tmp/t.csv" --targets tpsa --output "$tmp/x" "${tiny[@]}" --fit-precision 2> "$tmp/x.txt"; then
  echo "--fit-precision without a budget was accepted"; exit 1
fi

# Interrupted after the first epoch (SIGINT), resumed: the same weights as an uninterrupted run.
run=(train --input "$tmp/t.csv" --targets tpsa "${tiny[@]}" --epochs 4 --micro-batch 8 --patience 0)
"$cli" "${run[@]}" --output "$tmp/full" 2> "$tmp/full.txt" || { cat "$tmp/full.txt"; exit 1; }
"$cli" "${run[@]}" --output "$tmp/cut" 2> "$tmp/cut.txt" &
pid=$!
for _ in $(seq 1 600); do grep -q "^epoch 1:" "$tmp/cut.txt" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"
status=0; wait "$pid" || status=$?
if [ "$status" -eq 130 ]; then
  grep -q "with --resume continues it" "$tmp/cut.txt" || { cat "$tmp/cut.txt"; exit 1; }
  "$cli" "${run[@]}" --output "$tmp/cut" --resume 2> "$tmp/resume.txt" || { cat "$tmp/resume.txt"; exit 1; }
  ! grep -q "^epoch 1:" "$tmp/resume.txt" || { echo "the resumed run repeated epoch 1"; exit 1; }
  echo "interrupted after epoch 1 and resumed"
elif [ "$status" -ne 0 ]; then
  cat "$tmp/cut.txt"; exit 1
fi  # (status 0: the run ended before the signal arrived; the comparison below still holds)
"$cli" predict --model "$tmp/full" --input "$tmp/t.csv" --output "$tmp/a.csv" --quiet 2>/dev/null
"$cli" predict --model "$tmp/cut" --input "$tmp/t.csv" --output "$tmp/b.csv" --quiet 2>/dev/null
cmp -s "$tmp/a.csv" "$tmp/b.csv" || { echo "the resumed run's predictions differ from the uninterrupted run's"; exit 1; }

# An SD file's data items as targets (two at once, SDF titles as IDs).
"$cli" train --input "$nci/first_200.props.sdf" --targets CLOGP,AMW --output "$tmp/sdf" "${tiny[@]}" --epochs 1 \
    2> "$tmp/sdf.txt" || { cat "$tmp/sdf.txt"; exit 1; }
grep -q "CLOGP valid MAE" "$tmp/sdf.txt" && grep -q "AMW valid MAE" "$tmp/sdf.txt" || { cat "$tmp/sdf.txt"; exit 1; }
if "$cli" train --input "$nci/first_200.props.sdf" --targets NO_SUCH_ITEM --output "$tmp/sdf2" "${tiny[@]}" 2> "$tmp/sdf2.txt"; then
  echo "an absent data item was accepted"; exit 1
fi
grep -q "no record has the data item 'NO_SUCH_ITEM'" "$tmp/sdf2.txt" || { cat "$tmp/sdf2.txt"; exit 1; }
echo "train memory CLI: ok"

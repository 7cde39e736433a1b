#!/usr/bin/env bash
# graphormer-cli train end to end: a tiny model on RDKit's TPSA data, then predict with it.
set -euo pipefail
cli=$1
tpsa=/usr/share/RDKit/Data/NCI/first_5k.tpsa.csv
[ -f "$tpsa" ] || { echo "RDKit NCI TPSA data missing"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
{ echo "smiles,tpsa"; awk '!/^#/ && n < 200 { print; n++ }' "$tpsa"; echo "not_a_smiles,12"; echo "CCO,"; } > "$tmp/t.csv"

"$cli" train --input "$tmp/t.csv" --targets tpsa --output "$tmp/model" --layers 2 --dim 16 --heads 2 --ffn 16 \
    --epochs 2 --seed 1 2> "$tmp/train.txt"
grep -q "^epoch 2:" "$tmp/train.txt" || { cat "$tmp/train.txt"; exit 1; }
grep -q "skipped 1 no_target; skipped 1 syntax_error" "$tmp/train.txt" || { cat "$tmp/train.txt"; exit 1; }
for f in model.safetensors best.safetensors last.safetensors state.json optimizer.pt; do
  [ -f "$tmp/model/$f" ] || { echo "missing $f"; exit 1; }
done

"$cli" predict --model "$tmp/model" --input "$tmp/t.csv" --output "$tmp/p.csv" --quiet 2>/dev/null
head -1 "$tmp/p.csv" | grep -qx "row,id,smiles,canonical_smiles,status,tpsa,message" || { head -1 "$tmp/p.csv"; exit 1; }
[ "$(tail -n +2 "$tmp/p.csv" | wc -l)" -eq 202 ] || { echo "expected 202 prediction rows"; exit 1; }
python3 - "$tmp/p.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [float(r["tpsa"]) for r in rows if r["status"] == "ok"]
assert len(ok) == 201, len(ok)
assert 0 < sum(ok) / len(ok) < 200, "predictions are not in TPSA units (normalisation lost?)"
assert rows[200]["status"] == "syntax_error"
PY

if "$cli" train --input "$tmp/t.csv" --targets nope --output "$tmp/m2" 2> "$tmp/e.txt"; then echo "unknown target accepted"; exit 1; fi
grep -q "target column 'nope'" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
echo "train CLI: all checks passed"

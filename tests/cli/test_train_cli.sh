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
grep -q "calibration molecules" "$tmp/train.txt" || { cat "$tmp/train.txt"; exit 1; }
grep -q "^snapshot 5, epoch 2:" "$tmp/train.txt" || { cat "$tmp/train.txt"; exit 1; }
for f in model.safetensors best.safetensors last.safetensors state.json optimizer.pt trust.safetensors snapshots/5/model.safetensors; do
  [ -f "$tmp/model/$f" ] || { echo "missing $f"; exit 1; }
done

"$cli" predict --model "$tmp/model" --input "$tmp/t.csv" --output "$tmp/p.csv" --quiet 2>/dev/null
# The measured column is kept beside the prediction of the same name, as input_tpsa.
head -1 "$tmp/p.csv" | grep -qx "row,id,smiles,canonical_smiles,status,tpsa,tpsa_lower,tpsa_upper,tpsa_sigma,tpsa_domain,domain,domain_reasons,nn_similarity,message,input_tpsa" \
  || { head -1 "$tmp/p.csv"; exit 1; }
[ "$(tail -n +2 "$tmp/p.csv" | wc -l)" -eq 202 ] || { echo "expected 202 prediction rows"; exit 1; }
python3 - "$tmp/p.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
ok = [float(r["tpsa"]) for r in rows if r["status"] == "ok"]
assert len(ok) == 201, len(ok)
assert 0 < sum(ok) / len(ok) < 200, "predictions are not in TPSA units (normalisation lost?)"
assert rows[200]["status"] == "syntax_error"
assert rows[200]["input_tpsa"] == "12" and rows[201]["input_tpsa"] == "", "the measured values travel with their rows"
for r in rows:
    if r["status"] != "ok":
        assert r["tpsa_lower"] == r["domain"] == "", r
        continue
    assert float(r["tpsa_lower"]) < float(r["tpsa"]) < float(r["tpsa_upper"]), r
    assert float(r["tpsa_sigma"]) > 0 and r["domain"] in ("in", "borderline", "out"), r
    assert r["tpsa_domain"] in ("in", "borderline", "out"), r
    assert 0 <= float(r["nn_similarity"]) <= 1, r
# Training molecules are their own nearest neighbours.
assert sum(float(r["nn_similarity"]) == 1.0 for r in rows if r["status"] == "ok") >= 100
PY
# A wider confidence gives wider intervals; --no-trust leaves the columns empty, same predictions.
"$cli" predict --model "$tmp/model" --input "$tmp/t.csv" --output "$tmp/p95.csv" --confidence 0.95 --quiet 2>/dev/null
"$cli" predict --model "$tmp/model" --input "$tmp/t.csv" --output "$tmp/pn.csv" --no-trust --quiet 2>/dev/null
python3 - "$tmp/p.csv" "$tmp/p95.csv" "$tmp/pn.csv" <<'PY'
import csv, sys
a, b, n = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
for x, y, z in zip(a, b, n):
    assert x["tpsa"] == y["tpsa"] == z["tpsa"], (x, z)
    if x["status"] == "ok":
        assert float(y["tpsa_upper"]) - float(y["tpsa_lower"]) >= float(x["tpsa_upper"]) - float(x["tpsa_lower"])
    assert z["tpsa_lower"] == z["domain"] == ""
PY
# calibrate rebuilds the trust file from the same split: the same intervals.
cp "$tmp/model/trust.safetensors" "$tmp/trust.orig"
"$cli" calibrate --model "$tmp/model" --input "$tmp/t.csv" --targets tpsa --seed 1 2> "$tmp/cal.txt" || { cat "$tmp/cal.txt"; exit 1; }
"$cli" predict --model "$tmp/model" --input "$tmp/t.csv" --output "$tmp/pc.csv" --quiet 2>/dev/null
cmp -s "$tmp/p.csv" "$tmp/pc.csv" || { echo "calibrate changed the intervals of the same split"; exit 1; }
# A corrupt trust file is refused by name; --no-trust still predicts.
python3 - "$tmp/model/trust.safetensors" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read()); b[-5] ^= 0xFF; open(p, "wb").write(b)
PY
if "$cli" predict --model "$tmp/model" --input "$tmp/t.csv" --output "$tmp/x.csv" 2> "$tmp/e.txt"; then echo "corrupt trust accepted"; exit 1; fi
grep -q "trust file '.*trust.safetensors'.*SHA-256" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
"$cli" predict --model "$tmp/model" --input "$tmp/t.csv" --output "$tmp/x.csv" --no-trust --quiet 2>/dev/null
cp "$tmp/trust.orig" "$tmp/model/trust.safetensors"

# calibrate --series: a copy whose intervals come from a labelled series (here one whose TPSA is
# 50 higher than the model learnt); the model's own directory is not changed.
{ echo "smiles,tpsa"; awk -F, '!/^#/ { n++ } n > 300 && n <= 340 { print $1 "," $2 + 50 }' "$tpsa"; } > "$tmp/series.csv"
"$cli" calibrate --model "$tmp/model" --series "$tmp/series.csv" --output "$tmp/series-model" 2> "$tmp/ser.txt" \
  || { cat "$tmp/ser.txt"; exit 1; }
grep -q "tpsa: 40 labelled" "$tmp/ser.txt" || { cat "$tmp/ser.txt"; exit 1; }
cmp -s "$tmp/trust.orig" "$tmp/model/trust.safetensors" || { echo "calibrate --series changed the model's trust"; exit 1; }
"$cli" predict --model "$tmp/series-model" --input "$tmp/t.csv" --output "$tmp/ps.csv" --quiet 2>/dev/null
grep -q '"series":{"file":"series.csv"' "$tmp/ps.csv.json" || { cat "$tmp/ps.csv.json"; exit 1; }
grep -q '"series":null' "$tmp/p.csv.json" || { cat "$tmp/p.csv.json"; exit 1; }
python3 - "$tmp/p.csv" "$tmp/ps.csv" <<'PY'
import csv, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
w = lambda r: float(r["tpsa_upper"]) - float(r["tpsa_lower"])
# The two-epoch model's intervals are already about ±45: errors 50 larger widen every one by half or more.
wider = sum(w(y) > 1.5 * w(x) for x, y in zip(a, b) if x["status"] == "ok")
assert all(x["tpsa"] == y["tpsa"] for x, y in zip(a, b)), "the predictions are the model's"
assert wider == 201, f"only {wider} of 201 intervals widened for errors 50 larger"
PY
if "$cli" calibrate --model "$tmp/model" --series "$tmp/series.csv" --output "$tmp/series-model" 2> "$tmp/e.txt"; then
  echo "an existing --output was overwritten"; exit 1; fi
grep -q "must be a new directory" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
if "$cli" calibrate --model "$tmp/model" --series "$tmp/series.csv" --input "$tmp/t.csv" --output "$tmp/s2" 2> "$tmp/e.txt"; then
  echo "--series with --input accepted"; exit 1; fi

# Scaffold split: split.csv lists every usable row with its subset.
"$cli" train --input "$tmp/t.csv" --targets tpsa --output "$tmp/scaf" --layers 2 --dim 16 --heads 2 --ffn 16 \
    --epochs 1 --seed 1 --split scaffold 2> "$tmp/scaf.txt" || { cat "$tmp/scaf.txt"; exit 1; }
head -1 "$tmp/scaf/split.csv" | grep -qx "row,id,subset" || { head -2 "$tmp/scaf/split.csv"; exit 1; }
[ "$(tail -n +2 "$tmp/scaf/split.csv" | wc -l)" -eq 200 ] || { echo "split.csv should list 200 usable rows"; exit 1; }
for s in train valid calibration test; do grep -q ",$s\$" "$tmp/scaf/split.csv" || { echo "no $s rows in split.csv"; exit 1; }; done

# LoRA fine-tuning of the first model: a small adapter file, no full model; predict finds the base.
"$cli" train --input "$tmp/t.csv" --targets tpsa --output "$tmp/lora" --model "$tmp/model" --lora-rank 2 \
    --epochs 1 --seed 2 2> "$tmp/lora.txt" || { cat "$tmp/lora.txt"; exit 1; }
[ -f "$tmp/lora/adapter.safetensors" ] && [ ! -f "$tmp/lora/model.safetensors" ] || { ls "$tmp/lora"; exit 1; }
base_size=$(stat -c %s "$tmp/model/model.safetensors"); adapter_size=$(stat -c %s "$tmp/lora/adapter.safetensors")
[ "$adapter_size" -lt "$base_size" ] || { echo "adapter ($adapter_size B) not smaller than the model ($base_size B)"; exit 1; }
"$cli" predict --model "$tmp/lora" --input "$tmp/t.csv" --output "$tmp/pl.csv" --quiet 2> "$tmp/pl.txt" || { cat "$tmp/pl.txt"; exit 1; }
grep -q "adapter.safetensors" "$tmp/pl.txt" || { cat "$tmp/pl.txt"; exit 1; }
"$cli" predict --model "$tmp/model" --adapter "$tmp/lora/adapter.safetensors" --input "$tmp/t.csv" --output "$tmp/pl2.csv" --quiet 2>/dev/null
cmp -s "$tmp/pl.csv" "$tmp/pl2.csv" || { echo "--adapter and the adapter directory disagree"; exit 1; }
if cmp -s "$tmp/p.csv" "$tmp/pl.csv"; then echo "the adapter changed no prediction"; exit 1; fi
# explain and bench take adapters like predict: the adapter directory, or --adapter on the base.
head -6 "$tmp/t.csv" | tail -5 | cut -d, -f1 > "$tmp/few.smi"
"$cli" explain --model "$tmp/lora" --input "$tmp/few.smi" --output "$tmp/xa.csv" --method gradxinput 2> "$tmp/xa.txt" \
  || { cat "$tmp/xa.txt"; exit 1; }
"$cli" explain --model "$tmp/model" --adapter "$tmp/lora/adapter.safetensors" --input "$tmp/few.smi" --output "$tmp/xb.csv" \
  --method gradxinput 2>/dev/null
cmp -s "$tmp/xa.csv.molecules.csv" "$tmp/xb.csv.molecules.csv" || { echo "explain: adapter directory and --adapter disagree"; exit 1; }
"$cli" explain --model "$tmp/model" --input "$tmp/few.smi" --output "$tmp/xc.csv" --method gradxinput 2>/dev/null
if cmp -s "$tmp/xa.csv.molecules.csv" "$tmp/xc.csv.molecules.csv"; then echo "explain ignored the adapter"; exit 1; fi
"$cli" bench --model "$tmp/model" --adapter "$tmp/lora/adapter.safetensors" --input "$tmp/few.smi" --modes fp32 --repeats 1 \
  > "$tmp/ba.txt" 2>&1 || { cat "$tmp/ba.txt"; exit 1; }
grep -q "adapter.safetensors" "$tmp/ba.txt" || { echo "bench does not name the adapter"; cat "$tmp/ba.txt"; exit 1; }
# The adapter refuses another base model.
if "$cli" predict --model "$tmp/scaf" --adapter "$tmp/lora/adapter.safetensors" --input "$tmp/t.csv" --output "$tmp/x.csv" 2> "$tmp/e.txt"; then
  echo "adapter accepted on another base"; exit 1; fi
grep -q "SHA-256" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
if "$cli" train --input "$tmp/t.csv" --targets tpsa --output "$tmp/l2" --lora-rank 2 2> "$tmp/e.txt"; then echo "LoRA without a base accepted"; exit 1; fi
grep -q "base model" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }

# evaluate: the model next to the three baselines on the same split.
"$cli" evaluate --input "$tmp/t.csv" --model "$tmp/model" --seed 1 > "$tmp/eval.md" 2> "$tmp/eval.txt" || { cat "$tmp/eval.txt"; exit 1; }
for m in "mean of training targets" "ridge (Morgan" "5-NN Tanimoto" "Graphormer" "heavy atoms" "coverage at 90 %" \
         "constant-width conformal" "Spearman" "miscalibration area" "| outside (borderline + out) |"; do
  grep -q "$m" "$tmp/eval.md" || { echo "evaluate output lacks '$m'"; cat "$tmp/eval.md"; exit 1; }
done

# The cluster split (Butina at Tanimoto 0.65) keeps every cluster in one subset.
"$cli" evaluate --input "$tmp/t.csv" --targets tpsa --split cluster --seed 1 > "$tmp/evc.md" 2> "$tmp/evc.txt" || { cat "$tmp/evc.txt"; exit 1; }
grep -q "split: cluster" "$tmp/evc.md" || { cat "$tmp/evc.md"; exit 1; }

if "$cli" train --input "$tmp/t.csv" --targets nope --output "$tmp/m2" 2> "$tmp/e.txt"; then echo "unknown target accepted"; exit 1; fi
grep -q "target column 'nope'" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
echo "train CLI: all checks passed"

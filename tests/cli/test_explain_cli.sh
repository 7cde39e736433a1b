#!/usr/bin/env bash
# graphormer-cli explain: one row per atom in the input's atom order, a per-molecule summary with
# a small completeness gap, and bad rows kept with their status.
set -euo pipefail
cli=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'OCC ethanol_reversed\nc1ccccc1N aniline\nC1CC broken\n' > "$tmp/m.smi"
"$cli" explain --input "$tmp/m.smi" --output "$tmp/a.csv" --steps 32 --checkpoint-ratio 1 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
grep -q "explain: 2 of 3 molecules (ig, target gap_ev)" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
python3 - "$tmp/a.csv" <<'PY'
import csv, sys
atoms = list(csv.DictReader(open(sys.argv[1])))
mols = list(csv.DictReader(open(sys.argv[1] + ".molecules.csv")))
assert [a["element"] for a in atoms if a["row"] == "1"] == ["O", "C", "C"], atoms[:3]   # input atom order
assert [int(a["atom_index"]) for a in atoms if a["row"] == "2"] == list(range(7))
assert [m["status"] for m in mols] == ["ok", "ok", "syntax_error"], mols
for m in mols[:2]:
    s, f, b, gap = (float(m[k]) for k in ("sum", "prediction", "baseline_prediction", "completeness_gap"))
    assert abs(s - (f - b) - gap) < 1e-4 and abs(gap) <= 0.02 * max(abs(f - b), 0.05), m
    row_sum = sum(float(a["attribution"]) for a in atoms if a["row"] == m["row"])
    assert abs(row_sum - s) < 1e-3, (row_sum, s)
assert mols[2]["message"], mols[2]
PY
# The baseline option changes the baseline prediction (zero atom rows vs the mean atom).
"$cli" explain --input "$tmp/m.smi" --output "$tmp/z.csv" --steps 8 --baseline zero --quiet 2>/dev/null
python3 - "$tmp/a.csv.molecules.csv" "$tmp/z.csv.molecules.csv" <<'PY'
import csv, sys
mean, zero = (list(csv.DictReader(open(p))) for p in sys.argv[1:3])
assert mean[1]["prediction"] == zero[1]["prediction"]
assert abs(float(mean[1]["baseline_prediction"]) - float(zero[1]["baseline_prediction"])) > 1e-4, (mean[1], zero[1])
PY
# Carbon baseline: carbons get exactly zero, the heteroatoms (O of ethanol, N of aniline) do not.
"$cli" explain --input "$tmp/m.smi" --output "$tmp/c.csv" --steps 16 --baseline carbon --quiet 2>/dev/null
python3 - "$tmp/c.csv" <<'PY'
import csv, sys
atoms = [a for a in csv.DictReader(open(sys.argv[1])) if a["attribution"]]
assert all(float(a["attribution"]) == 0.0 for a in atoms if a["element"] == "C"), atoms
assert all(float(a["attribution"]) != 0.0 for a in atoms if a["element"] in ("N", "O")), atoms
PY
if "$cli" explain --input "$tmp/m.smi" --output "$tmp/x.csv" --baseline random 2> "$tmp/e.txt"; then echo "unknown baseline accepted"; exit 1; fi
grep -q "unknown baseline 'random'" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
"$cli" explain --input "$tmp/m.smi" --output "$tmp/r.csv" --method rollout --quiet 2>/dev/null
[ "$(tail -n +2 "$tmp/r.csv" | wc -l)" -eq 10 ] || { cat "$tmp/r.csv"; exit 1; }
if "$cli" explain --input "$tmp/m.smi" --output "$tmp/x.csv" --method shap 2> "$tmp/e.txt"; then echo "unknown method accepted"; exit 1; fi
grep -q "unknown explanation method 'shap'" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
if "$cli" explain --input "$tmp/m.smi" --output "$tmp/x.csv" --precision int8 2> "$tmp/e.txt"; then echo "int8 accepted"; exit 1; fi
echo "explain CLI: all checks passed"

#!/usr/bin/env bash
# graphormer-cli predict end to end: one row per input row in order with statuses, predictions equal
# to the reference fixture, a complete run record, atomic output, and clear errors for bad models.
set -euo pipefail
cli=$1; data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fixture="$data/graphormer-reference"

"$cli" predict --model "$fixture/postln" --input "$data/bad_input.smi" --output "$tmp/bad.csv" 2> "$tmp/err.txt"
statuses=$(tail -n +2 "$tmp/bad.csv" | python3 -c 'import csv,sys; csv.field_size_limit(1 << 30); print(" ".join(r[4] for r in csv.reader(sys.stdin)))')
expected="ok empty empty syntax_error chemistry_error syntax_error chemistry_error too_many_atoms syntax_error ok ok"
[ "$statuses" = "$expected" ] || { echo "statuses: '$statuses' expected '$expected'"; exit 1; }
head -1 "$tmp/bad.csv" | grep -qx "row,id,smiles,canonical_smiles,status,output_0,output_1,output_0_lower,output_0_upper,output_0_sigma,output_0_domain,output_1_lower,output_1_upper,output_1_sigma,output_1_domain,domain,domain_reasons,nn_similarity,message" \
  || { echo "header: $(head -1 "$tmp/bad.csv")"; exit 1; }
python3 - "$tmp/bad.csv" <<'PY'
import csv, sys
csv.field_size_limit(1 << 30)
rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["row"]) for r in rows] == list(range(1, 12)), "rows out of order"
for r in rows:
    filled = r["output_0"] != "" and r["output_1"] != ""
    assert filled == (r["status"] == "ok"), r
    assert (r["message"] == "") == (r["status"] == "ok"), r
PY
python3 - "$tmp/bad.csv.json" <<'PY'
import json, sys, re
rec = json.load(open(sys.argv[1]))
assert re.fullmatch(r"[0-9a-f]{64}", rec["model"]["sha256"]), rec["model"]
assert rec["precision"] == "fp32" and rec["device"] == "cpu" and rec["batch_size"] == 32
assert rec["convention"] == "official" and rec["spatial_pos_max"] == 1024
assert rec["rows"] == 11 and sum(rec["counts"].values()) == 11 and rec["counts"]["ok"] == 3
assert rec["libraries"]["libtorch"] and rec["libraries"]["rdkit"].startswith("20")
assert rec["trust"]["file"] == "" and "no trust data" in rec["trust"]["note"], rec["trust"]
props = rec["model"]["properties"]
assert [p["name"] for p in props] == ["output_0", "output_1"] and all("unit" in p for p in props), props
PY
grep -q "note: the model has no trust data" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
[ -z "$(ls "$tmp" | grep tmp- || true)" ] || { echo "temporary files left behind"; exit 1; }

# Same numbers as the Python reference, from each checkpoint format, HF convention.
for weights in model.safetensors pytorch_model.bin fairseq_checkpoint.pt; do
  "$cli" predict --model "$fixture/postln/$weights" --input "$fixture/molecules.smi" --output "$tmp/p.csv" \
      --convention hf --spatial-pos-max 20 --batch-size 5 --atom-order as-written --quiet 2>/dev/null
  python3 - "$tmp/p.csv" "$fixture/postln/expected.csv" <<'PY'
import csv, sys
ours = list(csv.DictReader(open(sys.argv[1])))
ref = list(csv.DictReader(open(sys.argv[2])))
assert len(ours) == 64
worst = max(abs(float(o[f"output_{c}"]) - float(r[f"hf_batched_{c}"])) for o, r in zip(ours, ref) for c in (0, 1))
assert worst < 1e-4, worst
PY
done

# Bad model paths: non-zero exit, a message naming the problem, no output file.
mkdir "$tmp/empty"
if "$cli" predict --model "$tmp/empty" --input "$data/bad_input.smi" --output "$tmp/x.csv" 2> "$tmp/e1.txt"; then
  echo "empty model directory accepted"; exit 1; fi
grep -q "holds no checkpoint" "$tmp/e1.txt" || { cat "$tmp/e1.txt"; exit 1; }
[ ! -e "$tmp/x.csv" ] || { echo "output written for a failed run"; exit 1; }
head -c 1000 "$fixture/postln/model.safetensors" > "$tmp/empty/model.safetensors"
cp "$fixture/postln/config.json" "$tmp/empty/"
if "$cli" predict --model "$tmp/empty" --input "$data/bad_input.smi" --output "$tmp/x.csv" 2> "$tmp/e2.txt"; then
  echo "truncated model accepted"; exit 1; fi
grep -q "truncated" "$tmp/e2.txt" || { cat "$tmp/e2.txt"; exit 1; }
if "$cli" predict --model "$fixture/postln" --input "$data/bad_input.smi" --output "$tmp/x.csv" --precision fp64 2> "$tmp/e3.txt"; then
  echo "bad precision accepted"; exit 1; fi
# Without --model: the bundled default model (xTB gap in eV); benzene and ethanol in a plausible range.
printf 'c1ccccc1 benzene\nCCO ethanol\nC1CC broken\n' > "$tmp/default.smi"
"$cli" predict --input "$tmp/default.smi" --output "$tmp/d.csv" --quiet 2> "$tmp/d.txt" || { cat "$tmp/d.txt"; exit 1; }
grep -q "resources/models/accurate" "$tmp/d.txt" || { cat "$tmp/d.txt"; exit 1; }
python3 - "$tmp/d.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["status"] for r in rows] == ["ok", "ok", "syntax_error"], rows
gap = {r["id"]: float(r["gap_ev"]) for r in rows if r["status"] == "ok"}
assert 2.0 < gap["benzene"] < 8.0 and gap["ethanol"] > gap["benzene"], gap
PY
# The bundled models by name: --model fast and --model accurate; the two agree roughly, not exactly.
"$cli" predict --model fast --input "$tmp/default.smi" --output "$tmp/fast.csv" --quiet 2> "$tmp/f.txt" || { cat "$tmp/f.txt"; exit 1; }
grep -q '"path":"[^"]*resources/models/fast/model.safetensors"' "$tmp/fast.csv.json" || { cat "$tmp/fast.csv.json"; exit 1; }
"$cli" predict --model accurate --input "$tmp/default.smi" --output "$tmp/acc.csv" --quiet 2>/dev/null
python3 - "$tmp/fast.csv" "$tmp/acc.csv" "$tmp/d.csv" <<'PY'
import csv, sys
fast, acc, default = (list(csv.DictReader(open(p))) for p in sys.argv[1:4])
assert [r["gap_ev"] for r in acc] == [r["gap_ev"] for r in default], "accurate is the default"
for f, a in zip(fast, acc):
    assert f["status"] == a["status"]
    if f["status"] == "ok":
        assert f["gap_ev"] != a["gap_ev"], "two different models"
# Benzene is well inside both models' domain: they agree on its gap to within 1.5 eV.
assert abs(float(fast[0]["gap_ev"]) - float(acc[0]["gap_ev"])) < 1.5, (fast[0]["gap_ev"], acc[0]["gap_ev"])
PY
if "$cli" predict --model fastest --input "$tmp/default.smi" --output "$tmp/x.csv" 2> "$tmp/f2.txt"; then
  echo "an unknown model name was accepted"; exit 1; fi
grep -q "no bundled model has that name (accurate, fast)" "$tmp/f2.txt" || { cat "$tmp/f2.txt"; exit 1; }
if GRAPHORMER_DEFAULT_MODEL="$tmp/nowhere" "$cli" predict --input "$tmp/default.smi" --output "$tmp/d2.csv" 2> "$tmp/d2.txt"; then
  echo "a missing default model was accepted"; exit 1; fi
grep -q "does not exist" "$tmp/d2.txt" || { cat "$tmp/d2.txt"; exit 1; }
# A memory budget sizes the batches; predictions are the same as with a fixed batch size.
head -300 /usr/share/RDKit/Data/NCI/first_5K.smi > "$tmp/n300.smi"
"$cli" predict --input "$tmp/n300.smi" --output "$tmp/budget.csv" --memory-budget-mib 2 --quiet 2>/dev/null
"$cli" predict --input "$tmp/n300.smi" --output "$tmp/fixed.csv" --quiet 2>/dev/null
grep -q '"out_of_memory_retries":0' "$tmp/budget.csv.json" || { cat "$tmp/budget.csv.json"; exit 1; }
python3 - "$tmp/budget.csv" "$tmp/fixed.csv" <<'PY'
import csv, sys
a, b = (list(csv.DictReader(open(p))) for p in sys.argv[1:3])
assert len(a) == len(b) == 300
assert [r["status"] for r in a] == [r["status"] for r in b]
assert max(abs(float(x["gap_ev"]) - float(y["gap_ev"])) for x, y in zip(a, b) if x["status"] == "ok") < 1e-4
PY
# The input's other columns are kept beside the predictions, in input order: a semicolon CSV from a
# spreadsheet (a column named like a prediction column gets an "input_" prefix) and an SD file's
# data items, also items that first appear in a later record; --drop-input-columns leaves them out.
printf 'Name;assay;SMILES;status;pIC50\naspirin;A1;CC(=O)Oc1ccccc1C(=O)O;active;"5,2"\nbroken;A2;C1CC;inactive;\nethanol;A3;CCO;;4\n' > "$tmp/semi.csv"
"$cli" predict --input "$tmp/semi.csv" --output "$tmp/semi-out.csv" --quiet 2>/dev/null
"$cli" predict --input "$tmp/semi.csv" --output "$tmp/semi-drop.csv" --drop-input-columns --quiet 2>/dev/null
python3 - "$tmp/props.sdf" /usr/share/RDKit/Data/NCI/first_200.props.sdf <<'PY'
import sys
records = open(sys.argv[2]).read().split("$$$$\n")[:3]
records[2] = records[2].rstrip("\n") + "\n\n> <LATE_ITEM>\nlate value\n\n"
open(sys.argv[1], "w").write("$$$$\n".join(records) + "$$$$\n")
PY
"$cli" predict --input "$tmp/props.sdf" --output "$tmp/props-out.csv" --quiet 2>/dev/null
python3 - "$tmp" <<'PY'
import csv, sys, re
d = sys.argv[1]
rows = list(csv.DictReader(open(d + "/semi-out.csv")))
header = next(csv.reader(open(d + "/semi-out.csv")))
assert header[-3:] == ["assay", "input_status", "pIC50"], header
assert [r["id"] for r in rows] == ["aspirin", "broken", "ethanol"], rows
assert [r["status"] for r in rows] == ["ok", "syntax_error", "ok"], rows
assert [r["assay"] for r in rows] == ["A1", "A2", "A3"] and [r["pIC50"] for r in rows] == ["5,2", "", "4"], rows
assert [r["input_status"] for r in rows] == ["active", "inactive", ""], rows
assert rows[0]["gap_ev"] != "" and rows[0]["smiles"] == "CC(=O)Oc1ccccc1C(=O)O"
dropped = next(csv.reader(open(d + "/semi-drop.csv")))
assert dropped[-1] == "message" and "assay" not in dropped, dropped
sdf = list(csv.DictReader(open(d + "/props-out.csv")))
head = next(csv.reader(open(d + "/props-out.csv")))
items = head[head.index("message") + 1:]
raw = open(d + "/props.sdf").read().split("$$$$\n")[:3]
first_items = re.findall(r"^> *<([^>]+)>", raw[0], re.M)
assert items[:len(first_items)] == first_items and items[-1] == "LATE_ITEM", items
assert len(sdf) == 3 and sdf[2]["LATE_ITEM"] == "late value" and sdf[0]["LATE_ITEM"] == "", sdf
for rec, row in zip(raw, sdf):
    for name in first_items:
        value = re.search(r"^> *<" + re.escape(name) + r">[^\n]*\n(.*?)\n\n", rec, re.M | re.S)
        if value: assert row[name] == value.group(1).strip(), (name, row[name], value.group(1))
PY
# Enantiomers get the same gap with the bundled model (its target is mirror-invariant): L/D-alanine,
# R/S-nicotine, and ephedrine's two stereocentres, each written differently from its mirror image;
# pseudoephedrine (a diastereomer) stays different.
printf 'N[C@@H](C)C(=O)O L-ala\nC[C@@H](N)C(=O)O D-ala\nCN1CCC[C@H]1c1cccnc1 S-nicotine\nc1ncccc1[C@H]1CCCN1C R-nicotine\nC[C@H](NC)[C@@H](O)c1ccccc1 ephedrine\nCN[C@H](C)[C@H](O)c1ccccc1 ent-ephedrine\nO[C@H]([C@@H](C)NC)c1ccccc1 pseudoephedrine\n' > "$tmp/enantiomers.smi"
"$cli" predict --input "$tmp/enantiomers.smi" --output "$tmp/enantiomers.csv" --quiet 2>/dev/null
python3 - "$tmp/enantiomers.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert all(r["status"] == "ok" for r in rows), rows
canon = [r["canonical_smiles"] for r in rows]
for i in (0, 2, 4):
    a, b = rows[i], rows[i + 1]
    assert canon[i] != canon[i + 1], "the pair are different molecules"
    for col in ("gap_ev", "gap_ev_lower", "gap_ev_upper"):
        assert abs(float(a[col]) - float(b[col])) < 1e-4, (a["id"], b["id"], col, a[col], b[col])
# A diastereomer is another molecule: not averaged with ephedrine.
assert abs(float(rows[6]["gap_ev"]) - float(rows[4]["gap_ev"])) > 1e-5, rows[6]
PY
grep -q '"mirror_averaged":true' "$tmp/enantiomers.csv.json" || { cat "$tmp/enantiomers.csv.json"; exit 1; }
echo "predict CLI: all checks passed"

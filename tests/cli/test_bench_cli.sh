#!/usr/bin/env bash
# graphormer-cli bench: the comparison table and JSON for a few modes on the bundled model.
set -euo pipefail
cli=$1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
head -40 /usr/share/RDKit/Data/NCI/first_5K.smi > "$tmp/m.smi"
echo "C1CC broken" >> "$tmp/m.smi"
"$cli" bench --input "$tmp/m.smi" --modes fp32,bf16+bs=8,fp32+ckpt=1 --repeats 1 --json "$tmp/b.json" --csv "$tmp/b.csv" \
    > "$tmp/out.txt" 2> "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
grep -q "40 molecules of 41 rows" "$tmp/out.txt" || { cat "$tmp/out.txt"; exit 1; }
for m in "fp32+bs=32" "bf16+bs=8" "fp32+ckpt=1+bs=32"; do grep -q "^$m " "$tmp/out.txt" || { cat "$tmp/out.txt"; exit 1; }; done
python3 - "$tmp/b.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))
assert [r["mode"] for r in rows] == ["fp32+bs=32", "bf16+bs=8", "fp32+ckpt=1+bs=32"], rows
for r in rows:
    for k in ("precision", "checkpoint_ratio", "batch_size", "workload", "ms_per_molecule", "molecules_per_s",
              "peak_tensor_bytes", "peak_rss_bytes", "max_abs_delta", "mean_abs_delta"):
        assert k in r, k
    assert r["workload"] == "inference" and r["peak_tensor_bytes"] > 0 and r["molecules_per_s"] > 0
assert rows[0]["max_abs_delta"] == 0 and rows[2]["max_abs_delta"] == 0   # fp32 against itself
assert 0 < rows[1]["max_abs_delta"] < 0.5                               # bf16 differs, a little
PY
[ "$(wc -l < "$tmp/b.csv")" -eq 4 ] || { cat "$tmp/b.csv"; exit 1; }
# Train workload: int8 is refused with its reason, the others run.
"$cli" bench --input "$tmp/m.smi" --modes fp32,int8 --workload train --repeats 1 --quiet > "$tmp/t.txt"
grep -q "int8+bs=32 .*unavailable: int8 weights have no gradients" "$tmp/t.txt" || { cat "$tmp/t.txt"; exit 1; }
if "$cli" bench --input "$tmp/m.smi" --modes fp32+ckpt=3 2> "$tmp/e.txt"; then echo "bad mode accepted"; exit 1; fi
grep -q "cannot read 'ckpt=3'" "$tmp/e.txt" || { cat "$tmp/e.txt"; exit 1; }
echo "bench CLI: all checks passed"

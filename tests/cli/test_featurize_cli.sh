#!/usr/bin/env bash
# graphormer-cli featurize end to end: one output row per input row, in order, with statuses.
set -euo pipefail
cli=$1; data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

"$cli" featurize --input "$data/bad_input.smi" > "$tmp/table.tsv" 2> "$tmp/err.txt"
statuses=$(tail -n +2 "$tmp/table.tsv" | cut -f3 | tr '\n' ' ')
expected="ok empty empty syntax_error chemistry_error syntax_error chemistry_error too_many_atoms syntax_error ok ok "
[ "$statuses" = "$expected" ] || { echo "statuses: '$statuses' expected '$expected'"; exit 1; }
grep -q "11 rows" "$tmp/err.txt" || { echo "summary missing: $(cat "$tmp/err.txt")"; exit 1; }
if grep -q "SMILES Parse Error" "$tmp/err.txt"; then echo "RDKit log leaked to stderr"; exit 1; fi

"$cli" featurize --input "$data/messy.csv" > "$tmp/csv.tsv" 2>/dev/null
csv=$(tail -n +2 "$tmp/csv.tsv" | cut -f2,3 | tr '\t\n' ':|')
[ "$csv" = "ethanol, absolute:ok|short:malformed_record|quoted \"x\":ok|too:malformed_record|last:ok|" ] || { echo "csv: $csv"; exit 1; }

"$cli" featurize --input "$data/graphormer-reference/molecules.smi" --json --convention hf --atom-order as-written > "$tmp/f.jsonl"
[ "$(wc -l < "$tmp/f.jsonl")" -eq 64 ] || { echo "expected 64 JSON rows"; exit 1; }
cmp <(python3 -c 'import json,sys
for l in open(sys.argv[1]):
  r=json.loads(l); print(json.dumps({k:r[k] for k in ("smiles","num_nodes","node_feat","edge_index","edge_attr","hf_input_nodes","hf_in_degree","hf_spatial_pos","hf_attn_edge_type","hf_input_edges")}, sort_keys=True))' "$tmp/f.jsonl") \
    <(python3 -c 'import json,sys
for l in open(sys.argv[1]):
  r=json.loads(l); print(json.dumps(r, sort_keys=True))' "$data/graphormer-reference/features.jsonl") \
  || { echo "JSON differs from the reference fixture"; exit 1; }

if "$cli" featurize --input "$tmp/missing.smi" 2> "$tmp/e2.txt"; then echo "missing file accepted"; exit 1; fi
grep -q "cannot open" "$tmp/e2.txt"
if "$cli" featurize --input x.xyz 2> "$tmp/e3.txt"; then echo "bad extension accepted"; exit 1; fi
grep -q "unknown file type" "$tmp/e3.txt"
echo "featurize CLI: all checks passed"

#!/usr/bin/env bash
# data/label_xtb.py end to end on a small set: every row gets a row in input order with a status,
# and a run killed with SIGKILL (its journal's last member cut short, as a kill mid-write leaves it)
# resumes without labelling any molecule twice and gives the same labels as an uninterrupted run.
set -euo pipefail
script=$(cd "$(dirname "$0")/../.." && pwd)/data/label_xtb.py
py=/usr/bin/python3  # Debian's, with python3-rdkit
work=$(mktemp -d)
trap 'kill -9 -- -"${pid:-0}" 2>/dev/null || true; rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cat > "$work/in.smi" <<'SMI'
smiles id
CC(=O)Nc1ccc(O)cc1 paracetamol
C1CC not_a_smiles
[Na+].[Cl-] salt
c1ccc2ccccc2c1 naphthalene
CCN(CC)CC triethylamine
OC(=O)c1ccccc1O salicylic_acid
CC(=O)Nc1ccc(O)cc1 paracetamol_again
Clc1ccc(cc1)C(c1ccccc1)N1CCNCC1 norchlorcyclizine
O=C1CCCCC1 cyclohexanone
CCCCCCCCO octanol
c1ccncc1 pyridine
N#Cc1ccccc1 benzonitrile
CC(C)Cc1ccc(cc1)C(C)C(=O)O ibuprofen
SMI
unique=12  # 13 rows: one SMILES twice
journal_count() {
  "$py" -c "import sys; sys.path.insert(0, '$(dirname "$script")'); import label_xtb as l; print(len(l.read_journal(sys.argv[1])[0]))" "$1"
}

"$py" "$script" "$work/in.smi" "$work/ref.csv" --workers 2 2> "$work/ref.log" || fail "reference run: $(cat "$work/ref.log")"
[ "$(wc -l < "$work/ref.csv")" -eq 14 ] || fail "expected a header and 13 rows"
cut -d, -f1 "$work/ref.csv" | tail -n +2 | diff - <(tail -n +2 "$work/in.smi" | cut -d' ' -f1) \
  || fail "output rows are not the input rows in order"
cut -d, -f2 "$work/ref.csv" | sed -n '3p;4p' | tr '\n' ' ' | grep -qx "rdkit_parse_error skipped_multi_fragment " \
  || fail "bad rows do not carry their reason: $(sed -n '3,4p' "$work/ref.csv")"
[ "$(grep -c ',ok,' "$work/ref.csv")" -eq 11 ] || fail "expected 11 ok rows: $(cat "$work/ref.csv")"

# Killed as soon as the first molecule is in the journal.
setsid "$py" "$script" "$work/in.smi" "$work/out.csv" --workers 1 --flush-every 1 2> "$work/run1.log" &
pid=$!
for _ in $(seq 1 600); do
  [ -s "$work/out.csv.journal" ] && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.05
done
kill -9 -- -"$pid" 2>/dev/null || fail "the run ended before it could be killed"
wait "$pid" 2>/dev/null || true
[ ! -e "$work/out.csv" ] || fail "a killed run left an output file"
before=$(journal_count "$work/out.csv.journal")
[ "$before" -ge 1 ] && [ "$before" -lt "$unique" ] || fail "journal holds $before molecules"
printf '\037\213\010\000garbage' >> "$work/out.csv.journal"   # a member cut short

"$py" "$script" "$work/in.smi" "$work/out.csv" --workers 2 2> "$work/run2.log" || fail "resume: $(cat "$work/run2.log")"
grep -q "$before in the journal, $(( unique - before )) to label" "$work/run2.log" \
  || fail "resume did not skip the labelled molecules: $(head -1 "$work/run2.log")"
records=$(gzip -dc "$work/out.csv.journal" | wc -l)
[ "$records" -eq "$unique" ] || fail "journal holds $records records for $unique molecules"
"$py" - "$work/ref.csv" "$work/out.csv" <<'PY' || fail "resumed labels differ from the uninterrupted run"
import csv, sys
ref, out = (list(csv.DictReader(open(p))) for p in sys.argv[1:])
assert len(ref) == len(out)
for a, b in zip(ref, out):
    assert a["smiles"] == b["smiles"] and a["status"] == b["status"], (a, b)
    for k in a:
        if k not in ("smiles", "status", "seconds") and a[k]:
            assert abs(float(a[k]) - float(b[k])) <= 1e-3 * max(1.0, abs(float(a[k]))), (k, a[k], b[k])
PY
echo "label_xtb: $unique molecules, killed after $before, resumed; labels match the uninterrupted run"

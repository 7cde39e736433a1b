# Screening test inputs (sourced): make_screen_inputs DIR ROWS writes DIR/lib.smi, lib.smi.gz, a
# quoted CRLF lib.csv (multi-line fields) and lib.sdf: RDKit NCI rows with invalid rows and a
# 1,200-atom chain in the middle (the SDF: NCI's first 200 repeated, plus a broken record).
make_screen_inputs() {
  local tmp=$1 rows=$2 nci=/usr/share/RDKit/Data/NCI half huge
  half=$((rows / 2))
  huge=$(printf 'C%.0s' $(seq 1 1200))
  { head -n "$half" "$nci/first_5K.smi"; echo "not_a_smiles bad_syntax"; echo ""; echo "C1CC open_ring"
    echo "$huge huge"; sed -n "$((half + 1)),$((rows - 4))p" "$nci/first_5K.smi"; } > "$tmp/lib.smi"
  gzip -c "$tmp/lib.smi" > "$tmp/lib.smi.gz"
  python3 - "$tmp/lib.smi" "$tmp/lib.csv" <<'PY'
import csv, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w", newline="") as out:
    w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
    w.writerow(["name", "note", "SMILES"])
    for i, line in enumerate(f):
        parts = line.rstrip("\n").split(maxsplit=1)
        smi = parts[0] if parts else ""
        name = parts[1] if len(parts) > 1 else ""
        note = 'a "quoted", multi\nline note' if i % 97 == 0 else "plain, with comma"
        w.writerow([name, note, smi])
PY
  for i in $(seq 1 $(( (rows + 199) / 200 ))); do cat "$nci/first_200.props.sdf"; done > "$tmp/lib.sdf"
  printf 'broken\n  no counts line\n\nM  END\n$$$$\n' >> "$tmp/lib.sdf"
}

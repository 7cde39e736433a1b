#!/usr/bin/env bash
# No command writes over a file it reads: an output that is the input (same path, a symbolic link,
# a hard link, another spelling of the path), a side file that would land on the input, or the
# model's own files is refused before anything is read, with a message, and the file stays
# byte-identical. Covers predict, explain, bench and train.
set -euo pipefail
cli=$1; data=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
model="$data/graphormer-reference/postln"
cp -r "$model" "$tmp/model"
printf 'CCO ethanol\nc1ccccc1O phenol\nC1CC broken\n' > "$tmp/in.smi"
{ echo "smiles,y"; printf 'CCO,1\nCCN,2\nCCC,3\nCCCl,4\nc1ccccc1,5\nCC(=O)O,6\n'; } > "$tmp/data.csv"
ln -s "$tmp/in.smi" "$tmp/link.smi"
ln "$tmp/in.smi" "$tmp/hard.smi"
listing() { ls -AR "$tmp" | grep -vE '^(out|err)\.txt$'; }
sums() { sha256sum "$tmp/in.smi" "$tmp/data.csv" "$tmp/model/"* | sha256sum; }
before=$(sums)

# refuse NAME EXPECTED-WORDS -- command...: must exit non-zero, say EXPECTED-WORDS, change nothing.
refuse() {
  local name=$1 words=$2 files; shift 3
  files=$(listing)
  if "$cli" "$@" > "$tmp/out.txt" 2> "$tmp/err.txt"; then echo "$name: accepted"; exit 1; fi
  grep -q "refusing to write" "$tmp/err.txt" || { echo "$name: no refusal message"; cat "$tmp/err.txt"; exit 1; }
  grep -qF "$words" "$tmp/err.txt" || { echo "$name: message does not name '$words'"; cat "$tmp/err.txt"; exit 1; }
  [ "$(sums)" = "$before" ] || { echo "$name: an input changed"; exit 1; }
  [ "$(listing)" = "$files" ] || { echo "$name: files appeared: $(listing)"; exit 1; }
}
refuse "predict same path" "$tmp/in.smi" -- predict --model "$model" --input "$tmp/in.smi" --output "$tmp/in.smi"
refuse "predict symlink" "$tmp/link.smi" -- predict --model "$model" --input "$tmp/in.smi" --output "$tmp/link.smi"
refuse "predict hard link" "$tmp/hard.smi" -- predict --model "$model" --input "$tmp/in.smi" --output "$tmp/hard.smi"
refuse "predict other spelling" "in.smi" -- predict --model "$model" --input "$tmp/in.smi" --output "$tmp/./../$(basename "$tmp")/in.smi"
refuse "predict input via symlink" "$tmp/in.smi" -- predict --model "$model" --input "$tmp/link.smi" --output "$tmp/in.smi"
cp "$tmp/in.smi" "$tmp/p.csv.json"  # the run record would land on an input
refuse "predict run record" "p.csv.json" -- predict --model "$model" --input "$tmp/p.csv.json" --output "$tmp/p.csv"
rm "$tmp/p.csv.json"
refuse "predict model weights" "model.safetensors" -- predict --model "$tmp/model" --input "$tmp/in.smi" --output "$tmp/model/model.safetensors"
refuse "predict model config" "config.json" -- predict --model "$tmp/model" --input "$tmp/in.smi" --output "$tmp/model/config.json"
refuse "explain" "$tmp/in.smi" -- explain --model "$model" --input "$tmp/in.smi" --output "$tmp/in.smi" --steps 4
refuse "explain symlink" "$tmp/link.smi" -- explain --model "$model" --input "$tmp/in.smi" --output "$tmp/link.smi" --steps 4
refuse "bench json" "$tmp/in.smi" -- bench --model "$model" --input "$tmp/in.smi" --json "$tmp/in.smi" --modes fp32 --repeats 1
refuse "bench csv symlink" "$tmp/link.smi" -- bench --model "$model" --input "$tmp/in.smi" --csv "$tmp/link.smi" --modes fp32 --repeats 1
# train: the data file inside the output directory under a name train writes, and the base model.
cp "$tmp/data.csv" "$tmp/model/split.csv"; before=$(sums)
refuse "train data as split.csv" "split.csv" -- train --input "$tmp/model/split.csv" --targets y --output "$tmp/model" --epochs 1 \
    --layers 1 --dim 8 --heads 1 --ffn 8
refuse "train over its base model" "model.safetensors" -- train --model "$tmp/model" --input "$tmp/data.csv" --targets y \
    --output "$tmp/model" --epochs 1

# An output directory that is a file: a clear error, the file kept.
if "$cli" train --input "$tmp/data.csv" --targets y --output "$tmp/in.smi" --epochs 1 --layers 1 --dim 8 --heads 1 --ffn 8 \
    2> "$tmp/err.txt"; then echo "train into a file accepted"; exit 1; fi
grep -q "cannot create the output directory" "$tmp/err.txt" || { cat "$tmp/err.txt"; exit 1; }
[ "$(sums)" = "$before" ] || { echo "train into a file changed it"; exit 1; }

# Distinct outputs still work, and a second run may replace its own earlier output.
"$cli" predict --model "$model" --input "$tmp/link.smi" --output "$tmp/p.csv" --quiet 2>/dev/null
"$cli" predict --model "$model" --input "$tmp/link.smi" --output "$tmp/p.csv" --quiet 2>/dev/null
[ "$(tail -n +2 "$tmp/p.csv" | wc -l)" -eq 3 ] || { cat "$tmp/p.csv"; exit 1; }
[ "$(sums)" = "$before" ] || { echo "an input changed"; exit 1; }
echo "output guard CLI: all checks passed"

#!/usr/bin/env bash
# The prediction server under load on this machine, with the default model: server pinned to
# CPU 0 (one intra-op thread, one worker), the load generator (bench/serve_load.cpp) to CPU 1.
# Prints: in-process predict on the same molecules; closed-loop throughput at concurrency 1
# (batching off) and 1/4/16/64 (batching on) with molecules per forward pass and server efficiency
# (server molecules/s / predict molecules/s); open-loop latency at 50 % and 90 % of capacity; 2x
# capacity (429 share and latency, 5xx, goodput); a soak of SOAK requests (RSS, files, threads);
# hostile and slow clients while a well-behaved client measures its p99 against its baseline.
#   bash bench/serve_bench.sh [BUILD=build] [SOAK=20000] [SECONDS=15]
set -euo pipefail
build=$(realpath "${1:-build}")
soak=${2:-20000}
secs=${3:-15}
cli=$build/app/graphormer-cli
load=$build/bench/serve_load
[ -x "$load" ] || cmake --build "$build" --target serve_load graphormer-cli
work=$(mktemp -d "${TMPDIR:-/tmp}/serve-bench.XXXXXX")
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
key=bench-key-0123456789abcdef
echo "$key" > "$work/keys"
head -n 2000 /usr/share/RDKit/Data/NCI/first_5K.smi > "$work/mols.smi"
here=$(dirname "$0")

start_server() {  # extra serve flags
  rm -f "$work/port"
  taskset -c 0 "$cli" serve --listen 127.0.0.1:0 --port-file "$work/port" --threads 1 --workers 1 \
    --api-keys "$work/keys" --queue-molecules 128 "$@" 2>> "$work/server.log" &
  server=$!
  for _ in $(seq 600); do
    [ -s "$work/port" ] && curl_ready && return 0
    sleep 0.1
  done
  echo "server did not start" >&2; tail -5 "$work/server.log" >&2; exit 1
}
curl_ready() { python3 -c "import http.client,sys; c=http.client.HTTPConnection('127.0.0.1',$(cat "$work/port"),timeout=2); c.request('GET','/v2/health/ready'); sys.exit(c.getresponse().status!=200)" 2>/dev/null; }
stop_server() { kill -TERM "$server"; wait "$server" || true; server=""; }
run_load() { taskset -c 1 "$load" --port "$(cat "$work/port")" --key "$key" --smiles "$work/mols.smi" "$@"; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

t0=$(date +%s.%N)
taskset -c 0 "$cli" predict --threads 1 --batch-size 64 --input "$work/mols.smi" --output "$work/p.csv" --quiet 2> /dev/null
predict_rate=$(python3 -c "import sys; print(f'{2000 / (float(sys.argv[2]) - float(sys.argv[1])):.1f}')" "$t0" "$(date +%s.%N)")
echo "in-process predict (CPU 0, 1 thread, batch 64, trust on), 2000 NCI molecules: $predict_rate molecules/s"

echo "| load | requests | molecules/s | efficiency | molecules/pass | p50 ms | p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row() {  # label, serve_load output
  local g; g=$(echo "$2" | field goodput_mol_s)
  printf '| %s | %s | %.1f | %.2f | %.1f | %.1f | %.1f |\n' "$1" "$(echo "$2" | field requests)" "$g" \
    "$(python3 -c "print($g / $predict_rate)")" "$(echo "$2" | field molecules_per_pass)" \
    "$(echo "$2" | field p50_ms)" "$(echo "$2" | field p99_ms)"
}
start_server --batch-size 1 --max-queue-delay-ms 0
row "concurrency 1, batching off" "$(run_load closed --concurrency 1 --requests 600)"
stop_server
start_server
capacity=0
for c in 1 4 16 64; do
  out=$(run_load closed --concurrency $c --requests $((c < 16 ? 600 : 2000)))
  row "concurrency $c, batching on" "$out"
  capacity=$(echo "$out" | field goodput_mol_s)
done

echo
echo "open loop (latency from the scheduled send time), capacity = $capacity molecules/s (concurrency 64):"
echo "| offered | requests | ok | 429 | 5xx | goodput molecules/s | p50 ms | p95 ms | p99 ms | p99 of 429s ms |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for f in 0.5 0.9 2.0; do
  rate=$(python3 -c "print($capacity * $f)")
  out=$(run_load open --rate "$rate" --seconds "$secs" --connections 384)
  printf '| %s x capacity | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$f" "$(echo "$out" | field requests)" \
    "$(echo "$out" | field ok)" "$(echo "$out" | field r429)" "$(echo "$out" | field r5xx)" "$(echo "$out" | field goodput_mol_s)" \
    "$(echo "$out" | field p50_ms)" "$(echo "$out" | field p95_ms)" "$(echo "$out" | field p99_ms)" "$(echo "$out" | field p99_429_ms)"
done

echo
echo "soak: $soak one-molecule requests at concurrency 16"
run_load soak --concurrency 16 --requests "$soak" --pid "$server"

echo
echo "hostile and slow clients (a well-behaved client at concurrency 1 meanwhile):"
base=$(run_load closed --concurrency 1 --requests 300)
echo "baseline: p50 $(echo "$base" | field p50_ms) ms, p99 $(echo "$base" | field p99_ms) ms"
python3 "$here/serve_attacks.py" "$(cat "$work/port")" "$key" "${ATTACK_SECONDS:-40}" &
attacks=$!
during=$(run_load closed --concurrency 1 --requests "${ATTACK_REQUESTS:-4000}")
wait $attacks
echo "during the attacks: p50 $(echo "$during" | field p50_ms) ms, p99 $(echo "$during" | field p99_ms) ms," \
     "ok $(echo "$during" | field ok), errors $(echo "$during" | field conn_errors)"
live=$(python3 -c "import http.client; c=http.client.HTTPConnection('127.0.0.1',$(cat "$work/port"),timeout=5); c.request('GET','/v2/health/live'); print(c.getresponse().status)")
echo "server live afterwards: HTTP $live"
stop_server

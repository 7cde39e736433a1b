#!/usr/bin/env bash
# Builds everything and runs every test: the release build (ctest), then core + CLI again under
# AddressSanitizer + UBSan (the fuzz target, bad-input and reader tests included).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
jobs=$(nproc)
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$jobs"
ctest --test-dir build --output-on-failure -j "$jobs"
# Under ASan every test runs again except the TPSA training run (a minute in release, several under
# ASan; the trainer's code paths are covered there by test_model's Trainer/LossScaler tests) and
# the two evaluations over the whole xTB gap set (the evaluate path runs under ASan in cli.train), and
# the cluster test (real Slurm and MPI daemons; its shards run the worker code cli.screen covers).
if [ "${GRAPHORMER_SKIP_ASAN:-0}" != "1" ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAPHORMER_SANITIZE=ON \
        -DGRAPHORMER_BUILD_GUI=OFF -DGRAPHORMER_BUILD_BENCH=OFF
  cmake --build build-asan -j "$jobs"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j "$jobs" -E '^(TrainTpsa|DefaultModel|Evaluate)\.|^cli\.screen_cluster$'
fi

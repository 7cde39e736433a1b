#!/usr/bin/env bash
# Builds everything and runs every test (docs/TESTING.md), in two passes:
#   1. the release build and all its tests (ctest; labels unit, model, gui, e2e, cluster, slow);
#   2. AddressSanitizer + UBSan over the code that reads untrusted input: a build of the libraries,
#      graphormer-cli and the tests labelled `sanitize` only (readers, compression, JSON, the
#      unpickler, safetensors and trust files, receipts, HTTP request decoding and the server end to
#      end, the fuzz targets for a fixed time each). GRAPHORMER_SKIP_ASAN=1 skips it.
# Prints the wall time of each phase ("test.sh: phase NAME: N s") and the slowest tests of each pass.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
phase_start=$(date +%s)
phase() {  # NAME: the phase that just ended
  local now; now=$(date +%s)
  echo "test.sh: phase $1: $(( now - phase_start )) s"
  phase_start=$now
}
slowest() {  # LOG: the 15 slowest tests of a ctest run
  echo "test.sh: the 15 slowest tests of $1:"
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.+ *\**([A-Za-z ]+) +([0-9.]+) sec$/\3 \1 (\2)/p' "$1" \
    | sort -rn | awk 'NR <= 15 {printf "  %8.2f s  %s %s\n", $1, $2, $3}'
  # awk reads to the end: `head` would close the pipe early, sort would die of SIGPIPE (141) and,
  # under pipefail, end the whole test command after a passing ctest.
}
run_ctest() {  # LOG CTEST-ARGS...: ctest, its output also kept in LOG; returns ctest's status
  local log=$1 rc
  shift
  mkdir -p "$(dirname "$log")"
  ctest "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  return "$rc"
}
bash scripts/setup-deps.sh
phase apt
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
phase configure
cmake --build build -j "$jobs"
phase build
status=0
run_ctest build/Testing/ctest-release.log --test-dir build --output-on-failure -j "$jobs" || status=$?
phase ctest
slowest build/Testing/ctest-release.log
[ "$status" -eq 0 ] || exit "$status"
if [ "${GRAPHORMER_SKIP_ASAN:-0}" != "1" ]; then
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRAPHORMER_SANITIZE=ON \
        -DGRAPHORMER_BUILD_GUI=OFF -DGRAPHORMER_BUILD_BENCH=OFF
  cmake --build build-asan -j "$jobs"
  phase sanitizer-build
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    run_ctest build-asan/Testing/ctest-sanitize.log --test-dir build-asan --output-on-failure -j "$jobs" -L sanitize \
    || status=$?
  phase sanitizer-tests
  slowest build-asan/Testing/ctest-sanitize.log
  exit "$status"
fi

#!/usr/bin/env bash
# Builds Graphormer Studio and starts it. Until the desktop app lands, this runs the CLI on the
# bundled example file; on a machine without a display it prints how to use the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build -j "$(nproc)" --target graphormer-cli
example=resources/examples/quickstart.smi
echo "== graphormer-cli featurize --input $example"
./build/app/graphormer-cli featurize --input "$example"
cat <<MSG

The desktop application is not built yet; the headless CLI is available now:
  ./build/app/graphormer-cli featurize --input FILE.smi|.csv|.sdf [--json] [--convention official|hf]
  ./build/app/graphormer-cli --help
MSG

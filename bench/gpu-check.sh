#!/usr/bin/env bash
# The GPU figures in one command per side.
#   bash bench/gpu-check.sh prepare [N=2000]   (this machine: RDKit) featurizes N NCI molecules into
#                                              gpu-input/molecules.jsonl with graphormer-cli
#   bash bench/gpu-check.sh device [OUT=$OUT]  (the GPU machine: PyTorch 2.x with CUDA, no RDKit or
#                                              Qt) builds the RDKit-free part against PyTorch's
#                                              LibTorch, runs bench/gpu_check on cuda and writes
#                                              gpu-check.json (+ build and run logs) to OUT
# gpu_check runs engine::runComparison: inference in FP32/BF16/FP16 at batch 32/128/512 and a
# training step in each precision at checkpoint ratios 0/0.5/1 (batch 64): molecules/s, peak CUDA
# allocator memory, device memory (NVML) and |Δ| against FP32. docs/PERFORMANCE.md has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  prepare)
    n=${2:-2000}
    cli=${CLI:-build/app/graphormer-cli}
    mkdir -p gpu-input
    head -n "$n" /usr/share/RDKit/Data/NCI/first_5K.smi > gpu-input/molecules.smi
    "$cli" featurize --input gpu-input/molecules.smi --json 2> /dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    print(json.dumps({k: r[k] for k in ("status", "node_feat", "edge_index", "edge_attr") if k in r}, separators=(",", ":")))
' > gpu-input/molecules.jsonl
    echo "gpu-input/molecules.jsonl: $(wc -l < gpu-input/molecules.jsonl) molecules, $(du -h gpu-input/molecules.jsonl | cut -f1)"
    ;;
  device)
    out=${2:-${OUT:?set OUT or pass a directory}}
    mkdir -p "$out"
    prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
    abi=$(python3 -c 'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))' | tee "$out/versions.txt"
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >> "$out/versions.txt" 2>&1 || true
    generator=(); command -v ninja > /dev/null && generator=(-G Ninja)
    if ! cmake -S . -B build-gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" \
         -DGRAPHORMER_BUILD_CHEM=OFF -DGRAPHORMER_BUILD_GUI=OFF -DGRAPHORMER_BUILD_TESTS=OFF \
         -DCMAKE_CXX_FLAGS="-D_GLIBCXX_USE_CXX11_ABI=$abi" > "$out/configure.log" 2>&1; then
      tail -30 "$out/configure.log"; exit 1
    fi
    keep=(); [ ${#generator[@]} -gt 0 ] && keep=(-- -k 0)  # every compile error at once
    if ! cmake --build build-gpu --target gpu_check -j "$(nproc)" "${keep[@]}" > "$out/build.log" 2>&1; then
      grep -E "error|FAILED" "$out/build.log" | head -60 || tail -40 "$out/build.log"; exit 1
    fi
    timeout "${GPU_CHECK_SECONDS:-360}" build-gpu/bench/gpu_check --model resources/models/accurate \
      --molecules gpu-input/molecules.jsonl --out "$out/gpu-check.json" --device cuda 2>&1 | tee "$out/run.log"
    ;;
  *)
    echo "usage: bash bench/gpu-check.sh prepare [N] | device [OUT]" >&2; exit 2 ;;
esac

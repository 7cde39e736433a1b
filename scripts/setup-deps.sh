#!/usr/bin/env bash
# Installs every Debian 12 package Graphormer Studio needs to build, test and run, and nothing is
# assumed beyond them (the README lists them). Idempotent: packages already present are skipped.
# Needs root or sudo.
set -euo pipefail
PKGS=(
  # tool chain
  build-essential cmake ninja-build pkg-config git python3
  # LibTorch, and OpenBLAS as the libblas.so.3 it loads (the reference BLAS is ~40x slower);
  # libopenblas-dev gives the libblas.so link-time name core/ links for its attention kernels
  libtorch-dev libopenblas0-pthread libopenblas-dev
  # RDKit and the Boost/Eigen headers its headers include
  librdkit-dev rdkit-data libboost-dev libboost-serialization-dev libboost-iostreams-dev
  libboost-system-dev libboost-program-options-dev libeigen3-dev libfreetype-dev
  # compressed inputs and outputs (.gz, .bz2, .zst) and SQLite hit lists
  zlib1g-dev libbz2-dev libzstd-dev libsqlite3-dev
  # screening on a cluster: MPI, and a single-node Slurm the tests start themselves
  openmpi-bin libopenmpi-dev slurm-wlm munge
  # the data scripts (data/: BRICS sets, xTB labels) and their test
  python3-rdkit xtb libinchi-bin
  # tests
  libgtest-dev libgmock-dev nlohmann-json3-dev
  # desktop app, and an X server for running it (and its tests' screenshots) without a display
  qt6-base-dev qt6-svg-dev libqcustomplot-dev
  xvfb xauth
)
# scripts/package.sh --packaging: the tools that build and check the Debian packages too.
if [ "${1:-}" = "--packaging" ]; then
  PKGS+=(dpkg-dev file lintian desktop-file-utils appstream)
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-deps: all packages present"
else
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
  echo "setup-deps: installed ${missing[*]}"
fi
# LibTorch links libblas.so.3: make sure the OpenBLAS pthread build is the one chosen (another BLAS
# installed later, e.g. the reference one, may have taken the alternative).
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
for alt in libblas.so.3 liblapack.so.3 libblas.so liblapack.so; do
  name="$alt-$multiarch"
  cand=$(update-alternatives --list "$name" 2>/dev/null | grep openblas-pthread | head -1 || true)
  [ -n "$cand" ] || continue
  [ "$(readlink -f "/etc/alternatives/$name" 2>/dev/null)" = "$(readlink -f "$cand")" ] && continue
  $SUDO update-alternatives --set "$name" "$cand" >/dev/null
  echo "setup-deps: $name -> $cand"
done
